// The PMI-2 client (boot/pmi2_client.h) against a scripted server on a socketpair: the full exchange of a
// rank (init line, fullinit, job-getid, kvs-put/fence/get, info-getjobattr, finalize) with the framing
// checked on the server side, and malformed or refusing replies, each of which must give a clear error
// (never a crash or a hang). Also the PMI-2 codec on its own.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <string>
#include <thread>

#include "boot/pmi2_client.h"
#include "boot/pmi2_wire.h"

using namespace ftmpi::boot;
using ftmpi::Result;
using ftmpi::Status;

namespace {

// The server side of one connection: helpers a script uses.
struct Script {
  int fd;
  std::string pending;
  bool read_more() {
    char b[4096];
    ssize_t n = read(fd, b, sizeof b);
    if (n <= 0) return false;
    pending.append(b, static_cast<size_t>(n));
    return true;
  }
  std::string line() {  // the PMI-1 shaped init line
    while (pending.find('\n') == std::string::npos)
      if (!read_more()) return "";
    size_t nl = pending.find('\n');
    std::string l = pending.substr(0, nl);
    pending.erase(0, nl + 1);
    return l;
  }
  pmi::Message msg() {  // one framed request, decoded (cmd "EOF" when the client closed)
    pmi2::Reader r;
    for (;;) {
      if (!pending.empty()) {
        r.append(pending.data(), pending.size());
        pending.clear();
      }
      auto b = r.next();
      EXPECT_TRUE(b.ok());
      if (b.ok() && b.value()) {
        auto m = pmi2::parse(*b.value());
        EXPECT_TRUE(m.ok());
        return m.ok() ? m.value() : pmi::Message{};
      }
      if (!read_more()) return pmi::Message{"EOF", {}};
    }
  }
  void raw(const std::string& bytes) { ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size())); }
  void reply(std::string_view cmd, std::initializer_list<std::pair<std::string_view, std::string_view>> f) {
    raw(pmi2::encode(cmd, f));
  }
  void init_ok() {
    EXPECT_EQ(line(), "cmd=init pmi_version=2 pmi_subversion=0");
    raw("cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n");
  }
  void fullinit_ok(const char* rank = "1", const char* size = "4") {
    auto m = msg();
    EXPECT_EQ(m.cmd, "fullinit");
    reply("fullinit-response", {{"rc", "0"}, {"pmi-version", "2"}, {"pmi-subversion", "0"}, {"rank", rank},
                                {"size", size}, {"appnum", "0"}, {"debugged", "FALSE"}, {"pmiverbose", "FALSE"}});
  }
};

// Runs `script` as the server while the client connects; returns the client's result.
Result<std::unique_ptr<Pmi2Client>> against(const std::function<void(Script&)>& script, int rank = 1,
                                            std::string jobid = "7.0") {
  int sv[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  std::thread server([&] {
    Script s{sv[1], {}};
    script(s);
    close(sv[1]);  // whatever the client still waits for, it gets EOF: no hang
  });
  auto c = Pmi2Client::connect_on_fd(sv[0], rank, std::move(jobid), false);
  server.join();
  return c;
}

void expect_error(const std::function<void(Script&)>& script, const std::string& needle) {
  auto c = against(script);
  ASSERT_FALSE(c.ok()) << "accepted a bad server (" << needle << ")";
  EXPECT_NE(c.status().message().find(needle), std::string::npos) << c.status().message();
  EXPECT_EQ(c.status().message().rfind("PMI-2", 0), 0u) << c.status().message();
}

}  // namespace

TEST(Pmi2Wire, EncodeFramesAndEscapes) {
  std::string e = pmi2::encode("kvs-put", {{"key", "a"}, {"value", "x;y=z w"}});
  EXPECT_EQ(e, "33    cmd=kvs-put;key=a;value=x;;y=z w;");
  pmi2::Reader r;
  r.append(e.data(), 10);
  EXPECT_FALSE(r.next().value().has_value());
  r.append(e.data() + 10, e.size() - 10);
  auto body = r.next();
  ASSERT_TRUE(body.ok() && body.value());
  auto m = pmi2::parse(*body.value());
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->cmd, "kvs-put");
  EXPECT_EQ(m->get("value").value(), "x;y=z w");
}

