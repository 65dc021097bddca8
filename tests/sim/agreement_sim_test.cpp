// Deterministic simulation of the agreement protocol (src/ft/agreement.*) with failures injected at every
// step: thousands of seeded random schedules, exhaustive single and double failures on small process
// counts, and a cost table (messages and rounds) from 2 to 16,384 simulated ranks.
//
// With acknowledgements (MPIX_Comm_agree, ft/agree_outcome.h): every process contributes its flag and the
// failures it acknowledged (a random subset of those it knows when it starts); PASS also needs every survivor
// to derive the same flag and the same error from its decision, the error to be raised iff the failed set
// holds a member some contributor had not acknowledged, and never when every process acknowledged it.
//
// PASS: for every schedule — agreement (all survivors decide the same value and failed set; seed 000
// §1.3: "all living processes must agree"), validity (value is the AND of a superset of the survivors'
// contributions and contains the AND of all contributions; the failed set holds only dead processes and
// every failure a survivor knew when it started), termination (every survivor decides, bounded steps).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <optional>
#include <random>

#include "ft/agree_outcome.h"
#include "ft/agreement.h"

namespace {

using ftmpi::ft::AgreeMsg;
using ftmpi::ft::Agreement;
using ftmpi::ft::Bits;
using ftmpi::ft::RankSet;

struct InFlight {
  int src, dst;
  AgreeMsg msg;
  int round;  // for the synchronous cost model
};

// Groups up to this size take the agreement's one-round fast path (ft/agreement.h); 0 (the default) tests
// the tree alone. The FastPath tests set it.
int g_fast_upto = 0;

struct World {
  int n;
  std::vector<Agreement> procs;
  std::vector<bool> alive;
  std::vector<bool> started;
  std::vector<Bits> contribution;
  std::vector<RankSet> known_at_start;
  std::vector<std::deque<int>> notices;  // failure notices not yet delivered, per process
  std::vector<RankSet> noticed;          // notices delivered, per process
  std::vector<InFlight> net;
  std::uint64_t messages = 0;
  std::vector<std::uint64_t> sent_by;
  // Acknowledgement mode: start() replaces the contribution by flag_contribution(low 32 bits, acked, n).
  bool with_acks = false;
  std::mt19937_64 ack_rng{12345};
  std::vector<RankSet> acked;

  explicit World(int n_) : n(n_), alive(n_, true), started(n_, false), contribution(n_), known_at_start(n_),
                           notices(n_), noticed(n_), sent_by(n_, 0), acked(n_) {
    procs.reserve(n_);
    for (int i = 0; i < n_; ++i) procs.emplace_back(i, n_, n_ <= g_fast_upto);
  }

  void collect(int p, int round = 0) {
    for (auto& o : procs[p].take_outgoing()) {
      ++messages;
      ++sent_by[p];
      net.push_back(InFlight{p, o.dest, std::move(o.msg), round + 1});
    }
  }
  void start(int p) {
    started[p] = true;
    known_at_start[p] = noticed[p];
    if (with_acks) {
      // Acknowledge all known failures (a third of the time) or a random subset of them.
      const bool all = ack_rng() % 3 == 0;
      std::vector<int> a;
      for (int r : noticed[p].ranks())
        if (all || ack_rng() % 2 == 0) a.push_back(r);
      acked[p] = RankSet(a);
      contribution[p] = ftmpi::ft::flag_contribution(static_cast<int>(static_cast<std::uint32_t>(contribution[p][0])), a, n);
    }
    procs[p].start(contribution[p], noticed[p]);
    collect(p);
  }
  void kill(int p) {
    alive[p] = false;
    for (int q = 0; q < n; ++q)
      if (q != p && alive[q]) notices[q].push_back(p);
  }
  void notice(int p) {
    int f = notices[p].front();
    notices[p].pop_front();
    noticed[p].insert(f);
    procs[p].on_failure(f);
    collect(p);
  }
  void deliver(std::size_t i, int round = 0) {
    InFlight m = std::move(net[i]);
    net[i] = std::move(net.back());
    net.pop_back();
    if (!alive[m.dst]) return;
    procs[m.dst].on_message(m.src, m.msg);
    collect(m.dst, round);
  }

