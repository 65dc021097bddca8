// rma::regions_hold (src/rma/region_cover.h): a target range of a dynamic window is held by the attached
// regions when every byte lies in one of them, one region or several adjacent in memory, in any order.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "rma/region_cover.h"

namespace {
struct R {
  std::uint64_t lo, hi;
};
bool holds(const std::vector<R>& v, std::uint64_t lo, std::uint64_t hi) {
  return ftmpi::rma::regions_hold(v.data(), v.size(), lo, hi);
}

TEST(RegionCover, OneRegion) {
  const std::vector<R> v{{100, 200}};
  EXPECT_TRUE(holds(v, 100, 200));
  EXPECT_TRUE(holds(v, 150, 151));
  EXPECT_FALSE(holds(v, 99, 150));
  EXPECT_FALSE(holds(v, 150, 201));
  EXPECT_FALSE(holds(v, 200, 201));
  EXPECT_FALSE(holds({}, 0, 1));
}

TEST(RegionCover, AdjacentRegionsInAnyOrder) {
  // two halves of one array, attached upper half first (MPICH's win_dynamic_rma_flush_get attaches in order)
  const std::vector<R> v{{1000 + 32768, 1000 + 65536}, {1000, 1000 + 32768}};
  EXPECT_TRUE(holds(v, 1000, 1000 + 36864));  // 9216 ints over the join
  EXPECT_TRUE(holds(v, 1000 + 16384, 1000 + 49152));
  EXPECT_TRUE(holds(v, 1000, 1000 + 65536));
  EXPECT_FALSE(holds(v, 1000, 1000 + 65537));
  EXPECT_FALSE(holds(v, 999, 1010));
  // a chain of five, shuffled
  const std::vector<R> c{{40, 50}, {10, 20}, {30, 40}, {0, 10}, {20, 30}};
  EXPECT_TRUE(holds(c, 0, 50));
  EXPECT_TRUE(holds(c, 5, 45));
  EXPECT_FALSE(holds(c, 5, 51));
}

TEST(RegionCover, GapIsNotHeld) {
  const std::vector<R> v{{0, 4096}, {4100, 8192}};  // one int missing between them
  EXPECT_FALSE(holds(v, 4092, 4104));
  EXPECT_FALSE(holds(v, 0, 8192));
  EXPECT_FALSE(holds(v, 4096, 4100));
  EXPECT_TRUE(holds(v, 4092, 4096));
  EXPECT_TRUE(holds(v, 4100, 4104));
  const std::vector<R> w{{0, 10}, {20, 30}, {10, 15}};  // a gap after a chain
  EXPECT_TRUE(holds(w, 0, 15));
  EXPECT_FALSE(holds(w, 0, 20));
}

TEST(RegionCover, EmptyRange) {
  const std::vector<R> v{{100, 200}};
  EXPECT_TRUE(holds(v, 100, 100));
  EXPECT_TRUE(holds(v, 200, 200));
  EXPECT_FALSE(holds(v, 201, 201));
  EXPECT_FALSE(holds({}, 0, 0));
}

TEST(RegionCover, RegionsAtTheTopOfTheAddressSpace) {
  const std::uint64_t top = UINT64_MAX;
  const std::vector<R> v{{top - 16, top}, {top - 32, top - 16}};
  EXPECT_TRUE(holds(v, top - 32, top));
  EXPECT_FALSE(holds(v, top - 33, top));
}

}  // namespace
