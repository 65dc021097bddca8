// Reductions: every (op, kind) pair is accepted or rejected per the MPI table, valid pairs compute what a
// scalar reference computes, MAXLOC/MINLOC break ties toward the lower index, user ops get the right length.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <cstdint>
#include <cstring>
#include <set>
#include <type_traits>
#include <vector>

#include "mpi.h"
#include "datatype/builtin_types.h"
#include "datatype/derived.h"
#include "datatype/op.h"

namespace {
namespace dt = ftmpi::dt;
using dt::Basic;
using dt::OpKind;

const MPI_Op kPredefined[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,   MPI_BAND,    MPI_LOR,
                              MPI_BOR,  MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};

// The MPI-3.1 §5.9.2 table, written as lists of kinds, widened to what both Open MPI 4.1 and MPICH 4.0 accept
// (MPI_CHAR as a C integer, logical ops on the multi-language types; docs/api.md "Reductions").
const std::set<Basic> kCInteger = {Basic::char_, Basic::schar, Basic::uchar, Basic::short_, Basic::ushort, Basic::int_,
                                   Basic::uint,  Basic::long_, Basic::ulong,  Basic::llong,  Basic::ullong,
                                   Basic::i8,    Basic::i16,   Basic::i32,    Basic::i64,    Basic::u8,
                                   Basic::u16,   Basic::u32,   Basic::u64};
const std::set<Basic> kFloating = {Basic::float_, Basic::double_, Basic::ldouble};
const std::set<Basic> kComplex = {Basic::cfloat, Basic::cdouble, Basic::cldouble};
const std::set<Basic> kMulti = {Basic::aint, Basic::offset, Basic::count};
const std::set<Basic> kPairs = {Basic::float_int, Basic::double_int,  Basic::long_int,     Basic::int_int,
                                Basic::short_int, Basic::ldouble_int, Basic::float_float, Basic::double_double};

bool in(const std::set<Basic>& s, Basic b) { return s.count(b) != 0; }

bool expected_valid(OpKind op, Basic b) {
  switch (op) {
    case OpKind::max: case OpKind::min:
      return in(kCInteger, b) || in(kFloating, b) || in(kMulti, b);
    case OpKind::sum: case OpKind::prod:
      return in(kCInteger, b) || in(kFloating, b) || in(kComplex, b) || in(kMulti, b);
    case OpKind::land: case OpKind::lor: case OpKind::lxor:
      return in(kCInteger, b) || b == Basic::bool_ || b == Basic::flogical || in(kMulti, b);
    case OpKind::band: case OpKind::bor: case OpKind::bxor:
      return in(kCInteger, b) || b == Basic::byte || in(kMulti, b);
    case OpKind::maxloc: case OpKind::minloc:
      return in(kPairs, b);
    default:
      return true;
  }
}

template <class T>
constexpr bool kCplx = !std::is_arithmetic_v<T>;

// Scalar reference: in (op) inout, small operands so nothing overflows.
template <class T>
T reference(OpKind op, T a, T b) {
  if constexpr (kCplx<T>) {
    return op == OpKind::sum ? a + b : a * b;
  } else if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case OpKind::land: return a && b;
      case OpKind::lor: return a || b;
      default: return a != b;
    }
  } else {
    switch (op) {
      case OpKind::max: return std::max(a, b);
      case OpKind::min: return std::min(a, b);
      case OpKind::sum: return static_cast<T>(a + b);
      case OpKind::prod: return static_cast<T>(a * b);
      case OpKind::land: return static_cast<T>(a && b);
      case OpKind::lor: return static_cast<T>(a || b);
      case OpKind::lxor: return static_cast<T>(!a != !b);
      default:
        if constexpr (std::is_integral_v<T>) {
          if (op == OpKind::band) return static_cast<T>(a & b);
          if (op == OpKind::bor) return static_cast<T>(a | b);
          return static_cast<T>(a ^ b);
        }
        return T{};
    }
  }
}

template <class T>
T value(int i, int salt) {
  const int v = (i * (salt + 3) + salt) % 9;  // 0..8
  if constexpr (kCplx<T>) return T(v - 4, (i + salt) % 3);
  else if constexpr (std::is_same_v<T, bool>) return v % 2 == 0;
  else if constexpr (std::is_signed_v<T>) return static_cast<T>(v - 4);
  else return static_cast<T>(v);
}

