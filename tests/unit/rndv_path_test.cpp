// The rendezvous way chooser (src/p2p/rndv_path.h): first tries, choice by estimate, exploration of the
// loser, robustness to one outlier, the pipelined-receive bookkeeping.
#include "p2p/rndv_path.h"

#include <gtest/gtest.h>

using ftmpi::p2p::RndvPath;
using ftmpi::p2p::Way;

namespace {
constexpr std::size_t k32K = 32768, k1M = 1 << 20;

// Feed `n` ring samples of `ticks_per_byte` for `bytes`-byte messages streamed back to back.
void stream_ring(RndvPath& p, std::size_t bytes, double ticks_per_byte, int n, std::uint64_t& now) {
  for (int i = 0; i < n; ++i) {
    p.ring_begin(now);
    p.ring_first_data(now);
    now += static_cast<std::uint64_t>(ticks_per_byte * static_cast<double>(bytes));
    p.ring_complete(bytes, now);
    p.ring_end();
  }
}
}  // namespace

TEST(RndvPath, SizeClasses) {
  EXPECT_EQ(RndvPath::class_of(16385), 0);
  EXPECT_EQ(RndvPath::class_of(k32K - 1), 0);
  EXPECT_EQ(RndvPath::class_of(k32K), 1);
  EXPECT_EQ(RndvPath::class_of(65536), 2);
  EXPECT_EQ(RndvPath::class_of(k1M), 6);
  EXPECT_EQ(RndvPath::class_of(std::size_t{1} << 40), RndvPath::kClasses - 1);
}

TEST(RndvPath, TriesSingleCopyThenRingThenPicksTheFaster) {
  RndvPath p;
  std::uint64_t now = 1000;
  EXPECT_EQ(p.choose(k32K), Way::cma);  // nothing measured: single copy first
  p.record_cma(k32K, 10 * k32K);        // 10 ticks per byte
  EXPECT_EQ(p.choose(k32K), Way::ring); // the ring has no sample yet
  stream_ring(p, k32K, 2.0, 1, now);    // 2 ticks per byte: ring wins even with its handicap
  EXPECT_EQ(p.choose(k32K), Way::ring);
  EXPECT_EQ(p.choose(k1M), Way::cma);   // another class: its single copy not measured yet
}

TEST(RndvPath, HandicapKeepsNearTiesOnSingleCopy) {
  RndvPath p;
  std::uint64_t now = 1;
  p.record_cma(k1M, 10 * k1M);
  stream_ring(p, k1M, 9.0, 3, now);  // faster, but not by kRingHandicap
  EXPECT_EQ(p.choose(k1M), Way::cma);
  stream_ring(p, k1M, 5.0, 3, now);  // median moves to 5: 5 * 1.4 < 10
  EXPECT_EQ(p.choose(k1M), Way::ring);
}

TEST(RndvPath, ExploresTheLoserEverMoreRarely) {
  RndvPath p;
  std::uint64_t now = 1;
  p.record_cma(k32K, 10 * k32K);
  stream_ring(p, k32K, 1.0, 1, now);
  // explorations after kExplore, then 2, 4, 8 ... times as many decisions
  int since = 0, period = RndvPath::kExplore;
  for (int e = 0; e < 6; ++e) {
    since = 0;
    while (p.choose(k32K) == Way::ring) ++since;
    EXPECT_EQ(since + 1, period);
    for (int i = 1; i < RndvPath::kCmaBurst; ++i) EXPECT_EQ(p.choose(k32K), Way::cma);  // a burst of the loser
    period *= 2;
  }
}

