// The launcher's PMI state machine: replies to every command, the KVS, the barrier, finalize/abort events
// and malformed requests.
#include <gtest/gtest.h>

#include "boot/pmi_server.h"
#include "boot/pmi_wire.h"

using ftmpi::boot::PmiServer;
namespace pmi = ftmpi::boot::pmi;

namespace {
pmi::Message only_reply(const PmiServer::Outcome& o, int rank) {
  EXPECT_EQ(o.replies.size(), 1u);
  if (o.replies.empty()) return {};
  EXPECT_EQ(o.replies[0].rank, rank);
  EXPECT_EQ(o.replies[0].line.back(), '\n');
  auto m = pmi::parse(o.replies[0].line);
  EXPECT_TRUE(m.ok());
  return m.value();
}
}  // namespace

TEST(PmiServer, InitAndQueries) {
  PmiServer s(2, "kvs_test");
  auto o = s.handle(1, "cmd=init pmi_version=1 pmi_subversion=1");
  EXPECT_EQ(o.event, PmiServer::Event::initialized);
  auto m = only_reply(o, 1);
  EXPECT_EQ(m.cmd, "response_to_init");
  EXPECT_EQ(m.get_int("rc").value(), 0);

  m = only_reply(s.handle(0, "cmd=get_maxes"), 0);
  EXPECT_EQ(m.cmd, "maxes");
  EXPECT_EQ(m.get_int("vallen_max").value(), 1024);
  m = only_reply(s.handle(0, "cmd=get_my_kvsname"), 0);
  EXPECT_EQ(m.get("kvsname").value(), "kvs_test");
  m = only_reply(s.handle(0, "cmd=get_appnum"), 0);
  EXPECT_EQ(m.get_int("appnum").value(), 0);
  m = only_reply(s.handle(0, "cmd=get_universe_size"), 0);
  EXPECT_EQ(m.get_int("size").value(), 2);
}

TEST(PmiServer, RefusesOtherVersions) {
  PmiServer s(1, "k");
  auto o = s.handle(0, "cmd=init pmi_version=2 pmi_subversion=0");
  EXPECT_EQ(o.event, PmiServer::Event::protocol_error);
  EXPECT_NE(only_reply(o, 0).get_int("rc").value(), 0);
}

TEST(PmiServer, PutGet) {
  PmiServer s(2, "kvs");
  auto m = only_reply(s.handle(0, "cmd=put kvsname=kvs key=card-0 value=abc"), 0);
  EXPECT_EQ(m.cmd, "put_result");
  EXPECT_EQ(m.get_int("rc").value(), 0);
  m = only_reply(s.handle(1, "cmd=get kvsname=kvs key=card-0"), 1);
  EXPECT_EQ(m.cmd, "get_result");
  EXPECT_EQ(m.get_int("rc").value(), 0);
  EXPECT_EQ(m.get("value").value(), "abc");
  m = only_reply(s.handle(1, "cmd=get kvsname=kvs key=nope"), 1);
  EXPECT_EQ(m.get_int("rc").value(), -1);
  m = only_reply(s.handle(1, "cmd=get kvsname=other key=card-0"), 1);
  EXPECT_EQ(m.get_int("rc").value(), -1);
  m = only_reply(s.handle(1, "cmd=put kvsname=kvs key=" + std::string(65, 'k') + " value=x"), 1);
  EXPECT_EQ(m.get_int("rc").value(), -1);
  m = only_reply(s.handle(1, "cmd=put kvsname=kvs key=big value=" + std::string(1025, 'v')), 1);
  EXPECT_EQ(m.get_int("rc").value(), -1);
  m = only_reply(s.handle(1, "cmd=put kvsname=kvs key=empty value="), 1);
  EXPECT_EQ(m.get_int("rc").value(), 0);
}

TEST(PmiServer, BarrierReleasesEveryoneOnce) {
  PmiServer s(3, "kvs");
  EXPECT_TRUE(s.handle(0, "cmd=barrier_in").replies.empty());
  EXPECT_TRUE(s.handle(2, "cmd=barrier_in").replies.empty());
  EXPECT_TRUE(s.handle(2, "cmd=barrier_in").replies.empty());  // a duplicate does not count twice
  EXPECT_EQ(s.barrier_waiting(), 2);
  auto o = s.handle(1, "cmd=barrier_in");
  ASSERT_EQ(o.replies.size(), 3u);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(o.replies[static_cast<size_t>(r)].rank, r);
    EXPECT_EQ(pmi::parse(o.replies[static_cast<size_t>(r)].line).value().cmd, "barrier_out");
  }
  EXPECT_EQ(s.barrier_waiting(), 0);
  EXPECT_TRUE(s.handle(1, "cmd=barrier_in").replies.empty());  // the next barrier starts afresh
}

TEST(PmiServer, FinalizeAndAbortEvents) {
  PmiServer s(2, "kvs");
  auto o = s.handle(0, "cmd=finalize");
  EXPECT_EQ(o.event, PmiServer::Event::finalized);
  EXPECT_EQ(only_reply(o, 0).cmd, "finalize_ack");
  o = s.handle(1, "cmd=abort exitcode=42");
  EXPECT_EQ(o.event, PmiServer::Event::aborted);
  EXPECT_EQ(o.abort_code, 42);
  EXPECT_TRUE(o.replies.empty());
}

TEST(PmiServer, InitackHandshake) {
  PmiServer s(4, "kvs");
  auto o = s.handle(2, "cmd=initack pmiid=2");
  ASSERT_EQ(o.replies.size(), 4u);
  EXPECT_EQ(pmi::parse(o.replies[0].line).value().cmd, "initack");
  EXPECT_EQ(pmi::parse(o.replies[1].line).value().get_int("size").value(), 4);
  EXPECT_EQ(pmi::parse(o.replies[2].line).value().get_int("rank").value(), 2);
}

TEST(PmiServer, GarbageGetsAnErrorReplyNotACrash) {
  PmiServer s(2, "kvs");
  for (const char* bad : {"", "hello", "cmd=", "cmd=frobnicate", "key=v cmd=put", "cmd=get"}) {
    auto o = s.handle(0, bad);
    if (std::string(bad) == "cmd=get") {
      EXPECT_EQ(only_reply(o, 0).get_int("rc").value(), -1);
      continue;
    }
    EXPECT_EQ(o.event, PmiServer::Event::protocol_error) << bad;
    EXPECT_FALSE(o.error.empty());
  }
  EXPECT_EQ(s.handle(5, "cmd=init pmi_version=1").event, PmiServer::Event::protocol_error);
  EXPECT_EQ(s.handle(-1, "cmd=init pmi_version=1").event, PmiServer::Event::protocol_error);
}
