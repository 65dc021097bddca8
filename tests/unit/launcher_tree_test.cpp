// The launcher library's pure parts (tools/launch): the tree liveness state machine driven by a fake
// clock through silence, EOF, a cut in either direction and slow start; the tree shape's routes; host
// layouts and PMI_process_mapping; the frame codec on split and malformed input.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <thread>

#include "host_layout.h"
#include "stall_meter.h"
#include "tree_liveness.h"
#include "tree_shape.h"
#include "tree_wire.h"

using namespace ftmpi::mpiexec;
using ms = std::chrono::milliseconds;
using Why = TreeLiveness::Why;

namespace {
const TreeLiveness::Clock::time_point t0{};
TreeLiveness origin_at(int children) {
  TreeLiveness l(ms(100), ms(1000), ms(5000), false, t0);
  for (int i = 0; i < children; ++i) l.expect_child(i, t0);
  return l;
}
}  // namespace

TEST(TreeLiveness, HeartbeatsEveryPeriodAndEchoes) {
  TreeLiveness l(ms(100), ms(1000), ms(5000), true, t0);
  EXPECT_TRUE(l.tick(t0).send_heartbeats);
  EXPECT_FALSE(l.tick(t0 + ms(50)).send_heartbeats);
  EXPECT_TRUE(l.tick(t0 + ms(100)).send_heartbeats);
  EXPECT_LE(l.next_deadline(), t0 + ms(200));
  TreeLiveness o = origin_at(1);
  EXPECT_FALSE(o.tick(t0).send_heartbeats);  // the origin only echoes
  EXPECT_FALSE(o.heard_child(0, t0));        // not connected: no echo
  o.child_connected(0, t0);
  EXPECT_TRUE(o.heard_child(0, t0 + ms(10)));
}

TEST(TreeLiveness, ClosedChildIsLostAtOnce) {
  TreeLiveness l = origin_at(2);
  l.child_connected(0, t0);
  l.child_connected(1, t0);
  l.child_closed(1);
  EXPECT_EQ(l.next_deadline(), TreeLiveness::Clock::time_point::min());
  auto a = l.tick(t0 + ms(1));
  ASSERT_EQ(a.lost.size(), 1u);
  EXPECT_EQ(a.lost[0], 1);
  EXPECT_EQ(a.lost_why[0], Why::closed);
  EXPECT_TRUE(l.tick(t0 + ms(2)).lost.empty());  // reported once
  EXPECT_TRUE(l.child_lost(1));
  EXPECT_FALSE(l.child_lost(0));
}

TEST(TreeLiveness, SilentChildLostAfterTimeoutPlusPeriod) {
  TreeLiveness l = origin_at(1);
  l.child_connected(0, t0);
  for (int t = 100; t <= 500; t += 100) l.heard_child(0, t0 + ms(t));
  EXPECT_TRUE(l.tick(t0 + ms(1599)).lost.empty());
  auto a = l.tick(t0 + ms(1600));
  ASSERT_EQ(a.lost.size(), 1u);
  EXPECT_EQ(a.lost_why[0], Why::silent);
}

TEST(TreeLiveness, NeverConnectedChildLostAfterStartup) {
  TreeLiveness l = origin_at(1);
  EXPECT_TRUE(l.tick(t0 + ms(4999)).lost.empty());
  auto a = l.tick(t0 + ms(5000));
  ASSERT_EQ(a.lost.size(), 1u);
  EXPECT_EQ(a.lost_why[0], Why::never_connected);
}

TEST(TreeLiveness, DoneChildIsNeverLost) {
  TreeLiveness l = origin_at(1);
  l.child_connected(0, t0);
  l.child_done(0);
  l.child_closed(0);
  EXPECT_TRUE(l.tick(t0 + ms(100000)).lost.empty());
}

TEST(TreeLiveness, DaemonFencesOnParentSilenceOrClose) {
  TreeLiveness d(ms(100), ms(1000), ms(5000), true, t0);
  d.heard_parent(t0 + ms(300));
  EXPECT_FALSE(d.tick(t0 + ms(1299)).fence);
  auto a = d.tick(t0 + ms(1300));
  EXPECT_TRUE(a.fence);
  EXPECT_EQ(a.fence_why, Why::silent);
  EXPECT_FALSE(d.tick(t0 + ms(1400)).fence);  // once
  EXPECT_TRUE(d.fenced());

  TreeLiveness e(ms(100), ms(1000), ms(5000), true, t0);
  e.parent_closed();
  auto b = e.tick(t0 + ms(1));
  EXPECT_TRUE(b.fence);
  EXPECT_EQ(b.fence_why, Why::closed);
}