// A way without a sample is tried in one burst; while the burst's samples are outstanding (a window of
// receives matched before the first completes) the rest of the window does not take it again.
TEST(RndvPath, AnUntriedWayIsTriedInOneBurstWhileItsSamplesAreOutstanding) {
  RndvPath p;
  EXPECT_EQ(p.choose(k1M, true), Way::cma);
  p.record_cma(k1M, 4 * k1M);
  for (int i = 0; i < RndvPath::kBurst; ++i) EXPECT_EQ(p.choose(k1M, true), Way::split);
  for (int i = 0; i < RndvPath::kRingBurst; ++i) {
    EXPECT_EQ(p.choose(k1M, true), Way::ring);
    p.ring_begin(1);  // (the engine does so for each pipelined receive)
  }
  for (int i = 0; i < RndvPath::kExplore - RndvPath::kBurst - RndvPath::kRingBurst - 2; ++i)
    EXPECT_EQ(p.choose(k1M, true), Way::cma) << i;
  // The split way's samples arrive: streamed, it is faster than the single copy and wins.
  for (int i = 0; i < RndvPath::kBurst; ++i) p.record_split(k1M, k1M, 2 * k1M);
  EXPECT_EQ(p.choose(k1M, true), Way::split);
}

// The split way's estimate holds only samples of its burst's later messages: a first message measured
// slow (it found the receiver's buffer in the receiver's cache) does not decide.
TEST(RndvPath, ASplitBurstIsJudgedByItsSteadySamples) {
  RndvPath p;
  std::uint64_t now = 1;
  p.record_cma(k1M, 2 * k1M);
  stream_ring(p, k1M, 10.0, RndvPath::kWindow, now);  // slow placement: the ring far behind
  EXPECT_EQ(p.choose(k1M, true), Way::split);
  p.record_split(k1M, k1M, 5 * k1M);  // the burst's first message: 5 ticks/byte
  for (int i = 1; i < RndvPath::kBurst; ++i) {
    EXPECT_EQ(p.choose(k1M, true), Way::split);
    p.record_split(k1M, k1M, k1M + k1M / 4);  // then 1.25
  }
  EXPECT_EQ(p.choose(k1M, true), Way::split);
  EXPECT_LT(p.split_estimate(k1M), 2.0);
}

TEST(RndvPath, AChangeOfTheWinnersRateRestartsExploration) {
  RndvPath p;
  std::uint64_t now = 1;
  p.record_cma(k32K, 10 * k32K);
  stream_ring(p, k32K, 1.0, RndvPath::kWindow, now);
  for (int e = 0; e < 5; ++e)
    while (p.choose(k32K) == Way::ring) {
    }
  stream_ring(p, k32K, 3.0, RndvPath::kWindow, now);  // the ring got 3x slower (still the winner)
  int n = 0;
  while (p.choose(k32K) == Way::ring) ++n;
  EXPECT_LE(n, 2 * RndvPath::kExplore);
}

// A winner that got faster does not restart the exploration of the losers (they are further behind); nor
// does a single copy that got slower (its copy stays in the receiver's core: its swings are noise).
TEST(RndvPath, AFasterWinnerDoesNotRestartExploration) {
  RndvPath p;
  std::uint64_t now = 1;
  for (int i = 0; i < RndvPath::kWindow; ++i) p.record_cma(k32K, k32K);
  stream_ring(p, k32K, 4.0, RndvPath::kWindow, now);  // the ring far behind
  auto ring_picks = [&](int decisions) {
    int r = 0;
    for (int i = 0; i < decisions; ++i) r += p.choose(k32K) == Way::ring;
    return r;
  };
  EXPECT_GE(ring_picks(1000), 4 * RndvPath::kRingBurst);  // explored after 32, 64, 128, 256, 512 decisions
  for (int i = 0; i < RndvPath::kWindow; ++i) p.record_cma(k32K, k32K / 2);  // the single copy 2x faster
  EXPECT_LE(ring_picks(1000), RndvPath::kRingBurst);  // the period goes on doubling: at most one more
  for (int i = 0; i < RndvPath::kWindow; ++i) p.record_cma(k32K, k32K);  // back: 2x slower
  EXPECT_LE(ring_picks(1000), RndvPath::kRingBurst);
}

TEST(RndvPath, FollowsAChangeOfPlacement) {
  RndvPath p;
  std::uint64_t now = 1;
  p.record_cma(k1M, 4 * k1M);
  stream_ring(p, k1M, 1.0, RndvPath::kWindow, now);  // cores share a cache: the ring wins
  EXPECT_EQ(p.choose(k1M), Way::ring);
  stream_ring(p, k1M, 8.0, RndvPath::kWindow / 2 + 1, now);  // moved apart: the ring's median rises
  EXPECT_EQ(p.choose(k1M), Way::cma);
}

