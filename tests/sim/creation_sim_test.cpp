// Deterministic simulation of communicator creation in FT mode with a revoke racing it (src/ft/creation_keys.h
// driving src/ft/agreement.h): n processes run a program of creations on one parent, each creation a few
// agreement rounds (a round ends the creation when the AND of the members' 4-bit masks has a bit — the
// context-id allocation in miniature — and forces one by round 2). One process revokes the parent at a
// chosen step and stops calling creations (it skipped the collective: the case the revoke exists for); the
// revoke reaches every other process at a later step; processes die at random steps in the random runs.
//
// PASS, for every schedule: uniformity (for every creation, every survivor that returned from it returned
// the same outcome: the same slot, or the same error — Errc::revoked or Errc::proc_failed), termination
// (every survivor finishes its program; bounded steps). The revoke is injected at every step of fixed
// schedules (every revoker, four delivery orders), and at random steps of 20,000 random schedules.
//
// Channel mode (`channel`: MPI_Comm_create_group's agreement channel, src/ft/ft_manager.h revoke_channel): a
// process holds the owner's state only once it has called a creation on it, been told about it, or received
// a frame of it after seeing the revoke; a process that does not hold it cannot veto. A process that sees the
// revoke while it waits in a round sends every other process a notice (kChannelRevoke); a process that does
// not hold the channel makes it when it has both seen the revoke and received a notice or a frame, and vetoes
// then. The same sweeps run in this mode (the revoker may skip every creation: it then holds nothing), and a
// mutation without the notices hangs. A revoker that also frees the parent right after its revoke
// (`ft_group_revoke skip_free`) runs the same schedules here: its freed parent's channel still vetoes when a notice
// or a frame comes (FtManager::make_channel), exactly as a held one. What freeing adds is which communicator its
// later frames are given to when the parent's context id comes back: tests/sim/slot_route_sim_test.cpp.
//
// Deferred vetoes (`defer`: src/ft/ft_manager.h defer_veto, the library's rule for intracommunicators): a
// process that sees the revoke outside a round does not start its veto then; it starts it at the first of a
// timer (an event that may come at any later step), a frame of that very instance, or its next creation
// round. The same sweeps pass in this mode, and a mutation without the timer hangs.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ft/agreement.h"
#include "ft/creation_keys.h"

namespace {

using ftmpi::ft::AgreeMsg;
using ftmpi::ft::Agreement;
using ftmpi::ft::Bits;
using ftmpi::ft::CreationKeys;
using ftmpi::ft::RankSet;

constexpr std::uint64_t kOk = 1, kNotRevoked = 2;
// An outcome: >= 0 the slot, else one of these.
constexpr int kRevoked = -1, kProcFailed = -2;

struct Net {
  int src, dst;
  std::uint32_t key;
  AgreeMsg msg;
};

struct Proc {
  CreationKeys keys;
  std::map<std::uint32_t, Agreement> inst;
  int next_creation = 0;                  // program counter (creations called so far)
  bool in_call = false;                   // inside a creation call
  std::optional<std::uint32_t> waiting;   // the key of the round it waits on
  int round = 0;
  std::vector<int> outcomes;              // per creation called
  bool revoke_seen = false;
  bool stopped = false;                   // the revoker: calls nothing after its revoke
  bool holds = false;                     // channel mode: holds the owner's state
  bool noticed_channel = false;           // channel mode: a notice came before the revoke was seen
  std::optional<std::uint32_t> deferred;  // defer mode: the veto owed, not started yet
};

constexpr std::uint32_t kNoticeKey = 0xffffffffu;  // a channel revoke notice, not an agreement message

struct World {
  int n, program;
  bool channel = false;       // channel mode (above)
  bool send_notices = true;   // (off: the mutation)
  bool defer = false;         // deferred vetoes (above)
  bool veto_timer = true;     // (off: the mutation of defer mode)
  std::vector<Proc> p;
  std::vector<bool> alive;
  std::vector<std::vector<int>> notices;  // failure notices not yet delivered
  std::vector<RankSet> noticed;
  std::vector<bool> revoke_pending;       // the revoke not yet delivered here
  std::vector<Net> net;
  std::mt19937_64 rng;

  World(int n_, int program_, std::uint64_t seed)
      : n(n_), program(program_), p(n_), alive(n_, true), notices(n_), noticed(n_), revoke_pending(n_, false), rng(seed) {}