  bool done() const {
    for (int p = 0; p < n; ++p)
      if (alive[p] && (!started[p] || !procs[p].decided() || !notices[p].empty())) return false;
    return net.empty();
  }

  // Check the three properties; returns an explanation on failure.
  std::optional<std::string> check() const {
    std::optional<int> ref;
    for (int p = 0; p < n; ++p) {
      if (alive[p] && !procs[p].decided()) return "survivor " + std::to_string(p) + " did not decide";
      if (!alive[p]) continue;  // agreement among the processes alive at the end (seed 000 §1.3)
      if (!ref) {
        ref = p;
        continue;
      }
      if (procs[p].value() != procs[*ref].value()) return "value differs between " + std::to_string(*ref) + " and " + std::to_string(p);
      if (!(procs[p].failed() == procs[*ref].failed())) return "failed set differs";
    }
    if (!ref) return std::nullopt;
    const Bits& v = procs[*ref].value();
    const RankSet& f = procs[*ref].failed();
    std::uint64_t all = ~std::uint64_t{0};
    for (int p = 0; p < n; ++p) all &= contribution[p][0];
    if ((v[0] & all) != all) return "value misses bits every process contributed";
    for (int p = 0; p < n; ++p) {
      if (alive[p] && (v[0] & ~contribution[p][0])) return "value has a bit survivor " + std::to_string(p) + " did not contribute";
      if (alive[p] && !f.includes(known_at_start[p])) return "failed set misses a failure known to " + std::to_string(p);
    }
    for (int r : f.ranks())
      if (alive[r]) return "failed set names live process " + std::to_string(r);
    if (with_acks) {
      const ftmpi::ft::FlagOutcome o = ftmpi::ft::flag_outcome(v, f);
      for (int p = 0; p < n; ++p) {
        if (!alive[p]) continue;
        const ftmpi::ft::FlagOutcome q = ftmpi::ft::flag_outcome(procs[p].value(), procs[p].failed());
        if (q.flag != o.flag || q.proc_failed != o.proc_failed)
          return "outcome (flag, error) differs at survivor " + std::to_string(p);
      }
      bool some_unacked = false;  // a member of the failed set not acknowledged by some contributor
      for (int r : f.ranks())
        for (int p = 0; p < n; ++p)
          if (started[p] && !f.contains(p) && !acked[p].contains(r)) some_unacked = true;
      bool survivors_acked_all = true;
      for (int p = 0; p < n; ++p)
        if (alive[p] && !acked[p].includes(f)) survivors_acked_all = false;
      if (o.proc_failed && !some_unacked) return "error raised although every contributor acknowledged the failed set";
      if (!o.proc_failed && !survivors_acked_all) return "no error although a survivor had not acknowledged a failed member";
    }
    return std::nullopt;
  }
};

// One random schedule: processes start at random times, up to max_failures die at random steps.
std::optional<std::string> run_random(int n, int max_failures, std::uint64_t seed, bool with_acks = false) {
  std::mt19937_64 rng(seed);
  const std::uint64_t kill_pct = std::array<std::uint64_t, 3>{1, 5, 20}[seed % 3];
  World w(n);
  w.with_acks = with_acks;
  w.ack_rng.seed(seed ^ 0x9e3779b97f4a7c15ull);
  for (int p = 0; p < n; ++p) w.contribution[p] = Bits{rng() | rng()};  // mostly ones
  int failures = 0;
  for (std::uint64_t steps = 0; !w.done(); ++steps) {
    if (steps > 1'000'000) return "no termination (seed " + std::to_string(seed) + ")";
    // Candidate events.
    std::vector<int> unstarted, with_notice, live;
    for (int p = 0; p < n; ++p) {
      if (!w.alive[p]) continue;
      live.push_back(p);
      if (!w.started[p]) unstarted.push_back(p);
      if (!w.notices[p].empty()) with_notice.push_back(p);
    }
    std::uint64_t pick = rng() % 100;
    if (failures < max_failures && live.size() > 1 && rng() % 100 < kill_pct) {
      // Half of the deaths strike a process that has decided (the dangerous moment: its decision may be
      // in flight), the others anyone.
      std::vector<int> deciders;
      for (int p : live)
        if (w.procs[p].decided()) deciders.push_back(p);
      bool strike_decider = !deciders.empty() && rng() % 2 == 0;
      w.kill(strike_decider ? deciders[rng() % deciders.size()] : live[rng() % live.size()]);
      ++failures;
    } else if (!unstarted.empty() && (pick < 20 || (w.net.empty() && with_notice.empty()))) {
      w.start(unstarted[rng() % unstarted.size()]);
    } else if (!with_notice.empty() && (pick < 35 || w.net.empty())) {
      w.notice(with_notice[rng() % with_notice.size()]);
    } else if (!w.net.empty()) {
      w.deliver(rng() % w.net.size());
    }
  }
  if (auto e = w.check()) return *e + " (n=" + std::to_string(n) + ", seed " + std::to_string(seed) + ")";
  return std::nullopt;
}

// Delivery orders of the fixed schedules.
enum class Order { fifo_notices_first, lifo_notices_first, fifo_messages_first, lifo_messages_first };

// A fixed schedule (everyone starts first, then messages and notices in the given order) with process
// `victim` killed right after event number `kill_at` (and optionally `victim2` after event `kill_at2`).
std::optional<std::string> run_fixed(int n, int victim, int kill_at, int victim2, int kill_at2,
                                     Order order = Order::fifo_notices_first, bool with_acks = false) {
  World w(n);
  w.with_acks = with_acks;
  w.ack_rng.seed(static_cast<std::uint64_t>(n * 1000003 + victim * 1009 + kill_at * 31 + victim2 * 7 + kill_at2));
  for (int p = 0; p < n; ++p) w.contribution[p] = Bits{~std::uint64_t{0} ^ (std::uint64_t{1} << p)};
  int event = 0;
  auto maybe_kill = [&] {
    if (event == kill_at && w.alive[victim]) w.kill(victim);
    if (victim2 >= 0 && event == kill_at2 && w.alive[victim2]) w.kill(victim2);
  };
  maybe_kill();
  for (int p = 0; p < n; ++p) {
    if (w.alive[p]) w.start(p);
    ++event;
    maybe_kill();
  }
  const bool notices_first = order == Order::fifo_notices_first || order == Order::lifo_notices_first;
  const bool fifo = order == Order::fifo_notices_first || order == Order::fifo_messages_first;
  for (int guard = 0; !w.done(); ++guard) {
    if (guard > 100000) return "no termination";
    bool progressed = false;
    if (!notices_first && !w.net.empty()) {
      progressed = true;
    } else {
      for (int p = 0; p < n && !progressed; ++p)
        if (w.alive[p] && !w.notices[p].empty()) {
          w.notice(p);
          progressed = true;
        }
      if (progressed) {
        ++event;
        maybe_kill();
        continue;
      }
    }
    if (!w.net.empty()) {
      if (fifo) {  // the oldest message
        InFlight m = std::move(w.net.front());
        w.net.erase(w.net.begin());
        w.net.push_back(std::move(m));
      }
      w.deliver(w.net.size() - 1);  // lifo: the newest
    } else {
      for (int p = 0; p < n; ++p)
        if (w.alive[p] && !w.notices[p].empty()) {
          w.notice(p);
          break;
        }
    }
    ++event;
    maybe_kill();
  }
  if (auto e = w.check()) return *e;
  return std::nullopt;
}

TEST(AgreementSim, RandomSchedulesWithFailures) {
  int runs = 0;
  for (int n : {1, 2, 3, 4, 5, 7, 8, 13, 16, 32}) {
    for (std::uint64_t seed = 1; seed <= 400; ++seed) {
      int max_f = static_cast<int>(seed % static_cast<std::uint64_t>(n));  // 0 .. n-1 failures
      auto err = run_random(n, max_f, seed * 7919 + static_cast<std::uint64_t>(n));
      ASSERT_FALSE(err.has_value()) << *err;
      ++runs;
    }
  }
  std::printf("random schedules checked: %d\n", runs);
}

// MPIX_Comm_agree's outcome (flag and error) is the same at every survivor, and the error is right, in random
// schedules with failures before and during the agreement and random acknowledgements.
TEST(AgreementSim, UniformErrorRandomSchedules) {
  int runs = 0, errors = 0;
  for (int n : {2, 3, 4, 5, 7, 8, 13, 16, 32, 70}) {
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
      int max_f = static_cast<int>(seed % static_cast<std::uint64_t>(n));
      auto err = run_random(n, max_f, seed * 104729 + static_cast<std::uint64_t>(n), true);
      ASSERT_FALSE(err.has_value()) << *err;
      ++runs;
    }
  }
  (void)errors;
  std::printf("random schedules with acknowledgements checked: %d\n", runs);
}

