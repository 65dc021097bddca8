// A copy of the few bytes of a small message without a call into the C library: the payload of a small
// frame into a shared-memory cell, out of it into a receive buffer. memcpy's call and size dispatch cost
// about as many instructions as the rest of a transport's per-frame work.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ftmpi::util {

// Copy `n` bytes from `src` to `dst` (no overlap). Up to 16 bytes: two overlapping loads and stores of
// fixed size (inline moves); beyond: memcpy.
inline void copy_small(void* dst_, const void* src_, std::size_t n) {
  auto* dst = static_cast<std::byte*>(dst_);
  const auto* src = static_cast<const std::byte*>(src_);
  if (n > 16) {
    std::memcpy(dst, src, n);
  } else if (n >= 8) {
    std::uint64_t a, b;
    std::memcpy(&a, src, 8);
    std::memcpy(&b, src + n - 8, 8);
    std::memcpy(dst, &a, 8);
    std::memcpy(dst + n - 8, &b, 8);
  } else if (n >= 4) {
    std::uint32_t a, b;
    std::memcpy(&a, src, 4);
    std::memcpy(&b, src + n - 4, 4);
    std::memcpy(dst, &a, 4);
    std::memcpy(dst + n - 4, &b, 4);
  } else if (n > 0) {
    dst[0] = src[0];
    dst[n / 2] = src[n / 2];
    dst[n - 1] = src[n - 1];
  }
}

}  // namespace ftmpi::util