  Agreement& inst(int q, std::uint32_t key) {
    auto it = p[q].inst.find(key);
    if (it == p[q].inst.end()) {
      it = p[q].inst.emplace(key, Agreement(q, n, n <= 4)).first;
      for (int f : noticed[q].ranks()) it->second.on_failure(f);
    }
    return it->second;
  }
  void collect(int q, std::uint32_t key) {
    for (auto& o : inst(q, key).take_outgoing()) net.push_back(Net{q, o.dest, key, std::move(o.msg)});
  }
  void start(int q, std::uint32_t key, const Bits& contribution) {
    inst(q, key).start(contribution, noticed[q]);
    collect(q, key);
  }
  void veto(int q, std::optional<std::uint32_t> key) {
    if (key) start(q, *key, Bits{0, 0});
  }
  // Defer mode: start the veto q owes (FtManager::start_deferred_veto).
  void start_deferred(int q) {
    if (!p[q].deferred) return;
    const std::uint32_t k = *p[q].deferred;
    p[q].deferred.reset();
    veto(q, k);
  }
  // Begin the next round of q's creation (or end the creation at once with Errc::revoked).
  void begin_round(int q) {
    start_deferred(q);  // (FtManager::start_creation_round)
    auto key = p[q].keys.begin_round();
    if (!key) {
      p[q].outcomes.push_back(kRevoked);
      p[q].in_call = false;
      return;
    }
    const std::uint64_t mask = p[q].round >= 2 ? 0xf : (rng() & 0xf);
    p[q].waiting = *key;
    start(q, *key, Bits{mask, kOk | kNotRevoked});
  }
  // Channel mode: q makes the channel; vetoes at once when it has seen the revoke (make_channel).
  void hold(int q) {
    if (p[q].holds) return;
    p[q].holds = true;
    if (p[q].revoke_seen) veto(q, p[q].keys.on_revoke());
  }
  void call(int q) {
    if (channel) hold(q);
    p[q].in_call = true;
    p[q].round = 0;
    ++p[q].next_creation;
    begin_round(q);
  }
  // q's round decided: read it as comm::agree_context does.
  void finish_round(int q) {
    const Agreement& a = inst(q, *p[q].waiting);
    p[q].waiting.reset();
    const Bits& v = a.value();
    int outcome;
    bool last = true;
    if ((v[1] & kNotRevoked) == 0) outcome = kRevoked;
    else if ((v[1] & kOk) == 0 || !a.failed().empty()) outcome = kProcFailed;
    else if (v[0] != 0) outcome = __builtin_ctzll(v[0]);
    else {
      last = false;
      outcome = 0;
    }
    veto(q, p[q].keys.end_round(outcome == kRevoked));
    if (last) {
      p[q].outcomes.push_back(outcome);
      p[q].in_call = false;
    } else {
      ++p[q].round;
      begin_round(q);
    }
  }
  void see_revoke(int q) {
    revoke_pending[q] = false;
    p[q].revoke_seen = true;
    if (channel && !p[q].holds) {
      if (p[q].noticed_channel) hold(q);
      return;
    }
    const bool waiting = p[q].keys.in_round();
    if (defer && !channel)
      p[q].deferred = p[q].keys.on_revoke();  // (FtManager::defer_veto)
    else
      veto(q, p[q].keys.on_revoke());
    if (channel && waiting && send_notices)
      for (int r = 0; r < n; ++r)
        if (r != q) net.push_back(Net{q, r, kNoticeKey, AgreeMsg{}});
  }
  void revoke(int q) {  // q revokes the parent and skips the rest of its program
    p[q].stopped = true;
    see_revoke(q);
    for (int r = 0; r < n; ++r)
      if (r != q && !p[r].revoke_seen) revoke_pending[r] = true;
  }
  void kill(int q) {
    alive[q] = false;
    for (int r = 0; r < n; ++r)
      if (r != q && alive[r]) notices[r].push_back(q);
  }
  void notice(int q) {
    const int f = notices[q].front();
    notices[q].erase(notices[q].begin());
    noticed[q].insert(f);
    std::vector<std::uint32_t> keys;
    for (auto& [k, a] : p[q].inst) keys.push_back(k);
    for (std::uint32_t k : keys) {
      inst(q, k).on_failure(f);
      collect(q, k);
    }
  }
  void deliver(std::size_t i) {
    Net m = std::move(net[i]);
    net[i] = std::move(net.back());
    net.pop_back();
    if (!alive[m.dst]) return;
    if (m.key == kNoticeKey) {
      if (!p[m.dst].holds) {
        if (p[m.dst].revoke_seen) hold(m.dst);
        else p[m.dst].noticed_channel = true;
      }
      return;
    }
    if (channel && !p[m.dst].holds && p[m.dst].revoke_seen) hold(m.dst);  // (handle_channel_frame)
    if (p[m.dst].deferred && *p[m.dst].deferred == m.key) start_deferred(m.dst);  // (handle_agree)
    inst(m.dst, m.key).on_message(m.src, m.msg);
    collect(m.dst, m.key);
  }

