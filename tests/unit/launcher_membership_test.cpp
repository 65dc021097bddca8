// Re-parenting in the launcher tree (tools/launch/tree_membership.h and the re-attach phase of
// tree_liveness.h), driven by a fake clock: an inner daemon killed (EOF) or silent, a cut between a daemon
// and its parent only (it re-attaches, the old parent's late report is ignored), a daemon cut from the
// whole tree (it fences before the origin declares it), refused and cyclic adoptions, cascades.
#include <gtest/gtest.h>

#include "tree_liveness.h"
#include "tree_membership.h"
#include "tree_wire.h"

using namespace ftmpi::mpiexec;
using ms = std::chrono::milliseconds;
using State = TreeMembership::State;

namespace {
const TreeMembership::Clock::time_point t0{};
constexpr ms kPeriod{100}, kTimeout{1000}, kReattach{300}, kWindow{500};  // W >= R + P

// origin 0; 1,2 under 0; 3,4 under 1; 5 under 3 (fan-out 2 as heap numbering, 6 nodes).
TreeMembership tree() {
  TreeMembership m(6, kWindow);
  m.joined(1, 0);
  m.joined(2, 0);
  m.joined(3, 1);
  m.joined(4, 1);
  m.joined(5, 3);
  return m;
}
}  // namespace

TEST(TreeMembership, InnerDaemonKilledLosesOnlyItsHost) {
  TreeMembership m = tree();
  EXPECT_EQ(m.link_lost(1, 0, true, t0), std::vector<int>{1});
  EXPECT_EQ(m.state(1), State::lost);
  EXPECT_EQ(m.state(3), State::orphan);
  EXPECT_EQ(m.state(4), State::orphan);
  EXPECT_EQ(m.state(5), State::up);  // still under 3, which may re-attach with it
  EXPECT_EQ(m.next_deadline(), t0 + kWindow);
  EXPECT_TRUE(m.adopt(3, 0, t0 + ms(5)));  // the orphans re-attach to their grandparent
  EXPECT_TRUE(m.adopt(4, 0, t0 + ms(6)));
  EXPECT_TRUE(m.tick(t0 + kWindow).empty());
  EXPECT_EQ(m.parent(3), 0);
  EXPECT_TRUE(m.below(5, 0));
  EXPECT_EQ(m.state(5), State::up);
}

TEST(TreeMembership, OrphanThatDoesNotReattachIsLostAtTheDeadlineThenItsChildrenAreOrphans) {
  TreeMembership m = tree();
  m.link_lost(1, 0, true, t0);
  EXPECT_TRUE(m.adopt(4, 0, t0 + ms(10)));
  EXPECT_TRUE(m.tick(t0 + kWindow - ms(1)).empty());
  EXPECT_EQ(m.tick(t0 + kWindow), std::vector<int>{3});
  EXPECT_EQ(m.state(5), State::orphan);  // 5 gets its own window from 3's loss
  EXPECT_EQ(m.next_deadline(), t0 + 2 * kWindow);
  EXPECT_TRUE(m.adopt(5, 0, t0 + kWindow + ms(50)));
  EXPECT_TRUE(m.tick(t0 + 3 * kWindow).empty());
  EXPECT_FALSE(m.adopt(3, 0, t0 + 3 * kWindow));  // lost is final: refused, it has fenced
}

TEST(TreeMembership, ReportsFromAFormerParentAreIgnored) {
  // A cut between 3 and its parent 1 only: 3 re-attaches to 0; 1's later reports of 3 change nothing.
  TreeMembership m = tree();
  EXPECT_TRUE(m.adopt(3, 0, t0 + kTimeout));
  EXPECT_TRUE(m.link_lost(3, 1, false, t0 + kTimeout + kPeriod).empty());
  EXPECT_TRUE(m.link_lost(3, 1, true, t0 + kTimeout + kPeriod).empty());
  EXPECT_EQ(m.state(3), State::up);
  EXPECT_EQ(m.state(1), State::up);
}

TEST(TreeMembership, SilentReportOrphansFirstAndAnAdoptionWithinTheWindowStands) {
  // The parent's silence report can arrive before the child's adoption: the child is an orphan, not lost.
  TreeMembership m = tree();
  EXPECT_TRUE(m.link_lost(3, 1, false, t0).empty());
  EXPECT_EQ(m.state(3), State::orphan);
  EXPECT_TRUE(m.adopt(3, 0, t0 + ms(200)));
  EXPECT_TRUE(m.tick(t0 + 2 * kWindow).empty());
  EXPECT_EQ(m.state(3), State::up);
}