// Checks every op on kind `b` (C type T) over 37 elements (a vector body plus a tail).
template <class T>
void check_kind(Basic b) {
  const ftmpi_datatype_s* t = dt::builtin(b);
  SCOPED_TRACE(t->name);
  ASSERT_EQ(t->size, sizeof(T));
  constexpr int kN = 37;
  for (MPI_Op op : kPredefined) {
    SCOPED_TRACE(static_cast<int>(op->kind));
    const bool valid = expected_valid(op->kind, b);
    const ftmpi::Status st = dt::check_op(op, t);
    EXPECT_EQ(st.ok(), valid);
    if (!st.ok()) {
      EXPECT_EQ(st.code(), ftmpi::Errc::op);
    }
    if (!valid || op->kind == OpKind::maxloc || op->kind == OpKind::minloc) continue;
    T a[kN], io[kN], want[kN];  // arrays, not vector (vector<bool> is packed bits)
    for (int i = 0; i < kN; ++i) {
      a[i] = value<T>(i, 1);
      io[i] = value<T>(i, 2);
      if (op->kind == OpKind::replace) want[i] = a[i];
      else if (op->kind == OpKind::no_op) want[i] = io[i];
      else want[i] = reference<T>(op->kind, a[i], io[i]);
    }
    dt::apply(op, a, io, kN, t);
    for (int i = 0; i < kN; ++i) EXPECT_TRUE(io[i] == want[i]) << "element " << i;
  }
}

TEST(OpApply, EveryPredefinedOpOnEveryBasicKind) {
  check_kind<char>(Basic::char_);
  check_kind<signed char>(Basic::schar);
  check_kind<unsigned char>(Basic::uchar);
  check_kind<unsigned char>(Basic::byte);
  check_kind<short>(Basic::short_);
  check_kind<unsigned short>(Basic::ushort);
  check_kind<int>(Basic::int_);
  check_kind<unsigned>(Basic::uint);
  check_kind<long>(Basic::long_);
  check_kind<unsigned long>(Basic::ulong);
  check_kind<long long>(Basic::llong);
  check_kind<unsigned long long>(Basic::ullong);
  check_kind<float>(Basic::float_);
  check_kind<double>(Basic::double_);
  check_kind<long double>(Basic::ldouble);
  check_kind<wchar_t>(Basic::wchar);
  check_kind<bool>(Basic::bool_);
  check_kind<std::int8_t>(Basic::i8);
  check_kind<std::int16_t>(Basic::i16);
  check_kind<std::int32_t>(Basic::i32);
  check_kind<std::int64_t>(Basic::i64);
  check_kind<std::uint8_t>(Basic::u8);
  check_kind<std::uint16_t>(Basic::u16);
  check_kind<std::uint32_t>(Basic::u32);
  check_kind<std::uint64_t>(Basic::u64);
  check_kind<MPI_Aint>(Basic::aint);
  check_kind<MPI_Offset>(Basic::offset);
  check_kind<MPI_Count>(Basic::count);
  check_kind<std::complex<float>>(Basic::cfloat);
  check_kind<std::complex<double>>(Basic::cdouble);
  check_kind<std::complex<long double>>(Basic::cldouble);
  check_kind<unsigned char>(Basic::packed);
  check_kind<std::int32_t>(Basic::flogical);  // Fortran LOGICAL: the logical ops only, result 0/1
}