// The same with a failure injected at every step of fixed schedules (single and double failures), every
// delivery order.
TEST(AgreementSim, UniformErrorFailureAtEveryStep) {
  int cases = 0;
  for (int n = 2; n <= 7; ++n)
    for (int victim = 0; victim < n; ++victim)
      for (int at = 0; at < 12 * n; ++at)
        for (Order o : {Order::fifo_notices_first, Order::lifo_notices_first, Order::fifo_messages_first,
                        Order::lifo_messages_first}) {
          auto err = run_fixed(n, victim, at, -1, -1, o, true);
          ASSERT_FALSE(err.has_value()) << *err << " (n=" << n << " victim=" << victim << " at=" << at << ")";
          const int v2 = (victim + 1) % n;
          if (n >= 3) {
            err = run_fixed(n, victim, at, v2, at + (at % 5), o, true);
            ASSERT_FALSE(err.has_value()) << *err << " (n=" << n << " v1=" << victim << " v2=" << v2 << ")";
          }
          cases += n >= 3 ? 2 : 1;
        }
  std::printf("failure-at-every-step cases with acknowledgements checked: %d\n", cases);
}

// The schedule that makes the "accept only a DOWN of my last UP's view" rule necessary: the root decides
// and dies with its DOWNs in flight; the survivors re-run in the new view, and an old DOWN arrives at a
// process after it sent its UP of the new view.
TEST(AgreementSim, StaleDecisionOfDeadRootIsRefused) {
  World w(3);
  for (int p = 0; p < 3; ++p) w.contribution[p] = Bits{~std::uint64_t{0} ^ (std::uint64_t{1} << p)};
  for (int p = 0; p < 3; ++p) w.start(p);
  auto deliver_where = [&](int src, int dst) {
    for (std::size_t i = 0; i < w.net.size(); ++i)
      if (w.net[i].src == src && w.net[i].dst == dst) {
        w.deliver(i);
        return true;
      }
    return false;
  };
  ASSERT_TRUE(deliver_where(1, 0));  // UPs reach the root 0, which decides and sends DOWNs
  ASSERT_TRUE(deliver_where(2, 0));
  ASSERT_TRUE(w.procs[0].decided());
  w.kill(0);
  w.notice(1);
  w.notice(2);                       // 2 sends UP(view {0}) to its new root 1
  ASSERT_TRUE(deliver_where(2, 1));  // 1 decides freshly (0's DOWN to 1 still in flight)
  ASSERT_TRUE(deliver_where(0, 2));  // the dead root's stale DOWN reaches 2 first: must be refused
  while (!w.net.empty()) w.deliver(0);
  auto err = w.check();
  ASSERT_FALSE(err.has_value()) << *err;
}

