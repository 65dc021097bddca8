// Deterministic simulation of the FA-MPI TryBlock commit (src/models/famp/commit.h) on top of the
// agreement (src/ft/agreement.h), with deaths injected at every step: exhaustive single deaths at every
// step for 2-8 members, double deaths, and thousands of seeded random schedules with up to n-1 deaths and
// members whose local timeout runs out in the middle of the commit (they wait again later).
//
// Every member contributes random local fault flags, random declared-failed ranks (rarely) and a random
// 8-byte local_error_injection (zero most of the time).
//
// PASS: for every schedule — uniformity (every survivor decides, and all get the same class, try_flag,
// flag union, failed group, contributor set and gathered group_error_state, also those that timed out
// first); validity (a survivor's slot is present and holds exactly its injection and flags; a member that
// died before contributing is in the failed group; with no death, no flag and zero injections the class is
// success, with a death it is never success); timeouts are local (a timed-out member decides the same value
// once it waits again).
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <optional>
#include <random>
#include <string>

#include "ft/agreement.h"
#include "models/famp/commit.h"

namespace {

using ftmpi::famp::CommitClass;
using ftmpi::famp::Contribution;
using ftmpi::famp::TryCommit;
using ftmpi::ft::AgreeMsg;
using ftmpi::ft::Agreement;
using ftmpi::ft::RankSet;

struct InFlight {
  int src, dst;
  AgreeMsg msg;
};

struct World {
  int n;
  std::vector<Agreement> agree;
  std::vector<TryCommit> commit;
  std::vector<Contribution> contrib;
  std::vector<bool> alive, started, ever_timed_out;
  std::vector<std::deque<int>> notices;
  std::vector<RankSet> noticed;
  std::vector<InFlight> net;
  RankSet dead_before_start;  // died before contributing

  World(int n_, std::mt19937_64& rng) : n(n_), alive(n_, true), started(n_, false), ever_timed_out(n_, false),
                                         notices(n_), noticed(n_) {
    for (int i = 0; i < n; ++i) {
      agree.emplace_back(i, n, n <= 16);  // the library's choice: the fast exchange up to 16 members
      commit.emplace_back(i, n, 8);
      Contribution c;
      const auto r = rng() % 10;
      if (r == 0) c.flags |= ftmpi::famp::kFlagRaised, c.raised_code = 1 + static_cast<int>(rng() % 6);
      if (r == 1) c.flags |= ftmpi::famp::kFlagComm;
      if (r == 2) c.flags |= ftmpi::famp::kFlagInner;
      if (r == 3) c.declared_failed.push_back(static_cast<int>(rng() % static_cast<std::uint64_t>(n)));
      c.injection.assign(8, std::byte{0});
      if (rng() % 8 == 0) {
        const std::uint64_t x = rng() | 1;
        std::memcpy(c.injection.data(), &x, 8);
      }
      contrib.push_back(c);
    }
  }
  void collect(int p) {
    for (auto& o : agree[p].take_outgoing()) net.push_back(InFlight{p, o.dest, std::move(o.msg)});
  }
  void sync(int p) {  // the library's GenericOp: hand a decision to the commit machine
    if (agree[p].decided() && commit[p].phase() != TryCommit::Phase::decided &&
        commit[p].phase() != TryCommit::Phase::open)
      commit[p].on_decided(agree[p].value(), agree[p].failed());
  }
  void start(int p) {
    started[p] = true;
    agree[p].start(commit[p].contribute(contrib[p]), noticed[p]);
    collect(p);
    sync(p);
  }
  void kill(int p) {
    alive[p] = false;
    if (!started[p]) dead_before_start.insert(p);
    for (int q = 0; q < n; ++q)
      if (q != p && alive[q]) notices[q].push_back(p);
  }
  void notice(int p) {
    const int f = notices[p].front();
    notices[p].pop_front();
    noticed[p].insert(f);
    agree[p].on_failure(f);
    collect(p);
    sync(p);
  }
  void deliver(std::size_t i) {
    InFlight m = std::move(net[i]);
    net[i] = std::move(net.back());
    net.pop_back();
    if (!alive[m.dst]) return;
    agree[m.dst].on_message(m.src, m.msg);
    collect(m.dst);
    sync(m.dst);
  }
  void deadline(int p) {
    if (commit[p].phase() == TryCommit::Phase::agreeing) {
      commit[p].on_deadline();
      ever_timed_out[p] = true;
    }
  }
  bool done() const {
    for (int p = 0; p < n; ++p)
      if (alive[p] && (!started[p] || !agree[p].decided() || !notices[p].empty())) return false;
    return net.empty();
  }
  // One random step; `kill_budget` deaths still allowed.
  void step(std::mt19937_64& rng, int& kill_budget, int kill_permille) {
    std::vector<int> choices;  // 0 start, 1 deliver, 2 notice
    for (int p = 0; p < n; ++p) {
      if (alive[p] && !started[p]) choices.push_back(0);
      if (alive[p] && !notices[p].empty()) choices.push_back(2);
    }
    if (!net.empty()) choices.push_back(1), choices.push_back(1), choices.push_back(1);
    if (kill_budget > 0 && static_cast<int>(rng() % 1000) < kill_permille) {
      std::vector<int> live;
      for (int p = 0; p < n; ++p)
        if (alive[p]) live.push_back(p);
      if (live.size() > 1) {
        kill(live[rng() % live.size()]);
        --kill_budget;
        return;
      }
    }
    if (rng() % 50 == 0) deadline(static_cast<int>(rng() % static_cast<std::uint64_t>(n)));
    if (choices.empty()) return;
    const int c = choices[rng() % choices.size()];
    if (c == 1) {
      deliver(rng() % net.size());
    } else {
      std::vector<int> who;
      for (int p = 0; p < n; ++p)
        if (alive[p] && (c == 0 ? !started[p] : !notices[p].empty())) who.push_back(p);
      const int p = who[rng() % who.size()];
      c == 0 ? start(p) : notice(p);
    }
  }

