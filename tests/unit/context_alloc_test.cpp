// Context-id mask logic (comm/context_alloc.h): the local half of the mask method.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

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

// ---- Threads (context_alloc.h "Threads") ----

namespace {
using ftmpi::comm::AllocKey;
using Alloc = ContextAllocator::Allocation;
using Contribution = ContextAllocator::Contribution;
AllocKey key(std::uint32_t k) { return AllocKey{k, 0, AllocKey::kKindParent}; }
Contribution and_of(const Contribution& a, const Contribution& b) {
  Contribution c;
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = a[i] & b[i];
  return c;
}
bool empty_mask(const Contribution& c) {
  for (std::size_t w = 0; w < ContextAllocator::kWords; ++w)
    if (c[w] != 0) return false;
  return true;
}
}  // namespace

// A process that cannot run two allocations at once offers every free slot in round 0 (one round when alone).
TEST(ContextAlloc, SingleThreadedFirstRoundOffersEverything) {
  ContextAllocator a;
  Alloc x(a, key(10), /*concurrent=*/false);
  Contribution c = x.begin();
  EXPECT_EQ(c[ContextAllocator::kWords] & 1u, 1u);
  EXPECT_EQ(c[ContextAllocator::kLocalWord], 0u);  // never the local pool
  std::uint32_t id = 0;
  auto r = x.finish(c, &id);
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ(id, 4u);
}

// At MPI_THREAD_MULTIPLE round 0 is the entry round: nothing offered, nothing reserved, so an allocation whose
// other members have not called it yet holds up nobody here.
TEST(ContextAlloc, EntryRoundReservesNothing) {
  ContextAllocator a;
  Alloc waiting(a, key(50), true);
  Contribution cw = waiting.begin();  // its AND waits for a member still busy elsewhere
  EXPECT_TRUE(empty_mask(cw));
  EXPECT_EQ(cw[ContextAllocator::kWords] & 1u, 0u);
  Alloc lower(a, key(10), true);
  std::uint32_t id = 0;
  auto r = lower.finish(lower.begin(), &id);  // its entry round, all members in
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  EXPECT_TRUE(lower.live());
  Contribution cl = lower.begin();  // live: everything, though `waiting` is still in its first round
  EXPECT_EQ(cl[ContextAllocator::kWords] & 1u, 1u);
  r = lower.finish(cl, &id);
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_EQ(id, 4u);
}

// Two live allocations in flight in one process never agree on the same slot, and only the lower key offers.
TEST(ContextAlloc, ConcurrentRoundsAreDisjoint) {
  ContextAllocator a;
  std::uint32_t id_low = 0, id_high = 0;
  {
    Alloc high(a, key(50), true);
    ASSERT_TRUE(high.finish(high.begin(), &id_high).ok());  // entry round
    Contribution ch = high.begin();  // live and alone: every free slot but the local pool
    EXPECT_EQ(ch[ContextAllocator::kWords] & 1u, 1u);
    EXPECT_EQ(ch[ContextAllocator::kLocalWord], 0u);
    Alloc low(a, key(10), true);
    ASSERT_TRUE(low.finish(low.begin(), &id_low).ok());  // entry round while high's AND travels
    Contribution cl = low.begin();  // every slot is reserved by high's round
    EXPECT_TRUE(empty_mask(cl));
    EXPECT_EQ(cl[ContextAllocator::kWords] & 1u, 0u);
    auto self = a.allocate_local();  // a dup of MPI_COMM_SELF meanwhile: from the local pool
    ASSERT_TRUE(self.ok());
    EXPECT_GE(*self / 2, ContextAllocator::kLocalWord * 64);
    auto r = low.finish(cl, &id_low);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(*r);
    r = high.finish(ch, &id_high);
    ASSERT_TRUE(r.ok() && *r);
    Contribution cl2 = low.begin();
    EXPECT_EQ(cl2[0] & (std::uint64_t{1} << (id_high / 2)), 0u);
    r = low.finish(cl2, &id_low);
    ASSERT_TRUE(r.ok() && *r);
    EXPECT_NE(id_low, id_high);
    EXPECT_NE(id_low, *self);
  }
  Alloc again(a, key(10), false);  // rounds ended: nothing stays reserved
  EXPECT_EQ(again.begin()[ContextAllocator::kWords] & 1u, 1u);
}

