// Process topologies as pure functions: Dims_create, Cartesian grids, graphs, distributed graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "topo/topology.h"

using ftmpi::Errc;
using namespace ftmpi::topo;

namespace {
std::vector<int> dims_of(int n, std::vector<int> dims) {
  auto st = dims_create(n, dims);
  EXPECT_TRUE(st.ok()) << st.message();
  return dims;
}
}  // namespace

TEST(DimsCreate, StandardExamples) {
  // MPI-3.1 §7.5.2's table.
  EXPECT_EQ(dims_of(6, {0, 0}), (std::vector<int>{3, 2}));
  EXPECT_EQ(dims_of(7, {0, 0}), (std::vector<int>{7, 1}));
  EXPECT_EQ(dims_of(6, {0, 3, 0}), (std::vector<int>{2, 3, 1}));
  std::vector<int> bad{0, 3, 0};
  EXPECT_EQ(dims_create(7, bad).code(), Errc::dims);
}

TEST(DimsCreate, BalancedAndNonIncreasing) {
  EXPECT_EQ(dims_of(24, {0, 0, 0}), (std::vector<int>{4, 3, 2}));
  EXPECT_EQ(dims_of(36, {0, 0}), (std::vector<int>{6, 6}));
  EXPECT_EQ(dims_of(16, {0, 0, 0}), (std::vector<int>{4, 2, 2}));
  EXPECT_EQ(dims_of(1, {0, 0}), (std::vector<int>{1, 1}));
  EXPECT_EQ(dims_of(8, {0}), (std::vector<int>{8}));
  EXPECT_EQ(dims_of(12, {2, 0, 0}), (std::vector<int>{2, 3, 2}));
  EXPECT_EQ(dims_of(1 << 20, {0, 0}), (std::vector<int>{1024, 1024}));
  EXPECT_EQ(dims_of(2147483647, {0, 0}), (std::vector<int>{2147483647, 1}));  // prime
  for (int n = 1; n <= 64; ++n)
    for (int k = 1; k <= 4; ++k) {
      std::vector<int> d(static_cast<size_t>(k), 0);
      ASSERT_TRUE(dims_create(n, d).ok());
      long long p = 1;
      for (int x : d) p *= x;
      EXPECT_EQ(p, n);
      EXPECT_TRUE(std::is_sorted(d.rbegin(), d.rend()));
    }
}

// The spread (largest - smallest) is the measure of balance; a tie goes to the larger smallest factor.
// The first four were 20x18x14, 24x20x13, 25x24x18, 45x45x17 under the former rule (largest factor
// smallest first); these are MPICH's answers (its topo/dims5), and an exhaustive search's.
TEST(DimsCreate, SmallestSpreadThenLargestSmallestFactor) {
  EXPECT_EQ(dims_of(5040, {0, 0, 0}), (std::vector<int>{21, 16, 15}));    // tie at spread 6
  EXPECT_EQ(dims_of(6240, {0, 0, 0}), (std::vector<int>{26, 16, 15}));    // tie at spread 11
  EXPECT_EQ(dims_of(10800, {0, 0, 0}), (std::vector<int>{27, 20, 20}));   // tie at spread 7
  EXPECT_EQ(dims_of(34425, {0, 0, 0}), (std::vector<int>{51, 27, 25}));   // spread 26, not 28
  EXPECT_EQ(dims_of(720720, {0, 0, 0, 0, 0}), (std::vector<int>{20, 18, 14, 13, 11}));
  EXPECT_EQ(dims_of(1000000000, {0, 0, 0, 0, 0}), (std::vector<int>{100, 80, 50, 50, 50}));
  EXPECT_EQ(dims_of(5040, {0, 7, 0, 0}), (std::vector<int>{10, 7, 9, 8}));  // fixed entries stay
  // Many dimensions and large highly composite numbers stay quick (the search is cut by the spread).
  std::vector<int> many(40, 0);
  ASSERT_TRUE(dims_create(2095133040, many).ok());
  EXPECT_EQ(many[39], 1);
}

TEST(DimsCreate, Errors) {
  std::vector<int> d{2, 2};
  EXPECT_EQ(dims_create(5, d).code(), Errc::dims);  // fixed product differs
  d = {2, 2};
  EXPECT_TRUE(dims_create(4, d).ok());
  d = {-1, 0};
  EXPECT_EQ(dims_create(4, d).code(), Errc::dims);
  d = {0};
  EXPECT_EQ(dims_create(0, d).code(), Errc::arg);
  std::vector<int> none;
  EXPECT_TRUE(dims_create(1, none).ok());
}

TEST(Cart, RankCoordsRoundTripRowMajor) {
  Cart c{{3, 4, 2}, {false, true, false}};
  EXPECT_EQ(c.size(), 24);
  for (int r = 0; r < c.size(); ++r) {
    std::vector<int> co(3);
    ASSERT_TRUE(c.coords_of(r, co).ok());
    EXPECT_EQ(*c.rank_of(co), r);
  }
  std::vector<int> co(3);
  ASSERT_TRUE(c.coords_of(5, co).ok());
  EXPECT_EQ(co, (std::vector<int>{0, 2, 1}));  // 5 = (0*4 + 2)*2 + 1
  EXPECT_EQ(c.coords_of(24, co).code(), Errc::rank);
  // Out-of-range coordinate: wraps in the periodic dimension, error in the others.
  EXPECT_EQ(*c.rank_of(std::vector<int>{0, -1, 0}), *c.rank_of(std::vector<int>{0, 3, 0}));
  EXPECT_EQ(*c.rank_of(std::vector<int>{0, 9, 0}), *c.rank_of(std::vector<int>{0, 1, 0}));
  EXPECT_EQ(c.rank_of(std::vector<int>{3, 0, 0}).status().code(), Errc::rank);
}