  std::optional<std::string> check() const {
    std::optional<int> ref;
    for (int p = 0; p < n; ++p) {
      if (!alive[p]) continue;
      if (commit[p].phase() != TryCommit::Phase::decided) return "survivor " + std::to_string(p) + " did not decide";
      if (!ref) {
        ref = p;
        continue;
      }
      const auto& a = commit[*ref].outcome();
      const auto& b = commit[p].outcome();
      if (a.cls != b.cls) return "class differs between " + std::to_string(*ref) + " and " + std::to_string(p);
      if (a.try_flag != b.try_flag) return "try_flag differs";
      if (a.flags != b.flags) return "flags differ";
      if (!(a.failed == b.failed)) return "failed group differs";
      if (a.contributed != b.contributed) return "contributor set differs";
      if (a.gathered != b.gathered) return "gathered group_error_state differs";
      if (a.raised_code != b.raised_code) return "raised codes differ";
    }
    if (!ref) return std::nullopt;
    const auto& o = commit[*ref].outcome();
    bool any_fault = false;
    for (int p = 0; p < n; ++p) {
      const auto& c = contrib[p];
      bool inj = false;
      for (auto x : c.injection) inj |= x != std::byte{0};
      any_fault |= c.flags != 0 || inj || !c.declared_failed.empty();
      if (alive[p]) {
        if (!o.contributed[static_cast<std::size_t>(p)]) return "survivor " + std::to_string(p) + "'s slot is absent";
        if (std::memcmp(&o.gathered[static_cast<std::size_t>(p) * 8], c.injection.data(), 8) != 0)
          return "survivor " + std::to_string(p) + "'s injection was not gathered exactly";
        if ((o.flags & c.flags) != c.flags) return "survivor " + std::to_string(p) + "'s flags are missing";
        for (int d : c.declared_failed)
          if (!o.failed.contains(d)) return "a declared failure is missing from the failed group";
      }
    }
    for (int d : dead_before_start.ranks())
      if (!o.failed.contains(d) || o.contributed[static_cast<std::size_t>(d)])
        return "member " + std::to_string(d) + " died before contributing but is not in the failed group";
    const bool died = !dead_before_start.empty() || !o.failed.empty();
    if (!any_fault && dead_before_start.empty() && o.failed.empty() && o.cls != CommitClass::success)
      return "fault-free commit did not succeed";
    if (died && (o.cls == CommitClass::success || o.try_flag)) return "a commit with a dead member succeeded";
    return std::nullopt;
  }
};

// Run to the end: a member that timed out waits again (on_decided is accepted from timed_out).
std::optional<std::string> run(World& w, std::mt19937_64& rng, int kill_budget, int kill_permille) {
  for (int steps = 0; !w.done(); ++steps) {
    if (steps > 200000) return "no termination";
    w.step(rng, kill_budget, kill_permille);
  }
  return w.check();
}

TEST(TryBlockSim, FaultFreeCommitsSucceedWithGatheredState) {
  for (int n = 1; n <= 16; ++n) {
    std::mt19937_64 rng(7 + static_cast<unsigned>(n));
    World w(n, rng);
    for (auto& c : w.contrib) c = Contribution{0, 0, {}, std::vector<std::byte>(8, std::byte{0})};
    w.contrib[0].injection[0] = std::byte{0};
    int budget = 0;
    auto err = run(w, rng, budget, 0);
    ASSERT_FALSE(err) << "n=" << n << ": " << *err;
    EXPECT_EQ(w.commit[0].outcome().cls, CommitClass::success);
    EXPECT_TRUE(w.commit[0].outcome().try_flag);
  }
}

TEST(TryBlockSim, InjectionFromOneMemberReachesEveryCommit) {
  for (int n = 2; n <= 12; ++n) {
    for (int who = 0; who < n; ++who) {
      std::mt19937_64 rng(100 + static_cast<unsigned>(n * 31 + who));
      World w(n, rng);
      for (auto& c : w.contrib) c = Contribution{0, 0, {}, std::vector<std::byte>(8, std::byte{0})};
      w.contrib[static_cast<std::size_t>(who)].flags = ftmpi::famp::kFlagRaised;
      w.contrib[static_cast<std::size_t>(who)].raised_code = 4;
      int budget = 0;
      auto err = run(w, rng, budget, 0);
      ASSERT_FALSE(err) << *err;
      for (int p = 0; p < n; ++p) {
        EXPECT_EQ(w.commit[static_cast<std::size_t>(p)].outcome().cls, CommitClass::local_error_injection);
        EXPECT_EQ(w.commit[static_cast<std::size_t>(p)].outcome().raised_code[static_cast<std::size_t>(who)], 4);
      }
    }
  }
}

// Exhaustive: one member dies at step k of a fixed random schedule, for every k and every member.
TEST(TryBlockSim, SingleDeathAtEveryStep) {
  long schedules = 0;
  for (int n = 2; n <= 8; ++n) {
    for (unsigned seed = 0; seed < 4; ++seed) {
      // Length of the fault-free schedule with this seed.
      std::mt19937_64 probe_rng(seed * 977 + static_cast<unsigned>(n));
      World probe(n, probe_rng);
      int budget0 = 0;
      int len = 0;
      while (!probe.done() && len < 100000) probe.step(probe_rng, budget0, 0), ++len;
      for (int k = 0; k <= len; ++k) {
        for (int victim = 0; victim < n; ++victim) {
          std::mt19937_64 rng(seed * 977 + static_cast<unsigned>(n));
          World w(n, rng);
          int budget = 0;
          for (int s = 0; s < k && !w.done(); ++s) w.step(rng, budget, 0);
          if (w.alive[static_cast<std::size_t>(victim)]) w.kill(victim);
          auto err = run(w, rng, budget, 0);
          ASSERT_FALSE(err) << "n=" << n << " seed=" << seed << " kill " << victim << " at step " << k << ": " << *err;
          ++schedules;
        }
      }
    }
  }
  std::printf("single deaths at every step: %ld schedules\n", schedules);
}

TEST(TryBlockSim, DoubleDeathsAtEveryStepPair) {
  long schedules = 0;
  for (int n = 3; n <= 6; ++n) {
    std::mt19937_64 probe_rng(4242 + static_cast<unsigned>(n));
    World probe(n, probe_rng);
    int b0 = 0, len = 0;
    while (!probe.done() && len < 100000) probe.step(probe_rng, b0, 0), ++len;
    for (int k1 = 0; k1 <= len; k1 += 2)
      for (int k2 = k1; k2 <= len; k2 += 3)
        for (int v1 = 0; v1 < n; ++v1) {
          const int v2 = (v1 + 1 + k2) % n;
          if (v2 == v1) continue;
          std::mt19937_64 rng(4242 + static_cast<unsigned>(n));
          World w(n, rng);
          int budget = 0, s = 0;
          for (; s < k1 && !w.done(); ++s) w.step(rng, budget, 0);
          w.kill(v1);
          for (; s < k2 && !w.done(); ++s) w.step(rng, budget, 0);
          if (w.alive[static_cast<std::size_t>(v2)]) w.kill(v2);
          auto err = run(w, rng, budget, 0);
          ASSERT_FALSE(err) << "n=" << n << " kills " << v1 << "@" << k1 << " " << v2 << "@" << k2 << ": " << *err;
          ++schedules;
        }
  }
  std::printf("double deaths: %ld schedules\n", schedules);
}

TEST(TryBlockSim, RandomSchedulesWithDeathsAndTimeouts) {
  int timed_out_then_decided = 0;
  for (unsigned seed = 0; seed < 4000; ++seed) {
    std::mt19937_64 rng(seed);
    const int n = 2 + static_cast<int>(rng() % 15);
    World w(n, rng);
    int budget = static_cast<int>(rng() % static_cast<std::uint64_t>(n));  // up to n-1 deaths
    auto err = run(w, rng, budget, 30);
    ASSERT_FALSE(err) << "seed " << seed << " n=" << n << ": " << *err;
    for (int p = 0; p < n; ++p)
      if (w.alive[static_cast<std::size_t>(p)] && w.ever_timed_out[static_cast<std::size_t>(p)]) ++timed_out_then_decided;
  }
  EXPECT_GT(timed_out_then_decided, 0);  // the timeout path was exercised
  std::printf("members that timed out and later decided the common outcome: %d\n", timed_out_then_decided);
}

// --- blocks on intercommunicators (commit.h InterView) ------------------------------------------------
// The span's members 0..a-1 are group A (the one with the lower smallest world rank), a..n-1 group B. Each
// survivor reads the outcome in its own view (local group first). Checks, on top of World::check() (the
// span outcome is uniform and valid): a survivor's own slot in its view is at its local rank and holds its
// injection; every survivor of either side sees the same slot, contribution and failure for every member
// (the views are consistent permutations of one outcome); the view's failed set maps back to the span's.
std::optional<std::string> check_views(const World& w, int a) {
  const int n = w.n;
  auto view_of = [&](int p) {
    return p < a ? ftmpi::famp::InterView{a, n - a, true} : ftmpi::famp::InterView{n - a, a, false};
  };
  std::vector<std::optional<ftmpi::famp::CommitOutcome>> views(static_cast<std::size_t>(n));
  for (int p = 0; p < n; ++p)
    if (w.alive[static_cast<std::size_t>(p)])
      views[static_cast<std::size_t>(p)] = ftmpi::famp::to_view(view_of(p), w.commit[static_cast<std::size_t>(p)].outcome(), 8);
  for (int p = 0; p < n; ++p) {
    const auto& vp = views[static_cast<std::size_t>(p)];
    if (!vp) continue;
    const auto vw = view_of(p);
    const int local_rank = p < a ? p : p - a;
    if (vw.to_span(local_rank) != p) return "view of " + std::to_string(p) + " does not map its local rank to itself";
    if (!vp->contributed[static_cast<std::size_t>(local_rank)]) return "own slot absent in the view";
    if (std::memcmp(&vp->gathered[static_cast<std::size_t>(local_rank) * 8], w.contrib[static_cast<std::size_t>(p)].injection.data(), 8) != 0)
      return "survivor " + std::to_string(p) + " does not find its injection at its local rank";
    ftmpi::ft::RankSet back;
    for (int r : vp->failed.ranks()) back.insert(vw.to_span(r));
    if (!(back == w.commit[static_cast<std::size_t>(p)].outcome().failed)) return "view failed set does not map back";
    for (int q = 0; q < n; ++q) {
      const auto& vq = views[static_cast<std::size_t>(q)];
      if (!vq) continue;
      const auto wq = view_of(q);
      for (int m = 0; m < n; ++m) {
        const auto ip = static_cast<std::size_t>(vw.to_view(m)), iq = static_cast<std::size_t>(wq.to_view(m));
        if (vp->contributed[ip] != vq->contributed[iq] || vp->raised_code[ip] != vq->raised_code[iq] ||
            std::memcmp(&vp->gathered[ip * 8], &vq->gathered[iq * 8], 8) != 0 ||
            vp->failed.contains(static_cast<int>(ip)) != vq->failed.contains(static_cast<int>(iq)))
          return "survivors " + std::to_string(p) + " and " + std::to_string(q) + " see member " + std::to_string(m) + " differently";
      }
    }
  }
  return std::nullopt;
}

TEST(TryBlockSim, InterViewsArePermutations) {
  for (int l = 0; l <= 5; ++l)
    for (int r = 0; r <= 5; ++r)
      for (bool first : {true, false}) {
        ftmpi::famp::InterView v{l, r, first};
        for (int i = 0; i < l + r; ++i) {
          EXPECT_EQ(v.to_span(v.to_view(i)), i);
          EXPECT_EQ(v.to_view(v.to_span(i)), i);
        }
      }
}

TEST(TryBlockSim, InterSingleDeathAtEveryStep) {
  long schedules = 0;
  for (int n = 2; n <= 7; ++n) {
    for (int a = 1; a < n; ++a) {
      const unsigned seed = static_cast<unsigned>(n * 131 + a);
      std::mt19937_64 probe_rng(seed);
      World probe(n, probe_rng);
      int budget0 = 0, len = 0;
      while (!probe.done() && len < 100000) probe.step(probe_rng, budget0, 0), ++len;
      for (int k = 0; k <= len; ++k) {
        for (int victim = 0; victim < n; ++victim) {
          std::mt19937_64 rng(seed);
          World w(n, rng);
          int budget = 0;
          for (int s = 0; s < k && !w.done(); ++s) w.step(rng, budget, 0);
          if (w.alive[static_cast<std::size_t>(victim)]) w.kill(victim);
          auto err = run(w, rng, budget, 0);
          if (!err) err = check_views(w, a);
          ASSERT_FALSE(err) << "n=" << n << " a=" << a << " kill " << victim << " at step " << k << ": " << *err;
          ++schedules;
        }
      }
    }
  }
  std::printf("intercommunicator blocks, single deaths at every step: %ld schedules\n", schedules);
}

TEST(TryBlockSim, InterRandomSchedulesWithDeathsAndTimeouts) {
  for (unsigned seed = 0; seed < 3000; ++seed) {
    std::mt19937_64 rng(seed + 90000);
    const int n = 2 + static_cast<int>(rng() % 15);
    const int a = 1 + static_cast<int>(rng() % static_cast<std::uint64_t>(n - 1));
    World w(n, rng);
    int budget = static_cast<int>(rng() % static_cast<std::uint64_t>(n));
    auto err = run(w, rng, budget, 30);
    if (!err) err = check_views(w, a);
    ASSERT_FALSE(err) << "seed " << seed << " n=" << n << " a=" << a << ": " << *err;
  }
}

}  // namespace

