// Deterministic simulation of bridge agreements (src/ft/bridge.h: MPI_Intercomm_create's agreement over two
// groups where some members, the refusers, never learnt the other group). Knowers run ft/agreement.h and
// greet their tree neighbours (hello_targets); refusers answer greetings with refusal_msg and ignore the
// rest. Processes are killed at every step of seeded schedules (exhaustively for one death on small
// counts, randomly for several).
//
// PASS, for every schedule: termination (every live knower decides; refusers never wait), uniformity (the
// outcome "success = flag set and failed set empty" is the same at every live knower; and if any member
// refused, or a member died before the knowers decided, that outcome is failure everywhere — refusers
// always fail), and with no refuser and no death, success.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <random>
#include <set>
#include <string>

#include "ft/agreement.h"
#include "ft/bridge.h"

namespace {

using ftmpi::ft::AgreeMsg;
using ftmpi::ft::Agreement;
using ftmpi::ft::Bits;
using ftmpi::ft::RankSet;

constexpr std::uint64_t kOk = ~std::uint64_t{0};
constexpr std::uint64_t kRefused = ~std::uint64_t{1};

struct Msg {
  int src, dst;
  bool hello;
  AgreeMsg msg;
};

struct Sim {
  int n;
  std::vector<bool> refuser, alive, started;
  std::vector<Agreement> procs;
  std::vector<std::set<int>> greeted;
  std::vector<std::deque<int>> notices;
  std::vector<std::vector<int>> early_hellos;  // a refuser's greetings before it started
  std::vector<Msg> net;
  bool died_before_start = false;
  int steps = 0;

  Sim(int n_, const std::vector<bool>& refusers)
      : n(n_), refuser(refusers), alive(n_, true), started(n_, false), greeted(n_), notices(n_), early_hellos(n_) {
    procs.reserve(n_);
    for (int i = 0; i < n_; ++i) procs.emplace_back(i, n_);
  }

  void flush(int p) {
    if (refuser[p]) return;
    Agreement& a = procs[p];
    if (a.started() && !a.decided())
      for (int t : ftmpi::ft::hello_targets(a))
        if (greeted[p].insert(t).second) net.push_back(Msg{p, t, true, {}});
    for (auto& o : a.take_outgoing()) net.push_back(Msg{p, o.dest, false, std::move(o.msg)});
  }
  void answer(int refuser_p, int to) { net.push_back(Msg{refuser_p, to, false, ftmpi::ft::refusal_msg(Bits{kRefused})}); }

  void start(int p) {
    started[p] = true;
    if (refuser[p]) {
      for (int q : early_hellos[p]) answer(p, q);
      early_hellos[p].clear();
      return;
    }
    RankSet known;
    procs[p].start(Bits{kOk}, known);
    flush(p);
  }
  void kill(int p) {
    alive[p] = false;
    if (!started[p]) died_before_start = true;  // never contributed
    for (int q = 0; q < n; ++q)
      if (q != p && alive[q]) notices[q].push_back(p);
  }
  void notice(int p) {
    int f = notices[p].front();
    notices[p].pop_front();
    if (refuser[p]) return;
    procs[p].on_failure(f);
    flush(p);
  }
  void deliver(std::size_t i) {
    Msg m = std::move(net[i]);
    net[i] = std::move(net.back());
    net.pop_back();
    if (!alive[m.dst]) return;
    if (refuser[m.dst]) {
      if (!m.hello) return;
      if (started[m.dst]) answer(m.dst, m.src);
      else early_hellos[m.dst].push_back(m.src);
      return;
    }
    if (m.hello) return;  // a knower ignores greetings
    procs[m.dst].on_message(m.src, m.msg);
    flush(m.dst);
  }

  // One random step; false when nothing is left to do.
  bool step(std::mt19937_64& rng) {
    std::vector<int> can_start, can_notice;
    for (int p = 0; p < n; ++p) {
      if (!alive[p]) continue;
      if (!started[p]) can_start.push_back(p);
      if (!notices[p].empty()) can_notice.push_back(p);
    }
    const std::size_t options = can_start.size() + can_notice.size() + net.size();
    if (options == 0) return false;
    std::size_t k = rng() % options;
    ++steps;
    if (k < can_start.size()) {
      start(can_start[k]);
    } else if ((k -= can_start.size()) < can_notice.size()) {
      notice(can_notice[k]);
    } else {
      deliver(k - can_notice.size());
    }
    return true;
  }