TEST(Pmi2Wire, MalformedInputIsAnError) {
  for (const char* bad : {"", "key=v;", "cmd=;", "cmd=x;novalue;", "cmd=x;bad key=1;", "cmd=x;=1;"})
    EXPECT_FALSE(pmi2::parse(bad).ok()) << bad;
  for (const char* head : {"abc   x", "-1    x", "0     x", "1 2   x", "999999"}) {
    pmi2::Reader r;
    r.append(head, std::strlen(head));
    EXPECT_FALSE(r.next().ok()) << head;
  }
  EXPECT_TRUE(pmi2::parse("cmd=x;k=v").ok());  // a last pair without ';' is tolerated
}

TEST(Pmi2Client, FullExchange) {
  std::string put_key, put_value;
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  std::thread server([&] {
    Script s{sv[1], {}};
    s.init_ok();
    auto full = s.msg();
    EXPECT_EQ(full.cmd, "fullinit");
    EXPECT_EQ(full.get("pmirank").value_or(""), "1");
    EXPECT_EQ(full.get("pmijobid").value_or(""), "7.0");
    s.reply("fullinit-response", {{"rc", "0"}, {"rank", "1"}, {"size", "4"}, {"appnum", "0"}});
    EXPECT_EQ(s.msg().cmd, "job-getid");
    s.reply("job-getid-response", {{"jobid", "7.0"}, {"rc", "0"}});
    auto put = s.msg();
    EXPECT_EQ(put.cmd, "kvs-put");
    put_key = put.get("key").value_or("");
    put_value = put.get("value").value_or("");
    s.reply("kvs-put-response", {{"rc", "0"}});
    EXPECT_EQ(s.msg().cmd, "kvs-fence");
    s.reply("kvs-fence-response", {{"rc", "0"}});
    auto get = s.msg();
    EXPECT_EQ(get.cmd, "kvs-get");
    EXPECT_EQ(get.get("key").value_or(""), "tcp.0");
    s.reply("kvs-get-response", {{"rc", "0"}, {"found", "TRUE"}, {"value", "198.18.1.11:4000"}});
    EXPECT_EQ(s.msg().cmd, "kvs-get");
    s.reply("kvs-get-response", {{"rc", "0"}, {"found", "FALSE"}});
    auto attr = s.msg();
    EXPECT_EQ(attr.cmd, "info-getjobattr");
    EXPECT_EQ(attr.get("key").value_or(""), "PMI_process_mapping");
    s.reply("info-getjobattr-response", {{"rc", "0"}, {"found", "TRUE"}, {"value", "(vector,(0,2,2))"}});
    EXPECT_EQ(s.msg().cmd, "info-getjobattr");
    s.reply("info-getjobattr-response", {{"rc", "0"}, {"found", "FALSE"}});
    EXPECT_EQ(s.msg().cmd, "finalize");
    s.reply("finalize-response", {{"rc", "0"}});
    EXPECT_EQ(s.msg().cmd, "EOF");
    close(sv[1]);
  });
  {
    auto c = Pmi2Client::connect_on_fd(sv[0], 1, "7.0", false);
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto& b = *c.value();
    EXPECT_EQ(b.rank(), 1);
    EXPECT_EQ(b.size(), 4);
    EXPECT_EQ(b.job_id(), "7.0");
    EXPECT_TRUE(b.put("tcp.1", "a;b").ok());
    EXPECT_TRUE(b.fence().ok());
    auto v = b.get("tcp.0");
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v.value(), "198.18.1.11:4000");
    EXPECT_FALSE(b.get("nope").ok());
    EXPECT_EQ(b.job_attribute("PMI_process_mapping").value_or(""), "(vector,(0,2,2))");
    EXPECT_FALSE(b.job_attribute("other").has_value());
    EXPECT_TRUE(b.finalize().ok());
  }
  server.join();
  EXPECT_EQ(put_key, "tcp.1");
  EXPECT_EQ(put_value, "a;b");
}

