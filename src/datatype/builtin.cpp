// Predefined datatype objects. Initialised when the library is loaded (before any MPI call, including
// MPI_Init), never freed. Layouts come from the C types themselves, so they are right for the ABI we are
// compiled for (x86-64 Linux: long double is 16 bytes, MPI_LONG_DOUBLE_INT is 32 with padding, ...).
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cwchar>
#include <span>

#include "mpi.h"
#include "datatype/builtin_types.h"
#include "datatype/layout.h"

namespace {
using ftmpi::dt::Basic;

ftmpi_datatype_s make_basic(Basic b, std::size_t size, const char* name) {
  ftmpi_datatype_s t;
  t.basic = b;
  t.size = size;
  t.lb = 0;
  t.extent = static_cast<std::ptrdiff_t>(size);
  t.true_lb = 0;
  t.true_extent = static_cast<std::ptrdiff_t>(size);
  t.contiguous = true;
  t.predefined = true;
  t.committed = true;
  t.basic_count = 1;
  t.name = name;
  return t;
}

template <class T>
ftmpi_datatype_s basic_of(Basic b, const char* name) {
  return make_basic(b, sizeof(T), name);
}

// struct { V value; int index; } as C lays it out.
template <class V>
ftmpi_datatype_s pair_of(Basic b, const char* name) {
  struct Pair {
    V value;
    int index;
  };
  ftmpi_datatype_s t = make_basic(b, sizeof(V) + sizeof(int), name);
  t.extent = sizeof(Pair);
  t.true_extent = static_cast<std::ptrdiff_t>(offsetof(Pair, index) + sizeof(int));
  t.basic_count = 2;
  const std::ptrdiff_t index_at = offsetof(Pair, index);
  if (index_at == static_cast<std::ptrdiff_t>(sizeof(V)) && sizeof(Pair) == t.size) return t;  // no padding
  t.contiguous = false;
  ftmpi::dt::LayoutBuilder layout;  // the fields (one run when they touch: only tail padding)
  layout.add_bytes(0, 1, 0, sizeof(V));
  layout.add_bytes(index_at, 1, 0, sizeof(int));
  t.layout = layout.finish();
  return t;
}

// struct { V value; V index; } (MPI_2REAL, MPI_2DOUBLE_PRECISION: Fortran pairs, no padding).
template <class V>
ftmpi_datatype_s same_pair_of(Basic b, const char* name) {
  ftmpi_datatype_s t = make_basic(b, 2 * sizeof(V), name);
  t.basic_count = 2;
  return t;
}

ftmpi_datatype_s marker(Basic b, const char* name) {
  ftmpi_datatype_s t = make_basic(b, 0, name);
  t.basic_count = 0;
  return t;
}
}  // namespace

ftmpi_datatype_s ftmpi_dt_char = basic_of<char>(Basic::char_, "MPI_CHAR");
ftmpi_datatype_s ftmpi_dt_signed_char = basic_of<signed char>(Basic::schar, "MPI_SIGNED_CHAR");
ftmpi_datatype_s ftmpi_dt_unsigned_char = basic_of<unsigned char>(Basic::uchar, "MPI_UNSIGNED_CHAR");
ftmpi_datatype_s ftmpi_dt_byte = basic_of<unsigned char>(Basic::byte, "MPI_BYTE");
ftmpi_datatype_s ftmpi_dt_short = basic_of<short>(Basic::short_, "MPI_SHORT");
ftmpi_datatype_s ftmpi_dt_unsigned_short = basic_of<unsigned short>(Basic::ushort, "MPI_UNSIGNED_SHORT");
ftmpi_datatype_s ftmpi_dt_int = basic_of<int>(Basic::int_, "MPI_INT");
ftmpi_datatype_s ftmpi_dt_unsigned = basic_of<unsigned>(Basic::uint, "MPI_UNSIGNED");
ftmpi_datatype_s ftmpi_dt_long = basic_of<long>(Basic::long_, "MPI_LONG");
ftmpi_datatype_s ftmpi_dt_unsigned_long = basic_of<unsigned long>(Basic::ulong, "MPI_UNSIGNED_LONG");
ftmpi_datatype_s ftmpi_dt_long_long = basic_of<long long>(Basic::llong, "MPI_LONG_LONG_INT");
ftmpi_datatype_s ftmpi_dt_unsigned_long_long =
    basic_of<unsigned long long>(Basic::ullong, "MPI_UNSIGNED_LONG_LONG");
