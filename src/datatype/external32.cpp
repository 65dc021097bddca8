// external32 conversion (see external32.h). Each basic kind is one or two scalar fields with a native and an
// external size and a format; values are moved through 64-bit integers with shifts, so the code does not
// depend on the host's byte order (float and integer byte orders agree on every platform we build for).
#include "datatype/external32.h"

#include <cfloat>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "datatype/builtin_types.h"
#include "datatype/kinds.h"

namespace ftmpi::dt {
namespace {

#if LDBL_MANT_DIG == 113
using Quad = long double;  // long double already is IEEE binary128
#elif defined(__SIZEOF_FLOAT128__)
using Quad = __float128;   // x87 extended (or double): converted exactly to binary128, rounded back
#else
#error "external32 needs an IEEE binary128 type for MPI_LONG_DOUBLE"
#endif
static_assert(sizeof(Quad) == 16);
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);

enum class Format : std::uint8_t {
  bytes,    // copied as is (characters, bytes, 8-bit integers)
  sint,     // two's complement integer, sign-extended or range-checked between sizes
  uint,     // unsigned integer, zero-extended or range-checked
  ieee,     // float/double: same size both sides, byte order only
  ldouble,  // long double <-> binary128
  boolean,  // C _Bool: 0 = false, anything else true
  wchar,    // wchar_t <-> 2-byte Unicode (0 .. 0xFFFF)
};

struct Field {
  Format format;
  std::size_t native;  // bytes in packed native data
  std::size_t ext;     // bytes in external32
};

struct Fields {
  Field f[2];
  int n = 0;
};

constexpr Field kInt{Format::sint, sizeof(int), 4};

Fields one(Field a) { return Fields{{a, a}, 1}; }
Fields two(Field a, Field b) { return Fields{{a, b}, 2}; }
Field sint(std::size_t native, std::size_t ext) { return Field{Format::sint, native, ext}; }
Field uint(std::size_t native, std::size_t ext) { return Field{Format::uint, native, ext}; }
Field ieee(std::size_t size) { return Field{Format::ieee, size, size}; }
Field ldouble() { return Field{Format::ldouble, sizeof(long double), 16}; }

Fields layout_of(Basic b) {
  switch (b) {
    case Basic::char_: case Basic::schar: case Basic::uchar: case Basic::byte: case Basic::packed:
    case Basic::i8: case Basic::u8:
      return one(Field{Format::bytes, 1, 1});
    case Basic::bool_: return one(Field{Format::boolean, sizeof(bool), 1});
    case Basic::wchar: return one(Field{Format::wchar, sizeof(wchar_t), 2});
    case Basic::short_: case Basic::i16: return one(sint(builtin(b)->size, 2));
    case Basic::ushort: case Basic::u16: return one(uint(builtin(b)->size, 2));
    case Basic::int_: case Basic::i32: return one(sint(builtin(b)->size, 4));
    case Basic::uint: case Basic::u32: return one(uint(builtin(b)->size, 4));
    case Basic::long_: return one(sint(sizeof(long), 4));
    case Basic::ulong: return one(uint(sizeof(unsigned long), 4));
    case Basic::llong: case Basic::i64: case Basic::aint: case Basic::offset: case Basic::count:
      return one(sint(builtin(b)->size, 8));
    case Basic::ullong: case Basic::u64: return one(uint(builtin(b)->size, 8));
    case Basic::float_: return one(ieee(sizeof(float)));
    case Basic::double_: return one(ieee(sizeof(double)));
    case Basic::ldouble: return one(ldouble());
    case Basic::cfloat: return two(ieee(sizeof(float)), ieee(sizeof(float)));
    case Basic::cdouble: return two(ieee(sizeof(double)), ieee(sizeof(double)));
    case Basic::cldouble: return two(ldouble(), ldouble());
    case Basic::float_int: return two(ieee(sizeof(float)), kInt);
    case Basic::double_int: return two(ieee(sizeof(double)), kInt);
    case Basic::long_int: return two(sint(sizeof(long), 4), kInt);
    case Basic::int_int: return two(kInt, kInt);
    case Basic::short_int: return two(sint(sizeof(short), 2), kInt);
    case Basic::ldouble_int: return two(ldouble(), kInt);
    case Basic::flogical: return one(sint(sizeof(std::int32_t), 4));
    case Basic::float_float: return two(ieee(sizeof(float)), ieee(sizeof(float)));
    case Basic::double_double: return two(ieee(sizeof(double)), ieee(sizeof(double)));
    case Basic::none: case Basic::lb: case Basic::ub: return Fields{};
  }
  return Fields{};
}

// Host integers of 1, 2, 4 or 8 bytes, through 64 bits (sign-extended when is_signed).
template <class S, class U>
std::uint64_t load_as(const std::byte* p, bool is_signed) {
  S v;
  std::memcpy(&v, p, sizeof v);
  return is_signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(v)) : static_cast<U>(v);
}
std::uint64_t load_native(const std::byte* p, std::size_t n, bool is_signed) {
  switch (n) {
    case 1: return load_as<std::int8_t, std::uint8_t>(p, is_signed);
    case 2: return load_as<std::int16_t, std::uint16_t>(p, is_signed);
    case 4: return load_as<std::int32_t, std::uint32_t>(p, is_signed);
    default: return load_as<std::int64_t, std::uint64_t>(p, is_signed);
  }
}
void store_native(std::byte* p, std::size_t n, std::uint64_t v) {
  switch (n) {
    case 1: { auto x = static_cast<std::uint8_t>(v); std::memcpy(p, &x, 1); return; }
    case 2: { auto x = static_cast<std::uint16_t>(v); std::memcpy(p, &x, 2); return; }
    case 4: { auto x = static_cast<std::uint32_t>(v); std::memcpy(p, &x, 4); return; }
    default: std::memcpy(p, &v, 8);
  }
}