  std::optional<std::string> check(bool any_refuser) const {
    std::optional<bool> outcome;
    for (int p = 0; p < n; ++p) {
      if (!alive[p] || refuser[p]) continue;
      if (!procs[p].decided()) return "live knower " + std::to_string(p) + " did not decide";
      const Agreement& a = procs[p];
      const bool success = !a.value().empty() && (a.value()[0] & 1u) && a.failed().empty();
      if (outcome && *outcome != success) return "knowers disagree on the outcome";
      outcome = success;
      if (success && any_refuser) return "a knower succeeded although a member refused";
      if (success && died_before_start) return "a knower succeeded although a member died before contributing";
    }
    return std::nullopt;
  }
};

// Run one schedule: `kills` = (step, process) pairs applied when the step counter reaches them.
std::optional<std::string> run(int n, const std::vector<bool>& refusers, std::uint64_t seed,
                               std::vector<std::pair<int, int>> kills, int* steps_out = nullptr) {
  Sim s(n, refusers);
  std::mt19937_64 rng(seed);
  std::sort(kills.begin(), kills.end());
  std::size_t next_kill = 0;
  for (int guard = 0; guard < 200000; ++guard) {
    while (next_kill < kills.size() && kills[next_kill].first <= s.steps) {
      const int p = kills[next_kill++].second;
      if (s.alive[p]) s.kill(p);
    }
    if (!s.step(rng)) break;
  }
  if (steps_out) *steps_out = s.steps;
  const bool any_refuser = std::find(refusers.begin(), refusers.end(), true) != refusers.end();
  return s.check(any_refuser);
}

TEST(BridgeSim, NoRefuserNoDeathSucceeds) {
  for (int n = 1; n <= 12; ++n)
    for (std::uint64_t seed = 0; seed < 50; ++seed) {
      Sim s(n, std::vector<bool>(static_cast<std::size_t>(n), false));
      std::mt19937_64 rng(seed);
      while (s.step(rng)) {
      }
      ASSERT_EQ(s.check(false), std::nullopt) << "n=" << n << " seed=" << seed;
      for (int p = 0; p < n; ++p) ASSERT_TRUE(s.procs[p].value()[0] & 1u);
    }
}

TEST(BridgeSim, RefusersMakeEveryKnowerFail) {
  for (int n = 2; n <= 9; ++n)
    for (int mask = 1; mask < (1 << n) - 1; ++mask)
      for (std::uint64_t seed = 0; seed < 8; ++seed) {
        std::vector<bool> r(static_cast<std::size_t>(n));
        for (int p = 0; p < n; ++p) r[static_cast<std::size_t>(p)] = (mask >> p) & 1;
        ASSERT_EQ(run(n, r, seed, {}), std::nullopt) << "n=" << n << " refusers=" << mask << " seed=" << seed;
      }
}

// One death at every step of the schedule, of every process, with and without refusers.
TEST(BridgeSim, OneDeathAtEveryStep) {
  for (int n = 2; n <= 6; ++n)
    for (int mask = 0; mask < (1 << n) - 1; mask += (n <= 4 ? 1 : 3))
      for (std::uint64_t seed = 0; seed < 3; ++seed) {
        std::vector<bool> r(static_cast<std::size_t>(n));
        for (int p = 0; p < n; ++p) r[static_cast<std::size_t>(p)] = (mask >> p) & 1;
        int total = 0;
        ASSERT_EQ(run(n, r, seed, {}, &total), std::nullopt);
        for (int at = 0; at <= total; ++at)
          for (int victim = 0; victim < n; ++victim)
            ASSERT_EQ(run(n, r, seed, {{at, victim}}), std::nullopt)
                << "n=" << n << " refusers=" << mask << " seed=" << seed << " kill " << victim << " at step " << at;
      }
}

TEST(BridgeSim, RandomSchedulesWithSeveralDeaths) {
  std::mt19937_64 pick(4242);
  for (int iter = 0; iter < 20000; ++iter) {
    const int n = 2 + static_cast<int>(pick() % 15);
    std::vector<bool> r(static_cast<std::size_t>(n));
    const int refuse_pct = static_cast<int>(pick() % 3) * 20;  // 0, 20 or 40 %
    for (int p = 0; p < n; ++p) r[static_cast<std::size_t>(p)] = static_cast<int>(pick() % 100) < refuse_pct;
    std::vector<std::pair<int, int>> kills;
    const int k = static_cast<int>(pick() % static_cast<std::uint64_t>(n));  // up to n-1 deaths
    for (int i = 0; i < k; ++i) kills.emplace_back(static_cast<int>(pick() % 200), static_cast<int>(pick() % static_cast<std::uint64_t>(n)));
    const std::uint64_t seed = pick();
    ASSERT_EQ(run(n, r, seed, kills), std::nullopt) << "iteration " << iter << " n=" << n;
  }
}

}  // namespace