ftmpi_datatype_s ftmpi_dt_float = basic_of<float>(Basic::float_, "MPI_FLOAT");
ftmpi_datatype_s ftmpi_dt_double = basic_of<double>(Basic::double_, "MPI_DOUBLE");
ftmpi_datatype_s ftmpi_dt_long_double = basic_of<long double>(Basic::ldouble, "MPI_LONG_DOUBLE");
ftmpi_datatype_s ftmpi_dt_wchar = basic_of<wchar_t>(Basic::wchar, "MPI_WCHAR");
ftmpi_datatype_s ftmpi_dt_c_bool = basic_of<bool>(Basic::bool_, "MPI_C_BOOL");
ftmpi_datatype_s ftmpi_dt_int8 = basic_of<std::int8_t>(Basic::i8, "MPI_INT8_T");
ftmpi_datatype_s ftmpi_dt_int16 = basic_of<std::int16_t>(Basic::i16, "MPI_INT16_T");
ftmpi_datatype_s ftmpi_dt_int32 = basic_of<std::int32_t>(Basic::i32, "MPI_INT32_T");
ftmpi_datatype_s ftmpi_dt_int64 = basic_of<std::int64_t>(Basic::i64, "MPI_INT64_T");
ftmpi_datatype_s ftmpi_dt_uint8 = basic_of<std::uint8_t>(Basic::u8, "MPI_UINT8_T");
ftmpi_datatype_s ftmpi_dt_uint16 = basic_of<std::uint16_t>(Basic::u16, "MPI_UINT16_T");
ftmpi_datatype_s ftmpi_dt_uint32 = basic_of<std::uint32_t>(Basic::u32, "MPI_UINT32_T");
ftmpi_datatype_s ftmpi_dt_uint64 = basic_of<std::uint64_t>(Basic::u64, "MPI_UINT64_T");
ftmpi_datatype_s ftmpi_dt_aint = basic_of<MPI_Aint>(Basic::aint, "MPI_AINT");
ftmpi_datatype_s ftmpi_dt_offset = basic_of<MPI_Offset>(Basic::offset, "MPI_OFFSET");
ftmpi_datatype_s ftmpi_dt_count = basic_of<MPI_Count>(Basic::count, "MPI_COUNT");
ftmpi_datatype_s ftmpi_dt_c_float_complex =
    basic_of<std::complex<float>>(Basic::cfloat, "MPI_C_COMPLEX");  // also MPI_C_FLOAT_COMPLEX (one handle)
ftmpi_datatype_s ftmpi_dt_c_double_complex =
    basic_of<std::complex<double>>(Basic::cdouble, "MPI_C_DOUBLE_COMPLEX");
ftmpi_datatype_s ftmpi_dt_c_long_double_complex =
    basic_of<std::complex<long double>>(Basic::cldouble, "MPI_C_LONG_DOUBLE_COMPLEX");
ftmpi_datatype_s ftmpi_dt_packed = basic_of<unsigned char>(Basic::packed, "MPI_PACKED");
ftmpi_datatype_s ftmpi_dt_float_int = pair_of<float>(Basic::float_int, "MPI_FLOAT_INT");
ftmpi_datatype_s ftmpi_dt_double_int = pair_of<double>(Basic::double_int, "MPI_DOUBLE_INT");
ftmpi_datatype_s ftmpi_dt_long_int = pair_of<long>(Basic::long_int, "MPI_LONG_INT");
ftmpi_datatype_s ftmpi_dt_2int = pair_of<int>(Basic::int_int, "MPI_2INT");
ftmpi_datatype_s ftmpi_dt_short_int = pair_of<short>(Basic::short_int, "MPI_SHORT_INT");
ftmpi_datatype_s ftmpi_dt_long_double_int = pair_of<long double>(Basic::ldouble_int, "MPI_LONG_DOUBLE_INT");
ftmpi_datatype_s ftmpi_dt_lb = marker(Basic::lb, "MPI_LB");
ftmpi_datatype_s ftmpi_dt_ub = marker(Basic::ub, "MPI_UB");
// C++ types: the same layouts and kinds as C's bool and complex types (so reductions follow them), own names.
ftmpi_datatype_s ftmpi_dt_cxx_bool = basic_of<bool>(Basic::bool_, "MPI_CXX_BOOL");
ftmpi_datatype_s ftmpi_dt_cxx_float_complex = basic_of<std::complex<float>>(Basic::cfloat, "MPI_CXX_FLOAT_COMPLEX");
ftmpi_datatype_s ftmpi_dt_cxx_double_complex =
    basic_of<std::complex<double>>(Basic::cdouble, "MPI_CXX_DOUBLE_COMPLEX");