// Big-endian integers of n <= 8 bytes.
void store_be(std::byte* p, std::size_t n, std::uint64_t v) {
  for (std::size_t i = 0; i < n; ++i) p[n - 1 - i] = static_cast<std::byte>(v >> (8 * i));
}
std::uint64_t load_be(const std::byte* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}

// True when `v` (signed or not) is representable in `n` bytes.
bool fits(std::uint64_t v, std::size_t n, bool is_signed) {
  if (n >= 8) return true;
  const unsigned bits = 8 * static_cast<unsigned>(n);
  if (!is_signed) return v >> bits == 0;
  const auto s = static_cast<std::int64_t>(v);
  const std::int64_t lim = std::int64_t{1} << (bits - 1);
  return s >= -lim && s < lim;
}
// Sign-extends the low `n` bytes of `v`.
std::uint64_t sign_extend(std::uint64_t v, std::size_t n) {
  if (n >= 8) return v;
  const unsigned shift = 64 - 8 * static_cast<unsigned>(n);
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(v << shift) >> shift);
}

// One field native → external32; false when the value has no external32 form.
bool encode(const Field& f, const std::byte* in, std::byte* out) {
  switch (f.format) {
    case Format::bytes: std::memcpy(out, in, f.ext); return true;
    case Format::boolean: {
      bool b;
      std::memcpy(&b, in, sizeof b);
      out[0] = std::byte{b ? std::uint8_t{1} : std::uint8_t{0}};
      return true;
    }
    case Format::sint: case Format::uint: case Format::wchar: {
      const bool is_signed = f.format == Format::sint || (f.format == Format::wchar && std::is_signed_v<wchar_t>);
      const std::uint64_t v = load_native(in, f.native, is_signed);
      if (f.format == Format::wchar ? v > 0xFFFF : !fits(v, f.ext, is_signed)) return false;
      store_be(out, f.ext, v);
      return true;
    }
    case Format::ieee: store_be(out, f.ext, load_native(in, f.native, false)); return true;
    case Format::ldouble: {
      long double v;
      std::memcpy(&v, in, sizeof v);
      const Quad q = static_cast<Quad>(v);
      unsigned __int128 bits;
      std::memcpy(&bits, &q, sizeof bits);
      store_be(out, 8, static_cast<std::uint64_t>(bits >> 64));
      store_be(out + 8, 8, static_cast<std::uint64_t>(bits));
      return true;
    }
  }
  return false;
}