  // The events possible now, as (kind, process or message index).
  enum Kind { kCall, kFinish, kNotice, kRevokeSeen, kDeliver, kVetoDue };
  std::vector<std::pair<Kind, std::size_t>> events() {
    std::vector<std::pair<Kind, std::size_t>> e;
    for (int q = 0; q < n; ++q) {
      if (!alive[q]) continue;
      if (!p[q].in_call && !p[q].stopped && p[q].next_creation < program) e.push_back({kCall, static_cast<std::size_t>(q)});
      if (p[q].waiting && inst(q, *p[q].waiting).decided()) e.push_back({kFinish, static_cast<std::size_t>(q)});
      if (!notices[q].empty()) e.push_back({kNotice, static_cast<std::size_t>(q)});
      if (revoke_pending[q]) e.push_back({kRevokeSeen, static_cast<std::size_t>(q)});
      if (veto_timer && p[q].deferred) e.push_back({kVetoDue, static_cast<std::size_t>(q)});
    }
    for (std::size_t i = 0; i < net.size(); ++i) e.push_back({kDeliver, i});
    return e;
  }
  void run(std::pair<Kind, std::size_t> ev) {
    const int q = static_cast<int>(ev.second);
    switch (ev.first) {
      case kCall: call(q); break;
      case kFinish: finish_round(q); break;
      case kNotice: notice(q); break;
      case kRevokeSeen: see_revoke(q); break;
      case kDeliver: deliver(ev.second); break;
      case kVetoDue: start_deferred(q); break;
    }
  }

