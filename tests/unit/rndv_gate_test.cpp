// The split rendezvous' gate (src/p2p/rndv_gate.h): exactly one of the sender's claim and the receiver's
// close wins an open gate; a stale token never claims a reused word; a receive closed while the sender
// writes waits only until the write returned. And the way chooser's rate of the split way (rndv_path.h).
#include "p2p/rndv_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "p2p/rndv_path.h"
#include "p2p/rndv_split.h"

namespace gate = ftmpi::p2p::gate;
namespace split = ftmpi::p2p::split;
using ftmpi::p2p::RndvPath;
using ftmpi::p2p::Way;

TEST(RndvGate, CloseBeforeClaimShutsTheSenderOut) {
  std::uint64_t g[gate::kGates] = {};
  gate::GateSlots slots;
  const std::uint32_t tok = slots.take();
  ASSERT_NE(tok, 0u);
  gate::open(g, tok);
  EXPECT_EQ(gate::close(g, tok), gate::Closed::shut);
  EXPECT_FALSE(gate::claim(g, tok));  // the sender, handling the cts later, writes nothing
}

TEST(RndvGate, ClaimBeforeCloseMakesTheReceiverWaitForTheWrite) {
  std::uint64_t g[gate::kGates] = {};
  gate::GateSlots slots;
  const std::uint32_t tok = slots.take();
  gate::open(g, tok);
  ASSERT_TRUE(gate::claim(g, tok));
  EXPECT_FALSE(gate::claim(g, tok));  // one claim per token
  EXPECT_EQ(gate::close(g, tok), gate::Closed::busy);
  EXPECT_EQ(gate::close(g, tok), gate::Closed::busy);
  gate::written(g, tok);
  EXPECT_EQ(gate::close(g, tok), gate::Closed::done);
}

TEST(RndvGate, AStaleTokenNeverClaimsAReusedWord) {
  std::uint64_t g[gate::kGates] = {};
  gate::GateSlots slots;
  const std::uint32_t old_tok = slots.take();
  gate::open(g, old_tok);
  EXPECT_EQ(gate::close(g, old_tok), gate::Closed::shut);
  slots.give_back(old_tok);
  const std::uint32_t new_tok = slots.take();
  EXPECT_EQ(gate::slot_of(new_tok), gate::slot_of(old_tok));  // the same word, another generation
  EXPECT_NE(new_tok, old_tok);
  gate::open(g, new_tok);
  EXPECT_FALSE(gate::claim(g, old_tok));  // the old cts, handled late
  EXPECT_TRUE(gate::claim(g, new_tok));
}

TEST(RndvGate, SlotsRunOutAndComeBack) {
  gate::GateSlots slots;
  std::uint32_t toks[gate::kGates];
  for (auto& t : toks) {
    t = slots.take();
    EXPECT_NE(t, 0u);
  }
  EXPECT_EQ(slots.take(), 0u);  // the receive takes another way
  slots.give_back(toks[3]);
  const std::uint32_t t = slots.take();
  EXPECT_EQ(gate::slot_of(t), gate::slot_of(toks[3]));
}

// Two threads race a claim against a close many times: exactly one wins each time, and when the claim won
// the close reports busy until the write is marked done.
TEST(RndvGate, ClaimAndCloseRaceExactlyOneWins) {
  alignas(64) std::uint64_t g[gate::kGates] = {};
  gate::GateSlots slots;
  constexpr int kRounds = 20000;
  std::atomic<int> round{-1};
  std::atomic<std::uint32_t> tok_now{0};
  std::atomic<int> claims{0}, shuts{0};
  std::atomic<bool> sender_done{false};
  std::thread sender([&] {
    for (int i = 0; i < kRounds; ++i) {
      while (round.load(std::memory_order_acquire) < i) {
      }
      const std::uint32_t tok = tok_now.load(std::memory_order_relaxed);
      if (gate::claim(g, tok)) {
        claims.fetch_add(1, std::memory_order_relaxed);
        gate::written(g, tok);
      }
      sender_done.store(true, std::memory_order_release);
    }
  });
  for (int i = 0; i < kRounds; ++i) {
    const std::uint32_t tok = slots.take();
    gate::open(g, tok);
    tok_now.store(tok, std::memory_order_relaxed);
    sender_done.store(false, std::memory_order_relaxed);
    round.store(i, std::memory_order_release);
    gate::Closed c;
    while ((c = gate::close(g, tok)) == gate::Closed::busy) {
    }
    if (c == gate::Closed::shut) shuts.fetch_add(1, std::memory_order_relaxed);
    while (!sender_done.load(std::memory_order_acquire)) {
    }
    slots.give_back(tok);
  }
  sender.join();
  EXPECT_EQ(claims.load() + shuts.load(), kRounds);
}

