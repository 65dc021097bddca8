// Derived datatype constructors with per-block displacements (indexed, hindexed, indexed_block,
// hindexed_block, struct) and resized types: layout (size, bounds, extent, blocks), alignment padding of
// structs, argument errors, and pack/unpack round trips through the same layouts.
#include <gtest/gtest.h>

#include <cstddef>
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

TEST(DatatypeCtor, IndexedLayoutAndRoundTrip) {
  const int lens[] = {2, 1, 3};
  const int displs[] = {5, 0, 9};  // type-map order is not address order
  Owned t(dt::make_indexed(3, lens, displs, MPI_INT));
  EXPECT_EQ(t.t->size, 6 * sizeof(int));
  EXPECT_EQ(t.t->lb, 0);
  EXPECT_EQ(t.t->extent, 12 * static_cast<std::ptrdiff_t>(sizeof(int)));
  EXPECT_FALSE(t.t->contiguous);
  EXPECT_EQ(t.t->basic, dt::Basic::int_);
  EXPECT_EQ(t.t->basic_count, 6u);
  ASSERT_EQ(ftmpi::dt::flatten(t.t).size(), 3u);
  EXPECT_EQ(ftmpi::dt::flatten(t.t)[0].offset, 5 * 4);
  EXPECT_EQ(ftmpi::dt::flatten(t.t)[0].length, 8u);

  std::vector<int> src(24);
  std::iota(src.begin(), src.end(), 0);
  std::vector<int> packed(12, -1), back(24, -1);
  dt::pack(src.data(), 2, t.t, packed.data());
  const std::vector<int> want = {5, 6, 0, 9, 10, 11, 17, 18, 12, 21, 22, 23};
  EXPECT_EQ(packed, want);
  dt::unpack(packed.data(), packed.size() * sizeof(int), t.t, back.data());
  for (int i : want) EXPECT_EQ(back[i], i);
  EXPECT_EQ(back[1], -1);  // holes untouched
}

TEST(DatatypeCtor, HindexedUsesBytesAndNegativeDisplacements) {
  const int lens[] = {1, 1};
  const std::ptrdiff_t displs[] = {-8, 8};
  Owned t(dt::make_hindexed(2, lens, displs, MPI_DOUBLE));
  EXPECT_EQ(t.t->size, 16u);
  EXPECT_EQ(t.t->lb, -8);
  EXPECT_EQ(t.t->extent, 24);
  EXPECT_EQ(t.t->true_lb, -8);
  EXPECT_EQ(t.t->true_extent, 24);
  double buf[3] = {1.5, -7, 2.5};
  double packed[2] = {0, 0};
  dt::pack(&buf[1], 1, t.t, packed);
  EXPECT_EQ(packed[0], 1.5);
  EXPECT_EQ(packed[1], 2.5);
}

TEST(DatatypeCtor, IndexedBlockAndHindexedBlockAgree) {
  const int displs[] = {0, 3, 7};
  const std::ptrdiff_t bdispls[] = {0, 3 * 4, 7 * 4};
  Owned a(dt::make_indexed_block(3, 2, displs, MPI_INT));
  Owned b(dt::make_hindexed_block(3, 2, bdispls, MPI_INT));
  EXPECT_EQ(a.t->size, 24u);
  EXPECT_EQ(a.t->extent, 9 * 4);
  EXPECT_EQ(a.t->size, b.t->size);
  EXPECT_EQ(a.t->extent, b.t->extent);
  ASSERT_EQ(ftmpi::dt::flatten(a.t).size(), ftmpi::dt::flatten(b.t).size());
  for (std::size_t i = 0; i < ftmpi::dt::flatten(a.t).size(); ++i) {
    EXPECT_EQ(ftmpi::dt::flatten(a.t)[i].offset, ftmpi::dt::flatten(b.t)[i].offset);
    EXPECT_EQ(ftmpi::dt::flatten(a.t)[i].length, ftmpi::dt::flatten(b.t)[i].length);
  }
}

TEST(DatatypeCtor, TouchingBlocksMergeIntoContiguous) {
  const int lens[] = {2, 3};
  const int displs[] = {0, 2};
  Owned t(dt::make_indexed(2, lens, displs, MPI_INT));
  EXPECT_TRUE(t.t->contiguous);
  EXPECT_EQ(t.t->size, 20u);
  EXPECT_EQ(t.t->extent, 20);
}

TEST(DatatypeCtor, ZeroLengthBlocksDoNotMoveBounds) {
  const int lens[] = {0, 2, 0};
  const int displs[] = {-100, 4, 100};
  Owned t(dt::make_indexed(3, lens, displs, MPI_INT));
  EXPECT_EQ(t.t->lb, 16);
  EXPECT_EQ(t.t->extent, 8);
}

struct Particle {
  double pos[3];
  int id;
  char tag;
};