TEST(ContextAlloc, HigherKeyOffersNothingWhileLowerLive) {
  ContextAllocator a;
  std::uint32_t id = 0;
  Alloc low(a, key(10), true);
  Alloc high(a, key(50), true);
  ASSERT_TRUE(high.finish(high.begin(), &id).ok());
  EXPECT_FALSE(high.begin()[0] == 0);  // low not live yet: high offers
  ASSERT_TRUE(high.finish(Contribution{}, &id).ok());
  ASSERT_TRUE(low.finish(low.begin(), &id).ok());  // low live now
  EXPECT_TRUE(empty_mask(high.begin()));
  ASSERT_TRUE(high.finish(Contribution{}, &id).ok());
  auto r = low.finish(low.begin(), &id);
  ASSERT_TRUE(r.ok() && *r);
  EXPECT_TRUE(a.in_use(id));
}

// An allocation that has ended kUrgentRounds rounds comes before a lower key that is not urgent: a thread that
// creates on a low key back to back (each allocation live again after its entry round) no longer starves it.
TEST(ContextAlloc, UrgentAllocationComesBeforeFreshLowerKeys) {
  ContextAllocator a;
  std::uint32_t id = 0;
  Alloc high(a, key(50), true);
  ASSERT_TRUE(high.finish(high.begin(), &id).ok());  // entry round
  for (std::uint32_t r = 1; r < Alloc::kUrgentRounds; ++r) {
    Alloc low(a, key(10), true);  // a fresh low-key allocation, live after its entry round
    ASSERT_TRUE(low.finish(low.begin(), &id).ok());
    EXPECT_TRUE(empty_mask(high.begin())) << "round " << r;  // not urgent yet: high offers nothing
    ASSERT_TRUE(high.finish(Contribution{}, &id).ok());
  }
  ASSERT_TRUE(high.urgent());
  Alloc low(a, key(10), true);
  ASSERT_TRUE(low.finish(low.begin(), &id).ok());
  EXPECT_FALSE(empty_mask(high.begin()));  // urgent: offers although a lower key is live
  EXPECT_TRUE(empty_mask(low.begin()));    // and the lower key waits for it
}

TEST(ContextAlloc, KeysOrderByContextWitnessKind) {
  EXPECT_LT((AllocKey{4, 9, 7}), (AllocKey{6, 0, 0}));
  EXPECT_LT((AllocKey{4, 1, 7}), (AllocKey{4, 2, 0}));
  EXPECT_LT((AllocKey{4, 1, 7}), (AllocKey{4, 1, AllocKey::kKindInterCreate}));
  EXPECT_NE((AllocKey{4, 1, AllocKey::kKindInter}), (AllocKey{4, 1, AllocKey::kKindParent}));
}