// A daemon starved of CPU sent no heartbeats, so it heard no echo: its own stall is not its parent's
// silence (up to one timeout per stall). A short stall (scheduling delay) changes nothing.
TEST(TreeLiveness, OwnStallIsNotTheParentsSilence) {
  TreeLiveness d(ms(100), ms(1000), ms(5000), true, t0);
  d.heard_parent(t0 + ms(300));
  d.stalled(ms(49));                              // < half a period: not credited
  EXPECT_TRUE(d.tick(t0 + ms(1300)).fence);

  TreeLiveness e(ms(100), ms(1000), ms(5000), true, t0);
  e.heard_parent(t0 + ms(300));
  e.stalled(ms(1200));                            // woke at 1500 after 1.2 s off the CPU: credited up to T
  auto woke = e.tick(t0 + ms(1500));
  EXPECT_FALSE(woke.fence);
  EXPECT_TRUE(woke.send_heartbeats) << "the first act on waking: a heartbeat";
  EXPECT_FALSE(e.tick(t0 + ms(2299)).fence);
  auto a = e.tick(t0 + ms(2300));                 // and then no echo for T: fenced
  EXPECT_TRUE(a.fence);
  EXPECT_EQ(a.fence_why, Why::silent);

  TreeLiveness f(ms(100), ms(1000), ms(5000), true, t0);
  f.heard_parent(t0 + ms(300));
  f.stalled(ms(1200));
  f.heard_parent(t0 + ms(1550));                  // the echo of that heartbeat: goes on
  EXPECT_FALSE(f.tick(t0 + ms(2400)).fence);

  TreeLiveness g(ms(100), ms(1000), ms(5000), true, t0);
  g.stalled(ms(1200));
  g.parent_closed();                              // the parent declared us lost meanwhile and closed: fence
  EXPECT_TRUE(g.tick(t0 + ms(1500)).fence);
}

TEST(TreeLiveness, OwnStallIsNotTheChildrensSilence) {
  TreeLiveness l = origin_at(1);
  l.child_connected(0, t0);
  l.stalled(ms(800));
  EXPECT_TRUE(l.tick(t0 + ms(1899)).lost.empty());
  EXPECT_EQ(l.tick(t0 + ms(1900)).lost.size(), 1u);
}

// The split-brain property: whatever the phase of the heartbeats when a link is cut, the daemon fences
// before (or when) its parent declares it lost; with one-way cuts too.
TEST(TreeLiveness, CutLinkFenceComesBeforeDeclaration) {
  for (int phase = 0; phase < 100; phase += 7)
    for (int dir = 0; dir < 3; ++dir) {  // 0: both ways, 1: only down (parent->daemon), 2: only up
      TreeLiveness parent(ms(100), ms(1000), ms(5000), false, t0);
      TreeLiveness daemon(ms(100), ms(1000), ms(5000), true, t0);
      parent.expect_child(0, t0);
      parent.child_connected(0, t0);
      const int cut = 2000 + phase;
      int fenced_at = -1, lost_at = -1;
      for (int t = 0; t < 6000 && (fenced_at < 0 || lost_at < 0); ++t) {
        auto now = t0 + ms(t);
        bool down_ok = t < cut || dir == 2, up_ok = t < cut || dir == 1;
        auto da = daemon.tick(now);
        if (da.fence && fenced_at < 0) fenced_at = t;
        // The daemon's heartbeat reaches the parent (up link), whose echo comes back (down link).
        if (da.send_heartbeats && up_ok && fenced_at < 0 && parent.heard_child(0, now) && down_ok)
          daemon.heard_parent(now);
        // A fenced daemon closes its link: once the RST can travel (up link alive), the parent sees it.
        if (fenced_at >= 0 && up_ok && lost_at < 0) parent.child_closed(0);
        auto pa = parent.tick(now);
        if (!pa.lost.empty() && lost_at < 0) lost_at = t;
      }
      ASSERT_GE(fenced_at, 0) << "phase " << phase << " dir " << dir;
      ASSERT_GE(lost_at, 0) << "phase " << phase << " dir " << dir;
      EXPECT_LE(fenced_at, lost_at) << "phase " << phase << " dir " << dir;
      EXPECT_LE(lost_at - cut, 1100 + 1) << "declared within timeout + period";
    }
}

