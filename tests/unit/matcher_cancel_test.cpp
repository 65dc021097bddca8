// The receiver's half of a send cancellation (Engine::cancel, p2p/envelope.h FrameKind::cancel):
// Matcher::find_unexpected removes exactly the unexpected message the predicate picks (the cancelled
// send's rts or synchronous eager frame, by sender and send request id), keeps the others in arrival order
// for matching, and finds nothing once the message was matched.
#include "p2p/matcher.h"

#include <gtest/gtest.h>

using ftmpi::p2p::Envelope;
using ftmpi::p2p::FrameKind;
using ftmpi::p2p::Matcher;
using ftmpi::p2p::Unexpected;

namespace {
Unexpected* message(Matcher& m, int src_world, int tag, std::uint64_t sreq, FrameKind kind) {
  Unexpected* u = m.make_unexpected();
  u->env.kind = kind;
  u->env.src = src_world;
  u->env.tag = tag;
  u->env.sreq = sreq;
  u->src_world = src_world;
  return u;
}

auto by_request(int src_world, std::uint64_t sreq) {
  return [=](const Unexpected& x) { return x.src_world == src_world && x.env.sreq == sreq; };
}
}  // namespace

TEST(MatcherCancel, RemovesOnlyTheCancelledMessage) {
  Matcher m;
  m.add_unexpected(4, message(m, 1, 7, 100, FrameKind::rts));
  m.add_unexpected(4, message(m, 1, 7, 200, FrameKind::rts));
  m.add_unexpected(4, message(m, 2, 7, 100, FrameKind::rts));  // same id, another sender
  Unexpected* u = m.find_unexpected(4, by_request(1, 100));
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->env.sreq, 100u);
  EXPECT_EQ(u->src_world, 1);
  m.recycle(u);
  EXPECT_EQ(m.unexpected_count(), 2u);
  // The others match as before, in arrival order.
  Unexpected* a = m.match_unexpected(4, 1, 7);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->env.sreq, 200u);
  m.recycle(a);
  Unexpected* b = m.match_unexpected(4, -1, -1);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->src_world, 2);
  m.recycle(b);
  EXPECT_EQ(m.unexpected_count(), 0u);
}

TEST(MatcherCancel, NothingOnceMatchedOrOnAnotherContext) {
  Matcher m;
  m.add_unexpected(4, message(m, 1, 7, 100, FrameKind::rts));
  EXPECT_EQ(m.find_unexpected(5, by_request(1, 100)), nullptr);  // another communicator's context
  EXPECT_EQ(m.find_unexpected(99, by_request(1, 100)), nullptr);  // a context never used here
  Unexpected* a = m.match_unexpected(4, 1, 7);                    // a receive took it
  ASSERT_NE(a, nullptr);
  m.recycle(a);
  EXPECT_EQ(m.find_unexpected(4, by_request(1, 100)), nullptr);  // the cancel is declined
}