// A simulation of the protocol (no processes): processes with threads, each thread running a program of
// allocations over member sets that overlap in every way, interleaved by a random scheduler one step at a
// time (a thread starts its next allocation; a member begins its round; a member gets a finished round's
// AND and decides). Checks: every allocation ends (no deadlock: some step is always possible; no livelock:
// a step bound), all members of one allocation get the same id, and no process ever claims an id twice
// (claim() would fail). The held-up member of the "mix" hang is what a random scheduler produces often.
namespace {
struct SimAlloc {
  std::vector<int> members;
  AllocKey key;
};
struct Sim {
  explicit Sim(int procs) : alloc(static_cast<std::size_t>(procs)) {}
  std::vector<SimAlloc> allocs;
  std::vector<std::vector<std::vector<int>>> programs;  // [process][thread] -> allocation indices in order
  std::vector<ContextAllocator> alloc;
};

// Returns "" or what went wrong.
std::string simulate(Sim& sim, std::uint64_t seed, bool concurrent, std::size_t max_steps = 2'000'000) {
  struct Thread {
    int proc = 0, t = 0;
    std::size_t pc = 0;  // next program position
    int cur = -1;        // allocation in flight
    std::unique_ptr<Alloc> a;
    int round = 0;
    bool submitted = false;
  };
  struct RoundState {
    int round = -1;
    int contributions = 0;
    Contribution and_ = {};
  };
  std::vector<Thread> threads;
  for (int p = 0; p < static_cast<int>(sim.programs.size()); ++p)
    for (int t = 0; t < static_cast<int>(sim.programs[static_cast<std::size_t>(p)].size()); ++t)
    {
      Thread th;
      th.proc = p;
      th.t = t;
      threads.push_back(std::move(th));
    }
  const std::size_t n = sim.allocs.size();
  std::vector<std::map<int, RoundState>> rounds(n);  // per allocation: round -> AND so far
  std::vector<std::map<int, std::uint32_t>> ids(n);  // per allocation: process -> id
  std::mt19937_64 rng(seed);
  for (std::size_t step = 0; step < max_steps; ++step) {
    std::vector<std::size_t> enabled;
    bool all_done = true;
    for (std::size_t i = 0; i < threads.size(); ++i) {
      Thread& th = threads[i];
      const auto& prog = sim.programs[static_cast<std::size_t>(th.proc)][static_cast<std::size_t>(th.t)];
      if (th.cur < 0 && th.pc >= prog.size()) continue;
      all_done = false;
      if (th.cur < 0 || !th.submitted) {
        enabled.push_back(i);
        continue;
      }
      const SimAlloc& x = sim.allocs[static_cast<std::size_t>(th.cur)];
      const RoundState& rs = rounds[static_cast<std::size_t>(th.cur)][th.round];
      if (rs.contributions == static_cast<int>(x.members.size())) enabled.push_back(i);
    }
    if (all_done) {
      for (std::size_t x = 0; x < n; ++x) {
        if (ids[x].size() != sim.allocs[x].members.size()) return "allocation " + std::to_string(x) + " not ended everywhere";
        for (const auto& [p, id] : ids[x])
          if (id != ids[x].begin()->second) return "allocation " + std::to_string(x) + ": members disagree";
      }
      return "";
    }
    if (enabled.empty()) return "deadlock at step " + std::to_string(step);
    Thread& th = threads[enabled[rng() % enabled.size()]];
    ContextAllocator& ca = sim.alloc[static_cast<std::size_t>(th.proc)];
    if (th.cur < 0) {  // start the next allocation
      th.cur = sim.programs[static_cast<std::size_t>(th.proc)][static_cast<std::size_t>(th.t)][th.pc++];
      th.a = std::make_unique<Alloc>(ca, sim.allocs[static_cast<std::size_t>(th.cur)].key, concurrent);
      th.round = 0;
      th.submitted = false;
    } else if (!th.submitted) {  // begin this member's round
      Contribution c = th.a->begin();
      RoundState& rs = rounds[static_cast<std::size_t>(th.cur)][th.round];
      rs.and_ = rs.contributions == 0 ? c : and_of(rs.and_, c);
      ++rs.contributions;
      th.submitted = true;
    } else {  // the round's AND reached this member
      std::uint32_t id = 0;
      auto r = th.a->finish(rounds[static_cast<std::size_t>(th.cur)][th.round].and_, &id);
      if (!r.ok()) return "allocation " + std::to_string(th.cur) + ": " + r.status().message();
      if (*r) {
        ids[static_cast<std::size_t>(th.cur)][th.proc] = id;
        th.a.reset();
        th.cur = -1;
      } else {
        ++th.round;
        th.submitted = false;
      }
    }
  }
  return "no end after " + std::to_string(max_steps) + " steps (livelock)";
}

int add(Sim& sim, std::vector<int> members, std::uint32_t k, std::uint32_t kind = AllocKey::kKindParent) {
  sim.allocs.push_back(SimAlloc{std::move(members), AllocKey{k, 0, kind}});
  return static_cast<int>(sim.allocs.size()) - 1;
}
}  // namespace

