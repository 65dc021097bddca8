// Deterministic simulation of revoke propagation (src/ft/revoke.h) with failures injected at every step.
// PASS: whenever some process that stays alive has marked the communicator revoked, every process that
// stays alive has (reliable broadcast), for every (initiator, victim set, death step, delivery order); and
// the fault-free cost is size-1 messages per process.
#include <gtest/gtest.h>

#include <deque>
#include <random>

#include "ft/revoke.h"

namespace {
using ftmpi::ft::RevokeFlood;

struct Msg {
  int src, dst;
};

// Runs one broadcast. Sending is a step of its own (a process's forwards wait in its outbox), so a process
// can die half-way through its broadcast. `kill_at[p]` = event after which p dies (-1: never); a dead
// process's outbox is lost, messages it already sent are still delivered, messages to it are dropped.
// `rng` null: deterministic order (outboxes first, then the oldest message). Returns false on a violation.
bool run(int n, int initiator, const std::vector<int>& kill_at, std::mt19937_64* rng, std::uint64_t* msgs) {
  std::vector<RevokeFlood> procs;
  for (int p = 0; p < n; ++p) procs.emplace_back(p, n);
  std::vector<bool> alive(n, true);
  std::vector<std::deque<int>> outbox(n);
  std::deque<Msg> net;
  int event = 0;
  auto deaths = [&] {
    for (int p = 0; p < n; ++p)
      if (kill_at[p] == event && alive[p]) {
        alive[p] = false;
        outbox[p].clear();
      }
  };
  auto fire = [&](int p, int from) {
    for (int d : procs[p].trigger(from)) outbox[p].push_back(d);
  };
  deaths();
  if (alive[initiator]) fire(initiator, -1);
  for (;;) {
    ++event;
    deaths();
    std::vector<int> senders;
    for (int p = 0; p < n; ++p)
      if (alive[p] && !outbox[p].empty()) senders.push_back(p);
    if (senders.empty() && net.empty()) break;
    bool do_send = !senders.empty() && (net.empty() || (rng ? (*rng)() % 2 == 0 : true));
    if (do_send) {
      int p = senders[rng ? (*rng)() % senders.size() : 0];
      net.push_back(Msg{p, outbox[p].front()});
      outbox[p].pop_front();
      ++*msgs;
      continue;
    }
    std::size_t i = rng ? (*rng)() % net.size() : 0;
    Msg m = net[i];
    net.erase(net.begin() + static_cast<long>(i));
    if (alive[m.dst]) fire(m.dst, m.src);
  }
  bool some_survivor_revoked = false;
  for (int p = 0; p < n; ++p) some_survivor_revoked |= alive[p] && procs[p].revoked();
  for (int p = 0; p < n; ++p)
    if (some_survivor_revoked && alive[p] && !procs[p].revoked()) return false;
  return true;
}

TEST(RevokeSim, ReliableUnderEverySingleAndDoubleFailure) {
  int cases = 0;
  for (int n = 2; n <= 7; ++n)
    for (int init = 0; init < n; ++init)
      for (int v1 = 0; v1 < n; ++v1)
        for (int v2 = v1; v2 < n; ++v2)
          for (int at = 0; at < 2 * n * n; ++at) {
            std::vector<int> kill_at(n, -1);
            kill_at[v1] = at;
            if (v2 != v1) kill_at[v2] = at + 1;
            std::uint64_t msgs = 0;
            ASSERT_TRUE(run(n, init, kill_at, nullptr, &msgs)) << "n=" << n << " init=" << init << " v1=" << v1;
            ++cases;
          }
  std::printf("fixed-order cases checked: %d\n", cases);
}

TEST(RevokeSim, ReliableUnderRandomSchedules) {
  std::mt19937_64 rng(42);
  for (int iter = 0; iter < 5000; ++iter) {
    int n = 2 + static_cast<int>(rng() % 15);
    std::vector<int> kill_at(n, -1);
    int f = static_cast<int>(rng() % static_cast<std::uint64_t>(n));
    for (int k = 0; k < f; ++k) kill_at[rng() % n] = static_cast<int>(rng() % (2 * n * n));
    std::uint64_t msgs = 0;
    ASSERT_TRUE(run(n, static_cast<int>(rng() % n), kill_at, &rng, &msgs)) << "iteration " << iter;
  }
}

TEST(RevokeSim, FaultFreeCost) {
  for (int n : {2, 16, 64, 256}) {
    std::vector<int> kill_at(n, -1);
    std::uint64_t msgs = 0;
    ASSERT_TRUE(run(n, 0, kill_at, nullptr, &msgs));
    EXPECT_EQ(msgs, static_cast<std::uint64_t>(n - 1) * static_cast<std::uint64_t>(n - 1));
    std::printf("revoke flood, %5d ranks: %.1f messages per process\n", n, static_cast<double>(msgs) / n);
  }
}

}  // namespace
