// Dynamic processes, the pure parts: the spawn request's encoding (src/dpm/spawn_spec.h) and mpiexec's broker
// (tools/mpiexec/dpm_broker.h): cards, ports meeting, failures answering every waiting request, names.
#include <gtest/gtest.h>

#include "boot/pmi_wire.h"
#include "dpm/spawn_spec.h"
#include "dpm_broker.h"

namespace pmi = ftmpi::boot::pmi;
using ftmpi::mpiexec::DpmBroker;

namespace {
pmi::Message msg(const std::string& line) {
  auto m = pmi::parse(line);
  EXPECT_TRUE(m.ok()) << line;
  return m.ok() ? m.value() : pmi::Message{};
}
pmi::Message reply_to(const std::vector<DpmBroker::Reply>& rs, int gid) {
  for (const auto& r : rs)
    if (r.gid == gid) return msg(r.line);
  ADD_FAILURE() << "no reply to " << gid;
  return {};
}
}  // namespace

TEST(SpawnSpec, RoundTrip) {
  std::vector<ftmpi::dpm::SpawnCommand> in(2);
  in[0].command = "./a out";
  in[0].args = {"x y", "", "a,b=c%d"};
  in[0].maxprocs = 3;
  in[0].wdir = "/tmp/w d";
  in[1].command = "b";
  in[1].maxprocs = 1;
  in[1].host = "localhost";
  in[1].path = "/bin:/usr/bin";
  std::string line = "cmd=dpm_spawn";
  for (auto& [k, v] : ftmpi::dpm::encode_spawn(in)) line += " " + k + "=" + v;
  auto m = msg(line);
  auto out = ftmpi::dpm::decode_spawn(m.fields);
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0].command, "./a out");
  EXPECT_EQ((*out)[0].args, in[0].args);
  EXPECT_EQ((*out)[0].maxprocs, 3);
  EXPECT_EQ((*out)[0].wdir, "/tmp/w d");
  EXPECT_TRUE((*out)[1].args.empty());
  EXPECT_EQ((*out)[1].host, "localhost");
  EXPECT_EQ((*out)[1].path, "/bin:/usr/bin");
  EXPECT_FALSE(ftmpi::dpm::decode_spawn(msg("cmd=dpm_spawn ncmd=0").fields).ok());
  EXPECT_FALSE(ftmpi::dpm::pct_decode("%4").ok());
}

TEST(DpmBroker, CardsWaitAndFailWithTheProcess) {
  DpmBroker b("p-");
  b.set_id_limit(4);
  EXPECT_TRUE(b.handle(0, msg("cmd=dpm_card_get gid=1")).empty());  // waits
  auto r = b.handle(1, msg("cmd=dpm_card_put gid=1 card=127.0.0.1:5"));
  EXPECT_EQ(reply_to(r, 0).get("card").value_or(""), "127.0.0.1:5");
  EXPECT_EQ(reply_to(r, 1).cmd, "dpm_card_ok");
  EXPECT_TRUE(b.handle(0, msg("cmd=dpm_card_get gid=2")).empty());
  r = b.gone(2);
  EXPECT_EQ(reply_to(r, 0).get("rc").value_or(""), "1");
  EXPECT_EQ(reply_to(b.handle(0, msg("cmd=dpm_card_get gid=9")), 0).get("rc").value_or(""), "1");  // never existed
}

TEST(DpmBroker, AcceptMeetsConnectEitherOrder) {
  DpmBroker b("p-");
  std::string port = b.open_port(0);
  EXPECT_TRUE(b.handle(0, msg("cmd=dpm_accept port=" + port)).empty());
  auto r = b.handle(5, msg("cmd=dpm_connect port=" + port));
  EXPECT_EQ(reply_to(r, 0).get_int("peer").value_or(-1), 5);
  EXPECT_EQ(reply_to(r, 5).get_int("peer").value_or(-1), 0);
  EXPECT_EQ(reply_to(r, 0).get("pair"), reply_to(r, 5).get("pair"));
  EXPECT_TRUE(b.handle(6, msg("cmd=dpm_connect port=" + port)).empty());  // connect first
  r = b.handle(0, msg("cmd=dpm_accept port=" + port));
  EXPECT_EQ(reply_to(r, 0).get_int("peer").value_or(-1), 6);
  auto bad = reply_to(b.handle(1, msg("cmd=dpm_connect port=nope")), 1);
  EXPECT_EQ(bad.get("err").value_or(""), "port");
}

TEST(DpmBroker, FailuresAnswerWaiters) {
  DpmBroker b("p-");
  std::string port = b.open_port(0);
  EXPECT_TRUE(b.handle(3, msg("cmd=dpm_connect port=" + port)).empty());
  auto r = b.gone(0);  // the owner dies: the waiting connect fails, the port is gone
  EXPECT_EQ(reply_to(r, 3).get("err").value_or(""), "port");
  EXPECT_EQ(reply_to(b.handle(3, msg("cmd=dpm_connect port=" + port)), 3).get("err").value_or(""), "port");
  // A spawned part's process dies before its root connected: the parents' accept fails, now or later.
  std::string sp = b.open_port(1);
  b.reserve_for_part(sp, 10, 2);
  EXPECT_TRUE(b.gone(11).empty());
  EXPECT_EQ(reply_to(b.handle(1, msg("cmd=dpm_accept port=" + sp)), 1).get("err").value_or(""), "spawn");
  std::string sp2 = b.open_port(1);
  b.reserve_for_part(sp2, 20, 2);
  EXPECT_TRUE(b.handle(1, msg("cmd=dpm_accept port=" + sp2)).empty());
  EXPECT_EQ(reply_to(b.gone(20), 1).get("err").value_or(""), "spawn");
}

TEST(DpmBroker, Names) {
  DpmBroker b("p-");
  EXPECT_EQ(reply_to(b.handle(0, msg("cmd=dpm_publish service=s%20x port=p-0")), 0).get("rc").value_or(""), "0");
  EXPECT_EQ(reply_to(b.handle(0, msg("cmd=dpm_publish service=s%20x port=p-1")), 0).get("err").value_or(""), "service");
  EXPECT_EQ(reply_to(b.handle(1, msg("cmd=dpm_lookup service=s%20x")), 1).get("port").value_or(""), "p-0");
  EXPECT_EQ(reply_to(b.handle(1, msg("cmd=dpm_unpublish service=s%20x port=p-0")), 1).get("rc").value_or(""), "0");
  EXPECT_EQ(reply_to(b.handle(1, msg("cmd=dpm_lookup service=s%20x")), 1).get("err").value_or(""), "name");
  EXPECT_EQ(reply_to(b.handle(1, msg("cmd=dpm_unpublish service=s%20x port=p-0")), 1).get("err").value_or(""), "service");
}