TEST(DatatypeCtor, StructMatchesCLayoutWithTrailingPadding) {
  const int lens[] = {3, 1, 1};
  const std::ptrdiff_t displs[] = {offsetof(Particle, pos), offsetof(Particle, id), offsetof(Particle, tag)};
  const Datatype* types[] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
  Owned t(dt::make_struct(3, lens, displs, types));
  EXPECT_EQ(t.t->size, 3 * sizeof(double) + sizeof(int) + 1);
  EXPECT_EQ(t.t->extent, static_cast<std::ptrdiff_t>(sizeof(Particle)));  // 32, padded like C
  EXPECT_EQ(t.t->true_extent, static_cast<std::ptrdiff_t>(offsetof(Particle, tag) + 1));
  EXPECT_EQ(t.t->basic, dt::Basic::none);  // mixed kinds
  EXPECT_EQ(t.t->basic_count, 5u);
  EXPECT_EQ(dt::alignment(t.t), alignof(double));

  Particle src[3], back[3];
  std::memset(back, 0, sizeof back);
  for (int i = 0; i < 3; ++i) src[i] = Particle{{i + 0.5, i + 1.5, i + 2.5}, 100 + i, static_cast<char>('a' + i)};
  std::vector<unsigned char> packed(3 * t.t->size);
  dt::pack(src, 3, t.t, packed.data());
  dt::unpack(packed.data(), packed.size(), t.t, back);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(back[i].pos[2], src[i].pos[2]);
    EXPECT_EQ(back[i].id, src[i].id);
    EXPECT_EQ(back[i].tag, src[i].tag);
  }
}

TEST(DatatypeCtor, StructOfDerivedKeepsAlignment) {
  Owned vec(dt::make_vector(2, 1, 2, MPI_DOUBLE));  // extent 24, align 8
  const int lens[] = {1, 1};
  const std::ptrdiff_t displs[] = {0, 24};
  const Datatype* types[] = {vec.t, MPI_CHAR};
  Owned t(dt::make_struct(2, lens, displs, types));
  EXPECT_EQ(t.t->extent, 32);  // 25 rounded up to 8
}

TEST(DatatypeCtor, StructHonoursLbUbMarkers) {
  {  // an explicit MPI_UB: no alignment padding
    const int lens[] = {1, 1};
    const std::ptrdiff_t displs[] = {0, 6};
    const Datatype* types[] = {MPI_INT, MPI_UB};
    Owned t(dt::make_struct(2, lens, displs, types));
    EXPECT_EQ(t.t->lb, 0);
    EXPECT_EQ(t.t->extent, 6);
    EXPECT_EQ(t.t->size, sizeof(int));
  }
  {  // MPI_UB below MPI_LB: a negative extent (MPICH datatype/lbub_oldapi)
    const int lens[] = {1, 4, 1};
    const std::ptrdiff_t displs[] = {6, 0, -3};
    const Datatype* types[] = {MPI_LB, MPI_BYTE, MPI_UB};
    Owned t(dt::make_struct(3, lens, displs, types));
    EXPECT_EQ(t.t->lb, 6);
    EXPECT_EQ(t.t->extent, -9);
    EXPECT_EQ(t.t->size, 4u);
  }
  {  // markers only: the missing bound is the empty map's 0 (MPICH datatype/struct_no_real_types)
    const int lens[] = {1};
    const std::ptrdiff_t displs[] = {10};
    const Datatype* types[] = {MPI_LB};
    Owned t(dt::make_struct(1, lens, displs, types));
    EXPECT_EQ(t.t->lb, 10);
    EXPECT_EQ(t.t->extent, -10);
    EXPECT_EQ(t.t->size, 0u);
  }
}

TEST(DatatypeCtor, NegativeBlockLengthIsACountError) {
  const int lens[] = {1, -1};
  const int displs[] = {0, 1};
  auto r = dt::make_indexed(2, lens, displs, MPI_INT);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ftmpi::Errc::count);
}

TEST(DatatypeCtor, ResizedChangesOnlyBounds) {
  Owned t(dt::make_resized(MPI_INT, 0, 12));
  EXPECT_EQ(t.t->size, 4u);
  EXPECT_EQ(t.t->lb, 0);
  EXPECT_EQ(t.t->extent, 12);
  EXPECT_EQ(t.t->true_extent, 4);
  EXPECT_FALSE(t.t->contiguous);
  // Every third int, by count: the classic "column of a matrix" via resize.
  std::vector<int> src(9);
  std::iota(src.begin(), src.end(), 0);
  int packed[3] = {-1, -1, -1};
  dt::pack(src.data(), 3, t.t, packed);
  EXPECT_EQ(packed[0], 0);
  EXPECT_EQ(packed[1], 3);
  EXPECT_EQ(packed[2], 6);
  std::vector<int> back(9, -1);
  dt::unpack(packed, sizeof packed, t.t, back.data());
  EXPECT_EQ(back[3], 3);
  EXPECT_EQ(back[4], -1);

  Owned same(dt::make_resized(MPI_INT, 0, 4));
  EXPECT_TRUE(same.t->contiguous);
}

TEST(DatatypeCtor, ResizedStructTightensArrayStride) {
  const int lens[] = {1, 1};
  const std::ptrdiff_t displs[] = {0, 8};
  const Datatype* types[] = {MPI_DOUBLE, MPI_INT};
  Owned s(dt::make_struct(2, lens, displs, types));
  EXPECT_EQ(s.t->extent, 16);
  Owned r(dt::make_resized(s.t, 0, 12));
  EXPECT_EQ(r.t->extent, 12);
  EXPECT_EQ(r.t->size, 12u);
  EXPECT_TRUE(r.t->contiguous);  // double + int back to back, no padding left
}

}  // namespace