TEST(AgreementSim, ExhaustiveSingleFailureAtEveryStep) {
  int cases = 0;
  for (int n = 2; n <= 8; ++n)
    for (int victim = 0; victim < n; ++victim)
      for (int at = 0; at < 12 * n; ++at)
        for (Order o : {Order::fifo_notices_first, Order::lifo_notices_first, Order::fifo_messages_first,
                        Order::lifo_messages_first}) {
          auto err = run_fixed(n, victim, at, -1, -1, o);
          ASSERT_FALSE(err.has_value()) << *err << " (n=" << n << " victim=" << victim << " at=" << at
                                        << " order=" << static_cast<int>(o) << ")";
          ++cases;
        }
  std::printf("single-failure cases checked: %d\n", cases);
}

TEST(AgreementSim, ExhaustiveDoubleFailures) {
  int cases = 0;
  for (int n = 3; n <= 6; ++n)
    for (int v1 = 0; v1 < n; ++v1)
      for (int v2 = 0; v2 < n; ++v2) {
        if (v2 == v1) continue;
        for (int at = 0; at < 6 * n; ++at)
          for (int gap = 0; gap < 6; ++gap)
            for (Order o : {Order::fifo_notices_first, Order::lifo_messages_first}) {
              auto err = run_fixed(n, v1, at, v2, at + gap, o);
              ASSERT_FALSE(err.has_value()) << *err << " (n=" << n << " v1=" << v1 << " v2=" << v2 << ")";
              ++cases;
            }
      }
  std::printf("double-failure cases checked: %d\n", cases);
}

