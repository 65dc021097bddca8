// Local data movement for collectives (see local_copy.h).
#include "coll/local_copy.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace ftmpi::coll {

void copy_typed(const void* src, std::size_t scount, const ftmpi_datatype_s* stype, void* dst, std::size_t rcount,
                const ftmpi_datatype_s* rtype) {
  const std::size_t bytes = std::min(dt::packed_size(stype, scount), dt::packed_size(rtype, rcount));
  if (bytes == 0) return;
  if (stype->contiguous && rtype->contiguous) {
    std::memmove(dst, src, bytes);
    return;
  }
  std::vector<std::byte> packed(dt::packed_size(stype, scount));
  dt::pack(src, scount, stype, packed.data());
  dt::unpack(packed.data(), bytes, rtype, dst);
}

std::size_t typed_span(std::size_t count, const ftmpi_datatype_s* type) {
  if (count == 0) return 0;
  const std::ptrdiff_t span = type->true_extent + static_cast<std::ptrdiff_t>(count - 1) * type->extent;
  return span > 0 ? static_cast<std::size_t>(span) : 0;
}

void* typed_scratch(Schedule& s, std::size_t count, const ftmpi_datatype_s* type) {
  return s.scratch(typed_span(count, type)) - type->true_lb;
}

}  // namespace ftmpi::coll
