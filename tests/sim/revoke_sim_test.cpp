// Deterministic simulation of revoke propagation (src/ft/revoke.h, RevokeBroadcast) with failures injected
// at every step. PASS: whenever some process that stays alive has marked the communicator revoked, every
// process that stays alive has (reliable broadcast), for every (revoker(s), victims, death step, notice
// timing, fate of the dead's messages, radix) tried; and the fault-free cost is size-1 messages in
// log_radix(size) hops, with nobody sending more than (radix-1)·log_radix(size).
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <string>

#include "ft/revoke.h"

namespace {
using ftmpi::ft::RevokeBroadcast;
using ftmpi::ft::RevokeOut;

struct Msg {
  int src, dst, origin;  // origin: RevokeOut's, or kRetireNotice
  int radix = 0;         // RevokeOut's: the tree of TREE(origin, radix)
};
constexpr int kRetireNotice = -100;  // p2p/stale_filter.h's notice: after everything its sender sent

enum class Notices { at_once, late, random };

struct Scenario {
  int n = 4;
  int radix = 2;
  std::vector<int> radices;        // per process (its own revoke's tree), empty: all `radix`
  std::vector<int> revokers;       // processes calling revoke, at event revoke_at[i]
  std::vector<int> revoke_at;
  std::vector<int> kill_at;        // event after which p dies (-1: never)
  std::vector<bool> dead_at_start; // dead and known to everybody before anything starts
  std::vector<int> retire_at;      // event after which p frees the communicator (empty / -1: never)
  Notices notices = Notices::at_once;
  bool drop_dead_messages = false; // in-flight messages of a dead process are lost
  std::mt19937_64* rng = nullptr;
  // results
  std::uint64_t msgs = 0;
  std::uint64_t max_sent = 0;
};

// Runs one broadcast. Sending is a step of its own (a process's messages wait in its outbox), so a process
// can die half-way through its sends; a dead process's outbox is lost, messages to it are dropped.
// Returns false on a violation of reliability.
bool run(Scenario& r) {
  const int n = r.n;
  std::vector<RevokeBroadcast> procs;
  for (int p = 0; p < n; ++p) procs.emplace_back(p, n, r.radices.empty() ? r.radix : r.radices[static_cast<std::size_t>(p)]);
  std::vector<bool> alive(n, true), retired(n, false);
  std::vector<std::deque<Msg>> outbox(n);
  std::vector<std::uint64_t> sent(n, 0);
  std::deque<Msg> net;
  std::vector<std::deque<int>> pending_notices(n);  // failures not yet told to p
  auto take = [&](int p) {
    for (const RevokeOut& o : procs[p].take_outgoing()) {
      EXPECT_NE(o.dest, p);
      outbox[p].push_back(Msg{p, o.dest, o.origin, o.radix});
    }
  };
  auto notify = [&](int p, int dead) {
    if (retired[p]) return;
    procs[p].on_failure(dead);
    take(p);
  };
  if (!r.dead_at_start.empty())
    for (int d = 0; d < n; ++d)
      if (r.dead_at_start[d]) {
        alive[d] = false;
        for (int p = 0; p < n; ++p)
          if (p != d) procs[p].on_failure(d);
      }
  int event = 0;
  auto deaths = [&] {
    for (int p = 0; p < n; ++p)
      if (r.kill_at[p] == event && alive[p]) {
        alive[p] = false;
        outbox[p].clear();
        if (r.drop_dead_messages)
          net.erase(std::remove_if(net.begin(), net.end(), [p](const Msg& m) { return m.src == p; }), net.end());
        for (int q = 0; q < n; ++q)
          if (q != p && alive[q]) {
            if (r.notices == Notices::at_once)
              notify(q, p);
            else
              pending_notices[q].push_back(p);
          }
      }
  };
  auto revokes = [&] {
    for (int p = 0; p < n; ++p)
      if (!r.retire_at.empty() && r.retire_at[p] == event && alive[p] && !retired[p]) {
        procs[p].retire();  // its last frames still go out, then its notices; afterwards it takes nothing in
        take(p);
        for (int q = 0; q < n; ++q)
          if (q != p) outbox[p].push_back(Msg{p, q, kRetireNotice});
        retired[p] = true;
      }
    for (std::size_t i = 0; i < r.revokers.size(); ++i)
      if (r.revoke_at[i] == event && alive[r.revokers[i]] && !retired[r.revokers[i]]) {
        procs[r.revokers[i]].start();
        take(r.revokers[i]);
      }
  };
  deaths();
  revokes();
  for (;;) {
    ++event;
    deaths();
    revokes();
    bool future = std::any_of(r.revoke_at.begin(), r.revoke_at.end(), [&](int e) { return e > event; }) ||
                  std::any_of(r.retire_at.begin(), r.retire_at.end(), [&](int e) { return e > event; }) ||
                  std::any_of(r.kill_at.begin(), r.kill_at.end(), [&](int e) { return e > event; });
    std::vector<int> senders, told;
    for (int p = 0; p < n; ++p) {
      if (alive[p] && !outbox[p].empty()) senders.push_back(p);  // a retired process still sends its last frames
      if (alive[p] && !pending_notices[p].empty()) told.push_back(p);
    }
    if (senders.empty() && net.empty()) {
      if (!told.empty()) {  // notices arrive eventually: all at once when nothing else can happen
        for (int p : told)
          while (!pending_notices[p].empty()) {
            int d = pending_notices[p].front();
            pending_notices[p].pop_front();
            notify(p, d);
          }
        continue;
      }
      if (future) continue;
      break;
    }
    if (r.notices == Notices::random && !told.empty() && (*r.rng)() % 4 == 0) {
      int p = told[(*r.rng)() % told.size()];
      int d = pending_notices[p].front();
      pending_notices[p].pop_front();
      notify(p, d);
      continue;
    }
    bool do_send = !senders.empty() && (net.empty() || (r.rng ? (*r.rng)() % 2 == 0 : true));
    if (do_send) {
      int p = senders[r.rng ? (*r.rng)() % senders.size() : 0];
      net.push_back(outbox[p].front());
      if (outbox[p].front().origin != kRetireNotice) {
        ++r.msgs;
        r.max_sent = std::max(r.max_sent, ++sent[p]);
      }
      outbox[p].pop_front();
      continue;
    }
    std::size_t i = r.rng ? (*r.rng)() % net.size() : 0;
    // Channels are FIFO (one transport per peer): deliver the oldest message of the chosen one's channel.
    for (std::size_t j = 0; j < i; ++j)
      if (net[j].src == net[i].src && net[j].dst == net[i].dst) {
        i = j;
        break;
      }
    Msg m = net[i];
    net.erase(net.begin() + static_cast<long>(i));
    if (alive[m.dst] && !retired[m.dst]) {
      if (m.origin == kRetireNotice)
        procs[m.dst].on_retired(m.src);
      else
        procs[m.dst].on_message(m.src, m.origin, m.radix);
      take(m.dst);
    }
  }
  bool some_survivor_revoked = false;
  for (int p = 0; p < n; ++p) some_survivor_revoked |= alive[p] && procs[p].revoked();
  for (int p = 0; p < n; ++p)
    if (some_survivor_revoked && alive[p] && !retired[p] && !procs[p].revoked()) return false;
  return true;
}

int hops(int n, int radix);

std::string describe(const Scenario& r) {
  std::string d = "n=" + std::to_string(r.n) + " radix=" + std::to_string(r.radix) + " drop=" + std::to_string(r.drop_dead_messages);
  for (std::size_t i = 0; i < r.revokers.size(); ++i)
    d += " revoke(" + std::to_string(r.revokers[i]) + "@" + std::to_string(r.revoke_at[i]) + ")";
  for (int p = 0; p < r.n; ++p) {
    if (r.kill_at[static_cast<std::size_t>(p)] >= 0) d += " kill(" + std::to_string(p) + "@" + std::to_string(r.kill_at[static_cast<std::size_t>(p)]) + ")";
    if (!r.retire_at.empty() && r.retire_at[static_cast<std::size_t>(p)] >= 0)
      d += " retire(" + std::to_string(p) + "@" + std::to_string(r.retire_at[static_cast<std::size_t>(p)]) + ")";
  }
  return d;
}

TEST(RevokeSim, TreeShape) {
  // Every relative rank but 0 has exactly one parent, for several radices and sizes.
  for (int radix : {2, 3, 4, 8, 1000})
    for (int n = 1; n <= 70; ++n) {
      std::vector<int> parents(static_cast<std::size_t>(n), 0), kids;
      for (int rel = 0; rel < n; ++rel) {
        RevokeBroadcast::tree_children(rel, n, radix, &kids);
        for (int k : kids) {
          ASSERT_GT(k, rel);
          ASSERT_LT(k, n);
          ++parents[static_cast<std::size_t>(k)];
        }
      }
      for (int rel = 1; rel < n; ++rel) ASSERT_EQ(parents[static_cast<std::size_t>(rel)], 1) << n << " " << radix << " " << rel;
    }
}

TEST(RevokeSim, ReliableUnderEverySingleAndDoubleFailure) {
  int cases = 0;
  for (int radix : {2, 3, 16})
    for (int n = 2; n <= 7; ++n)
      for (int init = 0; init < n; ++init)
        for (int v1 = 0; v1 < n; ++v1)
          for (int v2 = v1; v2 < n; ++v2)
            for (int at = 0; at < 3 * n; ++at)
              for (Notices nt : {Notices::at_once, Notices::late})
                for (int variant = 0; variant < 3; ++variant) {
                  const bool drop = variant == 1;
                  Scenario r;
                  if (variant == 2) {  // everybody but one frees the communicator soon after the death
                    r.retire_at.assign(n, at + 2);
                    r.retire_at[(v1 + 1) % n] = -1;
                  }
                  r.n = n;
                  r.radix = radix;
                  r.revokers = {init};
                  r.revoke_at = {0};
                  r.kill_at.assign(n, -1);
                  r.kill_at[v1] = at;
                  if (v2 != v1) r.kill_at[v2] = at + 1;
                  r.notices = nt;
                  r.drop_dead_messages = drop;
                  ASSERT_TRUE(run(r)) << "n=" << n << " radix=" << radix << " init=" << init << " v1=" << v1
                                      << " v2=" << v2 << " at=" << at << " late=" << (nt == Notices::late) << " drop=" << drop;
                  ++cases;
                }
  std::printf("fixed-order cases checked: %d\n", cases);
}

TEST(RevokeSim, ReliableWithFailuresKnownBeforeAndDuring) {
  // A victim dead and known before the revoke (the tree routes around it), another one dying during it.
  int cases = 0;
  for (int radix : {2, 4})
    for (int n = 3; n <= 9; ++n)
      for (int init = 0; init < n; ++init)
        for (int d0 = 0; d0 < n; ++d0) {
          if (d0 == init) continue;
          for (int v = 0; v < n; ++v)
            for (int at = 0; at < 2 * n; ++at)
              for (Notices nt : {Notices::at_once, Notices::late}) {
                Scenario r;
                r.n = n;
                r.radix = radix;
                r.revokers = {init};
                r.revoke_at = {0};
                r.kill_at.assign(n, -1);
                r.dead_at_start.assign(n, false);
                r.dead_at_start[d0] = true;
                if (v != d0) r.kill_at[v] = at;
                r.notices = nt;
                ASSERT_TRUE(run(r)) << "n=" << n << " init=" << init << " d0=" << d0 << " v=" << v << " at=" << at;
                ++cases;
              }
        }
  std::printf("cases with an earlier failure checked: %d\n", cases);
}

TEST(RevokeSim, ReliableUnderRandomSchedules) {
  std::mt19937_64 rng(42);
  for (int iter = 0; iter < 20000; ++iter) {
    Scenario r;
    r.n = 2 + static_cast<int>(rng() % 19);
    const int n = r.n;
    r.radix = 2 + static_cast<int>(rng() % 5);
    if (rng() % 4 == 0) r.radix = n;  // star
    r.rng = &rng;
    r.notices = Notices::random;
    r.drop_dead_messages = rng() % 2 == 0;
    const int revokers = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < revokers; ++k) {
      r.revokers.push_back(static_cast<int>(rng() % static_cast<std::uint64_t>(n)));
      r.revoke_at.push_back(static_cast<int>(rng() % static_cast<std::uint64_t>(2 * n)));
    }
    r.kill_at.assign(n, -1);
    const int f = static_cast<int>(rng() % static_cast<std::uint64_t>(n));
    for (int k = 0; k < f; ++k) r.kill_at[rng() % n] = static_cast<int>(rng() % static_cast<std::uint64_t>(4 * n));
    if (rng() % 2 == 0) {  // some processes free the communicator (revoked or not) along the way
      r.retire_at.assign(n, -1);
      const int q = static_cast<int>(rng() % static_cast<std::uint64_t>(n));
      for (int k = 0; k < q; ++k) r.retire_at[rng() % n] = static_cast<int>(rng() % static_cast<std::uint64_t>(4 * n));
    }
    ASSERT_TRUE(run(r)) << "iteration " << iter << " " << describe(r);
  }
}