TEST(TreeShape, RoutesAndSubtrees) {
  TreeShape s{2, 8};  // 0 -> 1,2; 1 -> 3,4; 2 -> 5,6; 3 -> 7
  EXPECT_EQ(s.children(0), (std::vector<int>{1, 2}));
  EXPECT_EQ(s.children(3), (std::vector<int>{7}));
  EXPECT_EQ(s.parent(7), 3);
  EXPECT_EQ(s.next_hop(0, 7), 1);
  EXPECT_EQ(s.next_hop(1, 7), 3);
  EXPECT_EQ(s.next_hop(3, 7), 7);
  EXPECT_EQ(s.next_hop(2, 7), -1);
  EXPECT_EQ(s.subtree(1), (std::vector<int>{1, 3, 4, 7}));
  EXPECT_EQ(s.depth(7), 3);
  TreeShape flat{32, 1001};
  EXPECT_EQ(flat.children(0).size(), 32u);  // the origin holds k sockets, not 1000
  int deepest = 0;
  for (int n = 1; n < 1001; ++n) deepest = std::max(deepest, flat.depth(n));
  EXPECT_EQ(deepest, 2);
}

TEST(HostLayout, SlotsPlacementAndMapping) {
  auto l = parse_hosts({"a", "b:2", "c"}, "");
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->hosts.size(), 3u);
  EXPECT_EQ(l->total_slots(), 4);
  place_ranks(l.value(), 4);
  EXPECT_EQ(l->host_of(0), 0);
  EXPECT_EQ(l->host_of(1), 1);
  EXPECT_EQ(l->host_of(2), 1);
  EXPECT_EQ(l->host_of(3), 2);
  EXPECT_EQ(process_mapping(l.value()), "(vector,(0,1,1),(1,1,2),(2,1,1))");
  place_ranks(l.value(), 8);  // two rounds: 2, 4, 2
  EXPECT_EQ(process_mapping(l.value()), "(vector,(0,1,2),(1,1,4),(2,1,2))");
  place_ranks(l.value(), 1);  // hosts without ranks are not nodes
  EXPECT_EQ(process_mapping(l.value()), "(vector,(0,1,1))");
  auto same = parse_hosts({"x:2", "y:2", "x:1"}, "");  // duplicates merge
  ASSERT_TRUE(same.ok());
  ASSERT_EQ(same->hosts.size(), 2u);
  place_ranks(same.value(), 5);
  EXPECT_EQ(process_mapping(same.value()), "(vector,(0,1,3),(1,1,2))");
  EXPECT_FALSE(parse_hosts({"a:0"}, "").ok());
  EXPECT_FALSE(parse_hosts({"a:x"}, "").ok());
  EXPECT_FALSE(parse_hosts({"-oProxyCommand=x"}, "").ok());
  EXPECT_TRUE(parse_hosts({"localhost"}, "")->all_local());
}

TEST(HostLayout, Hostfile) {
  char path[] = "/tmp/ftmpi-hostfile-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  {
    std::ofstream f(path);
    f << "# comment\nnode1 slots=2\n\nnode2  # one slot\nnode3 slots=3 max_slots=4\n";
  }
  auto l = parse_hosts({}, path);
  ASSERT_TRUE(l.ok()) << l.status().message();
  ASSERT_EQ(l->hosts.size(), 3u);
  EXPECT_EQ(l->hosts[0].slots, 2);
  EXPECT_EQ(l->hosts[1].slots, 1);
  EXPECT_EQ(l->hosts[2].slots, 3);
  {
    std::ofstream f(path);
    f << "node1 cpus=2\n";
  }
  auto bad = parse_hosts({}, path);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(":1"), std::string::npos);
  unlink(path);
  EXPECT_FALSE(parse_hosts({}, "/nonexistent/hostfile").ok());
}

