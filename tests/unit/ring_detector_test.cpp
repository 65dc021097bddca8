// ft/ring_detector.h: the rank-level detector as a state machine, driven by a simulated clock and network.
#include "ft/ring_detector.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <vector>

using namespace ftmpi::ft;

namespace {

// n detectors; datagrams delivered at the next step unless a process is stopped/dead or the link between
// two sides of a cut is down.
struct Net {
  struct Msg {
    int from, to;
    DetectorMsg kind;
    int about;
  };
  int n;
  double now = 0;
  std::vector<std::unique_ptr<RingDetector>> d;
  std::vector<bool> dead, stopped, fenced, quorum_lost, left;
  std::vector<int> side;  // cut: messages only between equal sides
  std::vector<std::vector<int>> suspected;
  std::deque<Msg> wire;
  int sent = 0;

  Net(int n_, int k, bool quorum = true, double period = 100, double timeout = 1000)
      : n(n_), dead(n_), stopped(n_), fenced(n_), quorum_lost(n_), left(n_), side(n_, 0), suspected(n_) {
    for (int i = 0; i < n; ++i) {
      DetectorConfig c;
      c.me = i;
      c.size = n;
      c.observers = k;
      c.quorum = quorum;
      c.period_ms = period;
      c.timeout_ms = timeout;
      d.push_back(std::make_unique<RingDetector>(c, now));
    }
  }
  bool running(int i) const { return !dead[i] && !stopped[i] && !fenced[i] && !quorum_lost[i] && !left[i]; }
  void take(int i, DetectorActions& a) {
    for (const auto& s : a.sends) {
      wire.push_back({i, s.dest, s.kind, s.about});
      ++sent;
    }
    for (int r : a.suspected) suspected[i].push_back(r);
    if (a.fenced) fenced[i] = true;
    if (a.quorum_lost) quorum_lost[i] = true;
    a.clear();
  }
  // Advance by `ms` in steps of 10 ms.
  void run(double ms) {
    for (double end = now + ms; now < end; now += 10) {
      DetectorActions a;
      std::deque<Msg> w;
      w.swap(wire);
      for (const Msg& m : w) {
        if (!running(m.to) || side[m.from] != side[m.to]) continue;  // lost
        d[m.to]->on_message(m.from, m.kind, m.about, now, a);
        take(m.to, a);
      }
      for (int i = 0; i < n; ++i)
        if (running(i)) {
          d[i]->tick(now, a);
          take(i, a);
        }
    }
  }
};

}  // namespace

TEST(RingDetector, RingShapeAndQuietWithoutFailures) {
  Net net(6, 2);
  EXPECT_EQ(net.d[0]->observers(), (std::vector<int>{1, 2}));
  EXPECT_EQ(net.d[0]->watched(), (std::vector<int>{5, 4}));
  net.run(5000);
  for (int i = 0; i < 6; ++i) {
    EXPECT_TRUE(net.suspected[i].empty()) << i;
    EXPECT_TRUE(net.running(i));
  }
  // Cost: k heartbeats per rank per period (50 periods), nothing else.
  EXPECT_NEAR(net.sent, 6 * 2 * 50, 6 * 2 * 2);
}

TEST(RingDetector, StoppedRankIsSuspectedByAllWithinTimeoutAndFencedWhenItResumes) {
  Net net(6, 1);
  net.run(500);
  net.stopped[3] = true;
  double t0 = net.now;
  net.run(1300);  // timeout 1000 + a period + delivery
  for (int i = 0; i < 6; ++i) {
    if (i == 3) continue;
    EXPECT_TRUE(net.d[i]->failed(3)) << "rank " << i << " at +" << net.now - t0;
    EXPECT_TRUE(net.running(i));
  }
  EXPECT_EQ(net.suspected[4], std::vector<int>{3});  // its observer
  // The ring is repaired around it: 4 now watches 2, 2 heartbeats 4.
  EXPECT_EQ(net.d[4]->watched(), std::vector<int>{2});
  EXPECT_EQ(net.d[2]->observers(), std::vector<int>{4});
  net.run(3000);
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(i == 3 || net.running(i)) << i;  // repaired ring stays quiet
  // It resumes: its fence notice was lost while it was stopped, but its first heartbeat is answered fence().
  net.wire.clear();
  net.stopped[3] = false;
  net.run(200);
  EXPECT_TRUE(net.fenced[3]);
}

TEST(RingDetector, ObserverDeathRepairsTheRingAndAdjacentFailuresAreFound) {
  Net net(8, 1);
  net.run(300);
  net.dead[4] = true;
  net.dead[5] = true;  // 5 observes 4: both gone
  net.run(3500);       // 6 suspects 5, then watches 4 afresh and suspects it one timeout later
  for (int i : {0, 1, 2, 3, 6, 7}) {
    EXPECT_TRUE(net.d[i]->failed(4) && net.d[i]->failed(5)) << i;
    EXPECT_TRUE(net.running(i)) << i;
  }
  EXPECT_EQ(net.d[6]->watched(), std::vector<int>{3});
}