TEST(RevokeSim, ReliableWithMixedRadices) {
  // Each process has its own radix (FTMPI_REVOKE_RADIX is per process: two jobs joined by
  // MPI_Comm_connect/accept may differ; a star or a k-nomial tree); the tree a message travels is its
  // origin's, carried by the message, so radices that differ never split a tree (forwarding down one's own
  // radix's tree of o did: a member of o's tree whose parent in the forwarder's tree is another member is
  // missed). Random schedules, failures, frees.
  std::mt19937_64 rng(1313);
  for (int iter = 0; iter < 20000; ++iter) {
    Scenario r;
    r.n = 2 + static_cast<int>(rng() % 19);
    const int n = r.n;
    for (int p = 0; p < n; ++p) r.radices.push_back(rng() % 2 == 0 ? n : 2 + static_cast<int>(rng() % 4));
    r.rng = &rng;
    r.notices = rng() % 2 == 0 ? Notices::random : Notices::at_once;
    r.drop_dead_messages = rng() % 2 == 0;
    const int revokers = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < revokers; ++k) {
      r.revokers.push_back(static_cast<int>(rng() % static_cast<std::uint64_t>(n)));
      r.revoke_at.push_back(static_cast<int>(rng() % static_cast<std::uint64_t>(2 * n)));
    }
    r.kill_at.assign(n, -1);
    const int f = static_cast<int>(rng() % static_cast<std::uint64_t>(n));
    for (int k = 0; k < f; ++k) r.kill_at[rng() % n] = static_cast<int>(rng() % static_cast<std::uint64_t>(4 * n));
    if (rng() % 2 == 0) {
      r.retire_at.assign(n, -1);
      const int q = static_cast<int>(rng() % static_cast<std::uint64_t>(n));
      for (int k = 0; k < q; ++k) r.retire_at[rng() % n] = static_cast<int>(rng() % static_cast<std::uint64_t>(4 * n));
    }
    ASSERT_TRUE(run(r)) << "iteration " << iter << " " << describe(r);
    if (f == 0 && r.retire_at.empty() && revokers == 1) {
      EXPECT_EQ(r.msgs, static_cast<std::uint64_t>(n - 1)) << describe(r);  // each tree: n-1 messages
    }
  }
}

