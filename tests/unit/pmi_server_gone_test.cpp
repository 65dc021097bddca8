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
