// The stand-in types of the large-count (_c) functions (api/large_count.h).
#include "api/large_count.h"

#include "datatype/derived.h"

namespace ftmpi::api {

LargeCount::LargeCount(MPI_Count c, MPI_Datatype t, bool significant) : type(t) {
  if (!significant) return;
  if (c <= INT_MAX) {
    count = narrow_count(c);
    return;
  }
  if (!valid_type(t)) {
    status = Status(Errc::type, "invalid or uncommitted datatype");
    return;
  }
  Result<dt::Datatype*> r = dt::make_contiguous(static_cast<std::size_t>(c), t);
  if (!r.ok()) {
    status = r.status();
    return;
  }
  stand_in = r.value();
  dt::commit(stand_in);
  stand_in->alias_of = t;
  stand_in->alias_count = static_cast<std::size_t>(c);
  stand_in->name = t->name;  // what error messages name
  count = 1;
  type = stand_in;
}

LargeCount::~LargeCount() {
  if (stand_in != nullptr) (void)dt::retire(stand_in);
}

}  // namespace ftmpi::api