// Synchronous rounds: every message in flight at the start of a round is delivered in that round.
struct Cost {
  double msgs_per_proc;
  std::uint64_t max_sent;
  int rounds;
};
Cost measure(int n, int failed_before) {
  World w(n);
  for (int p = 0; p < n; ++p) w.contribution[p] = Bits{1};
  for (int f = 0; f < failed_before; ++f) w.kill(n / 2 + f);  // fail before the call, notices pending
  for (int p = 0; p < n; ++p)
    while (w.alive[p] && !w.notices[p].empty()) w.notice(p);
  for (int p = 0; p < n; ++p)
    if (w.alive[p]) w.start(p);
  int rounds = 0;
  while (!w.net.empty()) {
    ++rounds;
    std::vector<InFlight> batch;
    batch.swap(w.net);
    for (auto& m : batch) {
      w.net.push_back(std::move(m));
      w.deliver(w.net.size() - 1, rounds);
    }
  }
  std::uint64_t mx = *std::max_element(w.sent_by.begin(), w.sent_by.end());
  return Cost{static_cast<double>(w.messages) / n, mx, rounds};
}

TEST(AgreementSim, CostIsLogarithmic) {
  std::printf("%8s %14s %12s %8s | %14s %12s %8s\n", "ranks", "msgs/proc", "max sent", "rounds", "msgs/proc(1f)",
              "max sent(1f)", "rounds");
  int prev_rounds = 0;
  for (int n = 2; n <= 16384; n *= 2) {
    Cost c = measure(n, 0);
    Cost f = measure(n, n >= 4 ? 1 : 0);
    std::printf("%8d %14.2f %12llu %8d | %14.2f %12llu %8d\n", n, c.msgs_per_proc,
                static_cast<unsigned long long>(c.max_sent), c.rounds, f.msgs_per_proc,
                static_cast<unsigned long long>(f.max_sent), f.rounds);
    int log2n = 0;
    while ((1 << log2n) < n) ++log2n;
    EXPECT_LE(c.rounds, 2 * log2n);            // up and down the tree
    EXPECT_LE(c.max_sent, static_cast<std::uint64_t>(log2n + 1));  // one UP plus a DOWN per child
    EXPECT_LE(c.msgs_per_proc, 2.0);
    EXPECT_GE(c.rounds, prev_rounds);
    prev_rounds = c.rounds;
  }
}

