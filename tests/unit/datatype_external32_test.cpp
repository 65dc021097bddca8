// Types that mix basic kinds and what needs their kinds: MPI_Get_elements on partial elements
// (dt::elements_in / bytes_for_elements) and the external32 representation (datatype/external32.h): the
// standard's sizes, big-endian bytes of known values, range errors, and round trips through mixed structs.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cwchar>
#include <vector>

#include "mpi.h"
#include "datatype/datatype.h"
#include "datatype/derived.h"
#include "datatype/external32.h"
#include "datatype/kinds.h"
#include "datatype_owned.h"

namespace {
namespace dt = ftmpi::dt;
using dt::Datatype;

using ftmpi::dt::testing::Owned;

std::vector<std::uint8_t> ext_of(const void* value, const Datatype* t, std::size_t count = 1) {
  std::vector<std::uint8_t> out(dt::external32_size(t, count));
  EXPECT_TRUE(dt::to_external32(value, count, t, out.data()).ok());
  return out;
}

using Bytes = std::vector<std::uint8_t>;

TEST(External32, SizesFollowTheStandardsTable) {
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::char_), 1u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::wchar), 2u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::short_), 2u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::int_), 4u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::long_), 4u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::ulong), 4u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::llong), 8u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::float_), 4u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::double_), 8u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::ldouble), 16u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::bool_), 1u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::aint), 8u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::offset), 8u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::count), 8u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::cfloat), 8u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::cldouble), 32u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::double_int), 12u);
  EXPECT_EQ(dt::external32_unit_size(dt::Basic::long_int), 8u);
  EXPECT_EQ(dt::external32_size(MPI_LONG, 10), 40u);
  Owned v(dt::make_vector(3, 2, 5, MPI_SHORT));
  EXPECT_EQ(dt::external32_size(v.t, 2), 24u);
}