TEST(RndvPath, OneOutlierDoesNotFlipTheChoice) {
  RndvPath p;
  std::uint64_t now = 1;
  p.record_cma(k1M, 4 * k1M);
  stream_ring(p, k1M, 1.0, RndvPath::kWindow, now);
  stream_ring(p, k1M, 1000.0, 1, now);  // one copy preempted
  EXPECT_EQ(p.choose(k1M), Way::ring);
  for (int i = 0; i < RndvPath::kWindow - 1; ++i) p.record_cma(k1M, 1);  // and the single copy's median
  p.record_cma(k1M, 1000 * k1M);
  EXPECT_LT(p.cma_estimate(k1M), 1.0);
}

TEST(RndvPath, PipelinedMessagesInAWindowAreTimedFromThePreviousCompletion) {
  RndvPath p;
  // Three clear-to-sends at about t=0, completions of 10000-byte messages at 10000, 20000, 30000.
  p.ring_begin(0);
  p.ring_begin(5);  // does not move the mark: the pipeline is busy
  p.ring_begin(6);
  EXPECT_EQ(p.ring_inflight(), 3);
  p.ring_first_data(0);  // the first message's first frame
  p.ring_complete(10000, 10000);
  p.ring_end();
  p.ring_complete(10000, 20000);
  p.ring_end();
  p.ring_complete(10000, 30000);
  p.ring_end();
  EXPECT_EQ(p.ring_inflight(), 0);
  EXPECT_DOUBLE_EQ(p.ring_estimate(), 1.0);
  // A failed pipelined receive only ends; an end without a begin is ignored.
  p.ring_begin(40000);
  p.ring_end();
  p.ring_end();
  EXPECT_EQ(p.ring_inflight(), 0);
  p.ring_complete(10000, 50000);  // nothing in flight: no sample
  EXPECT_DOUBLE_EQ(p.ring_estimate(), 1.0);
}

TEST(RndvPath, ALoneMessageIsTimedFromItsFirstFrame) {
  RndvPath p;
  p.ring_begin(0);           // clear-to-send at 0; the frames wait behind other requests to send
  p.ring_first_data(90000);  // first frame at 90000
  p.ring_complete(10000, 100000);
  p.ring_end();
  EXPECT_DOUBLE_EQ(p.ring_estimate(), 1.0);
  // In a stream only the first message's first frame moves the mark.
  p.ring_begin(200000);
  p.ring_begin(200001);
  p.ring_first_data(200000);
  p.ring_complete(10000, 210000);
  p.ring_end();
  p.ring_first_data(215000);  // the second message's first frame: its time counts from 210000
  p.ring_complete(10000, 220000);
  p.ring_end();
  EXPECT_DOUBLE_EQ(p.ring_estimate(), 1.0);
}

TEST(RndvPath, LostTrialsOfTheRingBackOff) {
  RndvPath p;
  std::uint64_t now = 1;
  p.record_cma(k32K, 10 * k32K);
  stream_ring(p, k32K, 20.0, RndvPath::kWindow, now);  // the ring streams slower than the single copy
  for (int trial = 0; trial < 6; ++trial) {
    // A burst of tries that look fast (say their frames were in the ring already) makes the ring win...
    while (p.choose(k32K) == Way::cma) {
    }
    for (int i = 1; i < RndvPath::kRingBurst; ++i) EXPECT_EQ(p.choose(k32K), Way::ring);
    stream_ring(p, k32K, 1.0, RndvPath::kRingBurst, now);
    EXPECT_EQ(p.choose(k32K), Way::ring);
    // ... then its stream samples show the truth and it loses again.
    stream_ring(p, k32K, 20.0, RndvPath::kWindow, now);
    EXPECT_EQ(p.choose(k32K), Way::cma);
  }
  // The decisions until the next try: the period has doubled with each lost trial (32 * 2^6).
  int n = 0;
  while (p.choose(k32K) == Way::cma) ++n;
  EXPECT_GE(n, RndvPath::kExplore * 32);
}