// One field external32 → native; false when the value does not fit the native type.
bool decode(const Field& f, const std::byte* in, std::byte* out) {
  switch (f.format) {
    case Format::bytes: std::memcpy(out, in, f.ext); return true;
    case Format::boolean: {
      const bool b = in[0] != std::byte{0};
      std::memcpy(out, &b, sizeof b);
      return true;
    }
    case Format::sint: case Format::uint: case Format::wchar: {
      const bool is_signed = f.format == Format::sint;
      std::uint64_t v = load_be(in, f.ext);
      if (is_signed) v = sign_extend(v, f.ext);
      if (!fits(v, f.native, is_signed)) return false;
      store_native(out, f.native, v);
      return true;
    }
    case Format::ieee: store_native(out, f.native, load_be(in, f.ext)); return true;
    case Format::ldouble: {
      const unsigned __int128 bits = (static_cast<unsigned __int128>(load_be(in, 8)) << 64) | load_be(in + 8, 8);
      Quad q;
      std::memcpy(&q, &bits, sizeof q);
      const auto v = static_cast<long double>(q);
      std::memset(out, 0, f.native);  // x87: the padding bytes after the 10 used ones
      std::memcpy(out, &v, sizeof v);
      return true;
    }
  }
  return false;
}

std::size_t ext_bytes(const KindSeq& s) {
  std::size_t n = 0;
  for (const KindSeq::Item& it : s.items)
    n += it.count * (it.nested ? ext_bytes(*it.nested) : external32_unit_size(it.kind));
  return n;
}

// Runs `convert` over every field of `count` elements of `t`, advancing the native and external cursors.
template <bool kToExternal, class In, class Out>
Status convert(In* in, std::size_t count, const Datatype* t, Out* out) {
  auto* src = static_cast<const std::byte*>(in);
  auto* dst = static_cast<std::byte*>(out);
  bool ok = true;
  for_each_run(t, count, [&](Basic kind, std::size_t units) {
    const Fields l = layout_of(kind);
    if (l.n == 1 && l.f[0].format == Format::bytes) {  // characters and bytes: one copy
      std::memcpy(dst, src, units);
      src += units, dst += units;
      return;
    }
    for (std::size_t u = 0; u < units && ok; ++u) {
      for (int i = 0; i < l.n; ++i) {
        const Field& f = l.f[i];
        if constexpr (kToExternal) {
          ok = ok && encode(f, src, dst);
          src += f.native, dst += f.ext;
        } else {
          ok = ok && decode(f, src, dst);
          src += f.ext, dst += f.native;
        }
      }
    }
  });
  if (!ok) {
    return Status(Errc::conversion, kToExternal ? "a value has no external32 representation (a long beyond 32 bits "
                                                  "or a wide character above U+FFFF)"
                                                : "an external32 value does not fit its native type");
  }
  return {};
}

}  // namespace

std::size_t external32_unit_size(Basic b) {
  const Fields l = layout_of(b);
  std::size_t n = 0;
  for (int i = 0; i < l.n; ++i) n += l.f[i].ext;
  return n;
}

std::size_t external32_size(const Datatype* t, std::size_t count) {
  if (t->size == 0) return 0;
  if (t->kinds != nullptr) return count * ext_bytes(*t->kinds);
  const std::size_t unit = unit_size(t->basic);
  return unit == 0 ? 0 : count * (t->size / unit) * external32_unit_size(t->basic);
}

Status to_external32(const void* native, std::size_t count, const Datatype* t, void* ext) {
  return convert<true>(native, count, t, ext);
}

Status from_external32(const void* ext, std::size_t count, const Datatype* t, void* native) {
  return convert<false>(ext, count, t, native);
}

}  // namespace ftmpi::dt
