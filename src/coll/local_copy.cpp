// Local data movement for collectives (see local_copy.h).
#include "coll/local_copy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ftmpi::coll {

namespace {

// The bytes [lo, hi) `count` elements of `type` at `base` may touch.
struct Span {
  std::uintptr_t lo, hi;
};
Span span_of(const void* base, std::size_t count, const ftmpi_datatype_s* type) {
  const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(count - 1) * type->extent;
  const auto at = reinterpret_cast<std::uintptr_t>(base);
  const std::ptrdiff_t lo = type->true_lb + std::min<std::ptrdiff_t>(0, last);
  const std::ptrdiff_t hi = type->true_lb + type->true_extent + std::max<std::ptrdiff_t>(0, last);
  return Span{at + static_cast<std::uintptr_t>(lo), at + static_cast<std::uintptr_t>(hi)};
}

constexpr std::size_t kBounce = 64 * 1024;  // bytes moved per step between two non-contiguous layouts

}  // namespace

void copy_typed(const void* src, std::size_t scount, const ftmpi_datatype_s* stype, void* dst, std::size_t rcount,
                const ftmpi_datatype_s* rtype) {
  const std::size_t bytes = std::min(dt::packed_size(stype, scount), dt::packed_size(rtype, rcount));
  if (bytes == 0) return;
  if (stype->contiguous && rtype->contiguous) {
    std::memmove(dst, src, bytes);
    return;
  }
  const Span s = span_of(src, scount, stype), d = span_of(dst, rcount, rtype);
  if (s.lo < d.hi && d.lo < s.hi) {  // overlapping buffers: read everything before writing
    std::vector<std::byte> packed(dt::packed_size(stype, scount));
    dt::pack(src, scount, stype, packed.data());
    dt::unpack(packed.data(), bytes, rtype, dst);
    return;
  }
  if (stype->contiguous) return dt::unpack(src, bytes, rtype, dst);
  if (rtype->contiguous) return dt::pack_range(src, stype, 0, bytes, dst);
  // Both typed: through a bounded bounce buffer, so the scratch does not grow with the message.
  std::vector<std::byte> bounce(std::min(bytes, kBounce));
  for (std::size_t off = 0; off < bytes;) {
    const std::size_t n = std::min(kBounce, bytes - off);
    dt::pack_range(src, stype, off, n, bounce.data());
    dt::unpack_range(bounce.data(), rtype, off, n, dst);
    off += n;
  }
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
