// Subarray and darray type maps (datatype/array_types.h) against a hand-written reference: C and Fortran
// order, 1-3 dimensions, block / cyclic / none distributions with and without darg, bounds and extent,
// argument errors. A type map is read back by packing an array whose every element holds its own linear
// index: the packed values are the selected indices in type-map order.
#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <numeric>
#include <vector>

#include "mpi.h"
#include "datatype/array_types.h"
#include "datatype/datatype.h"
#include "datatype/derived.h"
#include "datatype_owned.h"

namespace {
namespace dt = ftmpi::dt;
using dt::Datatype;

using ftmpi::dt::testing::Owned;

// Linear index of `idx` in an array of `sizes`, in C (last index fastest) or Fortran (first fastest) order.
long linear(const std::vector<int>& idx, const std::vector<int>& sizes, dt::Order order) {
  long l = 0;
  if (order == dt::Order::c) {
    for (std::size_t d = 0; d < sizes.size(); ++d) l = l * sizes[d] + idx[d];
  } else {
    for (std::size_t d = sizes.size(); d-- > 0;) l = l * sizes[d] + idx[d];
  }
  return l;
}

// Every index tuple of `sizes`, in storage order.
std::vector<std::vector<int>> all_indices(const std::vector<int>& sizes, dt::Order order) {
  long total = 1;
  for (int s : sizes) total *= s;
  std::vector<std::vector<int>> out(static_cast<std::size_t>(total), std::vector<int>(sizes.size()));
  std::vector<int> idx(sizes.size(), 0);
  for (long k = 0; k < total; ++k) {
    out[static_cast<std::size_t>(linear(idx, sizes, order))] = idx;
    for (std::size_t d = sizes.size(); d-- > 0;) {  // odometer
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// The linear indices the type selects, in type-map order (old = MPI_INT).
std::vector<int> selected(const Datatype* t, long total) {
  std::vector<int> array(static_cast<std::size_t>(total));
  std::iota(array.begin(), array.end(), 0);
  std::vector<int> packed(t->size / sizeof(int));
  dt::pack(array.data(), 1, t, packed.data());
  return packed;
}

long product(const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 1L, std::multiplies<>()); }

void expect_subarray(std::vector<int> sizes, std::vector<int> subsizes, std::vector<int> starts, dt::Order order) {
  SCOPED_TRACE(::testing::Message() << "ndims " << sizes.size() << (order == dt::Order::c ? " C" : " Fortran"));
  Owned t(dt::make_subarray(sizes, subsizes, starts, order, MPI_INT));
  ASSERT_NE(t.t, nullptr);
  std::vector<int> want;
  for (const auto& idx : all_indices(sizes, order)) {
    bool in = true;
    for (std::size_t d = 0; d < sizes.size(); ++d) in = in && idx[d] >= starts[d] && idx[d] < starts[d] + subsizes[d];
    if (in) want.push_back(static_cast<int>(linear(idx, sizes, order)));
  }
  EXPECT_EQ(selected(t.t, product(sizes)), want);
  EXPECT_EQ(t.t->size, want.size() * sizeof(int));
  EXPECT_EQ(t.t->lb, 0);
  EXPECT_EQ(t.t->extent, product(sizes) * static_cast<long>(sizeof(int)));
  EXPECT_EQ(t.t->true_lb, want.front() * static_cast<long>(sizeof(int)));
  EXPECT_EQ(t.t->basic, dt::Basic::int_);
}

TEST(DatatypeArray, SubarrayOneToThreeDimsBothOrders) {
  for (dt::Order o : {dt::Order::c, dt::Order::fortran}) {
    expect_subarray({10}, {4}, {3}, o);
    expect_subarray({10}, {10}, {0}, o);
    expect_subarray({5, 7}, {2, 3}, {1, 4}, o);
    expect_subarray({5, 7}, {5, 1}, {0, 6}, o);
    expect_subarray({4, 5, 6}, {2, 3, 4}, {1, 2, 2}, o);
    expect_subarray({3, 1, 4}, {1, 1, 4}, {2, 0, 0}, o);
  }
}

TEST(DatatypeArray, SubarrayCAndFortranAreTransposes) {
  // The C subarray of a 3x4 array at rows 1..2, columns 1..3 is the Fortran subarray of the 4x3 array.
  Owned c(dt::make_subarray(std::vector<int>{3, 4}, std::vector<int>{2, 3}, std::vector<int>{1, 1}, dt::Order::c,
                            MPI_INT));
  Owned f(dt::make_subarray(std::vector<int>{4, 3}, std::vector<int>{3, 2}, std::vector<int>{1, 1},
                            dt::Order::fortran, MPI_INT));
  EXPECT_EQ(selected(c.t, 12), selected(f.t, 12));
  const std::vector<int> want = {5, 6, 7, 9, 10, 11};
  EXPECT_EQ(selected(c.t, 12), want);
}

TEST(DatatypeArray, SubarrayOfNonContiguousOldType) {
  // old = an int followed by a 4-byte hole (extent 8): element k of the array sits at byte 8k.
  Owned old(dt::make_resized(MPI_INT, 0, 8));
  Owned t(dt::make_subarray(std::vector<int>{4, 3}, std::vector<int>{2, 2}, std::vector<int>{1, 1}, dt::Order::c,
                            old.t));
  EXPECT_EQ(t.t->extent, 12 * 8);
  EXPECT_EQ(t.t->size, 4 * sizeof(int));
  std::vector<int> array(24, -1);
  for (int k = 0; k < 12; ++k) array[2 * k] = k;
  std::vector<int> packed(4);
  dt::pack(array.data(), 1, t.t, packed.data());
  EXPECT_EQ(packed, (std::vector<int>{4, 5, 7, 8}));
}

TEST(DatatypeArray, SubarrayElementsTileWholeArrays) {
  // Two elements of the type select the same box in two consecutive arrays.
  Owned t(dt::make_subarray(std::vector<int>{4}, std::vector<int>{2}, std::vector<int>{1}, dt::Order::c, MPI_INT));
  std::vector<int> array(8);
  std::iota(array.begin(), array.end(), 0);
  std::vector<int> packed(4);
  dt::pack(array.data(), 2, t.t, packed.data());
  EXPECT_EQ(packed, (std::vector<int>{1, 2, 5, 6}));
}

TEST(DatatypeArray, SubarrayErrors) {
  const std::vector<int> s{4, 4}, ok_sub{2, 2}, ok_start{1, 1};
  auto code = [](ftmpi::Result<Datatype*> r) {
    if (r.ok()) {
      (void)dt::retire(r.value());
      delete r.value();
    }
    return r.status().code();
  };
  EXPECT_EQ(code(dt::make_subarray(std::span<const int>{}, {}, {}, dt::Order::c, MPI_INT)), ftmpi::Errc::count);
  EXPECT_EQ(code(dt::make_subarray(std::vector<int>{0, 4}, ok_sub, ok_start, dt::Order::c, MPI_INT)),
            ftmpi::Errc::arg);
  EXPECT_EQ(code(dt::make_subarray(s, std::vector<int>{0, 2}, ok_start, dt::Order::c, MPI_INT)), ftmpi::Errc::arg);
  EXPECT_EQ(code(dt::make_subarray(s, std::vector<int>{5, 2}, ok_start, dt::Order::c, MPI_INT)), ftmpi::Errc::arg);
  EXPECT_EQ(code(dt::make_subarray(s, ok_sub, std::vector<int>{3, 1}, dt::Order::c, MPI_INT)), ftmpi::Errc::arg);
  EXPECT_EQ(code(dt::make_subarray(s, ok_sub, std::vector<int>{-1, 1}, dt::Order::c, MPI_INT)), ftmpi::Errc::arg);
  EXPECT_EQ(code(dt::make_subarray(s, ok_sub, ok_start, dt::Order::c, MPI_INT)), ftmpi::Errc::ok);
}

// Reference owner of index `i` in one darray dimension: the grid coordinate whose blocks contain it.
int owner(const dt::DarrayDim& d, int i) {
  switch (d.distribution) {
    case dt::Distribution::none: return 0;
    case dt::Distribution::block: {
      const int b = d.darg ? *d.darg : (d.gsize + d.psize - 1) / d.psize;
      return i / b;
    }
    case dt::Distribution::cyclic: return (i / (d.darg ? *d.darg : 1)) % d.psize;
  }
  return -1;
}

// Checks every rank's darray type against the reference and that the ranks partition the array.
void expect_darray(const std::vector<dt::DarrayDim>& dims, dt::Order order) {
  SCOPED_TRACE(::testing::Message() << "ndims " << dims.size() << (order == dt::Order::c ? " C" : " Fortran"));
  std::vector<int> gsizes;
  int size = 1;
  for (const auto& d : dims) gsizes.push_back(d.gsize), size *= d.psize;
  const long total = product(gsizes);
  std::vector<int> owners(static_cast<std::size_t>(total), 0);
  for (int rank = 0; rank < size; ++rank) {
    SCOPED_TRACE(::testing::Message() << "rank " << rank);
    std::vector<int> coords(dims.size());  // row-major process grid
    for (std::size_t d = dims.size(), r = static_cast<std::size_t>(rank); d-- > 0;)
      coords[d] = static_cast<int>(r % static_cast<std::size_t>(dims[d].psize)), r /= dims[d].psize;
    Owned t(dt::make_darray(size, rank, dims, order, MPI_INT));
    ASSERT_NE(t.t, nullptr);
    std::vector<int> want;
    for (const auto& idx : all_indices(gsizes, order)) {
      bool mine = true;
      for (std::size_t d = 0; d < dims.size(); ++d) mine = mine && owner(dims[d], idx[d]) == coords[d];
      if (mine) want.push_back(static_cast<int>(linear(idx, gsizes, order)));
    }
    EXPECT_EQ(selected(t.t, total), want);
    EXPECT_EQ(t.t->lb, 0);
    EXPECT_EQ(t.t->extent, total * static_cast<long>(sizeof(int)));
    for (int i : want) owners[static_cast<std::size_t>(i)] += 1;
  }
  for (long i = 0; i < total; ++i) EXPECT_EQ(owners[static_cast<std::size_t>(i)], 1) << "element " << i;
}

using D = dt::Distribution;

TEST(DatatypeArray, DarrayBlockDefaultAndExplicitDarg) {
  for (dt::Order o : {dt::Order::c, dt::Order::fortran}) {
    expect_darray({{10, D::block, std::nullopt, 3}}, o);          // blocks of 4, 4, 2
    expect_darray({{10, D::block, 5, 3}}, o);                     // blocks of 5, 5, 0
    expect_darray({{7, D::block, std::nullopt, 2}, {5, D::block, std::nullopt, 2}}, o);
    expect_darray({{6, D::block, 4, 2}, {3, D::none, std::nullopt, 1}, {5, D::block, std::nullopt, 3}}, o);
  }
}

TEST(DatatypeArray, DarrayCyclicDefaultAndExplicitDarg) {
  for (dt::Order o : {dt::Order::c, dt::Order::fortran}) {
    expect_darray({{10, D::cyclic, std::nullopt, 3}}, o);
    expect_darray({{11, D::cyclic, 2, 3}}, o);                    // the last block is cut
    expect_darray({{4, D::cyclic, 8, 2}}, o);                     // darg beyond the array: rank 1 owns nothing
    expect_darray({{6, D::cyclic, 2, 2}, {5, D::cyclic, std::nullopt, 2}}, o);
    expect_darray({{5, D::cyclic, 1, 2}, {4, D::block, std::nullopt, 2}, {3, D::cyclic, 2, 1}}, o);
  }
}

TEST(DatatypeArray, DarrayMatchesSubarrayForBlocks) {
  // An even block distribution of an 8x6 array over 2x3 processes is the subarray of each process's block.
  const std::vector<dt::DarrayDim> dims{{8, D::block, std::nullopt, 2}, {6, D::block, std::nullopt, 3}};
  for (int rank = 0; rank < 6; ++rank) {
    Owned d(dt::make_darray(6, rank, dims, dt::Order::c, MPI_INT));
    Owned s(dt::make_subarray(std::vector<int>{8, 6}, std::vector<int>{4, 2},
                              std::vector<int>{(rank / 3) * 4, (rank % 3) * 2}, dt::Order::c, MPI_INT));
    EXPECT_EQ(selected(d.t, 48), selected(s.t, 48)) << "rank " << rank;
    EXPECT_EQ(d.t->extent, s.t->extent);
  }
}

TEST(DatatypeArray, DarrayErrors) {
  auto code = [](int size, int rank, std::vector<dt::DarrayDim> dims) {
    ftmpi::Result<Datatype*> r = dt::make_darray(size, rank, dims, dt::Order::c, MPI_INT);
    if (r.ok()) {
      (void)dt::retire(r.value());
      delete r.value();
    }
    return r.status().code();
  };
  using E = ftmpi::Errc;
  EXPECT_EQ(code(1, 0, {}), E::count);
  EXPECT_EQ(code(0, 0, {{4, D::block, std::nullopt, 1}}), E::arg);                        // size < 1
  EXPECT_EQ(code(2, 2, {{4, D::block, std::nullopt, 2}}), E::rank);                       // rank >= size
  EXPECT_EQ(code(2, -1, {{4, D::block, std::nullopt, 2}}), E::rank);
  EXPECT_EQ(code(4, 0, {{4, D::block, std::nullopt, 2}}), E::arg);                        // psizes product
  EXPECT_EQ(code(2, 0, {{4, D::none, std::nullopt, 2}}), E::arg);                         // none needs psize 1
  EXPECT_EQ(code(2, 0, {{10, D::block, 4, 2}}), E::arg);                                  // 4 * 2 < 10
  EXPECT_EQ(code(2, 0, {{10, D::cyclic, 0, 2}}), E::arg);                                 // darg < 1
  EXPECT_EQ(code(2, 0, {{0, D::cyclic, std::nullopt, 2}}), E::arg);                       // gsize < 1
  EXPECT_EQ(code(2, 1, {{10, D::block, 5, 2}}), E::ok);
}

}  // namespace
