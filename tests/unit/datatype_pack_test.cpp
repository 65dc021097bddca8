// pack/unpack round trips and derived type construction (contiguous, vector, hvector, dup).
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "mpi.h"
#include "datatype/datatype.h"
#include "datatype/derived.h"
#include "datatype_owned.h"

namespace {
namespace dt = ftmpi::dt;
using dt::Datatype;

using ftmpi::dt::testing::Owned;

TEST(DatatypePack, ContiguousIsOneCopy) {
  std::vector<int> src(100), packed(100), back(100, -1);
  std::iota(src.begin(), src.end(), 0);
  dt::pack(src.data(), 100, MPI_INT, packed.data());
  EXPECT_EQ(packed, src);
  dt::unpack(packed.data(), 100 * sizeof(int), MPI_INT, back.data());
  EXPECT_EQ(back, src);
}

TEST(DatatypePack, ContiguousOfContiguousStaysContiguous) {
  Owned c(dt::make_contiguous(5, MPI_INT));
  EXPECT_TRUE(c.t->contiguous);
  EXPECT_TRUE(ftmpi::dt::flatten(c.t).empty());
  EXPECT_EQ(c.t->size, 20u);
  EXPECT_EQ(c.t->extent, 20);
  EXPECT_EQ(c.t->basic, dt::Basic::int_);
  EXPECT_EQ(c.t->basic_count, 5u);
  EXPECT_FALSE(c.t->predefined);
  Owned cc(dt::make_contiguous(3, c.t));
  EXPECT_TRUE(cc.t->contiguous);
  EXPECT_EQ(cc.t->size, 60u);
}

TEST(DatatypePack, VectorRoundTrip) {
  // 3 blocks of 2 ints, stride 4 ints: picks 0,1, 4,5, 8,9.
  Owned v(dt::make_vector(3, 2, 4, MPI_INT));
  EXPECT_FALSE(v.t->contiguous);
  EXPECT_EQ(v.t->size, 24u);
  EXPECT_EQ(v.t->extent, 10 * 4);
  EXPECT_EQ(v.t->lb, 0);
  ASSERT_EQ(ftmpi::dt::flatten(v.t).size(), 3u);
  EXPECT_EQ(ftmpi::dt::flatten(v.t)[1].offset, 16);
  EXPECT_EQ(ftmpi::dt::flatten(v.t)[1].length, 8u);

  std::vector<int> src(20);
  std::iota(src.begin(), src.end(), 0);
  std::vector<int> packed(12);
  dt::pack(src.data(), 2, v.t, packed.data());  // second element starts at extent = 10 ints
  EXPECT_EQ(packed, (std::vector<int>{0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19}));

  std::vector<int> back(20, -1);
  dt::unpack(packed.data(), packed.size() * sizeof(int), v.t, back.data());
  for (int i = 0; i < 20; ++i) {
    const int j = i % 10;  // position inside one element's extent
    const bool picked = j == 0 || j == 1 || j == 4 || j == 5 || j == 8 || j == 9;
    EXPECT_EQ(back[i], picked ? i : -1) << i;
  }
}

TEST(DatatypePack, ShortUnpackWritesOnlyWhatArrived) {
  Owned v(dt::make_vector(3, 2, 4, MPI_INT));
  std::vector<int> packed{100, 101, 102, 103, 104, 105, 106};
  std::vector<int> back(20, -1);
  // 7 ints: one whole element (6 ints) and the first int of the next.
  dt::unpack(packed.data(), 7 * sizeof(int), v.t, back.data());
  EXPECT_EQ(back[0], 100);
  EXPECT_EQ(back[9], 105);
  EXPECT_EQ(back[10], 106);
  EXPECT_EQ(back[11], -1);
  // A partial int: 2 bytes of the last block.
  std::vector<int> back2(20, 0);
  dt::unpack(packed.data(), 6 * sizeof(int) + 2, v.t, back2.data());
  int expect = 0;
  std::memcpy(&expect, &packed[6], 2);
  EXPECT_EQ(back2[10], expect);
  EXPECT_EQ(dt::elements_in(v.t, 7 * sizeof(int)), 7u);
}

TEST(DatatypePack, VectorWithStrideEqualBlocklenIsContiguous) {
  Owned v(dt::make_vector(4, 3, 3, MPI_DOUBLE));
  EXPECT_TRUE(v.t->contiguous);
  EXPECT_EQ(v.t->size, 96u);
  EXPECT_EQ(v.t->extent, 96);
}

TEST(DatatypePack, NegativeStrideVector) {
  // Blocks at 0, -2, -4 (in ints): lb is -4 ints, extent 5 ints; pack order follows the type map.
  Owned v(dt::make_vector(3, 1, -2, MPI_INT));
  EXPECT_EQ(v.t->lb, -16);
  EXPECT_EQ(v.t->extent, 20);
  EXPECT_EQ(v.t->true_lb, -16);
  EXPECT_EQ(v.t->true_extent, 20);
  std::vector<int> src{0, 1, 2, 3, 4, 5};
  int packed[3];
  dt::pack(src.data() + 4, 1, v.t, packed);
  EXPECT_EQ(packed[0], 4);
  EXPECT_EQ(packed[1], 2);
  EXPECT_EQ(packed[2], 0);
}

struct DoubleInt {
  double v;
  int i;
};
struct ShortInt {
  short v;
  int i;
};

TEST(DatatypePack, PairTypesDropPadding) {
  DoubleInt src[3] = {{1.5, 1}, {2.5, 2}, {3.5, 3}};
  unsigned char packed[36];
  dt::pack(src, 3, MPI_DOUBLE_INT, packed);
  double d;
  int i;
  std::memcpy(&d, packed + 12, 8);
  std::memcpy(&i, packed + 20, 4);
  EXPECT_EQ(d, 2.5);
  EXPECT_EQ(i, 2);
  DoubleInt back[3] = {};
  dt::unpack(packed, sizeof(packed), MPI_DOUBLE_INT, back);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(back[k].v, src[k].v);
    EXPECT_EQ(back[k].i, src[k].i);
  }