TEST(External32, BigEndianBytesOfKnownValues) {
  const int i = 0x01020304;
  EXPECT_EQ(ext_of(&i, MPI_INT), (Bytes{1, 2, 3, 4}));
  const short s = -2;
  EXPECT_EQ(ext_of(&s, MPI_SHORT), (Bytes{0xFF, 0xFE}));
  const long l = -2;
  EXPECT_EQ(ext_of(&l, MPI_LONG), (Bytes{0xFF, 0xFF, 0xFF, 0xFE}));
  const unsigned long ul = 0xFFFFFFFFUL;
  EXPECT_EQ(ext_of(&ul, MPI_UNSIGNED_LONG), (Bytes{0xFF, 0xFF, 0xFF, 0xFF}));
  const long long ll = 0x0102030405060708LL;
  EXPECT_EQ(ext_of(&ll, MPI_LONG_LONG), (Bytes{1, 2, 3, 4, 5, 6, 7, 8}));
  const float f = -2.0f;
  EXPECT_EQ(ext_of(&f, MPI_FLOAT), (Bytes{0xC0, 0, 0, 0}));
  const double d = 1.0;
  EXPECT_EQ(ext_of(&d, MPI_DOUBLE), (Bytes{0x3F, 0xF0, 0, 0, 0, 0, 0, 0}));
  const long double ld = -3.5L;  // binary128: sign 1, exponent 0x4000, fraction .11
  EXPECT_EQ(ext_of(&ld, MPI_LONG_DOUBLE), (Bytes{0xC0, 0x00, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  const bool b = true;
  EXPECT_EQ(ext_of(&b, MPI_C_BOOL), (Bytes{1}));
  const wchar_t w = L'\u00e9';
  EXPECT_EQ(ext_of(&w, MPI_WCHAR), (Bytes{0x00, 0xE9}));
  struct {
    double v;
    int i;
  } pair{1.0, 7};
  EXPECT_EQ(ext_of(&pair, MPI_DOUBLE_INT), (Bytes{0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7}));
}

TEST(External32, ValuesWithoutAnExternalFormAreConversionErrors) {
  std::uint8_t out[16];
  const long big = 1L << 40;
  EXPECT_EQ(dt::to_external32(&big, 1, MPI_LONG, out).code(), ftmpi::Errc::conversion);
  const unsigned long ubig = 1UL << 32;
  EXPECT_EQ(dt::to_external32(&ubig, 1, MPI_UNSIGNED_LONG, out).code(), ftmpi::Errc::conversion);
  const wchar_t emoji = static_cast<wchar_t>(0x1F600);
  EXPECT_EQ(dt::to_external32(&emoji, 1, MPI_WCHAR, out).code(), ftmpi::Errc::conversion);
}

TEST(External32, DecodingSignExtendsAndNormalisesBooleans) {
  const std::uint8_t neg[] = {0xFF, 0xFF, 0xFF, 0xFB};
  long l = 0;
  ASSERT_TRUE(dt::from_external32(neg, 1, MPI_LONG, &l).ok());
  EXPECT_EQ(l, -5);
  unsigned long ul = 0;
  ASSERT_TRUE(dt::from_external32(neg, 1, MPI_UNSIGNED_LONG, &ul).ok());
  EXPECT_EQ(ul, 0xFFFFFFFBUL);
  const std::uint8_t truthy[] = {0x40};
  std::uint8_t b = 0xAA;
  ASSERT_TRUE(dt::from_external32(truthy, 1, MPI_C_BOOL, &b).ok());
  EXPECT_EQ(b, 1);
}

struct Mixed {
  char c;
  long l;
  double d;
  long double ld;
  short s[3];
};

// struct Mixed as an MPI type: five members of five kinds.
ftmpi::Result<Datatype*> mixed_type() {
  const int lens[] = {1, 1, 1, 1, 3};
  const std::ptrdiff_t displs[] = {offsetof(Mixed, c), offsetof(Mixed, l), offsetof(Mixed, d), offsetof(Mixed, ld),
                                   offsetof(Mixed, s)};
  const Datatype* types[] = {MPI_CHAR, MPI_LONG, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_SHORT};
  return dt::make_struct(5, lens, displs, types);
}

TEST(External32, MixedStructRoundTripsThroughExternal32) {
  Owned s(mixed_type());
  ASSERT_NE(s.t->kinds, nullptr);
  EXPECT_EQ(s.t->basic, dt::Basic::none);
  EXPECT_EQ(dt::external32_size(s.t, 1), 1u + 4 + 8 + 16 + 6);
  Owned arr(dt::make_contiguous(4, s.t));
  EXPECT_EQ(dt::external32_size(arr.t, 1), 4 * 35u);

  std::vector<Mixed> in(4), back(4);
  std::memset(in.data(), 0, sizeof(Mixed) * in.size());
  std::memset(back.data(), 0, sizeof(Mixed) * back.size());
  for (int k = 0; k < 4; ++k) {
    in[k].c = static_cast<char>('a' + k);
    in[k].l = -100000L * (k + 1);
    in[k].d = 0.5 + k;
    in[k].ld = 1.25L * (k + 1);
    for (int j = 0; j < 3; ++j) in[k].s[j] = static_cast<short>(k * 10 + j - 15);
  }
  std::vector<std::byte> packed(arr.t->size), ext(dt::external32_size(arr.t, 1)), packed_back(arr.t->size);
  dt::pack(in.data(), 1, arr.t, packed.data());
  ASSERT_TRUE(dt::to_external32(packed.data(), 1, arr.t, ext.data()).ok());
  // element 1's long sits after element 0 (35 bytes) and its char: -200000 = 0xFFFCF2C0
  EXPECT_EQ(std::to_integer<int>(ext[35 + 1]), 0xFF);
  EXPECT_EQ(std::to_integer<int>(ext[35 + 2]), 0xFC);
  EXPECT_EQ(std::to_integer<int>(ext[35 + 3]), 0xF2);
  EXPECT_EQ(std::to_integer<int>(ext[35 + 4]), 0xC0);
  ASSERT_TRUE(dt::from_external32(ext.data(), 1, arr.t, packed_back.data()).ok());
  dt::unpack(packed_back.data(), packed_back.size(), arr.t, back.data());
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(back[k].c, in[k].c);
    EXPECT_EQ(back[k].l, in[k].l);
    EXPECT_EQ(back[k].d, in[k].d);
    EXPECT_EQ(back[k].ld, in[k].ld);
    for (int j = 0; j < 3; ++j) EXPECT_EQ(back[k].s[j], in[k].s[j]);
  }
}

TEST(External32, ArraysOfStructsKeepOneKindItem) {
  Owned s(mixed_type());
  Owned big(dt::make_contiguous(10000, s.t));
  ASSERT_NE(big.t->kinds, nullptr);
  EXPECT_EQ(big.t->kinds->items.size(), 1u);  // a repeat of the struct's sequence, not 50 000 runs
  EXPECT_EQ(big.t->kinds->bytes, big.t->size);
  Owned again(dt::make_contiguous(3, big.t));
  EXPECT_EQ(again.t->kinds->items.size(), 1u);
  EXPECT_EQ(again.t->kinds->items[0].count, 30000u);
}

TEST(GetElements, PartialElementsOfMixedTypesCountBasicValues) {
  Owned s(mixed_type());  // packed: char(1) long(8) double(8) long double(16) short x3 (6) = 39 bytes, 7 values
  ASSERT_EQ(s.t->size, 39u);
  EXPECT_EQ(s.t->basic_count, 7u);
  EXPECT_EQ(dt::elements_in(s.t, 0), 0u);
  EXPECT_EQ(dt::elements_in(s.t, 1), 1u);
  EXPECT_EQ(dt::elements_in(s.t, 9), 2u);
  EXPECT_EQ(dt::elements_in(s.t, 12), 2u);  // half a double does not count
  EXPECT_EQ(dt::elements_in(s.t, 35), 5u);
  EXPECT_EQ(dt::elements_in(s.t, 37), 6u);
  EXPECT_EQ(dt::elements_in(s.t, 39), 7u);
  EXPECT_EQ(dt::elements_in(s.t, 39 + 9), 9u);
  Owned v(dt::make_vector(2, 2, 3, s.t));  // 4 structs per element: nested repeats
  EXPECT_EQ(dt::elements_in(v.t, 3 * 39 + 17), 3 * 7u + 3);
  EXPECT_EQ(dt::elements_in(v.t, 4 * 39 + 1), 4 * 7u + 1);
  for (std::size_t n : {0u, 1u, 2u, 5u, 7u, 8u, 13u, 21u, 29u, 30u}) {
    const std::size_t bytes = dt::bytes_for_elements(v.t, n);
    EXPECT_EQ(dt::elements_in(v.t, bytes), n) << n;
  }
  EXPECT_EQ(dt::bytes_for_elements(v.t, 9), 39u + 9);

  // A struct of (double, int) pairs and floats: a pair's value and int count one each.
  const int lens[] = {2, 1};
  const std::ptrdiff_t displs[] = {0, 32};
  const Datatype* types[] = {MPI_DOUBLE_INT, MPI_FLOAT};
  Owned p(dt::make_struct(2, lens, displs, types));
  EXPECT_EQ(p.t->basic_count, 5u);
  EXPECT_EQ(dt::elements_in(p.t, 8), 1u);
  EXPECT_EQ(dt::elements_in(p.t, 12), 2u);
  EXPECT_EQ(dt::elements_in(p.t, 24), 4u);
  EXPECT_EQ(dt::elements_in(p.t, 28), 5u);
  EXPECT_EQ(dt::bytes_for_elements(p.t, 3), 20u);
}

}  // namespace