  std::optional<std::string> check() const {
    for (int q = 0; q < n; ++q)
      if (alive[q] && !p[q].stopped && (p[q].in_call || p[q].next_creation < program))
        return "survivor " + std::to_string(q) + " did not finish its program";
    for (int s = 0; s < program; ++s) {
      std::optional<int> ref;
      int ref_q = -1;
      for (int q = 0; q < n; ++q) {
        if (!alive[q] || s >= static_cast<int>(p[q].outcomes.size())) continue;
        const int o = p[q].outcomes[static_cast<std::size_t>(s)];
        if (!ref) {
          ref = o;
          ref_q = q;
        } else if (*ref != o) {
          return "creation " + std::to_string(s) + ": outcome " + std::to_string(*ref) + " at " + std::to_string(ref_q) +
                 ", " + std::to_string(o) + " at " + std::to_string(q);
        }
      }
    }
    return std::nullopt;
  }
};

// Event choice: 0-3 deterministic orders (calls and round ends first; messages FIFO or LIFO), 4 random.
std::optional<std::string> run(int n, int program, int revoker, int revoke_at, int order, std::uint64_t seed,
                               int max_kills, bool channel = false, bool send_notices = true, bool defer = false,
                               bool veto_timer = true) {
  World w(n, program, seed);
  w.channel = channel;
  w.send_notices = send_notices;
  w.defer = defer;
  w.veto_timer = veto_timer;
  int kills = 0;
  for (int step = 0;; ++step) {
    if (step > 200000) return std::string("no termination");
    if (step == revoke_at && revoker >= 0 && w.alive[static_cast<std::size_t>(revoker)] && !w.p[static_cast<std::size_t>(revoker)].revoke_seen)
      w.revoke(revoker);
    if (max_kills > kills && w.rng() % 100 < 2) {
      std::vector<int> live;
      for (int q = 0; q < n; ++q)
        if (w.alive[q]) live.push_back(q);
      if (live.size() > 1) {
        w.kill(live[w.rng() % live.size()]);
        ++kills;
      }
    }
    auto e = w.events();
    if (e.empty()) break;
    std::pair<World::Kind, std::size_t> ev;
    if (order == 4) {
      ev = e[w.rng() % e.size()];
    } else {
      // Local events first (in process order, or reverse), then the oldest or newest message.
      std::vector<std::pair<World::Kind, std::size_t>> local, msgs;
      for (auto& x : e) (x.first == World::kDeliver ? msgs : local).push_back(x);
      if (!local.empty()) ev = (order & 1) ? local.back() : local.front();
      else ev = (order & 2) ? msgs.back() : msgs.front();
    }
    w.run(ev);
  }
  return w.check();
}

TEST(CreationSim, RevokeAtEveryStepFixedOrders) {
  int runs = 0;
  for (int n : {2, 3, 4, 5, 8}) {
    for (int order = 0; order < 4; ++order) {
      // Steps of the run without a revoke bound the sweep.
      for (int revoker = 0; revoker < n; ++revoker) {
        for (int at = 0; at < 400; ++at) {
          auto r = run(n, 3, revoker, at, order, static_cast<std::uint64_t>(at), 0);
          ASSERT_FALSE(r.has_value()) << *r << " (n=" << n << " order=" << order << " revoker=" << revoker << " at=" << at << ")";
          ++runs;
        }
      }
    }
  }
  std::printf("creation sim: %d fixed schedules with the revoke at every step\n", runs);
}

TEST(CreationSim, NoRevokeEveryCreationSucceedsUniformly) {
  for (int n : {2, 3, 7}) {
    World w(n, 5, 1);
    for (int step = 0; step < 100000; ++step) {
      auto e = w.events();
      if (e.empty()) break;
      w.run(e[w.rng() % e.size()]);
    }
    ASSERT_FALSE(w.check().has_value()) << *w.check();
    for (int q = 0; q < n; ++q) {
      ASSERT_EQ(w.p[q].outcomes.size(), 5u);
      for (int o : w.p[q].outcomes) EXPECT_GE(o, 0);
    }
  }
}

TEST(CreationSim, RandomSchedulesWithRevokeAndDeaths) {
  for (std::uint64_t seed = 0; seed < 20000; ++seed) {
    const int n = 2 + static_cast<int>(seed % 7);
    std::mt19937_64 r(seed * 7919);
    const int revoker = static_cast<int>(r() % static_cast<std::uint64_t>(n + 1)) - 1;  // -1: no revoke
    const int at = static_cast<int>(r() % 300);
    auto res = run(n, 4, revoker, at, 4, seed, static_cast<int>(seed % 3));
    ASSERT_FALSE(res.has_value()) << *res << " (seed " << seed << ", n=" << n << ", revoker " << revoker << " at " << at << ")";
  }
}

// Defer mode (the library's rule for a revoked intracommunicator): the same sweeps.
TEST(CreationSim, DeferredVetoRevokeAtEveryStepFixedOrders) {
  int runs = 0;
  for (int n : {2, 3, 4, 5, 8}) {
    for (int order = 0; order < 4; ++order) {
      for (int revoker = 0; revoker < n; ++revoker) {
        for (int at = 0; at < 400; ++at) {
          auto r = run(n, 3, revoker, at, order, static_cast<std::uint64_t>(at), 0, false, true, true);
          ASSERT_FALSE(r.has_value()) << *r << " (defer, n=" << n << " order=" << order << " revoker=" << revoker << " at=" << at << ")";
          ++runs;
        }
      }
    }
  }
  std::printf("creation sim, deferred vetoes: %d fixed schedules with the revoke at every step\n", runs);
}

TEST(CreationSim, DeferredVetoRandomSchedulesWithRevokeAndDeaths) {
  for (std::uint64_t seed = 0; seed < 20000; ++seed) {
    const int n = 2 + static_cast<int>(seed % 7);
    std::mt19937_64 r(seed * 7919 + 2);
    const int revoker = static_cast<int>(r() % static_cast<std::uint64_t>(n + 1)) - 1;
    const int at = static_cast<int>(r() % 300);
    auto res = run(n, 4, revoker, at, 4, seed, static_cast<int>(seed % 3), false, true, true);
    ASSERT_FALSE(res.has_value()) << *res << " (defer, seed " << seed << ", n=" << n << ", revoker " << revoker << " at " << at << ")";
  }
}

// The timer is needed: with only the frame and creation triggers, a member that is in no round and gets no
// frame of the vetoed instance never starts it (nobody sends it one: agreement frames go up a tree), and the
// sweep finds a survivor that does not finish.
TEST(CreationSim, DeferredVetoSweepHangsWithoutTheTimer) {
  bool found = false;
  for (int n : {2, 3, 4}) {
    for (int revoker = 0; revoker < n && !found; ++revoker)
      for (int at = 0; at < 50 && !found; ++at)
        for (int order = 0; order < 4 && !found; ++order)
          if (run(n, 3, revoker, at, order, static_cast<std::uint64_t>(at), 0, false, true, true, false).has_value())
            found = true;
  }
  EXPECT_TRUE(found);
}

// Channel mode (create_group's channels): the revoke at every step of the same fixed schedules, every
// revoker (who may hold no channel yet), and random schedules with deaths.
TEST(CreationSim, ChannelRevokeAtEveryStepFixedOrders) {
  int runs = 0;
  for (int n : {2, 3, 4, 5, 8}) {
    for (int order = 0; order < 4; ++order) {
      for (int revoker = 0; revoker < n; ++revoker) {
        for (int at = 0; at < 400; ++at) {
          auto r = run(n, 3, revoker, at, order, static_cast<std::uint64_t>(at), 0, true);
          ASSERT_FALSE(r.has_value()) << *r << " (channel, n=" << n << " order=" << order << " revoker=" << revoker << " at=" << at << ")";
          ++runs;
        }
      }
    }
  }
  std::printf("creation sim, channel mode: %d fixed schedules with the revoke at every step\n", runs);
}

TEST(CreationSim, ChannelRandomSchedulesWithRevokeAndDeaths) {
  for (std::uint64_t seed = 0; seed < 20000; ++seed) {
    const int n = 2 + static_cast<int>(seed % 7);
    std::mt19937_64 r(seed * 7919 + 1);
    const int revoker = static_cast<int>(r() % static_cast<std::uint64_t>(n + 1)) - 1;
    const int at = static_cast<int>(r() % 300);
    auto res = run(n, 4, revoker, at, 4, seed, static_cast<int>(seed % 3), true);
    ASSERT_FALSE(res.has_value()) << *res << " (channel, seed " << seed << ", n=" << n << ", revoker " << revoker << " at " << at << ")";
  }
}

// The notices are needed: without them a revoker that skipped before holding the channel never vetoes, and
// the sweep finds a survivor that does not finish.
TEST(CreationSim, ChannelSweepHangsWithoutNotices) {
  bool found = false;
  for (int n : {2, 3, 4}) {
    for (int revoker = 0; revoker < n && !found; ++revoker)
      for (int at = 0; at < 50 && !found; ++at)
        for (int order = 0; order < 4 && !found; ++order)
          if (run(n, 3, revoker, at, order, static_cast<std::uint64_t>(at), 0, true, false).has_value()) found = true;
  }
  EXPECT_TRUE(found);
}

// The rule is needed: without the vetoes (a revoked member bails out of its round, as before), the same
// sweep finds a non-uniform or hung schedule. Guards the simulator against testing nothing.
TEST(CreationSim, SweepFindsTheRaceWithoutTheRule) {
  bool found = false;
  for (int n : {2, 3}) {
    for (int at = 0; at < 200 && !found; ++at) {
      for (int revoker = 0; revoker < n && !found; ++revoker) {
        World w(n, 3, static_cast<std::uint64_t>(at));
        for (int step = 0; step < 20000; ++step) {
          if (step == at && !w.p[static_cast<std::size_t>(revoker)].revoke_seen) {
            w.p[static_cast<std::size_t>(revoker)].stopped = true;
            w.p[static_cast<std::size_t>(revoker)].revoke_seen = true;
            for (int q = 0; q < n; ++q)
              if (q != revoker) w.revoke_pending[static_cast<std::size_t>(q)] = true;
          }
          auto e = w.events();
          if (e.empty()) break;
          auto ev = e.front();
          if (ev.first == World::kRevokeSeen) {  // the old rule: bail out of the round with Errc::revoked
            Proc& pr = w.p[ev.second];
            w.revoke_pending[ev.second] = false;
            pr.revoke_seen = true;
            if (pr.waiting && !w.inst(static_cast<int>(ev.second), *pr.waiting).decided()) {
              pr.waiting.reset();
              pr.outcomes.push_back(kRevoked);
              pr.in_call = false;
              pr.stopped = true;
            }
            continue;
          }
          w.run(ev);
        }
        if (w.check().has_value()) found = true;
      }
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