ftmpi_datatype_s ftmpi_dt_cxx_long_double_complex =
    basic_of<std::complex<long double>>(Basic::cldouble, "MPI_CXX_LONG_DOUBLE_COMPLEX");

// Fortran named types (MPI-3.1 §3.2.2, §17.2.5), laid out as gfortran lays them out: INTEGER and LOGICAL are
// 4 bytes, REAL 4, DOUBLE PRECISION 8, COMPLEX two REALs.  Each is its own handle (its own name) over the C
// kind of the same representation, so reductions follow that kind; LOGICAL has its own kind (only the
// logical ops apply to it).
ftmpi_datatype_s ftmpi_dt_f_integer = basic_of<std::int32_t>(Basic::i32, "MPI_INTEGER");
ftmpi_datatype_s ftmpi_dt_f_real = basic_of<float>(Basic::float_, "MPI_REAL");
ftmpi_datatype_s ftmpi_dt_f_double_precision = basic_of<double>(Basic::double_, "MPI_DOUBLE_PRECISION");
ftmpi_datatype_s ftmpi_dt_f_complex = basic_of<std::complex<float>>(Basic::cfloat, "MPI_COMPLEX");
ftmpi_datatype_s ftmpi_dt_f_double_complex =
    basic_of<std::complex<double>>(Basic::cdouble, "MPI_DOUBLE_COMPLEX");
ftmpi_datatype_s ftmpi_dt_f_logical = basic_of<std::int32_t>(Basic::flogical, "MPI_LOGICAL");
ftmpi_datatype_s ftmpi_dt_f_character = basic_of<char>(Basic::char_, "MPI_CHARACTER");
ftmpi_datatype_s ftmpi_dt_f_integer1 = basic_of<std::int8_t>(Basic::i8, "MPI_INTEGER1");
ftmpi_datatype_s ftmpi_dt_f_integer2 = basic_of<std::int16_t>(Basic::i16, "MPI_INTEGER2");
ftmpi_datatype_s ftmpi_dt_f_integer4 = basic_of<std::int32_t>(Basic::i32, "MPI_INTEGER4");
ftmpi_datatype_s ftmpi_dt_f_integer8 = basic_of<std::int64_t>(Basic::i64, "MPI_INTEGER8");
ftmpi_datatype_s ftmpi_dt_f_real4 = basic_of<float>(Basic::float_, "MPI_REAL4");
ftmpi_datatype_s ftmpi_dt_f_real8 = basic_of<double>(Basic::double_, "MPI_REAL8");
ftmpi_datatype_s ftmpi_dt_f_complex8 = basic_of<std::complex<float>>(Basic::cfloat, "MPI_COMPLEX8");
ftmpi_datatype_s ftmpi_dt_f_complex16 = basic_of<std::complex<double>>(Basic::cdouble, "MPI_COMPLEX16");
ftmpi_datatype_s ftmpi_dt_f_2real = same_pair_of<float>(Basic::float_float, "MPI_2REAL");
ftmpi_datatype_s ftmpi_dt_f_2double_precision = same_pair_of<double>(Basic::double_double, "MPI_2DOUBLE_PRECISION");
ftmpi_datatype_s ftmpi_dt_f_2integer = pair_of<std::int32_t>(Basic::int_int, "MPI_2INTEGER");