// comm_threads_ctx "mix" (the hang before the entry round): 4 processes, 3 threads each with a parent of its
// own (keys 4, 6, 8), each thread running rounds of dup, split (whole parent) and create_group (even
// processes, tag = thread: a lower key than the dup's on the same parent).
TEST(ContextAllocSim, MixOfDupSplitCreateGroup) {
  constexpr int kProcs = 4, kThreads = 3, kRounds = 6;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    Sim sim(kProcs);
    sim.programs.assign(kProcs, std::vector<std::vector<int>>(kThreads));
    for (int t = 0; t < kThreads; ++t) {
      const std::uint32_t parent = 4 + 2 * static_cast<std::uint32_t>(t);
      for (int r = 0; r < kRounds; ++r) {
        int dup = add(sim, {0, 1, 2, 3}, parent);
        int split = add(sim, {0, 1, 2, 3}, parent);
        int cg = add(sim, {0, 2}, parent, (1u << 29) | static_cast<std::uint32_t>(t));
        for (int p = 0; p < kProcs; ++p) {
          auto& prog = sim.programs[static_cast<std::size_t>(p)][static_cast<std::size_t>(t)];
          prog.push_back(dup);
          prog.push_back(split);
          if (p % 2 == 0) prog.push_back(cg);
        }
      }
    }
    ASSERT_EQ(simulate(sim, seed, true), "") << "seed " << seed;
  }
}

// Program order differs between processes: process 0 runs X (key 10) and Y (key 20) in two threads, process
// 1 runs Y then X in one thread, process 2 runs X, process 3 runs Y. X waits for process 1, which first needs
// Y, which process 0 also runs while X is in flight there.
TEST(ContextAllocSim, CrossThreadOrder) {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    Sim sim(4);
    int x = add(sim, {0, 1, 2}, 10);
    int y = add(sim, {0, 1, 3}, 20);
    sim.programs = {{{x}, {y}}, {{y, x}}, {{x}}, {{y}}};
    ASSERT_EQ(simulate(sim, seed, true), "") << "seed " << seed;
  }
}

// Many allocations over random overlapping subsets of 6 processes, 3 threads each, random program orders
// consistent with a global order per thread slot (what MPI requires of collectives on one communicator).
TEST(ContextAllocSim, RandomOverlappingSubsets) {
  constexpr int kProcs = 6, kThreads = 3;
  for (std::uint64_t seed = 1; seed <= 80; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    Sim sim(kProcs);
    sim.programs.assign(kProcs, std::vector<std::vector<int>>(kThreads));
    for (int i = 0; i < 40; ++i) {
      std::vector<int> members;
      for (int p = 0; p < kProcs; ++p)
        if (rng() % 2) members.push_back(p);
      if (members.size() < 2) continue;
      const auto k = static_cast<std::uint32_t>(4 + 2 * i);  // one parent per allocation: distinct keys
      int a = add(sim, members, k);
      // Each member runs it on a thread of its choosing (any cross-thread order between processes).
      for (int p : members) sim.programs[static_cast<std::size_t>(p)][rng() % kThreads].push_back(a);
    }
    // Any order is legal only if it cannot make a cycle of program orders; keep per-thread orders by index
    // (ascending allocation index), which is acyclic.
    ASSERT_EQ(simulate(sim, seed, true), "") << "seed " << seed;
  }
}

// Out of ids is reported by every member, in the same round, not looped on.
TEST(ContextAllocSim, OutOfIdsEndsWithAnError) {
  Sim sim(2);
  for (auto& ca : sim.alloc)
    for (std::uint32_t s = 2; s < ContextAllocator::kSlots - 64; ++s) ASSERT_TRUE(ca.claim(s * 2).ok());
  int x = add(sim, {0, 1}, 10);
  sim.programs = {{{x}}, {{x}}};
  const std::string r = simulate(sim, 1, true);
  EXPECT_NE(r.find("out of communicator context ids"), std::string::npos) << r;
}
