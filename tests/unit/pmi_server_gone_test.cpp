// Failure-aware PMI barriers (fault-tolerant mode): once a rank is gone, barriers complete when every
// remaining rank has entered, and a death while others wait releases them.
#include <gtest/gtest.h>

#include <algorithm>

#include "boot/pmi_server.h"

using ftmpi::boot::PmiServer;

namespace {
std::vector<int> released(const PmiServer::Outcome& o) {
  std::vector<int> ranks;
  for (const auto& r : o.replies) {
    EXPECT_NE(r.line.find("cmd=barrier_out"), std::string::npos);
    ranks.push_back(r.rank);
  }
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}
}  // namespace

TEST(PmiServerGone, DeathWhileOthersWaitReleasesThem) {
  PmiServer s(3, "kvs_gone");
  EXPECT_TRUE(s.handle(0, "cmd=barrier_in").replies.empty());
  EXPECT_TRUE(s.handle(2, "cmd=barrier_in").replies.empty());
  EXPECT_EQ(released(s.rank_gone(1)), (std::vector<int>{0, 2}));
  EXPECT_EQ(s.barrier_waiting(), 0);
  // Later barriers no longer wait for rank 1.
  EXPECT_TRUE(s.handle(2, "cmd=barrier_in").replies.empty());
  EXPECT_EQ(released(s.handle(0, "cmd=barrier_in")), (std::vector<int>{0, 2}));
}

TEST(PmiServerGone, GoneRankInsideTheBarrierIsNotReleased) {
  PmiServer s(3, "kvs_gone");
  EXPECT_TRUE(s.handle(1, "cmd=barrier_in").replies.empty());
  EXPECT_TRUE(s.rank_gone(1).replies.empty());
  EXPECT_EQ(s.barrier_waiting(), 0);
  EXPECT_TRUE(s.handle(0, "cmd=barrier_in").replies.empty());
  EXPECT_EQ(released(s.handle(2, "cmd=barrier_in")), (std::vector<int>{0, 2}));
  EXPECT_TRUE(s.rank_gone(1).replies.empty());  // idempotent
  EXPECT_TRUE(s.rank_gone(7).replies.empty());  // out of range: ignored
}

TEST(PmiServerGone, NothingWaitingNothingReleased) {
  PmiServer s(2, "kvs_gone");
  EXPECT_TRUE(s.rank_gone(0).replies.empty());
  EXPECT_TRUE(s.rank_gone(1).replies.empty());
}

// Ranks still in MPI_Init ask whether a peer is gone (key ftmpi-gone.<rank>): "0" while it lives, then
// the "<cause>:<code>" mpiexec gave. Bad ranks are not found.
TEST(PmiServerGone, GoneKeyAnswersHowTheRankEnded) {
  PmiServer s(3, "kvs_gone");
  auto get = [&](const char* key) {
    auto o = s.handle(0, std::string("cmd=get kvsname=kvs_gone key=") + key);
    EXPECT_EQ(o.replies.size(), 1u);
    return o.replies.empty() ? std::string() : o.replies[0].line;
  };
  EXPECT_NE(get("ftmpi-gone.2").find("rc=0 msg=success value=0\n"), std::string::npos);
  (void)s.rank_gone(2, "signaled:9");
  EXPECT_NE(get("ftmpi-gone.2").find("value=signaled:9\n"), std::string::npos);
  EXPECT_NE(get("ftmpi-gone.3").find("rc=-1"), std::string::npos);
  EXPECT_NE(get("ftmpi-gone.x").find("rc=-1"), std::string::npos);
  EXPECT_NE(get("ftmpi-gone.").find("rc=-1"), std::string::npos);
}

// mpiexec presets the TCP secret; a rank's put replaces it.
TEST(PmiServerGone, PresetKeyIsVisibleAndReplaceable) {
  PmiServer s(2, "kvs_gone");
  s.preset("secret", "abc");
  EXPECT_NE(s.handle(1, "cmd=get kvsname=kvs_gone key=secret").replies[0].line.find("value=abc"), std::string::npos);
  (void)s.handle(0, "cmd=put kvsname=kvs_gone key=secret value=def");
  EXPECT_NE(s.handle(1, "cmd=get kvsname=kvs_gone key=secret").replies[0].line.find("value=def"), std::string::npos);
}