TEST(Cart, Shift) {
  Cart c{{4, 3}, {true, false}};
  int src = 0, dst = 0;
  // rank 0 = (0,0)
  ASSERT_TRUE(c.shift(0, 0, 1, -2, &src, &dst).ok());
  EXPECT_EQ(dst, 3);  // (1,0)
  EXPECT_EQ(src, 9);  // (3,0) by wrap
  ASSERT_TRUE(c.shift(0, 1, 1, -2, &src, &dst).ok());
  EXPECT_EQ(dst, 1);   // (0,1)
  EXPECT_EQ(src, -2);  // off the edge
  ASSERT_TRUE(c.shift(2, 1, 1, -2, &src, &dst).ok());
  EXPECT_EQ(dst, -2);
  EXPECT_EQ(src, 1);
  ASSERT_TRUE(c.shift(0, 0, -5, -2, &src, &dst).ok());  // large periodic displacement
  EXPECT_EQ(dst, 9);                                    // (-5 mod 4 = 3, 0)
  EXPECT_EQ(src, 3);
  ASSERT_TRUE(c.shift(4, 1, 0, -2, &src, &dst).ok());
  EXPECT_EQ(src, 4);
  EXPECT_EQ(dst, 4);
  EXPECT_EQ(c.shift(0, 2, 1, -2, &src, &dst).code(), Errc::dims);
}

TEST(Cart, SubGrid) {
  Cart c{{2, 3, 4}, {true, false, true}};
  std::vector<bool> remain{false, true, true};
  Cart s = c.sub(remain);
  EXPECT_EQ(s.dims, (std::vector<int>{3, 4}));
  EXPECT_EQ(s.periods, (std::vector<bool>{false, true}));
  // Every sub-grid holds 12 ranks with keys 0..11; two colors.
  std::vector<int> per_color(2, 0);
  for (int r = 0; r < c.size(); ++r) {
    int color = -1, key = -1;
    ASSERT_TRUE(c.sub_color_key(r, remain, &color, &key).ok());
    ASSERT_GE(color, 0);
    ASSERT_LT(color, 2);
    EXPECT_EQ(key, r % 12);
    EXPECT_EQ(color, r / 12);
    ++per_color[static_cast<size_t>(color)];
  }
  EXPECT_EQ(per_color, (std::vector<int>{12, 12}));
  std::vector<bool> none{false, false, false};
  EXPECT_EQ(c.sub(none).ndims(), 0);
  EXPECT_EQ(c.sub(none).size(), 1);
  int color = 0, key = 0;
  ASSERT_TRUE(c.sub_color_key(17, none, &color, &key).ok());
  EXPECT_EQ(color, 17);
  EXPECT_EQ(key, 0);
}

TEST(Graph, MakeAndNeighbours) {
  // The standard's example: 4 nodes, 0-{1,3}, 1-{0}, 2-{3}, 3-{0,2}.
  std::vector<int> index{2, 3, 4, 6}, edges{1, 3, 0, 3, 0, 2};
  auto g = Graph::make(4, index, edges);
  ASSERT_TRUE(g.ok());
  auto n0 = g->neighbors(0);
  ASSERT_TRUE(n0.ok());
  EXPECT_EQ(std::vector<int>(n0->begin(), n0->end()), (std::vector<int>{1, 3}));
  auto n3 = g->neighbors(3);
  EXPECT_EQ(std::vector<int>(n3->begin(), n3->end()), (std::vector<int>{0, 2}));
  EXPECT_EQ(g->neighbors(4).status().code(), Errc::rank);
  EXPECT_EQ(Graph::make(3, index, edges).status().code(), Errc::arg);  // too many nodes
  std::vector<int> bad_index{2, 1, 4, 6};
  EXPECT_EQ(Graph::make(4, bad_index, edges).status().code(), Errc::arg);
  std::vector<int> bad_edges{1, 3, 0, 3, 0, 9};
  EXPECT_EQ(Graph::make(4, index, bad_edges).status().code(), Errc::arg);
}

TEST(DistGraph, AdjacentAndGathered) {
  std::vector<int> src{1, 2}, dst{3};
  int sw[] = {5, 6}, dw[] = {7};
  auto g = DistGraph::make(4, src, sw, dst, dw, true);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->source_weights, (std::vector<int>{5, 6}));
  EXPECT_EQ(DistGraph::make(3, src, sw, dst, dw, true).status().code(), Errc::rank);
  int negative[] = {-1};
  EXPECT_EQ(DistGraph::make(4, src, sw, dst, negative, true).status().code(), Errc::arg);
  // A ring 0->1->2->0 plus 0->2, as gathered edges.
  std::vector<Edge> edges{{0, 1, 1}, {0, 2, 2}, {1, 2, 3}, {2, 0, 4}};
  DistGraph a0 = adjacency_of(0, edges, true);
  EXPECT_EQ(a0.sources, (std::vector<int>{2}));
  EXPECT_EQ(a0.destinations, (std::vector<int>{1, 2}));
  EXPECT_EQ(a0.dest_weights, (std::vector<int>{1, 2}));
  DistGraph a2 = adjacency_of(2, edges, false);
  EXPECT_EQ(a2.sources, (std::vector<int>{0, 1}));
  EXPECT_EQ(a2.destinations, (std::vector<int>{0}));
  EXPECT_TRUE(a2.source_weights.empty());
}
