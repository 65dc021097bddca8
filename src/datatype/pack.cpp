// pack / unpack: move elements between a typed layout and contiguous bytes. Contiguous types are one
// memcpy. Otherwise the layout's loop nest (layout.h) is walked from any packed byte offset: the segment
// holding the offset is found by binary search at each level, so starting in the middle costs
// O(depth * log segments), and the state is the recursion (O(depth)). A leaf segment (count runs of
// `length` bytes, `stride` apart) is one tight strided loop, with fixed small lengths unrolled to plain
// loads and stores.
#include <algorithm>
#include <cstring>

#include "datatype/datatype.h"
#include "datatype/layout.h"

namespace ftmpi::dt {
namespace {

// The packed side of a transfer: where the next byte goes (pack) or comes from (unpack), and how many
// bytes are still to move.
struct Cursor {
  std::byte* packed;
  std::size_t left;
};

template <bool kPack>
inline void move_bytes(std::byte* typed, std::byte* packed, std::size_t n) {
  if constexpr (kPack) {
    std::memcpy(packed, typed, n);
  } else {
    std::memcpy(typed, packed, n);
  }
}

template <bool kPack, std::size_t Len>
void strided_fixed(std::byte* typed, std::ptrdiff_t stride, std::size_t count, std::byte* packed) {
  for (std::size_t i = 0; i < count; ++i, typed += stride, packed += Len) move_bytes<kPack>(typed, packed, Len);
}

// `count` runs of `len` bytes, `stride` apart in the typed buffer, back to back in the packed one.
template <bool kPack>
inline void strided(std::byte* typed, std::ptrdiff_t stride, std::size_t len, std::size_t count, std::byte* packed) {
  switch (len) {
    case 4: return strided_fixed<kPack, 4>(typed, stride, count, packed);
    case 8: return strided_fixed<kPack, 8>(typed, stride, count, packed);
    case 12: return strided_fixed<kPack, 12>(typed, stride, count, packed);
    case 16: return strided_fixed<kPack, 16>(typed, stride, count, packed);
    default:
      for (std::size_t i = 0; i < count; ++i, typed += stride, packed += len) move_bytes<kPack>(typed, packed, len);
  }
}

template <bool kPack>
void move_layout(const Layout& l, std::byte* base, std::size_t skip, Cursor& c);

// Moves up to c.left packed bytes of a segment placed at `base`, starting `skip` packed bytes into it
// (skip < count * unit).
template <bool kPack>
void move_segment(std::ptrdiff_t disp, std::size_t count, std::ptrdiff_t stride, std::size_t length,
                  const Layout* child, std::byte* base, std::size_t skip, Cursor& c) {
  std::size_t k = 0;
  if (skip != 0) {
    const std::size_t unit = child ? child->size : length;
    k = skip / unit;
    skip %= unit;
  }
  std::byte* p = base + disp + static_cast<std::ptrdiff_t>(k) * stride;
  if (child != nullptr) {
    for (; k < count && c.left > 0; ++k, p += stride) {
      move_layout<kPack>(*child, p, skip, c);
      skip = 0;
    }
    return;
  }
  if (skip != 0) {  // finish a run begun before
    const std::size_t n = std::min(length - skip, c.left);
    move_bytes<kPack>(p + skip, c.packed, n);
    c.packed += n, c.left -= n;
    ++k, p += stride;
  }
  const std::size_t whole = std::min(count - k, c.left / length);
  strided<kPack>(p, stride, length, whole, c.packed);
  c.packed += whole * length, c.left -= whole * length;
  k += whole, p += static_cast<std::ptrdiff_t>(whole) * stride;
  if (k < count && c.left > 0) {  // the start of a run (c.left < length)
    move_bytes<kPack>(p, c.packed, c.left);
    c.packed += c.left, c.left = 0;
  }
}

template <bool kPack>
void move_layout(const Layout& l, std::byte* base, std::size_t skip, Cursor& c) {
  std::size_t i = 0;
  if (skip != 0) {
    i = static_cast<std::size_t>(std::upper_bound(l.starts.begin(), l.starts.end(), skip) - l.starts.begin()) - 1;
    skip -= l.starts[i];
  }
  for (; i < l.segs.size() && c.left > 0; ++i) {
    const Segment& s = l.segs[i];
    move_segment<kPack>(s.disp, s.count, s.stride, s.length, s.child.get(), base, skip, c);
    skip = 0;
  }
}

// Packed bytes [offset, offset + bytes) of elements of non-contiguous `t` laid out from `typed`.
template <bool kPack>
void move_elements(std::byte* typed, const Datatype* t, std::size_t offset, std::size_t bytes, std::byte* packed) {
  Cursor c{packed, bytes};
  const Layout& l = *t->layout;
  const std::size_t count = (offset + bytes + t->size - 1) / t->size;  // elements touched (an upper bound)
  if (l.segs.size() == 1) {  // one piece per element: one regular loop over all elements
    const Segment& s = l.segs[0];
    std::ptrdiff_t period = 0;
    if (s.count == 1) return move_segment<kPack>(s.disp, count, t->extent, s.length, s.child.get(), typed, offset, c);
    if (!__builtin_mul_overflow(static_cast<std::ptrdiff_t>(s.count), s.stride, &period) && period == t->extent)
      return move_segment<kPack>(s.disp, count * s.count, s.stride, s.length, s.child.get(), typed, offset, c);
  }
  if (count == 1) return move_layout<kPack>(l, typed, offset, c);
  move_segment<kPack>(0, count, t->extent, 0, &l, typed, offset, c);
}

// Whole elements of a "simple strided" type (one leaf segment: a vector of a basic type, a pair type with
// padding): no cursor, no offset arithmetic. False when `t` is not of that shape.
template <bool kPack>
inline bool move_simple(std::byte* typed, const Datatype* t, std::size_t count, std::byte* packed) {
  const Layout& l = *t->layout;
  if (l.segs.size() != 1 || l.segs[0].child != nullptr) return false;
  const Segment& s = l.segs[0];
  typed += s.disp;
  if (s.count == 1) {
    strided<kPack>(typed, t->extent, s.length, count, packed);
    return true;
  }
  const std::size_t per = s.count * s.length;
  for (std::size_t i = 0; i < count; ++i, typed += t->extent, packed += per)
    strided<kPack>(typed, s.stride, s.length, s.count, packed);
  return true;
}

}  // namespace

void pack(const void* src, std::size_t count, const Datatype* t, void* dst) {
  if (count == 0 || t->size == 0) return;
  auto* in = static_cast<std::byte*>(const_cast<void*>(src));
  auto* out = static_cast<std::byte*>(dst);
  if (t->contiguous) {
    if (in != out) std::memcpy(out, in, t->size * count);
    return;
  }
  if (move_simple<true>(in, t, count, out)) return;
  move_elements<true>(in, t, 0, t->size * count, out);
}

void unpack(const void* src, std::size_t bytes, const Datatype* t, void* dst) {
  if (bytes == 0 || t->size == 0) return;
  auto* in = static_cast<std::byte*>(const_cast<void*>(src));
  auto* out = static_cast<std::byte*>(dst);
  if (t->contiguous) {
    if (in != out) std::memcpy(out, in, bytes);
    return;
  }
  if (bytes % t->size == 0 && move_simple<false>(out, t, bytes / t->size, in)) return;
  move_elements<false>(out, t, 0, bytes, in);
}

void pack_range(const void* typed, const Datatype* t, std::size_t offset, std::size_t bytes, void* packed) {
  if (bytes == 0 || t->size == 0) return;
  auto* in = static_cast<std::byte*>(const_cast<void*>(typed));
  if (t->contiguous) {
    std::memcpy(packed, in + offset, bytes);
    return;
  }
  move_elements<true>(in, t, offset, bytes, static_cast<std::byte*>(packed));
}

void unpack_range(const void* packed, const Datatype* t, std::size_t offset, std::size_t bytes, void* typed) {
  if (bytes == 0 || t->size == 0) return;
  auto* in = static_cast<std::byte*>(const_cast<void*>(packed));
  if (t->contiguous) {
    std::memcpy(static_cast<std::byte*>(typed) + offset, in, bytes);
    return;
  }
  move_elements<false>(static_cast<std::byte*>(typed), t, offset, bytes, in);
}

std::vector<Block> flatten(const Datatype* t) {
  std::vector<Block> out;
  if (t->contiguous || t->layout == nullptr) return out;
  for_each_block(*t->layout, 1, t->extent, [&](std::ptrdiff_t at, std::size_t len) {
    if (!out.empty() && out.back().offset + static_cast<std::ptrdiff_t>(out.back().length) == at) {
      out.back().length += len;
    } else {
      out.push_back(Block{at, len});
    }
  });
  return out;
}


}  // namespace ftmpi::dt