TEST(RingDetector, TwoObserversSeeTwoAdjacentFailuresInOneTimeout) {
  Net net(8, 2);
  net.run(300);
  net.dead[4] = net.dead[5] = true;
  net.run(1300);
  for (int i : {0, 1, 2, 3, 6, 7}) EXPECT_TRUE(net.d[i]->failed(4) && net.d[i]->failed(5)) << i;
}

TEST(RingDetector, CutMinorityEndsAndMajorityGoesOn) {
  Net net(6, 2);
  net.run(300);
  net.side[2] = net.side[5] = 1;  // a host with ranks 2 and 5 loses its link
  net.run(6000);
  for (int i : {0, 1, 3, 4}) {
    EXPECT_TRUE(net.running(i)) << i;
    EXPECT_TRUE(net.d[i]->failed(2) && net.d[i]->failed(5)) << i;
  }
  EXPECT_TRUE(net.quorum_lost[2]);
  EXPECT_TRUE(net.quorum_lost[5]);
  // The link heals: the minority's ranks are gone; nothing the majority hears from them matters.
  net.side[2] = net.side[5] = 0;
  net.run(2000);
  for (int i : {0, 1, 3, 4}) EXPECT_TRUE(net.running(i)) << i;
}

TEST(RingDetector, EvenSplitEndsBothHalves) {
  Net net(4, 1);
  net.run(300);
  net.side[2] = net.side[3] = 1;
  net.run(5000);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(net.quorum_lost[i]) << i;  // neither half holds a majority
}

TEST(RingDetector, WithoutQuorumASingleSurvivorGoesOn) {
  Net net(3, 1, /*quorum=*/false);
  net.run(300);
  net.dead[1] = net.dead[2] = true;
  net.run(4000);
  EXPECT_TRUE(net.running(0));
  EXPECT_TRUE(net.d[0]->failed(1) && net.d[0]->failed(2));
}

TEST(RingDetector, FailureLearnedOutsideIsFloodedAndRepairsTheRing) {
  Net net(5, 1);
  net.run(300);
  net.dead[2] = true;
  DetectorActions a;
  net.d[3]->on_failed(2, net.now, a);  // e.g. 3 saw its connection to 2 break
  EXPECT_TRUE(a.suspected.empty());
  net.take(3, a);
  net.run(100);
  for (int i : {0, 1, 3, 4}) EXPECT_TRUE(net.d[i]->failed(2)) << i;
  EXPECT_EQ(net.d[3]->watched(), std::vector<int>{1});
}

TEST(RingDetector, GoodbyeIsNotAFailureAndDoesNotCountAgainstTheQuorum) {
  Net net(4, 1);
  net.run(300);
  for (int r : {1, 2, 3}) {
    DetectorActions a;
    net.d[r]->leave(a);
    net.take(r, a);
    net.left[r] = true;
  }
  net.run(3000);
  EXPECT_TRUE(net.running(0));
  EXPECT_TRUE(net.suspected[0].empty());
  EXPECT_EQ(net.d[0]->failed_count(), 0);
  EXPECT_TRUE(net.d[0]->departed(1));
}

TEST(RingDetector, SuspicionsFromAnOutRankAreIgnoredAndAnsweredWithFence) {
  Net net(5, 1);
  net.run(300);
  DetectorActions a;
  net.d[0]->on_failed(4, net.now, a);
  a.clear();
  net.d[0]->on_message(4, DetectorMsg::suspect, 1, net.now, a);
  EXPECT_FALSE(net.d[0]->failed(1));
  ASSERT_EQ(a.sends.size(), 1u);
  EXPECT_EQ(a.sends[0].dest, 4);
  EXPECT_EQ(a.sends[0].kind, DetectorMsg::fence);
  a.clear();
  net.d[0]->on_message(1, DetectorMsg::suspect, 0, net.now, a);  // a live rank suspects me
  EXPECT_TRUE(a.fenced);
}

TEST(RingDetector, BadInputIsIgnored) {
  Net net(3, 1);
  DetectorActions a;
  net.d[0]->on_message(-1, DetectorMsg::fence, 0, 0, a);
  net.d[0]->on_message(7, DetectorMsg::fence, 0, 0, a);
  net.d[0]->on_message(0, DetectorMsg::fence, 0, 0, a);
  net.d[0]->on_message(1, DetectorMsg::suspect, 99, 0, a);
  net.d[0]->on_failed(-3, 0, a);
  net.d[0]->on_failed(0, 0, a);
  EXPECT_FALSE(a.fenced);
  EXPECT_TRUE(a.suspected.empty());
  EXPECT_EQ(net.d[0]->failed_count(), 0);
  // One rank: nothing to watch, never suspects itself.
  DetectorConfig c;
  RingDetector solo(c, 0);
  solo.tick(1e6, a);
  EXPECT_TRUE(a.sends.empty());
}
