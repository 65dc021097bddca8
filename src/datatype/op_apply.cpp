// apply(): the reduction kernels. One loop per (op, C type), generated from small functors, each a plain
// indexed loop over arrays that GCC vectorises. Pair types (MAXLOC/MINLOC) use a strided kernel that knows
// where the index sits. Non-contiguous derived types are reduced block by block, or through packed copies
// when the kind is a pair.
#include <algorithm>
#include <climits>
#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "datatype/layout.h"
#include "datatype/op.h"

namespace ftmpi::dt {
namespace {

using Kernel = void (*)(const void* in, void* inout, std::size_t n);

template <class T>
inline constexpr bool kIsComplex = false;
template <class T>
inline constexpr bool kIsComplex<std::complex<T>> = true;
template <class T>
inline constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Integer arithmetic wraps (two's complement) instead of being undefined on signed overflow.
template <class T>
using Wide = std::make_unsigned_t<decltype(T() + T())>;

struct OpMax {
  template <class T> static constexpr bool ok = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
  template <class T> static T f(T in, T io) { return in > io ? in : io; }
};
struct OpMin {
  template <class T> static constexpr bool ok = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
  template <class T> static T f(T in, T io) { return in < io ? in : io; }
};
struct OpSum {
  template <class T> static constexpr bool ok = OpMax::ok<T> || kIsComplex<T>;
  template <class T> static T f(T in, T io) {
    if constexpr (kIsInteger<T>) return static_cast<T>(static_cast<Wide<T>>(in) + static_cast<Wide<T>>(io));
    else return in + io;
  }
};
struct OpProd {
  template <class T> static constexpr bool ok = OpSum::ok<T>;
  template <class T> static T f(T in, T io) {
    if constexpr (kIsInteger<T>) return static_cast<T>(static_cast<Wide<T>>(in) * static_cast<Wide<T>>(io));
    else return in * io;
  }
};
struct OpLand {
  template <class T> static constexpr bool ok = std::is_integral_v<T>;
  template <class T> static T f(T in, T io) { return static_cast<T>((in != 0) & (io != 0)); }
};
struct OpLor {
  template <class T> static constexpr bool ok = std::is_integral_v<T>;
  template <class T> static T f(T in, T io) { return static_cast<T>((in != 0) | (io != 0)); }
};
struct OpLxor {
  template <class T> static constexpr bool ok = std::is_integral_v<T>;
  template <class T> static T f(T in, T io) { return static_cast<T>((in != 0) != (io != 0)); }
};
struct OpBand {
  template <class T> static constexpr bool ok = kIsInteger<T>;
  template <class T> static T f(T in, T io) { return static_cast<T>(in & io); }
};
struct OpBor {
  template <class T> static constexpr bool ok = kIsInteger<T>;
  template <class T> static T f(T in, T io) { return static_cast<T>(in | io); }
};
struct OpBxor {
  template <class T> static constexpr bool ok = kIsInteger<T>;
  template <class T> static T f(T in, T io) { return static_cast<T>(in ^ io); }
};

// Fixed-length chunks with non-aliasing pointers: GCC vectorises these even at -O2 (its "very cheap" cost
// model wants a known trip count and no runtime alias checks). in == inout exactly is still fine: each
// lane reads both operands before writing.
constexpr std::size_t kChunk = 16;
template <class T, class O>
inline void run_chunk(const T* __restrict a, T* __restrict b) {
  for (std::size_t k = 0; k < kChunk; ++k) b[k] = O::template f<T>(a[k], b[k]);
}

template <class T, class O>
void run(const void* in, void* inout, std::size_t n) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  std::size_t i = 0;
  for (; i + kChunk <= n; i += kChunk) run_chunk<T, O>(a + i, b + i);
  for (; i < n; ++i) b[i] = O::template f<T>(a[i], b[i]);
}

template <class T, class O>
constexpr Kernel make() {
  if constexpr (O::template ok<T>) return &run<T, O>;
  else return nullptr;
}

template <class O>
Kernel for_kind(Basic b) {
  switch (b) {
    case Basic::char_: return make<char, O>();
    case Basic::schar: return make<signed char, O>();
    case Basic::uchar: case Basic::byte: return make<unsigned char, O>();
    case Basic::short_: return make<short, O>();
    case Basic::ushort: return make<unsigned short, O>();
    case Basic::int_: return make<int, O>();
    case Basic::uint: return make<unsigned, O>();
    case Basic::long_: return make<long, O>();
    case Basic::ulong: return make<unsigned long, O>();
    case Basic::llong: return make<long long, O>();
    case Basic::ullong: return make<unsigned long long, O>();
    case Basic::float_: return make<float, O>();
    case Basic::double_: return make<double, O>();
    case Basic::ldouble: return make<long double, O>();
    case Basic::wchar: return make<wchar_t, O>();
    case Basic::bool_: return make<bool, O>();
    case Basic::flogical: return make<std::int32_t, O>();  // only LAND/LOR/LXOR pass check_op
    case Basic::i8: return make<std::int8_t, O>();
    case Basic::i16: return make<std::int16_t, O>();
    case Basic::i32: return make<std::int32_t, O>();
    case Basic::i64: return make<std::int64_t, O>();
    case Basic::u8: return make<std::uint8_t, O>();
    case Basic::u16: return make<std::uint16_t, O>();
    case Basic::u32: return make<std::uint32_t, O>();
    case Basic::u64: return make<std::uint64_t, O>();
    case Basic::aint: return make<std::intptr_t, O>();
    case Basic::offset: case Basic::count: return make<long long, O>();
    case Basic::cfloat: return make<std::complex<float>, O>();
    case Basic::cdouble: return make<std::complex<double>, O>();
    case Basic::cldouble: return make<std::complex<long double>, O>();
    default: return nullptr;
  }
}

// The kernel for (op, kind) on arrays of the kind's C type; nullptr for pair kinds and invalid pairs.
Kernel kernel(OpKind op, Basic b) {
  switch (op) {
    case OpKind::max: return for_kind<OpMax>(b);
    case OpKind::min: return for_kind<OpMin>(b);
    case OpKind::sum: return for_kind<OpSum>(b);
    case OpKind::prod: return for_kind<OpProd>(b);
    case OpKind::land: return for_kind<OpLand>(b);
    case OpKind::lor: return for_kind<OpLor>(b);
    case OpKind::lxor: return for_kind<OpLxor>(b);
    case OpKind::band: return for_kind<OpBand>(b);
    case OpKind::bor: return for_kind<OpBor>(b);
    case OpKind::bxor: return for_kind<OpBxor>(b);
    default: return nullptr;
  }
}

// MAXLOC/MINLOC over `n` pairs laid out `stride` bytes apart with the index (an int, or a V for the
// Fortran pairs) `index_at` bytes after the value. The better value wins; on a tie the lower index wins
// (MPI-3.1 §5.9.4).
template <class V, bool kMax, class I = int>
void run_loc(const std::byte* in, std::byte* inout, std::size_t n, std::ptrdiff_t stride,
             std::ptrdiff_t index_at) {
  for (std::size_t i = 0; i < n; ++i, in += stride, inout += stride) {
    V a, b;
    I ia, ib;
    std::memcpy(&a, in, sizeof(V));
    std::memcpy(&b, inout, sizeof(V));
    std::memcpy(&ia, in + index_at, sizeof(I));
    std::memcpy(&ib, inout + index_at, sizeof(I));
    const bool better = kMax ? a > b : a < b;
    if (better) {
      std::memcpy(inout, &a, sizeof(V));
      std::memcpy(inout + index_at, &ia, sizeof(I));
    } else if (a == b && ia < ib) {
      std::memcpy(inout + index_at, &ia, sizeof(I));
    }
  }
}

template <class V, class I = int>
void loc_for_value(bool is_max, const std::byte* in, std::byte* inout, std::size_t n, std::ptrdiff_t stride,
                   std::ptrdiff_t index_at) {
  if (is_max) run_loc<V, true, I>(in, inout, n, stride, index_at);
  else run_loc<V, false, I>(in, inout, n, stride, index_at);
}

void run_pairs(bool is_max, Basic b, const void* in, void* inout, std::size_t n, std::ptrdiff_t stride,
               std::ptrdiff_t index_at) {
  auto* a = static_cast<const std::byte*>(in);
  auto* c = static_cast<std::byte*>(inout);
  switch (b) {
    case Basic::float_int: return loc_for_value<float>(is_max, a, c, n, stride, index_at);
    case Basic::double_int: return loc_for_value<double>(is_max, a, c, n, stride, index_at);
    case Basic::long_int: return loc_for_value<long>(is_max, a, c, n, stride, index_at);
    case Basic::int_int: return loc_for_value<int>(is_max, a, c, n, stride, index_at);
    case Basic::short_int: return loc_for_value<short>(is_max, a, c, n, stride, index_at);
    case Basic::ldouble_int: return loc_for_value<long double>(is_max, a, c, n, stride, index_at);
    case Basic::float_float: return loc_for_value<float, float>(is_max, a, c, n, stride, index_at);
    case Basic::double_double: return loc_for_value<double, double>(is_max, a, c, n, stride, index_at);
    default: return;
  }
}

// Reduce `units` packed basic units of kind `b` (values, or value+int pairs without padding).
void reduce_packed(const Op* op, Basic b, const void* in, void* inout, std::size_t units) {
  if (is_pair(b)) {
    const std::size_t unit = unit_size(b);
    run_pairs(op->kind == OpKind::maxloc, b, in, inout, units, static_cast<std::ptrdiff_t>(unit),
              static_cast<std::ptrdiff_t>(unit - pair_index_size(b)));
    return;
  }
  if (Kernel k = kernel(op->kind, b)) k(in, inout, units);
}

// inout = in for `count` elements of `t`, element by element (MPI_REPLACE).
void copy_typed(const void* in, void* inout, std::size_t count, const Datatype* t) {
  auto* a = static_cast<const std::byte*>(in);
  auto* c = static_cast<std::byte*>(inout);
  if (t->contiguous) {
    if (a != c) std::memmove(c, a, t->size * count);
    return;
  }
  if (t->layout == nullptr) return;
  for_each_block(*t->layout, count, t->extent,
                 [&](std::ptrdiff_t at, std::size_t len) { std::memmove(c + at, a + at, len); });
}

// Where the int of a predefined pair type sits: after the value, or after padding (its second run).
std::ptrdiff_t pair_index_offset(const Datatype* t, std::size_t unit) {
  const Layout& l = *t->layout;
  if (l.segs.size() == 2) return l.segs[1].disp;
  if (l.segs[0].count == 2) return l.segs[0].disp + l.segs[0].stride;  // two fields of one length
  return static_cast<std::ptrdiff_t>(unit - pair_index_size(t->basic));
}

void call_user(const Op* op, const void* in, void* inout, std::size_t count, const Datatype* t) {
  if (t->alias_of != nullptr) {  // a large-count stand-in: the user sees the type and count it passed
    count *= t->alias_count;
    t = t->alias_of;
  }
  auto* type = const_cast<Datatype*>(t);
  auto* a = static_cast<std::byte*>(const_cast<void*>(in));
  auto* c = static_cast<std::byte*>(inout);
  if (op->user_fn_c != nullptr) {
    long long len = static_cast<long long>(count);
    op->user_fn_c(a, c, &len, &type);
    return;
  }
  while (count > 0) {
    int len = count > static_cast<std::size_t>(INT_MAX) ? INT_MAX : static_cast<int>(count);
    op->user_fn(a, c, &len, &type);
    a += static_cast<std::ptrdiff_t>(len) * t->extent;
    c += static_cast<std::ptrdiff_t>(len) * t->extent;
    count -= static_cast<std::size_t>(len);
  }
}

}  // namespace

void apply(const Op* op, const void* in, void* inout, std::size_t count, const Datatype* t) {
  if (count == 0 || op->kind == OpKind::no_op) return;
  if (op->kind == OpKind::user) return call_user(op, in, inout, count, t);
  if (op->kind == OpKind::replace) return copy_typed(in, inout, count, t);
  const Basic b = t->basic;
  const std::size_t unit = unit_size(b);
  if (unit == 0 || t->size == 0) return;

  if (t->contiguous) return reduce_packed(op, b, in, inout, t->size * count / unit);

  if (t->predefined) {  // a pair type with padding, in its natural struct layout
    const std::ptrdiff_t index_at = pair_index_offset(t, unit);
    run_pairs(op->kind == OpKind::maxloc, b, in, inout, count, t->extent, index_at);
    return;
  }

  if (!is_pair(b)) {  // derived type of one non-pair kind: every block holds whole values
    const Kernel k = kernel(op->kind, b);
    if (k == nullptr) return;
    auto* a = static_cast<const std::byte*>(in);
    auto* c = static_cast<std::byte*>(inout);
    for_each_block(*t->layout, count, t->extent,
                   [&](std::ptrdiff_t at, std::size_t len) { k(a + at, c + at, len / unit); });
    return;
  }

  // Derived type of pairs with holes: reduce packed copies, then scatter the result back.
  const std::size_t bytes = t->size * count;
  std::vector<std::byte> pin(bytes), pio(bytes);
  pack(in, count, t, pin.data());
  pack(inout, count, t, pio.data());
  reduce_packed(op, b, pin.data(), pio.data(), bytes / unit);
  unpack(pio.data(), bytes, t, inout);
}

void apply_packed(const Op* op, const void* in, void* inout, std::size_t count, const Datatype* t) {
  if (count == 0 || op->kind == OpKind::no_op || t->size == 0) return;
  if (t->contiguous) return apply(op, in, inout, count, t);
  const std::size_t bytes = t->size * count;
  if (op->kind == OpKind::replace) {
    if (in != inout) std::memmove(inout, in, bytes);
    return;
  }
  if (op->kind != OpKind::user) {
    const std::size_t unit = unit_size(t->basic);
    if (unit != 0) reduce_packed(op, t->basic, in, inout, bytes / unit);
    return;
  }
  // A user function wants the typed layout: lay both operands out in scratch covering every byte the
  // `count` elements touch, call it, and pack the result back.
  const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(count - 1) * t->extent;
  const std::ptrdiff_t lo = std::min<std::ptrdiff_t>(t->true_lb, t->true_lb + last);
  const std::ptrdiff_t hi = std::max<std::ptrdiff_t>(t->true_lb + t->true_extent, t->true_lb + t->true_extent + last);
  const std::size_t span = static_cast<std::size_t>(hi - lo);
  std::vector<std::byte> tin(span), tio(span);
  std::byte* base_in = tin.data() - lo;   // element 0 starts here
  std::byte* base_io = tio.data() - lo;
  unpack(in, bytes, t, base_in);
  unpack(inout, bytes, t, base_io);
  call_user(op, base_in, base_io, count, t);
  pack(base_io, count, t, inout);
}

}  // namespace ftmpi::dt