TEST(RevokeSim, Star) {
  // A star (radix >= size, e.g. FTMPI_REVOKE_RADIX=64): one hop, every message from the revoker, nobody
  // forwards; single and double failures at every step stay reliable.
  for (int n : {2, 4, 8, 16, 64}) {
    Scenario r;
    r.n = n;
    r.radix = n;
    r.revokers = {n / 2};
    r.revoke_at = {0};
    r.kill_at.assign(n, -1);
    ASSERT_TRUE(run(r));
    EXPECT_EQ(r.msgs, static_cast<std::uint64_t>(n - 1));
    EXPECT_EQ(r.max_sent, static_cast<std::uint64_t>(n - 1));
    EXPECT_EQ(hops(n, n), 1);
    std::printf("revoke star, %5d ranks: %.2f messages per process, %llu sent by the revoker, 1 hop\n", n,
                static_cast<double>(r.msgs) / n, static_cast<unsigned long long>(r.max_sent));
  }
  for (int n = 3; n <= 9; ++n)
    for (int v1 = 0; v1 < n; ++v1)
      for (int v2 = v1; v2 < n; ++v2)
        for (int at = 0; at < 2 * n; ++at)
          for (int drop = 0; drop < 2; ++drop) {
            Scenario r;
            r.n = n;
            r.radix = n;
            r.revokers = {0};
            r.revoke_at = {0};
            r.kill_at.assign(n, -1);
            r.kill_at[v1] = at;
            if (v2 != v1) r.kill_at[v2] = at + 1;
            r.drop_dead_messages = drop != 0;
            ASSERT_TRUE(run(r)) << describe(r);
          }
}