TEST(Pmi2Client, MalformedOrRefusingServers) {
  expect_error([](Script& s) { s.line(); }, "closed the connection during init");
  expect_error([](Script& s) { s.line(); s.raw("hello there\n"); }, "bad init answer");
  expect_error([](Script& s) { s.line(); s.raw("cmd=response_to_init pmi_version=1 rc=0\n"); }, "refused PMI version 2");
  expect_error([](Script& s) { s.line(); s.raw("cmd=response_to_init rc=-1\n"); }, "refused PMI version 2");
  expect_error([](Script& s) { s.line(); s.raw(std::string(5000, 'x')); }, "init answer too long");
  expect_error([](Script& s) { s.init_ok(); s.msg(); s.raw("abc   cmd=fullinit-response;"); }, "length header");
  expect_error([](Script& s) { s.init_ok(); s.msg(); s.raw("999999"); }, "length header");
  expect_error([](Script& s) { s.init_ok(); s.msg(); s.raw("10    key=value;"); }, "cmd=");
  expect_error([](Script& s) { s.init_ok(); s.msg(); s.raw("40    cmd=fullinit-response;rc=0"); }, "closed the connection");
  expect_error([](Script& s) { s.init_ok(); s.msg(); s.reply("fullinit-response", {{"rc", "5"}, {"errmsg", "no such job"}}); },
               "rc=5: no such job");
  expect_error([](Script& s) { s.init_ok(); s.msg(); s.reply("fullinit-response", {{"rc", "zero"}}); }, "bad rc");
  expect_error([](Script& s) { s.init_ok(); s.msg(); s.reply("fullinit-response", {{"size", "4"}}); }, "without rc");
  expect_error([](Script& s) { s.init_ok(); s.msg(); s.reply("fullinit-response", {{"rc", "0"}, {"rank", "1"}}); },
               "valid rank and size");
  expect_error([](Script& s) { s.init_ok(); s.msg(); s.reply("fullinit-response", {{"rc", "0"}, {"rank", "4"}, {"size", "4"}}); },
               "valid rank and size");
  expect_error([](Script& s) { s.init_ok(); s.msg(); s.reply("kvs-fence-response", {{"rc", "0"}}); },
               "expected fullinit-response");
  expect_error([](Script& s) { s.init_ok(); s.fullinit_ok(); s.msg(); s.reply("job-getid-response", {{"rc", "0"}}); },
               "without a jobid");
}

TEST(Pmi2Client, ErrorsAfterInit) {
  // A refused put, a fence answered by garbage, then a closed connection: each call fails cleanly.
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  std::thread server([&] {
    Script s{sv[1], {}};
    s.init_ok();
    s.fullinit_ok();
    s.msg();
    s.reply("job-getid-response", {{"rc", "0"}, {"jobid", "j"}});
    s.msg();
    s.reply("kvs-put-response", {{"rc", "3"}, {"errmsg", "kvs full"}});
    s.msg();
    s.raw("12    cmd=;;;;;;;;");
    close(sv[1]);
  });
  auto c = Pmi2Client::connect_on_fd(sv[0], -1, "", false);
  ASSERT_TRUE(c.ok()) << c.status().message();
  Status put = c.value()->put("k", "v");
  EXPECT_FALSE(put.ok());
  EXPECT_NE(put.message().find("kvs full"), std::string::npos) << put.message();
  Status f = c.value()->fence();
  EXPECT_FALSE(f.ok());
  server.join();
  EXPECT_FALSE(c.value()->get("k").ok());  // the server is gone
  EXPECT_FALSE(c.value()->put("bad key", "v").ok());
}
