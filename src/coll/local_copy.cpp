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

std::byte* packed_scratch(Schedule& s, const void* src, std::size_t count, const ftmpi_datatype_s* type) {
  const std::size_t bytes = dt::packed_size(type, count);
  std::byte* buf = s.scratch(bytes);
  if (bytes == 0) return buf;
  if (type->contiguous) {
    std::memcpy(buf, src, bytes);
  } else {
    dt::pack(src, count, type, buf);
  }
  return buf;
}

}  // namespace ftmpi::coll