// The fast path: the same checks with every group taking it (it falls back to the tree on any failure).
struct FastPathOn {
  FastPathOn() { g_fast_upto = 1 << 30; }
  ~FastPathOn() { g_fast_upto = 0; }
};

TEST(AgreementSim, FastPathRandomSchedules) {
  FastPathOn on;
  int runs = 0;
  for (int n : {1, 2, 3, 4, 5, 7, 8, 13, 16}) {
    for (std::uint64_t seed = 1; seed <= 600; ++seed) {
      int max_f = static_cast<int>(seed % static_cast<std::uint64_t>(n));
      auto err = run_random(n, max_f, seed * 6151 + static_cast<std::uint64_t>(n), seed % 2 == 0);
      ASSERT_FALSE(err.has_value()) << *err;
      ++runs;
    }
  }
  std::printf("fast-path random schedules checked: %d\n", runs);
}

TEST(AgreementSim, FastPathFailureAtEveryStep) {
  FastPathOn on;
  int cases = 0;
  for (int n = 2; n <= 12; ++n)  // powers of two and extra members (3, 5-7, 9-12)
    for (int victim = 0; victim < n; ++victim)
      for (int at = 0; at < 12 * n; ++at)
        for (Order o : {Order::fifo_notices_first, Order::lifo_notices_first, Order::fifo_messages_first,
                        Order::lifo_messages_first}) {
          auto err = run_fixed(n, victim, at, -1, -1, o, at % 2 == 0);
          ASSERT_FALSE(err.has_value()) << *err << " (n=" << n << " victim=" << victim << " at=" << at << ")";
          ++cases;
          if (n >= 3 && n <= 9)
            for (int gap = 0; gap < 4; ++gap) {
              const int v2 = (victim + 1 + gap) % n;
              if (v2 == victim) continue;
              err = run_fixed(n, victim, at, v2, at + gap, o, gap % 2 == 0);
              ASSERT_FALSE(err.has_value()) << *err << " (n=" << n << " v1=" << victim << " v2=" << v2 << " at=" << at << ")";
              ++cases;
            }
        }
  std::printf("fast-path failure-at-every-step cases checked: %d\n", cases);
}

TEST(AgreementSim, FastPathCost) {
  FastPathOn on;
  for (int n = 1; n <= 64; ++n) {
    Cost c = measure(n, 0);
    int log2p = 0;
    while ((2 << log2p) <= n) ++log2p;
    const bool extras = (1 << log2p) != n;
    if ((n & (n - 1)) == 0 || n == 3 || n == 12)
      std::printf("fast path %3d ranks: %.2f msgs/proc, at most %llu sent by one, %d round(s)\n", n, c.msgs_per_proc,
                  static_cast<unsigned long long>(c.max_sent), c.rounds);
    // The recursive-doubling exchange: log2(p) rounds, at most 2 more with extra members; no DOWN wave.
    if (!extras) {
      EXPECT_EQ(c.rounds, log2p) << n;
    } else {
      EXPECT_LE(c.rounds, log2p + 2) << n;
    }
    EXPECT_LE(c.max_sent, static_cast<std::uint64_t>(log2p + 1)) << n;
    if (!extras) {
      EXPECT_EQ(c.msgs_per_proc, static_cast<double>(log2p)) << n;
    }
    Cost f = measure(n, n >= 4 ? 1 : 0);  // a failure known before: the tree of the survivors
    if (n >= 4) {
      EXPECT_LE(f.rounds, 2 * (log2p + 1)) << n;
    }
  }
}

// Fault-free, every member decides the AND of all contributions whatever the delivery order and start
// order (random schedules without failures, every size up to 40: powers of two and extra members alike).
TEST(AgreementSim, FastPathEverySizeNoFailure) {
  FastPathOn on;
  for (int n = 1; n <= 40; ++n)
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      auto err = run_random(n, 0, seed * 31 + static_cast<std::uint64_t>(n));
      ASSERT_FALSE(err.has_value()) << *err;
    }
}

}  // namespace