TEST(RevokeSim, ConcurrentRevokersWithoutFailures) {
  // Two or three revokers at once: every process is revoked and nobody floods.
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 3000; ++iter) {
    Scenario r;
    r.n = 2 + static_cast<int>(rng() % 30);
    r.radix = 2 + static_cast<int>(rng() % 4);
    r.rng = &rng;
    for (int k = 0; k < 3; ++k) {
      r.revokers.push_back(static_cast<int>(rng() % static_cast<std::uint64_t>(r.n)));
      r.revoke_at.push_back(static_cast<int>(rng() % 8));
    }
    r.kill_at.assign(r.n, -1);
    ASSERT_TRUE(run(r));
    EXPECT_LE(r.msgs, 3u * static_cast<std::uint64_t>(r.n - 1));
  }
}

// Synchronous rounds (every message sent in a round is delivered in the next): hops until the last process
// is revoked.
int hops(int n, int radix) {
  std::vector<RevokeBroadcast> procs;
  for (int p = 0; p < n; ++p) procs.emplace_back(p, n, radix);
  procs[0].start();
  std::vector<RevokeOut> wave;
  for (auto& o : procs[0].take_outgoing()) wave.push_back(o);
  int h = 0;
  while (!wave.empty()) {
    ++h;
    std::vector<RevokeOut> next;
    for (const RevokeOut& o : wave) {
      procs[o.dest].on_message(0, o.origin, o.radix);  // the sender does not matter without failures
      for (auto& x : procs[o.dest].take_outgoing()) next.push_back(x);
    }
    wave.swap(next);
  }
  for (auto& p : procs) EXPECT_TRUE(p.revoked());
  return h;
}

TEST(RevokeSim, FaultFreeCost) {
  for (int radix : {2, 4, 8})
    for (int n : {2, 16, 64, 256, 4096}) {
      Scenario r;
      r.n = n;
      r.radix = radix;
      r.revokers = {n / 3};
      r.revoke_at = {0};
      r.kill_at.assign(n, -1);
      ASSERT_TRUE(run(r));
      EXPECT_EQ(r.msgs, static_cast<std::uint64_t>(n - 1));
      int levels = 0;
      for (long long w = 1; w < n; w *= radix) ++levels;
      EXPECT_LE(r.max_sent, static_cast<std::uint64_t>((radix - 1) * levels));
      const int h = hops(n, radix);
      EXPECT_LE(h, levels);
      std::printf("revoke tree radix %d, %5d ranks: %.2f messages per process, at most %llu sent by one, %d hops\n", radix, n,
                  static_cast<double>(r.msgs) / n, static_cast<unsigned long long>(r.max_sent), h);
    }
}

}  // namespace
