// Context-id mask logic (comm/context_alloc.h): the local half of the mask method.
#include <gtest/gtest.h>

#include "comm/communicator.h"
#include "comm/context_alloc.h"

using namespace ftmpi;
using ftmpi::comm::ContextAllocator;

TEST(ContextAlloc, ReservedIdsAreNeverFree) {
  ContextAllocator a;
  EXPECT_TRUE(a.in_use(comm::kCtxWorld));
  EXPECT_TRUE(a.in_use(comm::kCtxSelf));
  auto first = ContextAllocator::lowest_common(a.free_mask());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, 4u);  // slot 2: the first after world (0/1) and self (2/3)
  EXPECT_FALSE(a.claim(0).ok());
  EXPECT_FALSE(a.claim(2).ok());
  a.release(0);  // ignored
  EXPECT_TRUE(a.in_use(0));
}

TEST(ContextAlloc, ClaimReleaseAndOddIds) {
  ContextAllocator a;
  ASSERT_TRUE(a.claim(4).ok());
  EXPECT_TRUE(a.in_use(4));
  EXPECT_EQ(a.claim(4).code(), Errc::intern);
  EXPECT_EQ(a.claim(7).code(), Errc::intern);  // odd ids are the collective half of a pair
  EXPECT_EQ(*ContextAllocator::lowest_common(a.free_mask()), 6u);
  a.release(4);
  EXPECT_FALSE(a.in_use(4));
  EXPECT_EQ(*ContextAllocator::lowest_common(a.free_mask()), 4u);
}

// Three processes with different histories agree on the lowest id free on all of them: the AND of
// their masks (what the allreduce computes) never yields an id any of them uses.
TEST(ContextAlloc, CommonMaskAvoidsEveryMembersIds) {
  ContextAllocator p0, p1, p2;
  ASSERT_TRUE(p0.claim(4).ok());
  ASSERT_TRUE(p1.claim(6).ok());
  ASSERT_TRUE(p2.claim(8).ok());
  ASSERT_TRUE(p2.claim(12).ok());
  ContextAllocator::Mask common = p0.free_mask();
  for (const auto* p : {&p1, &p2})
    for (std::size_t w = 0; w < ContextAllocator::kWords; ++w) common[w] &= p->free_mask()[w];
  auto id = ContextAllocator::lowest_common(common);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(*id, 10u);
  for (auto* p : {&p0, &p1, &p2}) EXPECT_TRUE(p->claim(*id).ok());
}

TEST(ContextAlloc, Exhaustion) {
  ContextAllocator a;
  std::uint32_t n = 0;
  for (;;) {
    auto id = ContextAllocator::lowest_common(a.free_mask());
    if (!id.ok()) {
      EXPECT_EQ(id.status().code(), Errc::no_mem);
      break;
    }
    ASSERT_TRUE(a.claim(*id).ok());
    ++n;
  }
  EXPECT_EQ(n, ContextAllocator::kSlots - 2);
  a.release(100);
  EXPECT_EQ(*ContextAllocator::lowest_common(a.free_mask()), 100u);
}

// The non-blocking pool (MPI_Comm_idup): disjoint from the blocking one, a reserved word is out of the pool
// until given back, a kept id comes back with release().
TEST(ContextAlloc, AsyncPool) {
  ContextAllocator a;
  const auto blocking_before = a.free_mask();
  std::uint64_t w3 = a.reserve_async(3);
  EXPECT_EQ(w3, ~std::uint64_t{0});
  EXPECT_EQ(a.reserve_async(3), 0u);  // reserved: a concurrent duplication gets nothing from word 3
  const std::uint32_t id = ContextAllocator::async_id(3, 5);
  EXPECT_EQ(id, (ContextAllocator::kSlots + 3 * 64 + 5) * 2);
  EXPECT_TRUE(a.in_use(id));
  a.give_back_async(3, w3 & ~(std::uint64_t{1} << 5));  // keep bit 5
  EXPECT_TRUE(a.in_use(id));
  EXPECT_FALSE(a.in_use(ContextAllocator::async_id(3, 6)));
  EXPECT_EQ(a.free_mask(), blocking_before);  // the blocking pool never moves
  a.release(id);
  EXPECT_FALSE(a.in_use(id));
  EXPECT_EQ(a.reserve_async(3), ~std::uint64_t{0});
}

// Threads (context_alloc.h "Threads"): two allocations in flight in one process never agree on the same slot.
TEST(ContextAlloc, ConcurrentRoundsAreDisjoint) {
  ContextAllocator a;
  std::uint32_t id_low = 0, id_high = 0;
  {
    ContextAllocator::Round high(a, 50);  // starts first, alone: offers every free slot but the local pool
    auto ch = high.begin();
    EXPECT_EQ(ch[ContextAllocator::kWords] & 1u, 1u);  // whole
    EXPECT_EQ(ch[ContextAllocator::kLocalWord], 0u);
    ContextAllocator::Round low(a, 10);  // arrives while high's AND travels: every slot is reserved
    auto cl = low.begin();
    for (std::size_t w = 0; w < ContextAllocator::kWords; ++w) EXPECT_EQ(cl[w], 0u) << w;
    EXPECT_EQ(cl[ContextAllocator::kWords] & 1u, 0u);  // cut
    // A dup of MPI_COMM_SELF meanwhile: from the local pool.
    auto self = a.allocate_local();
    ASSERT_TRUE(self.ok());
    EXPECT_GE(*self / 2, ContextAllocator::kLocalWord * 64);
    auto r = low.finish(cl, &id_low);  // empty AND, someone cut: another round
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(*r);
    r = high.finish(ch, &id_high);
    ASSERT_TRUE(r.ok() && *r);
    // high is still in flight (not destroyed), and has the higher key: it would offer nothing now.
    auto cl2 = low.begin();
    EXPECT_EQ(cl2[0] & (std::uint64_t{1} << (id_high / 2)), 0u);
    r = low.finish(cl2, &id_low);
    ASSERT_TRUE(r.ok() && *r);
    EXPECT_NE(id_low, id_high);
    EXPECT_NE(id_low, *self);
  }
  // Rounds ended: nothing stays reserved.
  ContextAllocator::Round again(a, 10);
  auto c = again.begin();
  EXPECT_EQ(c[ContextAllocator::kWords] & 1u, 1u);
}

TEST(ContextAlloc, HigherKeyOffersNothingWhileLowerInFlight) {
  ContextAllocator a;
  ContextAllocator::Round low(a, 10);
  ContextAllocator::Round high(a, 50);
  auto ch = high.begin();
  for (std::size_t w = 0; w < ContextAllocator::kWords; ++w) EXPECT_EQ(ch[w], 0u);
  auto cl = low.begin();
  EXPECT_NE(cl[0], 0u);
  std::uint32_t id = 0;
  auto r = low.finish(cl, &id);
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_TRUE(a.in_use(id));
}