namespace ftmpi::dt {

const Datatype* builtin(Basic b) {
  switch (b) {
    case Basic::none: return nullptr;
    case Basic::char_: return &ftmpi_dt_char;
    case Basic::schar: return &ftmpi_dt_signed_char;
    case Basic::uchar: return &ftmpi_dt_unsigned_char;
    case Basic::byte: return &ftmpi_dt_byte;
    case Basic::short_: return &ftmpi_dt_short;
    case Basic::ushort: return &ftmpi_dt_unsigned_short;
    case Basic::int_: return &ftmpi_dt_int;
    case Basic::uint: return &ftmpi_dt_unsigned;
    case Basic::long_: return &ftmpi_dt_long;
    case Basic::ulong: return &ftmpi_dt_unsigned_long;
    case Basic::llong: return &ftmpi_dt_long_long;
    case Basic::ullong: return &ftmpi_dt_unsigned_long_long;
    case Basic::float_: return &ftmpi_dt_float;
    case Basic::double_: return &ftmpi_dt_double;
    case Basic::ldouble: return &ftmpi_dt_long_double;
    case Basic::wchar: return &ftmpi_dt_wchar;
    case Basic::bool_: return &ftmpi_dt_c_bool;
    case Basic::i8: return &ftmpi_dt_int8;
    case Basic::i16: return &ftmpi_dt_int16;
    case Basic::i32: return &ftmpi_dt_int32;
    case Basic::i64: return &ftmpi_dt_int64;
    case Basic::u8: return &ftmpi_dt_uint8;
    case Basic::u16: return &ftmpi_dt_uint16;
    case Basic::u32: return &ftmpi_dt_uint32;
    case Basic::u64: return &ftmpi_dt_uint64;
    case Basic::aint: return &ftmpi_dt_aint;
    case Basic::offset: return &ftmpi_dt_offset;
    case Basic::count: return &ftmpi_dt_count;
    case Basic::cfloat: return &ftmpi_dt_c_float_complex;
    case Basic::cdouble: return &ftmpi_dt_c_double_complex;
    case Basic::cldouble: return &ftmpi_dt_c_long_double_complex;
    case Basic::packed: return &ftmpi_dt_packed;
    case Basic::float_int: return &ftmpi_dt_float_int;
    case Basic::double_int: return &ftmpi_dt_double_int;
    case Basic::long_int: return &ftmpi_dt_long_int;
    case Basic::int_int: return &ftmpi_dt_2int;
    case Basic::short_int: return &ftmpi_dt_short_int;
    case Basic::ldouble_int: return &ftmpi_dt_long_double_int;
    case Basic::lb: return &ftmpi_dt_lb;
    case Basic::ub: return &ftmpi_dt_ub;
    case Basic::flogical: return &ftmpi_dt_f_logical;
    case Basic::float_float: return &ftmpi_dt_f_2real;
    case Basic::double_double: return &ftmpi_dt_f_2double_precision;
  }
  return nullptr;
}

std::size_t unit_size(Basic b) {
  if (b == Basic::none || b == Basic::lb || b == Basic::ub) return 0;
  return builtin(b)->size;  // pair types: value + int, no padding
}

const Datatype* builtin_of_size(TypeClass c, std::size_t bytes) {
  static constexpr Basic kReal[] = {Basic::float_, Basic::double_, Basic::ldouble};
  static constexpr Basic kInteger[] = {Basic::i8, Basic::i16, Basic::i32, Basic::i64};
  static constexpr Basic kComplex[] = {Basic::cfloat, Basic::cdouble, Basic::cldouble};
  std::span<const Basic> candidates = c == TypeClass::real ? std::span<const Basic>(kReal)
                                      : c == TypeClass::integer ? std::span<const Basic>(kInteger)
                                                                : std::span<const Basic>(kComplex);
  for (Basic b : candidates)
    if (builtin(b)->size == bytes) return builtin(b);
  return nullptr;
}

bool is_pair(Basic b) {
  switch (b) {
    case Basic::float_int:
    case Basic::double_int:
    case Basic::long_int:
    case Basic::int_int:
    case Basic::short_int:
    case Basic::ldouble_int:
    case Basic::float_float:
    case Basic::double_double:
      return true;
    default:
      return false;
  }
}

std::size_t pair_index_size(Basic b) {
  switch (b) {
    case Basic::float_float: return sizeof(float);
    case Basic::double_double: return sizeof(double);
    default: return sizeof(int);
  }
}

}  // namespace ftmpi::dt