TEST(OpApply, InvalidCombinationsAreRejected) {
  EXPECT_EQ(dt::check_op(MPI_BAND, MPI_FLOAT).code(), ftmpi::Errc::op);
  EXPECT_EQ(dt::check_op(MPI_MAX, MPI_C_DOUBLE_COMPLEX).code(), ftmpi::Errc::op);
  EXPECT_EQ(dt::check_op(MPI_SUM, MPI_C_BOOL).code(), ftmpi::Errc::op);
  EXPECT_EQ(dt::check_op(MPI_LAND, MPI_DOUBLE).code(), ftmpi::Errc::op);
  EXPECT_EQ(dt::check_op(MPI_MAXLOC, MPI_INT).code(), ftmpi::Errc::op);
  EXPECT_EQ(dt::check_op(MPI_SUM, MPI_DOUBLE_INT).code(), ftmpi::Errc::op);
  EXPECT_EQ(dt::check_op(MPI_SUM, MPI_WCHAR).code(), ftmpi::Errc::op);
  EXPECT_EQ(dt::check_op(MPI_BOR, MPI_PACKED).code(), ftmpi::Errc::op);
  EXPECT_EQ(dt::check_op(MPI_LOR, MPI_BYTE).code(), ftmpi::Errc::op);
  EXPECT_EQ(dt::check_op(MPI_BAND, MPI_C_BOOL).code(), ftmpi::Errc::op);
  EXPECT_FALSE(dt::check_op(MPI_SUM, MPI_WCHAR).message().empty());
  // Leniency both Open MPI 4.1 and MPICH 4.0 show (docs/api.md): logical ops on AINT/OFFSET/COUNT,
  // arithmetic and bitwise ops on MPI_CHAR.
  EXPECT_TRUE(dt::check_op(MPI_LOR, MPI_AINT).ok());
  EXPECT_TRUE(dt::check_op(MPI_LAND, MPI_OFFSET).ok());
  EXPECT_TRUE(dt::check_op(MPI_LXOR, MPI_COUNT).ok());
  EXPECT_TRUE(dt::check_op(MPI_SUM, MPI_CHAR).ok());
  EXPECT_TRUE(dt::check_op(MPI_BXOR, MPI_CHAR).ok());
  EXPECT_TRUE(dt::check_op(MPI_REPLACE, MPI_DOUBLE_INT).ok());
}

template <class V>
struct Pair {
  V v;
  int i;
};

template <class V>
void check_loc(MPI_Datatype t) {
  SCOPED_TRACE(static_cast<const ftmpi_datatype_s*>(t)->name);
  EXPECT_TRUE(dt::check_op(MPI_MAXLOC, t).ok());
  EXPECT_TRUE(dt::check_op(MPI_MINLOC, t).ok());
  // in vs inout: bigger, smaller, tie with lower index in `in`, tie with lower index in `inout`.
  const Pair<V> in[4] = {{V(5), 7}, {V(1), 1}, {V(3), 2}, {V(3), 9}};
  const Pair<V> io0[4] = {{V(2), 3}, {V(4), 4}, {V(3), 6}, {V(3), 5}};
  Pair<V> mx[4], mn[4];
  std::memcpy(mx, io0, sizeof(mx));
  std::memcpy(mn, io0, sizeof(mn));
  dt::apply(MPI_MAXLOC, in, mx, 4, t);
  dt::apply(MPI_MINLOC, in, mn, 4, t);
  EXPECT_EQ(mx[0].v, V(5)); EXPECT_EQ(mx[0].i, 7);
  EXPECT_EQ(mx[1].v, V(4)); EXPECT_EQ(mx[1].i, 4);
  EXPECT_EQ(mx[2].v, V(3)); EXPECT_EQ(mx[2].i, 2);
  EXPECT_EQ(mx[3].v, V(3)); EXPECT_EQ(mx[3].i, 5);
  EXPECT_EQ(mn[0].v, V(2)); EXPECT_EQ(mn[0].i, 3);
  EXPECT_EQ(mn[1].v, V(1)); EXPECT_EQ(mn[1].i, 1);
  EXPECT_EQ(mn[2].i, 2);
  EXPECT_EQ(mn[3].i, 5);
}

TEST(OpApply, MaxlocMinlocTieRules) {
  check_loc<float>(MPI_FLOAT_INT);
  check_loc<double>(MPI_DOUBLE_INT);
  check_loc<long>(MPI_LONG_INT);
  check_loc<int>(MPI_2INT);
  check_loc<short>(MPI_SHORT_INT);
  check_loc<long double>(MPI_LONG_DOUBLE_INT);
}

// The Fortran pairs keep the index in the value's type: struct { V value; V index; }.
template <class V>
void check_same_loc(MPI_Datatype t) {
  SCOPED_TRACE(static_cast<const ftmpi_datatype_s*>(t)->name);
  EXPECT_TRUE(dt::check_op(MPI_MAXLOC, t).ok());
  EXPECT_FALSE(dt::check_op(MPI_SUM, t).ok());
  const V in[8] = {5, 7, 1, 1, 3, 2, 3, 9};
  V mx[8] = {2, 3, 4, 4, 3, 6, 3, 5}, mn[8] = {2, 3, 4, 4, 3, 6, 3, 5};
  dt::apply(MPI_MAXLOC, in, mx, 4, t);
  dt::apply(MPI_MINLOC, in, mn, 4, t);
  const V want_mx[8] = {5, 7, 4, 4, 3, 2, 3, 5}, want_mn[8] = {2, 3, 1, 1, 3, 2, 3, 5};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(mx[i], want_mx[i]) << "maxloc " << i;
    EXPECT_EQ(mn[i], want_mn[i]) << "minloc " << i;
  }
  // packed (as collectives reduce received bytes)
  std::memcpy(mx, in, sizeof mx);
  dt::apply_packed(MPI_MAXLOC, in, mx, 4, t);
  EXPECT_EQ(mx[1], V(7));
}

