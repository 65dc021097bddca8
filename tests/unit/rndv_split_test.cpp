// The split rendezvous' receiver-side rule (src/p2p/rndv_split.h): a receive the sender may still write into
// never completes, whatever asks it to end early; and the way chooser's third way (src/p2p/rndv_path.h).
#include "p2p/rndv_split.h"

#include <gtest/gtest.h>

#include "p2p/rndv_path.h"

namespace split = ftmpi::p2p::split;
using ftmpi::p2p::RndvPath;
using ftmpi::p2p::Way;

TEST(RndvSplit, NotASplitReceiveMayAlwaysComplete) { EXPECT_TRUE(split::may_complete(0)); }

TEST(RndvSplit, AskedWaitsForTheAnswerOrTheSendersDeath) {
  // Every combination of the events that do not stop the sender: none may complete the receive.
  for (std::uint8_t extra = 0; extra < 64; ++extra) {
    const std::uint16_t s = split::kAsked | (extra & (split::kOwnFailed | split::kDoomed));
    EXPECT_FALSE(split::may_complete(s)) << int(s);
  }
  EXPECT_TRUE(split::may_complete(split::kAsked | split::kAnswered));
  EXPECT_TRUE(split::may_complete(split::kAsked | split::kSenderDead));
  EXPECT_TRUE(split::may_complete(split::kAsked | split::kDoomed | split::kSenderDead));
}

TEST(RndvSplit, Outcomes) {
  using O = split::Outcome;
  const std::uint16_t a = split::kAsked;
  EXPECT_EQ(split::outcome(a | split::kAnswered), O::ok);
  EXPECT_EQ(split::outcome(a | split::kAnswered | split::kSenderDead), O::ok);  // wrote, then died: all there
  EXPECT_EQ(split::outcome(a | split::kSenderDead), O::sender_failed);
  EXPECT_EQ(split::outcome(a | split::kAnswered | split::kDeclined), O::incomplete);
  EXPECT_EQ(split::outcome(a | split::kAnswered | split::kOwnFailed), O::incomplete);
  EXPECT_EQ(split::outcome(a | split::kAnswered | split::kOwnFailed | split::kSenderDead), O::sender_failed);
  EXPECT_EQ(split::outcome(a | split::kAnswered | split::kDeclined | split::kSenderEnded), O::sender_ended);
  EXPECT_EQ(split::outcome(a | split::kAnswered | split::kDeclined | split::kSenderEnded | split::kEndedFailed),
            O::sender_failed);
  // an early end keeps its own error whatever came after
  EXPECT_EQ(split::outcome(a | split::kDoomed | split::kAnswered), O::doomed);
  EXPECT_EQ(split::outcome(a | split::kDoomed | split::kSenderDead), O::doomed);
}

TEST(RndvSplit, HeadIsALineAlignedHalf) {
  EXPECT_EQ(split::head_of(32768), 16384u);
  EXPECT_EQ(split::head_of(32768 + 100), 16384u);
  EXPECT_EQ(split::head_of(1000) % 64, 0u);
  EXPECT_LT(split::head_of(1000), 1000u);
}

TEST(RndvPathSplit, TriedAfterTheSingleCopyAndKeptWhenFaster) {
  RndvPath p;
  constexpr std::size_t n = 1 << 20;
  EXPECT_EQ(p.choose(n, true), Way::cma);
  p.record_cma(n, 10 * n);
  EXPECT_EQ(p.choose(n, true), Way::split);  // no sample yet: a burst of the split way starts
  std::uint64_t now = 1000;
  for (int i = 0; i < RndvPath::kWindow; ++i) p.record_split(n, 4 * n, 5 * n);  // 5 ticks per byte: the longer
  EXPECT_EQ(p.choose(n, false), Way::ring);  // not allowed: the ring, untried, is next (its own burst)
  for (int i = 1; i < RndvPath::kRingBurst; ++i) EXPECT_EQ(p.choose(n, true), Way::ring);
  // the ring measured slower than both: the split wins, the others are explored in turn
  for (int i = 0; i < RndvPath::kWindow; ++i) {
    p.ring_begin(now);
    p.ring_first_data(now);
    now += 20 * n;
    p.ring_complete(n, now);
    p.ring_end();
  }
  int split_n = 0, cma_n = 0, ring_n = 0;
  // the single copy is explored at the kExplore-th decision, for a burst of cma_burst(its class); the ring at the
  // 2 kExplore-th after that (the period doubled), for a burst of kRingBurst
  const int rounds = (RndvPath::kExplore - 1) + RndvPath::cma_burst(RndvPath::class_of(n)) + (2 * RndvPath::kExplore - 1) + RndvPath::kRingBurst;
  for (int i = 0; i < rounds; ++i) {
    const Way w = p.choose(n, true);
    split_n += w == Way::split;
    cma_n += w == Way::cma;
    ring_n += w == Way::ring;
  }
  EXPECT_EQ(split_n, rounds - RndvPath::cma_burst(RndvPath::class_of(n)) - RndvPath::kRingBurst);
  EXPECT_EQ(cma_n, RndvPath::cma_burst(RndvPath::class_of(n)));
  EXPECT_EQ(ring_n, RndvPath::kRingBurst);
  // without the split way allowed, the single copy wins
  EXPECT_EQ(p.choose(n, false), Way::cma);
}
