// pack / unpack: move elements between a typed layout and contiguous bytes. Contiguous types are one
// memcpy; otherwise each element's flattened blocks are copied in type-map order.
#include <cstring>

#include "datatype/datatype.h"

namespace ftmpi::dt {
namespace {

// One element with a single block (e.g. MPI_DOUBLE_INT: 12 bytes every 16): a tight strided copy.
// Fixed small lengths let the compiler turn the memcpy into plain loads/stores.
template <std::size_t Len>
void gather_fixed(const std::byte* in, std::ptrdiff_t stride, std::size_t count, std::byte* out) {
  for (std::size_t i = 0; i < count; ++i, in += stride, out += Len) std::memcpy(out, in, Len);
}
template <std::size_t Len>
void scatter_fixed(const std::byte* in, std::size_t count, std::byte* out, std::ptrdiff_t stride) {
  for (std::size_t i = 0; i < count; ++i, out += stride, in += Len) std::memcpy(out, in, Len);
}

void gather_one_block(const std::byte* in, std::ptrdiff_t stride, std::size_t len, std::size_t count,
                      std::byte* out) {
  switch (len) {
    case 4: return gather_fixed<4>(in, stride, count, out);
    case 8: return gather_fixed<8>(in, stride, count, out);
    case 12: return gather_fixed<12>(in, stride, count, out);
    case 16: return gather_fixed<16>(in, stride, count, out);
    default:
      for (std::size_t i = 0; i < count; ++i, in += stride, out += len) std::memcpy(out, in, len);
  }
}

void scatter_one_block(const std::byte* in, std::size_t len, std::size_t count, std::byte* out,
                       std::ptrdiff_t stride) {
  switch (len) {
    case 4: return scatter_fixed<4>(in, count, out, stride);
    case 8: return scatter_fixed<8>(in, count, out, stride);
    case 12: return scatter_fixed<12>(in, count, out, stride);
    case 16: return scatter_fixed<16>(in, count, out, stride);
    default:
      for (std::size_t i = 0; i < count; ++i, out += stride, in += len) std::memcpy(out, in, len);
  }
}

}  // namespace

void pack(const void* src, std::size_t count, const Datatype* t, void* dst) {
  if (count == 0 || t->size == 0) return;
  auto* in = static_cast<const std::byte*>(src);
  auto* out = static_cast<std::byte*>(dst);
  if (t->contiguous) {
    if (in != out) std::memcpy(out, in, t->size * count);
    return;
  }
  if (t->blocks.size() == 1) {
    gather_one_block(in + t->blocks[0].offset, t->extent, t->blocks[0].length, count, out);
    return;
  }
  for (std::size_t i = 0; i < count; ++i, in += t->extent) {
    for (const Block& b : t->blocks) {
      std::memcpy(out, in + b.offset, b.length);
      out += b.length;
    }
  }
}

void unpack(const void* src, std::size_t bytes, const Datatype* t, void* dst) {
  if (bytes == 0 || t->size == 0) return;
  auto* in = static_cast<const std::byte*>(src);
  auto* out = static_cast<std::byte*>(dst);
  if (t->contiguous) {
    if (in != out) std::memcpy(out, in, bytes);
    return;
  }
  const std::size_t whole = bytes / t->size;
  std::size_t rest = bytes % t->size;
  if (t->blocks.size() == 1) {
    scatter_one_block(in, t->blocks[0].length, whole, out + t->blocks[0].offset, t->extent);
    in += whole * t->size;
    out += static_cast<std::ptrdiff_t>(whole) * t->extent;
  } else {
    for (std::size_t i = 0; i < whole; ++i, out += t->extent) {
      for (const Block& b : t->blocks) {
        std::memcpy(out + b.offset, in, b.length);
        in += b.length;
      }
    }
  }
  // A short message: fill the leading blocks of one more element, the last one partially.
  for (const Block& b : t->blocks) {
    if (rest == 0) break;
    const std::size_t n = b.length < rest ? b.length : rest;
    std::memcpy(out + b.offset, in, n);
    in += n;
    rest -= n;
  }
}

bool usable(const Datatype* t) {
  return live(t) && t->committed && t->basic != Basic::lb && t->basic != Basic::ub;
}

}  // namespace ftmpi::dt
