// Predefined datatypes: sizes, extents and bounds match the C types of this platform; names; markers.
#include <gtest/gtest.h>

#include <complex>
#include <cstddef>
#include <cstdint>

#include "mpi.h"
#include "datatype/builtin_types.h"
#include "datatype/datatype.h"

namespace {
using ftmpi::dt::Basic;

struct Expect {
  MPI_Datatype type;
  Basic basic;
  std::size_t size;
  std::ptrdiff_t extent;
  const char* name;
};

template <class V>
struct PairOf {
  V value;
  int index;
};

#define BASIC(h, b, T, n) Expect{h, b, sizeof(T), static_cast<std::ptrdiff_t>(sizeof(T)), n}
#define PAIR(h, b, V, n) Expect{h, b, sizeof(V) + sizeof(int), static_cast<std::ptrdiff_t>(sizeof(PairOf<V>)), n}

const Expect kAll[] = {
    BASIC(MPI_CHAR, Basic::char_, char, "MPI_CHAR"),
    BASIC(MPI_SIGNED_CHAR, Basic::schar, signed char, "MPI_SIGNED_CHAR"),
    BASIC(MPI_UNSIGNED_CHAR, Basic::uchar, unsigned char, "MPI_UNSIGNED_CHAR"),
    BASIC(MPI_BYTE, Basic::byte, unsigned char, "MPI_BYTE"),
    BASIC(MPI_SHORT, Basic::short_, short, "MPI_SHORT"),
    BASIC(MPI_UNSIGNED_SHORT, Basic::ushort, unsigned short, "MPI_UNSIGNED_SHORT"),
    BASIC(MPI_INT, Basic::int_, int, "MPI_INT"),
    BASIC(MPI_UNSIGNED, Basic::uint, unsigned, "MPI_UNSIGNED"),
    BASIC(MPI_LONG, Basic::long_, long, "MPI_LONG"),
    BASIC(MPI_UNSIGNED_LONG, Basic::ulong, unsigned long, "MPI_UNSIGNED_LONG"),
    BASIC(MPI_LONG_LONG, Basic::llong, long long, "MPI_LONG_LONG_INT"),
    BASIC(MPI_UNSIGNED_LONG_LONG, Basic::ullong, unsigned long long, "MPI_UNSIGNED_LONG_LONG"),
    BASIC(MPI_FLOAT, Basic::float_, float, "MPI_FLOAT"),
    BASIC(MPI_DOUBLE, Basic::double_, double, "MPI_DOUBLE"),
    BASIC(MPI_LONG_DOUBLE, Basic::ldouble, long double, "MPI_LONG_DOUBLE"),
    BASIC(MPI_WCHAR, Basic::wchar, wchar_t, "MPI_WCHAR"),
    BASIC(MPI_C_BOOL, Basic::bool_, bool, "MPI_C_BOOL"),
    BASIC(MPI_INT8_T, Basic::i8, std::int8_t, "MPI_INT8_T"),
    BASIC(MPI_INT16_T, Basic::i16, std::int16_t, "MPI_INT16_T"),
    BASIC(MPI_INT32_T, Basic::i32, std::int32_t, "MPI_INT32_T"),
    BASIC(MPI_INT64_T, Basic::i64, std::int64_t, "MPI_INT64_T"),
    BASIC(MPI_UINT8_T, Basic::u8, std::uint8_t, "MPI_UINT8_T"),
    BASIC(MPI_UINT16_T, Basic::u16, std::uint16_t, "MPI_UINT16_T"),
    BASIC(MPI_UINT32_T, Basic::u32, std::uint32_t, "MPI_UINT32_T"),
    BASIC(MPI_UINT64_T, Basic::u64, std::uint64_t, "MPI_UINT64_T"),
    BASIC(MPI_AINT, Basic::aint, MPI_Aint, "MPI_AINT"),
    BASIC(MPI_OFFSET, Basic::offset, MPI_Offset, "MPI_OFFSET"),
    BASIC(MPI_COUNT, Basic::count, MPI_Count, "MPI_COUNT"),
    BASIC(MPI_C_FLOAT_COMPLEX, Basic::cfloat, std::complex<float>, "MPI_C_COMPLEX"),
    BASIC(MPI_C_DOUBLE_COMPLEX, Basic::cdouble, std::complex<double>, "MPI_C_DOUBLE_COMPLEX"),
    BASIC(MPI_C_LONG_DOUBLE_COMPLEX, Basic::cldouble, std::complex<long double>, "MPI_C_LONG_DOUBLE_COMPLEX"),
    BASIC(MPI_PACKED, Basic::packed, unsigned char, "MPI_PACKED"),
    PAIR(MPI_FLOAT_INT, Basic::float_int, float, "MPI_FLOAT_INT"),
    PAIR(MPI_DOUBLE_INT, Basic::double_int, double, "MPI_DOUBLE_INT"),
    PAIR(MPI_LONG_INT, Basic::long_int, long, "MPI_LONG_INT"),
    PAIR(MPI_2INT, Basic::int_int, int, "MPI_2INT"),
    PAIR(MPI_SHORT_INT, Basic::short_int, short, "MPI_SHORT_INT"),
    PAIR(MPI_LONG_DOUBLE_INT, Basic::ldouble_int, long double, "MPI_LONG_DOUBLE_INT"),
};

TEST(DatatypeBuiltin, SizesExtentsAndNames) {
  for (const Expect& e : kAll) {
    SCOPED_TRACE(e.name);
    const ftmpi_datatype_s* t = e.type;
    EXPECT_EQ(t->magic, ftmpi::kMagicDatatype);
    EXPECT_EQ(t->basic, e.basic);
    EXPECT_EQ(t->size, e.size);
    EXPECT_EQ(t->lb, 0);
    EXPECT_EQ(t->extent, e.extent);
    EXPECT_EQ(t->true_lb, 0);
    EXPECT_TRUE(t->predefined);
    EXPECT_TRUE(t->committed);
    EXPECT_TRUE(ftmpi::dt::usable(t));
    EXPECT_EQ(t->name, e.name);
    EXPECT_EQ(ftmpi::dt::builtin(e.basic), t);
    EXPECT_EQ(t->contiguous, static_cast<std::ptrdiff_t>(t->size) == t->extent);
    EXPECT_EQ(t->basic_count, ftmpi::dt::is_pair(e.basic) ? 2u : 1u);
  }
}

TEST(DatatypeBuiltin, PairTypesDescribeTheirFields) {
  // struct { double; int; }: 12 bytes of data at 0 (the fields touch), 4 bytes of tail padding.
  const ftmpi_datatype_s* di = MPI_DOUBLE_INT;
  EXPECT_FALSE(di->contiguous);
  ASSERT_EQ(ftmpi::dt::flatten(di).size(), 1u);
  EXPECT_EQ(ftmpi::dt::flatten(di)[0].offset, 0);
  EXPECT_EQ(ftmpi::dt::flatten(di)[0].length, 12u);
  EXPECT_EQ(di->true_extent, 12);

  // struct { short; int; }: a hole between the fields.
  const ftmpi_datatype_s* si = MPI_SHORT_INT;
  EXPECT_FALSE(si->contiguous);
  ASSERT_EQ(ftmpi::dt::flatten(si).size(), 2u);
  EXPECT_EQ(ftmpi::dt::flatten(si)[0].offset, 0);
  EXPECT_EQ(ftmpi::dt::flatten(si)[0].length, sizeof(short));
  EXPECT_EQ(ftmpi::dt::flatten(si)[1].offset, static_cast<std::ptrdiff_t>(offsetof(PairOf<short>, index)));
  EXPECT_EQ(ftmpi::dt::flatten(si)[1].length, sizeof(int));

  const ftmpi_datatype_s* ldi = MPI_LONG_DOUBLE_INT;
  EXPECT_EQ(ldi->extent, static_cast<std::ptrdiff_t>(sizeof(PairOf<long double>)));
  EXPECT_EQ(ldi->true_extent, static_cast<std::ptrdiff_t>(offsetof(PairOf<long double>, index) + sizeof(int)));

  EXPECT_TRUE(static_cast<const ftmpi_datatype_s*>(MPI_2INT)->contiguous);
  EXPECT_TRUE(static_cast<const ftmpi_datatype_s*>(MPI_FLOAT_INT)->contiguous);
}

TEST(DatatypeBuiltin, MarkersAreNotCommunicable) {
  for (MPI_Datatype m : {MPI_LB, MPI_UB}) {
    const ftmpi_datatype_s* t = m;
    EXPECT_EQ(t->size, 0u);
    EXPECT_EQ(t->extent, 0);
    EXPECT_TRUE(ftmpi::dt::live(t));
    EXPECT_FALSE(ftmpi::dt::usable(t));
  }
  EXPECT_EQ(static_cast<const ftmpi_datatype_s*>(MPI_LB)->name, "MPI_LB");
  EXPECT_FALSE(ftmpi::dt::usable(nullptr));
}

TEST(DatatypeBuiltin, ElementCounting) {
  using ftmpi::dt::bytes_for_elements;
  using ftmpi::dt::elements_in;
  EXPECT_EQ(elements_in(MPI_INT, 40), 10u);
  EXPECT_EQ(bytes_for_elements(MPI_INT, 10), 40u);
  // MPI_DOUBLE_INT: 2 basic elements per 12 packed bytes; 8 bytes hold just the double.
  EXPECT_EQ(elements_in(MPI_DOUBLE_INT, 24), 4u);
  EXPECT_EQ(elements_in(MPI_DOUBLE_INT, 32), 5u);
  EXPECT_EQ(bytes_for_elements(MPI_DOUBLE_INT, 5), 32u);
  EXPECT_EQ(bytes_for_elements(MPI_DOUBLE_INT, 4), 24u);
  EXPECT_EQ(elements_in(MPI_LB, 0), 0u);
}

}  // namespace