TEST(OpApply, FortranPairsMaxlocMinloc) {
  check_same_loc<float>(MPI_2REAL);
  check_same_loc<double>(MPI_2DOUBLE_PRECISION);
  check_loc<int>(MPI_2INTEGER);
}

TEST(OpApply, DerivedTypesReduceTheirBlocksOnly) {
  // Every other int of 8: SUM touches 0,2,4,6 and leaves the holes alone.
  auto r = dt::make_vector(4, 1, 2, MPI_INT);
  ASSERT_TRUE(r.ok());
  dt::Datatype* v = r.value();
  dt::commit(v);
  ASSERT_TRUE(dt::check_op(MPI_SUM, v).ok());
  int a[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  int io[8] = {10, 20, 30, 40, 50, 60, 70, 80};
  dt::apply(MPI_SUM, a, io, 1, v);
  const int want[8] = {11, 20, 31, 40, 51, 60, 71, 80};
  EXPECT_TRUE(std::equal(io, io + 8, want));

  // Pairs with holes (every other DoubleInt): MAXLOC through the packed path.
  auto rp = dt::make_vector(2, 1, 2, MPI_DOUBLE_INT);
  ASSERT_TRUE(rp.ok());
  dt::Datatype* vp = rp.value();
  dt::commit(vp);
  ASSERT_TRUE(dt::check_op(MPI_MAXLOC, vp).ok());
  ASSERT_FALSE(dt::check_op(MPI_SUM, vp).ok());
  Pair<double> pin[3] = {{9.0, 1}, {100.0, 100}, {1.0, 3}};
  Pair<double> pio[3] = {{2.0, 0}, {-1.0, -1}, {1.0, 2}};
  dt::apply(MPI_MAXLOC, pin, pio, 1, vp);
  EXPECT_EQ(pio[0].v, 9.0);
  EXPECT_EQ(pio[0].i, 1);
  EXPECT_EQ(pio[1].i, -1);  // hole untouched
  EXPECT_EQ(pio[2].i, 2);   // tie: lower index stays

  for (dt::Datatype* t : {v, vp}) {
    EXPECT_TRUE(dt::retire(t).ok());
    delete t;
  }
}

// User ops: called with the element count and the datatype handle.
struct Calls {
  std::vector<int> lens;
  std::vector<MPI_Datatype> types;
};
Calls g_calls;  // test-only recorder for the C callback

void record(void* in, void* inout, int* len, MPI_Datatype* type) {
  g_calls.lens.push_back(*len);
  g_calls.types.push_back(*type);
  if (*type == MPI_INT) {
    for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += 2 * static_cast<int*>(in)[i];
  }
}

TEST(OpApply, UserOpGetsLengthAndType) {
  auto r = dt::make_user_op(&record, false);
  ASSERT_TRUE(r.ok());
  dt::Op* op = r.value();
  EXPECT_FALSE(op->commutative);
  EXPECT_EQ(op->kind, OpKind::user);
  EXPECT_TRUE(dt::check_op(op, MPI_DOUBLE_INT).ok());

  g_calls = {};
  int a[10], io[10];
  for (int i = 0; i < 10; ++i) a[i] = i, io[i] = 1;
  dt::apply(op, a, io, 10, MPI_INT);
  ASSERT_EQ(g_calls.lens.size(), 1u);
  EXPECT_EQ(g_calls.lens[0], 10);
  EXPECT_EQ(g_calls.types[0], MPI_INT);
  EXPECT_EQ(io[9], 19);

  // More elements than an int holds: chunks of INT_MAX (the callback does not touch the buffers).
  g_calls = {};
  static char dummy[1];
  dt::apply(op, dummy, dummy, static_cast<std::size_t>(INT_MAX) + 5, MPI_BYTE);
  EXPECT_EQ(g_calls.lens, (std::vector<int>{INT_MAX, 5}));

  EXPECT_TRUE(dt::retire(op).ok());
  EXPECT_FALSE(dt::live(op));
  EXPECT_EQ(dt::retire(op).code(), ftmpi::Errc::op);
  delete op;
  EXPECT_EQ(dt::retire(MPI_SUM).code(), ftmpi::Errc::op);
}

// Collectives reduce packed bytes: apply_packed must agree with apply on the typed layout.
TEST(OpApply, PackedDataMatchesTypedReduction) {
  Pair<double> in[3] = {{1.0, 0}, {7.0, 0}, {3.0, 0}};
  Pair<double> io[3] = {{2.0, 1}, {7.0, 1}, {1.0, 1}};
  unsigned char pin[36], pio[36];
  dt::pack(in, 3, MPI_DOUBLE_INT, pin);
  dt::pack(io, 3, MPI_DOUBLE_INT, pio);
  dt::apply(MPI_MAXLOC, in, io, 3, MPI_DOUBLE_INT);
  dt::apply_packed(MPI_MAXLOC, pin, pio, 3, MPI_DOUBLE_INT);
  Pair<double> back[3];
  dt::unpack(pio, sizeof(pio), MPI_DOUBLE_INT, back);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(back[k].v, io[k].v) << k;
    EXPECT_EQ(back[k].i, io[k].i) << k;
  }
  EXPECT_EQ(back[1].i, 0);  // tie at 7.0: lower index

  auto r = dt::make_vector(2, 1, 2, MPI_INT);
  ASSERT_TRUE(r.ok());
  dt::Datatype* v = r.value();
  dt::commit(v);
  int packed_in[4] = {1, 2, 3, 4}, packed_io[4] = {10, 20, 30, 40};
  dt::apply_packed(MPI_SUM, packed_in, packed_io, 2, v);
  EXPECT_EQ(packed_io[3], 44);
  dt::apply_packed(MPI_REPLACE, packed_in, packed_io, 2, v);
  EXPECT_EQ(packed_io[2], 3);

  // A user op sees the typed layout: holes in between, `len` = element count.
  auto u = dt::make_user_op(&record, true);
  ASSERT_TRUE(u.ok());
  g_calls = {};
  int uin[4] = {1, 2, 3, 4}, uio[4] = {10, 20, 30, 40};
  dt::apply_packed(u.value(), uin, uio, 2, v);
  ASSERT_EQ(g_calls.lens.size(), 1u);
  EXPECT_EQ(g_calls.lens[0], 2);
  EXPECT_EQ(g_calls.types[0], static_cast<MPI_Datatype>(v));
  // record() only adds for MPI_INT, so the packed result is unchanged but went through unpack/pack.
  EXPECT_EQ(uio[0], 10);
  EXPECT_EQ(uio[3], 40);
  EXPECT_TRUE(dt::retire(u.value()).ok());
  delete u.value();

  // vector(2,1,2,int): each element is ints 0 and 2 of a 3-int extent. A user sum written for that layout.
  auto vs = dt::make_user_op(
      [](void* a, void* b, int* len, MPI_Datatype*) {
        for (int k = 0; k < *len; ++k) {
          static_cast<int*>(b)[3 * k] += static_cast<int*>(a)[3 * k];
          static_cast<int*>(b)[3 * k + 2] += static_cast<int*>(a)[3 * k + 2];
        }
      },
      true);
  ASSERT_TRUE(vs.ok());
  dt::apply_packed(vs.value(), uin, uio, 2, v);
  EXPECT_EQ(uio[0], 11);
  EXPECT_EQ(uio[1], 22);
  EXPECT_EQ(uio[2], 33);
  EXPECT_EQ(uio[3], 44);
  EXPECT_TRUE(dt::retire(vs.value()).ok());
  delete vs.value();
  EXPECT_TRUE(dt::retire(v).ok());
  delete v;
}

TEST(OpApply, IntegerOverflowWraps) {
  int a[2] = {INT_MAX, INT_MIN};
  int io[2] = {1, -1};
  dt::apply(MPI_SUM, a, io, 2, MPI_INT);
  EXPECT_EQ(io[0], INT_MIN);
  EXPECT_EQ(io[1], INT_MAX);
  unsigned short s[1] = {65535}, t[1] = {65535};
  dt::apply(MPI_PROD, s, t, 1, MPI_UNSIGNED_SHORT);
  EXPECT_EQ(t[0], 1);
}

}  // namespace