// A word given back once its write returned (returned()): the slot serves a new receive, and neither the old
// token nor the old receive's completion can touch it; the old receive still waits for its answer.
TEST(RndvGate, AWrittenWordIsReturnedEarlyAndReusedSafely) {
  std::uint64_t g[gate::kGates] = {};
  gate::GateSlots slots;
  std::uint32_t toks[gate::kGates];
  for (auto& t : toks) {
    t = slots.take();
    gate::open(g, t);
  }
  EXPECT_EQ(slots.take(), 0u);
  EXPECT_FALSE(gate::returned(g, toks[3]));  // open
  ASSERT_TRUE(gate::claim(g, toks[3]));
  EXPECT_FALSE(gate::returned(g, toks[3]));  // being written: the slot stays taken
  gate::written(g, toks[3]);
  EXPECT_TRUE(gate::returned(g, toks[3]));
  slots.give_back(toks[3]);
  const std::uint32_t again = slots.take();
  ASSERT_NE(again, 0u);
  EXPECT_EQ(gate::slot_of(again), gate::slot_of(toks[3]));
  gate::open(g, again);
  EXPECT_FALSE(gate::returned(g, toks[3]));  // the new generation's word is not the old token's
  EXPECT_FALSE(gate::claim(g, toks[3]));     // a stale cts of the old token never claims it
  EXPECT_TRUE(gate::claim(g, again));
  // The old receive, not doomed, still waits for its answer; doomed, it may complete at once.
  const std::uint16_t old = split::kAsked | split::kGateReturned;
  EXPECT_FALSE(split::may_complete(old));
  EXPECT_TRUE(split::may_complete(old | split::kAnswered));
  EXPECT_EQ(split::outcome(old | split::kAnswered | split::kDeclined), split::Outcome::incomplete);
}

TEST(RndvSplitGate, AClosedGateLetsADoomedReceiveComplete) {
  const std::uint16_t s = split::kAsked | split::kDoomed;
  EXPECT_FALSE(split::may_complete(s));
  EXPECT_TRUE(split::may_complete(s | split::kGateClosed));
  EXPECT_EQ(split::outcome(s | split::kGateClosed), split::Outcome::doomed);
}

// Where the ring beats the single copy, the split way replaces it only when kSplitOverRing times faster
// (a receiver reading its data keeps the ring's bytes in its cache, not the split's).
TEST(RndvPathSplit, KeepsAWinningRingUnlessFarSlower) {
  constexpr std::size_t n = 1 << 20;
  for (const int split_per_byte : {3, 1}) {
    RndvPath p;
    for (int i = 0; i < RndvPath::kWindow; ++i) p.record_cma(n, 20 * n);
    for (int i = 0; i < RndvPath::kWindow; ++i) p.record_split(n, split_per_byte * n, split_per_byte * n);
    std::uint64_t now = 1000;
    EXPECT_EQ(p.choose(n, true), Way::ring);  // untried: tried in a burst of kRingBurst decisions
    for (int i = 1; i < RndvPath::kRingBurst; ++i) EXPECT_EQ(p.choose(n, true), Way::ring);
    for (int i = 0; i < RndvPath::kWindow; ++i) {  // the ring at 4 ticks per byte, x kRingHandicap = 5.6
      p.ring_begin(now);
      p.ring_first_data(now);
      now += 4 * n;
      p.ring_complete(n, now);
      p.ring_end();
    }
    // split 3: 3 x 2 = 6 > 5.6, the ring stays; split 1: 2 < 5.6, the split wins
    EXPECT_EQ(p.choose(n, true), split_per_byte == 3 ? Way::ring : Way::split) << split_per_byte;
  }
}