TEST(TreeMembership, SilentChildOfTheOriginIsLostAtOnce) {
  // It has no other ancestor: it fences at T without trying (budget 0), the origin declares at T + P.
  TreeMembership m = tree();
  EXPECT_EQ(m.link_lost(2, 0, false, t0), std::vector<int>{2});
  EXPECT_EQ(m.state(2), State::lost);
}

TEST(TreeMembership, RefusesCyclesAndLostParents) {
  TreeMembership m = tree();
  EXPECT_FALSE(m.adopt(1, 3, t0));  // 3 is below 1
  EXPECT_FALSE(m.adopt(1, 5, t0));
  m.link_lost(2, 0, true, t0);
  EXPECT_FALSE(m.adopt(4, 2, t0));  // 2 is lost
  EXPECT_FALSE(m.adopt(0, 1, t0));  // the origin has no parent
  m.done(4);
  EXPECT_TRUE(m.link_lost(4, 1, true, t0).empty());  // an orderly end is never a loss
  EXPECT_TRUE(m.link_lost(1, 2, true, t0).empty());  // 2 is not 1's parent
  EXPECT_TRUE(m.link_lost(99, 0, true, t0).empty());
}

TEST(TreeReattach, ParentLostThenAdoptedGoesOn) {
  TreeLiveness l(kPeriod, kTimeout, ms(5000), true, t0);
  l.set_reattach(kReattach);
  l.parent_closed();
  auto a = l.tick(t0 + ms(1));
  EXPECT_TRUE(a.reattach);
  EXPECT_FALSE(a.fence);
  EXPECT_TRUE(l.reattaching());
  EXPECT_LE(l.next_deadline(), t0 + ms(1) + kReattach);
  l.parent_closed();  // the first ancestor refused: the daemon tries the next, the machine waits
  EXPECT_FALSE(l.tick(t0 + ms(100)).fence);
  l.adopted(t0 + ms(150));
  EXPECT_FALSE(l.reattaching());
  a = l.tick(t0 + ms(150) + kReattach);
  EXPECT_FALSE(a.fence);
  EXPECT_FALSE(a.reattach);
  // Lost again later: a new re-attach phase.
  a = l.tick(t0 + ms(150) + kTimeout);
  EXPECT_TRUE(a.reattach);
  EXPECT_TRUE(l.tick(t0 + ms(150) + kTimeout + kReattach).fence);
}

TEST(TreeReattach, CutFromTheWholeTreeFencesBeforeTheOriginDeclares) {
  // Daemon 3 (parent 1) is cut from everything at time c; 1 last heard 3 at c, 3's last echo came at c + d.
  // 3 notices at c + d + T, fences at c + d + T + R. 1 reports 3 silent at c + T + P; the origin declares
  // 3 lost at that + W. For every heartbeat phase and d < P the fence comes first.
  for (int phase = 0; phase < 100; phase += 10)
    for (int d = 0; d < 100; d += 33) {
      auto c = t0 + ms(phase);
      TreeLiveness child(kPeriod, kTimeout, ms(5000), true, t0);
      child.set_reattach(kReattach);
      child.heard_parent(c + ms(d));
      TreeLiveness::Clock::time_point fence_at{}, t = c;
      bool reattach_seen = false;
      for (; t < c + ms(5000); t += ms(1)) {
        auto a = child.tick(t);
        reattach_seen |= a.reattach;
        if (a.fence) {
          fence_at = t;
          break;
        }
      }
      ASSERT_TRUE(reattach_seen);
      ASSERT_NE(fence_at, TreeLiveness::Clock::time_point{});
      TreeMembership m = tree();
      auto report = c + kTimeout + kPeriod;
      EXPECT_TRUE(m.link_lost(3, 1, false, report).empty());
      std::vector<int> lost;
      auto declared = report;
      for (; declared < report + ms(5000) && lost.empty(); declared += ms(1)) lost = m.tick(declared);
      ASSERT_EQ(lost, std::vector<int>{3});
      EXPECT_LT(fence_at, declared) << "phase " << phase << " d " << d;
    }
}

TEST(TreeReattach, WithoutBudgetFencesAtOnce) {
  TreeLiveness l(kPeriod, kTimeout, ms(5000), true, t0);
  l.parent_closed();
  auto a = l.tick(t0);
  EXPECT_TRUE(a.fence);
  EXPECT_FALSE(a.reattach);
}

TEST(TreeWire, HelloNodesSkipsJunk) {
  Frame h("hello");
  h.set("node", 3).set("nodes", "5,7,x,,-2,9");
  EXPECT_EQ(hello_nodes(h), (std::vector<int>{3, 5, 7, 9}));
  h.set("nodes", "-");
  EXPECT_EQ(hello_nodes(h), std::vector<int>{3});
}