// The library decodes every commit into one reused outcome (decode_into, with a fault-free shortcut that
// skips rewriting buffers already in the fault-free state): a sequence of random values, faulty and
// fault-free, sizes and injection widths changing, must decode exactly as a fresh decode() of each.
TEST(TryBlockSim, ReusedOutcomeDecodesLikeAFreshOne) {
  using namespace ftmpi::famp;
  std::mt19937 rng(7);
  CommitOutcome reused;
  for (int step = 0; step < 2000; ++step) {
    const int n = 1 + static_cast<int>(rng() % 6);
    const std::size_t inj = (rng() % 3 == 0) ? 0 : 1 + rng() % 9;
    const CommitLayout l{n, inj};
    ftmpi::ft::Bits v(l.words(), ~std::uint64_t{0});
    RankSet failed;
    const bool clean = rng() % 2 == 0;
    for (int r = 0; r < n; ++r) {
      Contribution c;
      if (!clean && rng() % 3 == 0) c.flags = 1u << (rng() % 7);
      if (!clean && rng() % 4 == 0) c.declared_failed.push_back(static_cast<int>(rng() % static_cast<unsigned>(n)));
      c.injection.assign(inj, std::byte{0});
      if (!clean && inj > 0 && rng() % 4 == 0) c.injection[rng() % inj] = std::byte{0x5a};
      if (!clean && rng() % 5 == 0) {
        failed.insert(r);  // did not contribute
        continue;
      }
      const ftmpi::ft::Bits e = encode(l, r, c);
      for (std::size_t w = 0; w < v.size(); ++w) v[w] &= e[w];
    }
    decode_into(reused, l, v, failed);
    const CommitOutcome fresh = decode(l, v, failed);
    ASSERT_EQ(reused.cls, fresh.cls) << "step " << step;
    ASSERT_EQ(reused.try_flag, fresh.try_flag) << "step " << step;
    ASSERT_EQ(reused.flags, fresh.flags) << "step " << step;
    ASSERT_EQ(reused.failed, fresh.failed) << "step " << step;
    ASSERT_EQ(reused.contributed, fresh.contributed) << "step " << step;
    ASSERT_EQ(reused.raised_code, fresh.raised_code) << "step " << step;
    ASSERT_EQ(reused.gathered, fresh.gathered) << "step " << step;
  }
}
