// PMI-1 wire codec: encoding, parsing, line splitting, and garbage that must never crash the parser.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "boot/pmi_wire.h"

using namespace ftmpi::boot::pmi;

TEST(PmiWire, EncodeProducesOneLine) {
  EXPECT_EQ(encode("get_maxes"), "cmd=get_maxes\n");
  EXPECT_EQ(encode("put", {{"kvsname", "kvs_1"}, {"key", "k"}, {"value", "v=1"}}),
            "cmd=put kvsname=kvs_1 key=k value=v=1\n");
  EXPECT_EQ(encode("get_result", {{"rc", "0"}, {"value", ""}}), "cmd=get_result rc=0 value=\n");
}

TEST(PmiWire, ParsesWhatItEncodes) {
  auto m = parse(encode("put", {{"kvsname", "kvs_1"}, {"key", "card-3"}, {"value", "shm:a=b"}}));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->cmd, "put");
  ASSERT_EQ(m->fields.size(), 3u);
  EXPECT_EQ(m->get("kvsname").value(), "kvs_1");
  EXPECT_EQ(m->get("key").value(), "card-3");
  EXPECT_EQ(m->get("value").value(), "shm:a=b");  // everything after the first '='
  EXPECT_FALSE(m->get("missing").has_value());
}

TEST(PmiWire, ParsesHydraReplies) {
  auto m = parse("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024\n");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->get_int("vallen_max").value(), 1024);
  auto g = parse("cmd=get_result rc=-1 msg=key_nokey_not_found value=unknown");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->get_int("rc").value(), -1);
  auto b = parse("cmd=barrier_out");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->cmd, "barrier_out");
  EXPECT_TRUE(b->fields.empty());
}

TEST(PmiWire, ToleratesExtraSpacesAndCrLf) {
  auto m = parse("  cmd=init   pmi_version=1  pmi_subversion=1 \r\n");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->cmd, "init");
  EXPECT_EQ(m->get_int("pmi_version").value(), 1);
}

TEST(PmiWire, GetIntRejectsNonNumbers) {
  auto m = parse("cmd=x a=12 b=1x c= d=-4 e=99999999999999");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->get_int("a").value(), 12);
  EXPECT_FALSE(m->get_int("b").has_value());
  EXPECT_FALSE(m->get_int("c").has_value());
  EXPECT_EQ(m->get_int("d").value(), -4);
  EXPECT_FALSE(m->get_int("e").has_value());
}

TEST(PmiWire, RejectsMalformedLines) {
  for (const char* bad : {"", "\n", "   ", "put key=v", "key=v cmd=put", "cmd=", "cmd=put novalue",
                          "cmd=put =v", "cmd=a cmd=b", "=", "cmd"}) {
    auto m = parse(bad);
    EXPECT_FALSE(m.ok()) << "accepted: '" << bad << "'";
    EXPECT_EQ(m.status().code(), ftmpi::Errc::arg);
    EXPECT_FALSE(m.status().message().empty());
  }
  EXPECT_FALSE(parse(std::string("cmd=put key=a\0b", 15)).ok());
  EXPECT_FALSE(parse("cmd=put key=a\nb").ok());
  EXPECT_FALSE(parse("cmd=put value=" + std::string(kLineMax, 'x')).ok());
}

TEST(PmiWire, RandomGarbageNeverCrashes) {
  std::mt19937 rng(12345);
  const std::string alphabet = "cmd= \t\n\r\0abkv=x-_1";
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 64, ' ');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    auto m = parse(s);
    if (m.ok()) {
      EXPECT_FALSE(m->cmd.empty());
    }
  }
  for (int i = 0; i < 2000; ++i) {  // arbitrary bytes
    std::string s(rng() % 200, ' ');
    for (char& c : s) c = static_cast<char>(rng());
    (void)parse(s);
  }
}

TEST(PmiWire, ValidKeysAndValues) {
  EXPECT_TRUE(valid_key("card-0"));
  EXPECT_FALSE(valid_key(""));
  EXPECT_FALSE(valid_key("a b"));
  EXPECT_FALSE(valid_key("a=b"));
  EXPECT_FALSE(valid_key("a\nb"));
  EXPECT_TRUE(valid_value(""));
  EXPECT_TRUE(valid_value("a=b"));
  EXPECT_FALSE(valid_value("a b"));
}

TEST(PmiWire, LineSplitterReassemblesPieces) {
  LineSplitter s;
  std::string stream = "cmd=a x=1\ncmd=b\ncmd=c y=";
  for (char c : stream) s.append(&c, 1);
  EXPECT_EQ(s.next().value(), "cmd=a x=1");
  EXPECT_EQ(s.next().value(), "cmd=b");
  EXPECT_FALSE(s.next().has_value());
  s.append("2\n", 2);
  EXPECT_EQ(s.next().value(), "cmd=c y=2");
  EXPECT_TRUE(s.empty());
}

TEST(PmiWire, LineSplitterDetectsOverflow) {
  LineSplitter s;
  std::string junk(kLineMax + 10, 'z');
  s.append(junk.data(), junk.size());
  EXPECT_FALSE(s.next().has_value());
  EXPECT_TRUE(s.overflowed());
}
