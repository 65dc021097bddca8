// Helpers shared by the C API's datatype files (datatype.cpp, datatype_ctor.cpp, datatype_array.cpp,
// datatype_decode.cpp, pack_external.cpp).
#pragma once
#include <cstddef>
#include <initializer_list>
#include <utility>
#include <vector>

#include "api/common.h"
#include "datatype/contents.h"
#include "datatype/datatype.h"

namespace ftmpi::api {

// An error with no communicator involved: MPI_COMM_WORLD's handler applies.
inline int fail_type_call(Errc e, const char* msg, const char* fn) { return ret(nullptr, Status(e, msg), fn); }

// A live type that may describe data (not the MPI_LB/UB markers): what queries and constructors accept.
inline bool describable(const ftmpi_datatype_s* t) {
  return dt::live(t) && t->basic != dt::Basic::lb && t->basic != dt::Basic::ub;
}

// The end of every constructor: on success the new type remembers the call that made it (`how`, for
// MPI_Type_get_envelope/get_contents) and goes to *newtype; on failure the error handler runs.
inline int finish_new_type(Result<dt::Datatype*> r, dt::Contents how, MPI_Datatype* newtype, const char* fn) {
  if (!r.ok()) return ret(nullptr, r.status(), fn);
  dt::record_contents(r.value(), std::move(how));
  *newtype = r.value();
  return MPI_SUCCESS;
}

// Pack/Unpack bounds: `pos + bytes <= size` without overflow (Pos is int or MPI_Aint).
template <class Pos>
bool buffer_fits(Pos pos, std::size_t bytes, Pos size) {
  return pos >= 0 && pos <= size && bytes <= static_cast<std::size_t>(size - pos);
}

// A constructor's integer arguments in the order MPI_Type_get_contents returns them: the scalars `first`,
// then `n` entries of each array, then the scalars `last`.
inline std::vector<int> int_args(std::initializer_list<int> first, int n, std::initializer_list<const int*> arrays,
                                 std::initializer_list<int> last = {}) {
  std::vector<int> v(first);
  for (const int* a : arrays) v.insert(v.end(), a, a + n);
  v.insert(v.end(), last);
  return v;
}

// MPI_Type_create_darray's body (api/datatype_array.cpp) for int (G = int) and MPI_Count (G = long long,
// the _c form) global sizes; `large` records the call in the large form (datatype/contents.h).
template <class G>
int create_darray(int size, int rank, int ndims, const G* array_of_gsizes, const int* array_of_distribs,
                  const int* array_of_dargs, const int* array_of_psizes, int order, MPI_Datatype oldtype,
                  MPI_Datatype* newtype, bool large, const char* fn);

}  // namespace ftmpi::api