  ShortInt s[2] = {{7, 70}, {-8, 80}};
  unsigned char sp[12];
  dt::pack(s, 2, MPI_SHORT_INT, sp);
  short sv;
  std::memcpy(&sv, sp + 6, 2);
  std::memcpy(&i, sp + 8, 4);
  EXPECT_EQ(sv, -8);
  EXPECT_EQ(i, 80);
  ShortInt sb[2] = {};
  dt::unpack(sp, sizeof(sp), MPI_SHORT_INT, sb);
  EXPECT_EQ(sb[1].v, -8);
  EXPECT_EQ(sb[1].i, 80);
}

TEST(DatatypePack, VectorOfPairs) {
  // Every other DoubleInt: pairs 0 and 2.
  Owned v(dt::make_vector(2, 1, 2, MPI_DOUBLE_INT));
  EXPECT_EQ(v.t->basic, dt::Basic::double_int);
  EXPECT_EQ(v.t->size, 24u);
  EXPECT_EQ(v.t->extent, 48);
  EXPECT_EQ(v.t->basic_count, 4u);
  DoubleInt src[3] = {{1.0, 10}, {2.0, 20}, {3.0, 30}};
  unsigned char packed[24];
  dt::pack(src, 1, v.t, packed);
  DoubleInt back[3] = {{0, 0}, {-1, -1}, {0, 0}};
  dt::unpack(packed, 24, v.t, back);
  EXPECT_EQ(back[0].v, 1.0);
  EXPECT_EQ(back[2].i, 30);
  EXPECT_EQ(back[1].i, -1);
}

TEST(DatatypePack, DupKeepsLayoutAndCommitState) {
  Owned v(dt::make_vector(2, 1, 3, MPI_INT));
  auto r = dt::make_dup(v.t);
  ASSERT_TRUE(r.ok());
  Datatype* d = r.value();
  EXPECT_TRUE(d->committed);
  EXPECT_FALSE(d->predefined);
  EXPECT_EQ(ftmpi::dt::flatten(d).size(), ftmpi::dt::flatten(v.t).size());
  EXPECT_EQ(d->extent, v.t->extent);
  EXPECT_TRUE(dt::retire(d).ok());
  EXPECT_FALSE(dt::live(d));
  EXPECT_EQ(dt::retire(d).code(), ftmpi::Errc::type);  // double free is rejected
  delete d;

  auto p = dt::make_dup(MPI_INT);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p.value()->contiguous);
  EXPECT_TRUE(p.value()->name.empty());
  EXPECT_TRUE(dt::retire(p.value()).ok());
  delete p.value();
}

TEST(DatatypePack, UncommittedAndPredefinedRules) {
  auto r = dt::make_contiguous(2, MPI_INT);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(dt::usable(r.value()));
  dt::commit(r.value());
  EXPECT_TRUE(dt::usable(r.value()));
  EXPECT_TRUE(dt::retire(r.value()).ok());
  EXPECT_FALSE(dt::usable(r.value()));
  delete r.value();
  EXPECT_EQ(dt::retire(MPI_INT).code(), ftmpi::Errc::type);
}

TEST(DatatypePack, EmptyAndHugeTypes) {
  Owned e(dt::make_contiguous(0, MPI_INT));
  EXPECT_EQ(e.t->size, 0u);
  EXPECT_EQ(e.t->extent, 0);
  EXPECT_EQ(e.t->basic, dt::Basic::int_);
  auto big = dt::make_contiguous(std::size_t{1} << 62, MPI_DOUBLE);
  EXPECT_FALSE(big.ok());
}

TEST(DatatypePack, HvectorByteStride) {
  // 2 blocks of 1 short, 6 bytes apart.
  Owned h(dt::make_hvector(2, 1, 6, MPI_SHORT));
  ASSERT_EQ(ftmpi::dt::flatten(h.t).size(), 2u);
  EXPECT_EQ(ftmpi::dt::flatten(h.t)[1].offset, 6);
  EXPECT_EQ(h.t->extent, 8);
  EXPECT_EQ(h.t->size, 4u);
}

}  // namespace