TEST(TreeWire, RoundTripSplitAnywhere) {
  Frame f("pmi");
  f.set("to", 3).set("rank", 5);
  f.payload = std::string("cmd=get_result rc=0 value=x\n\0binary", 35);
  std::string wire = encode_frame(f) + encode_frame(Frame("hb"));
  for (std::size_t cut = 0; cut <= wire.size(); ++cut) {
    FrameDecoder d;
    d.append(wire.data(), cut);
    std::vector<Frame> got;
    while (auto g = d.next()) got.push_back(*g);
    d.append(wire.data() + cut, wire.size() - cut);
    while (auto g = d.next()) got.push_back(*g);
    ASSERT_EQ(got.size(), 2u) << cut;
    EXPECT_EQ(got[0].type, "pmi");
    EXPECT_EQ(got[0].num("to"), 3);
    EXPECT_EQ(got[0].num("rank"), 5);
    EXPECT_EQ(got[0].payload, f.payload);
    EXPECT_EQ(got[1].type, "hb");
    EXPECT_FALSE(d.bad());
  }
}

TEST(TreeWire, MalformedInputPoisonsWithoutCrash) {
  for (const char* bad : {"pmi rank=1\n", "pmi len=x\n", "pmi =3 len=0\n", " len=0\n", "pmi len=99999999999\n"}) {
    FrameDecoder d;
    d.append(bad, strlen(bad));
    EXPECT_FALSE(d.next().has_value()) << bad;
    EXPECT_TRUE(d.bad()) << bad;
  }
  FrameDecoder d;
  std::string huge(FrameDecoder::kMaxHeader + 10, 'a');
  d.append(huge.data(), huge.size());
  EXPECT_FALSE(d.next().has_value());
  EXPECT_TRUE(d.bad());
  EXPECT_EQ(split_nul(join_nul({"a=1", "", "b=2"})), (std::vector<std::string>{"a=1", "", "b=2"}));
  Frame f("x");
  f.set("k", "has space");
  EXPECT_EQ(encode_frame(f), "x k=? len=0\n");
}

// A write to a link whose peer is gone does not close it: it marks it broken and the owner's read path
// (fill) reads what the peer sent before it went, then reports the end (tree_wire.h). A killed daemon's
// host was otherwise declared "cut off" by silence instead of "lost" by its closed link.
TEST(TreeLink, FailedWriteMarksBrokenAndTheReadPathReportsTheEnd) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  std::string last = encode_frame(Frame("exit"));
  ASSERT_EQ(write(sv[1], last.data(), last.size()), static_cast<ssize_t>(last.size()));
  ::close(sv[1]);  // the peer dies after its last frame
  TreeLink l;
  l.fd = sv[0];
  l.send(Frame("signal"));
  EXPECT_FALSE(l.flush());
  EXPECT_TRUE(l.broken);
  EXPECT_GE(l.fd, 0);  // still open: the read path ends it
  EXPECT_TRUE(l.out.empty());
  l.send(Frame("notice"));  // dropped
  EXPECT_TRUE(l.out.empty());
  EXPECT_FALSE(l.fill());  // what the peer said is read, and the link is reported dead
  auto f = l.in.next();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->type, "exit");
  l.close();
  EXPECT_FALSE(l.broken);
  EXPECT_EQ(l.fd, -1);
}

TEST(StallMeter, ParsesTheRunQueueWait) {
  EXPECT_EQ(StallMeter::parse_wait_ns("360943 64836 1\n"), 64836);
  EXPECT_EQ(StallMeter::parse_wait_ns("garbage"), -1);
  EXPECT_EQ(StallMeter::parse_wait_ns("12"), -1);
}

// Sharing one CPU with a busy thread for 300 ms, this thread waits in the run queue about half the time;
// sleeping 300 ms is not counted.
TEST(StallMeter, CountsRunQueueWaitNotSleep) {
  StallMeter m;
  if (!m.available()) GTEST_SKIP() << "no /proc/thread-self/schedstat";
  m.take();
  usleep(300 * 1000);
  EXPECT_LT(m.take().count(), 100) << "a sleep is not a stall";
  cpu_set_t one, old;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof old, &old), 0);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) GTEST_SKIP() << "cannot pin to CPU 0";
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  m.take();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  while (std::chrono::steady_clock::now() < until) {
  }
  const auto stalled = m.take();
  stop = true;
  busy.join();
  pthread_setaffinity_np(pthread_self(), sizeof old, &old);
  EXPECT_GE(stalled.count(), 50) << "half the CPU went to the busy thread";
}
