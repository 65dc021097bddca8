// The p2p request pool (p2p/request_pool.h): get() hands out a request reset to its defaults (a byte copy of a
// fresh request, after its error message is released), with a new incarnation; put() takes it back onto a
// free list linked through the requests; ids of earlier incarnations and of freed requests look up nothing.
#include "p2p/request_pool.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::p2p::ReqKind;
using ftmpi::p2p::Request;
using ftmpi::p2p::RequestPool;

namespace {
void expect_fresh(const Request* r) {
  EXPECT_EQ(r->magic, ftmpi::kMagicRequest);
  EXPECT_EQ(r->kind, ReqKind::send);
  EXPECT_FALSE(r->complete);
  EXPECT_FALSE(r->persistent);
  EXPECT_FALSE(r->user_freed);
  EXPECT_FALSE(r->holds_comm);
  EXPECT_EQ(r->comm, nullptr);
  EXPECT_EQ(r->peer, -1);
  EXPECT_EQ(r->peer_world, -1);
  EXPECT_TRUE(r->error.ok());
  EXPECT_EQ(r->status.source, -1);
  EXPECT_EQ(r->status.bytes, 0u);
  EXPECT_EQ(r->staging, nullptr);
  EXPECT_EQ(r->generic, nullptr);
  EXPECT_EQ(r->next, nullptr);
  EXPECT_EQ(r->prev, nullptr);
  EXPECT_EQ(r->proto_state, 0);
}
}  // namespace

TEST(RequestPool, ReusedRequestIsFreshWithANewIncarnation) {
  RequestPool pool;
  Request* r = pool.get();
  expect_fresh(r);
  const std::uint64_t old_id = RequestPool::id_of(r);
  EXPECT_EQ(pool.lookup(old_id), r);
  // Dirty every kind of field, including an error that owns a message.
  r->kind = ReqKind::recv;
  r->complete = true;
  r->peer = 3;
  r->peer_world = 5;
  r->status.bytes = 99;
  r->error = Status(Errc::truncate, "a message that must be released");
  r->proto_state = 4;
  const auto inc = r->incarnation;
  pool.put(r);
  EXPECT_EQ(pool.lookup(old_id), nullptr);  // freed: its id names nothing
  Request* again = pool.get();
  ASSERT_EQ(again, r);  // the free list is last-in, first-out
  expect_fresh(again);
  EXPECT_EQ(again->incarnation, static_cast<std::uint16_t>(inc + 1));
  EXPECT_EQ(pool.lookup(old_id), nullptr);  // an earlier incarnation's id does not reach the new operation
  EXPECT_EQ(pool.lookup(RequestPool::id_of(again)), again);
  pool.put(again);
}

TEST(RequestPool, GrowsAndHandsOutDistinctRequests) {
  RequestPool pool;
  std::vector<Request*> all;
  std::set<Request*> seen;
  for (int i = 0; i < 1000; ++i) {  // several chunks
    Request* r = pool.get();
    expect_fresh(r);
    EXPECT_TRUE(seen.insert(r).second);
    all.push_back(r);
  }
  for (Request* r : all) pool.put(r);
  for (Request* r : all) EXPECT_EQ(r->magic, ftmpi::kMagicFreed);
  std::set<Request*> second;
  for (int i = 0; i < 1000; ++i) {
    Request* r = pool.get();
    expect_fresh(r);
    EXPECT_TRUE(seen.count(r) == 1);  // no new chunk needed: every request came back
    second.insert(r);
  }
  EXPECT_EQ(second.size(), 1000u);
}
