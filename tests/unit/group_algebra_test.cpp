// Group algebra and group objects (comm/group_algebra.h, comm/group.h).
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "comm/group.h"
#include "comm/group_algebra.h"

using namespace ftmpi;
using namespace ftmpi::comm;

namespace {
const std::vector<int> kWorld8 = {0, 1, 2, 3, 4, 5, 6, 7};
const std::vector<int> kOdd = {7, 5, 3, 1};  // world ranks, deliberately unsorted
}  // namespace

TEST(GroupObject, MakeFindsMyRankAndReleasesToFreed) {
  Group* g = make_group({4, 2, 9}, 9);
  EXPECT_EQ(g->size(), 3);
  EXPECT_EQ(g->my_rank, 2);
  EXPECT_EQ(g->rank_of_world(4), 0);
  EXPECT_EQ(g->rank_of_world(5), -1);
  group_retain(g);
  group_release(g);
  EXPECT_EQ(g->magic, kMagicGroup);
  group_release(g);
  EXPECT_EQ(g->magic, kMagicFreed);
  delete g;  // the library keeps freed groups; the test may drop it
}

TEST(GroupObject, NotAMember) {
  Group* g = make_group({1, 2}, 0);
  EXPECT_EQ(g->my_rank, -1);
  group_release(g);
  delete g;
}

TEST(GroupAlgebra, InclKeepsRequestedOrder) {
  auto r = group_incl(kOdd, std::vector<int>{3, 0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (RankList{1, 7}));
  auto empty = group_incl(kOdd, std::vector<int>{});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(GroupAlgebra, InclRejectsBadRanks) {
  EXPECT_EQ(group_incl(kOdd, std::vector<int>{4}).status().code(), Errc::rank);
  EXPECT_EQ(group_incl(kOdd, std::vector<int>{-1}).status().code(), Errc::rank);
  EXPECT_EQ(group_incl(kOdd, std::vector<int>{1, 1}).status().code(), Errc::rank);
}

TEST(GroupAlgebra, ExclKeepsGroupOrder) {
  auto r = group_excl(kOdd, std::vector<int>{2, 0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (RankList{5, 1}));
  EXPECT_EQ(group_excl(kOdd, std::vector<int>{0, 0}).status().code(), Errc::rank);
  EXPECT_EQ(group_excl(kOdd, std::vector<int>{9}).status().code(), Errc::rank);
}

TEST(GroupAlgebra, Ranges) {
  std::vector<std::array<int, 3>> r1 = {{0, 6, 3}, {7, 5, -2}};
  auto inc = group_range_incl(kWorld8, r1);
  ASSERT_TRUE(inc.ok());
  EXPECT_EQ(*inc, (RankList{0, 3, 6, 7, 5}));
  auto exc = group_range_excl(kWorld8, r1);
  ASSERT_TRUE(exc.ok());
  EXPECT_EQ(*exc, (RankList{1, 2, 4}));
  std::vector<std::array<int, 3>> zero = {{0, 3, 0}};
  EXPECT_EQ(group_range_incl(kWorld8, zero).status().code(), Errc::arg);
  std::vector<std::array<int, 3>> out = {{0, 8, 1}};
  EXPECT_EQ(group_range_incl(kWorld8, out).status().code(), Errc::rank);
  std::vector<std::array<int, 3>> twice = {{0, 3, 1}, {3, 4, 1}};
  EXPECT_EQ(group_range_incl(kWorld8, twice).status().code(), Errc::rank);
}

TEST(GroupAlgebra, SetOperations) {
  const std::vector<int> a = {3, 1, 4}, b = {4, 5, 3, 9};
  EXPECT_EQ(group_union(a, b), (RankList{3, 1, 4, 5, 9}));
  EXPECT_EQ(group_intersection(a, b), (RankList{3, 4}));
  EXPECT_EQ(group_difference(a, b), (RankList{1}));
  EXPECT_TRUE(group_difference(a, a).empty());
}

TEST(GroupAlgebra, TranslateRanks) {
  auto t = group_translate(kWorld8, std::vector<int>{7, 0, 5, kProcNull}, kOdd);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, (std::vector<int>{0, kUndefined, 1, kProcNull}));
  EXPECT_EQ(group_translate(kOdd, std::vector<int>{4}, kWorld8).status().code(), Errc::rank);
}

TEST(GroupAlgebra, Compare) {
  EXPECT_EQ(group_compare(kOdd, kOdd), Compare::ident);
  EXPECT_EQ(group_compare(kOdd, std::vector<int>{1, 3, 5, 7}), Compare::similar);
  EXPECT_EQ(group_compare(kOdd, std::vector<int>{1, 3, 5}), Compare::unequal);
  EXPECT_EQ(group_compare(kOdd, std::vector<int>{1, 3, 5, 6}), Compare::unequal);
  EXPECT_EQ(group_compare(std::vector<int>{}, std::vector<int>{}), Compare::ident);
}
