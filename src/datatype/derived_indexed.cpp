// Derived datatype constructors with per-block displacements (indexed family, struct) and resized types
// (see derived.h). All of them place copies of old elements with TypeBuilder, so they share its flattening,
// merging and overflow checks.
#include <algorithm>
#include <complex>
#include <cstdlib>
#include <new>

#include "datatype/derived.h"

namespace ftmpi::dt {
namespace {

template <class V>
constexpr std::size_t pair_align() {
  struct Pair {
    V value;
    int index;
  };
  return alignof(Pair);
}

std::size_t basic_alignment(Basic b) {
  switch (b) {
    case Basic::none: case Basic::lb: case Basic::ub: case Basic::char_: case Basic::schar: case Basic::uchar:
    case Basic::byte: case Basic::packed: case Basic::bool_: case Basic::i8: case Basic::u8:
      return 1;
    case Basic::short_: case Basic::ushort: case Basic::i16: case Basic::u16: return alignof(short);
    case Basic::int_: case Basic::uint: case Basic::i32: case Basic::u32: return alignof(int);
    case Basic::wchar: return alignof(wchar_t);
    case Basic::long_: case Basic::ulong: return alignof(long);
    case Basic::llong: case Basic::ullong: case Basic::i64: case Basic::u64: case Basic::offset:
    case Basic::count: return alignof(long long);
    case Basic::aint: return alignof(std::ptrdiff_t);
    case Basic::float_: return alignof(float);
    case Basic::double_: return alignof(double);
    case Basic::ldouble: return alignof(long double);
    case Basic::cfloat: return alignof(std::complex<float>);
    case Basic::cdouble: return alignof(std::complex<double>);
    case Basic::cldouble: return alignof(std::complex<long double>);
    case Basic::float_int: return pair_align<float>();
    case Basic::double_int: return pair_align<double>();
    case Basic::long_int: return pair_align<long>();
    case Basic::int_int: return pair_align<int>();
    case Basic::short_int: return pair_align<short>();
    case Basic::ldouble_int: return pair_align<long double>();
    case Basic::flogical: return alignof(std::int32_t);
    case Basic::float_float: return alignof(float);
    case Basic::double_double: return alignof(double);
  }
  return 1;
}

bool is_marker(const Datatype* t) { return t->basic == Basic::lb || t->basic == Basic::ub; }

}  // namespace

std::size_t alignment(const Datatype* t) {
  if (t->predefined) return basic_alignment(t->basic);
  return t->align > 0 ? t->align : 1;
}

template <class Len>
Result<Datatype*> make_hindexed(std::size_t count, const Len* blocklens, const std::ptrdiff_t* displs,
                                const Datatype* old) {
  TypeBuilder b;
  for (std::size_t j = 0; j < count; ++j) {
    if (blocklens[j] < 0) return Status(Errc::count, "negative block length");
    FTMPI_TRY(b.add(old, displs[j], static_cast<std::size_t>(blocklens[j])));
  }
  return b.finish();
}

template <class Len, class Disp>
Result<Datatype*> make_indexed(std::size_t count, const Len* blocklens, const Disp* displs, const Datatype* old) {
  TypeBuilder b;
  for (std::size_t j = 0; j < count; ++j) {
    if (blocklens[j] < 0) return Status(Errc::count, "negative block length");
    std::ptrdiff_t at = 0;
    if (__builtin_mul_overflow(static_cast<std::ptrdiff_t>(displs[j]), old->extent, &at))
      return Status(Errc::arg, "displacement too large");
    FTMPI_TRY(b.add(old, at, static_cast<std::size_t>(blocklens[j])));
  }
  return b.finish();
}

Result<Datatype*> make_hindexed_block(std::size_t count, std::size_t blocklen, const std::ptrdiff_t* displs,
                                      const Datatype* old) {
  TypeBuilder b;
  for (std::size_t j = 0; j < count; ++j) FTMPI_TRY(b.add(old, displs[j], blocklen));
  return b.finish();
}

template <class Disp>
Result<Datatype*> make_indexed_block(std::size_t count, std::size_t blocklen, const Disp* displs,
                                     const Datatype* old) {
  TypeBuilder b;
  for (std::size_t j = 0; j < count; ++j) {
    std::ptrdiff_t at = 0;
    if (__builtin_mul_overflow(static_cast<std::ptrdiff_t>(displs[j]), old->extent, &at))
      return Status(Errc::arg, "displacement too large");
    FTMPI_TRY(b.add(old, at, blocklen));
  }
  return b.finish();
}

template <class Len>
Result<Datatype*> make_struct(std::size_t count, const Len* blocklens, const std::ptrdiff_t* displs,
                              const Datatype* const* types) {
  TypeBuilder b;
  bool has_lb = false, has_ub = false;
  std::ptrdiff_t lb = 0, ub = 0;
  for (std::size_t j = 0; j < count; ++j) {
    if (blocklens[j] < 0) return Status(Errc::count, "negative block length");
    if (!live(types[j])) return Status(Errc::type, "invalid datatype in array_of_types");
    if (is_marker(types[j])) {
      if (blocklens[j] == 0) continue;  // an empty block holds no marker
      if (types[j]->basic == Basic::lb) lb = has_lb ? std::min(lb, displs[j]) : displs[j], has_lb = true;
      else ub = has_ub ? std::max(ub, displs[j]) : displs[j], has_ub = true;
      continue;
    }
    FTMPI_TRY(b.add(types[j], displs[j], static_cast<std::size_t>(blocklens[j])));
  }
  Result<Datatype*> r = b.finish();
  if (!r.ok()) return r;
  Datatype* t = r.value();
  // The data's bounds (an empty type map spans [0, 0]), overridden by the explicit markers.
  const std::ptrdiff_t new_lb = has_lb ? lb : t->lb;
  std::ptrdiff_t extent = (has_ub ? ub : t->lb + t->extent) - new_lb;
  // Trailing padding as a C compiler adds it: round the extent up to the strictest member alignment
  // (not past an explicit MPI_UB; a negative extent, possible only with markers, is kept as given).
  const auto a = static_cast<std::ptrdiff_t>(alignment(t));
  if (!has_ub && a > 1 && extent > 0 && extent % a != 0) extent += a - extent % a;
  if (new_lb != t->lb || extent != t->extent) rebound(t, new_lb, extent);
  return t;
}

// The int (MPI-3.1) and long long (MPI-4.0 _c) forms.
template Result<Datatype*> make_indexed(std::size_t, const int*, const int*, const Datatype*);
template Result<Datatype*> make_indexed(std::size_t, const long long*, const long long*, const Datatype*);
template Result<Datatype*> make_hindexed(std::size_t, const int*, const std::ptrdiff_t*, const Datatype*);
template Result<Datatype*> make_hindexed(std::size_t, const long long*, const std::ptrdiff_t*, const Datatype*);
template Result<Datatype*> make_indexed_block(std::size_t, std::size_t, const int*, const Datatype*);
template Result<Datatype*> make_indexed_block(std::size_t, std::size_t, const long long*, const Datatype*);
template Result<Datatype*> make_struct(std::size_t, const int*, const std::ptrdiff_t*, const Datatype* const*);
template Result<Datatype*> make_struct(std::size_t, const long long*, const std::ptrdiff_t*,
                                       const Datatype* const*);

Result<Datatype*> make_resized(const Datatype* old, std::ptrdiff_t lb, std::ptrdiff_t extent) {
  Result<Datatype*> r = make_dup(old);
  if (!r.ok()) return r;
  Datatype* t = r.value();
  t->committed = false;
  if (old->predefined) t->align = alignment(old);
  rebound(t, lb, extent);
  return t;
}

}  // namespace ftmpi::dt
