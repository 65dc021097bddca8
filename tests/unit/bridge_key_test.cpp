// The exact names of MPI_Intercomm_create's bridges (src/ft/bridge_key.h): the key's order, the side lookup,
// and the trailer every bridge frame carries — round trip, and every malformed or unknown-version trailer
// refused (the frame is then dropped), never read past the payload.
#include <gtest/gtest.h>

#include <cstring>

#include "ft/bridge_key.h"

namespace {

using ftmpi::ft::BridgeKey;
using ftmpi::ft::BridgeKeyParse;
using ftmpi::ft::BridgeSide;

BridgeKey sample() {
  return BridgeKey::of(BridgeSide{26, 2, 356, {2, 3, 9}}, BridgeSide{34, 0, 4, {0, 1}});
}

std::vector<std::byte> frame(const std::vector<std::byte>& head, const BridgeKey& k) {
  std::vector<std::byte> out = head;
  ftmpi::ft::append_bridge_key(out, k);
  return out;
}

void poke_u32(std::vector<std::byte>& b, std::size_t from_end, std::uint32_t v) {
  std::memcpy(b.data() + b.size() - from_end, &v, sizeof v);
}

TEST(BridgeKey, OrderedBySmallestMember) {
  const BridgeKey k = sample();
  EXPECT_EQ(k.a.members, (std::vector<int>{0, 1}));
  EXPECT_EQ(k.b.members, (std::vector<int>{2, 3, 9}));
  EXPECT_EQ(k, BridgeKey::of(k.b, k.a));
  EXPECT_EQ(k.members(), (std::vector<int>{0, 1, 2, 3, 9}));
  EXPECT_EQ(k.side_of(9), &k.b);
  EXPECT_EQ(k.side_of(1), &k.a);
  EXPECT_EQ(k.side_of(4), nullptr);
}

TEST(BridgeKey, SidesDifferingOnlyByCountAreDistinctBridges) {
  BridgeKey k = sample(), l = sample();
  l.b.count++;
  EXPECT_NE(k, l);
  EXPECT_TRUE(k.b.same_caller(l.b));
  l.b.ctx += 2;
  EXPECT_FALSE(k.b.same_caller(l.b));
}

TEST(BridgeKey, TrailerRoundTrip) {
  const std::vector<std::byte> head = {std::byte{1}, std::byte{2}, std::byte{3}};
  const std::vector<std::byte> f = frame(head, sample());
  EXPECT_TRUE(ftmpi::ft::has_bridge_trailer(f));
  std::span<const std::byte> got_head;
  BridgeKey got;
  ASSERT_EQ(ftmpi::ft::split_bridge_key(f, &got_head, &got), BridgeKeyParse::ok);
  EXPECT_EQ(got, sample());
  EXPECT_EQ(std::vector<std::byte>(got_head.begin(), got_head.end()), head);
  // An empty head (a greeting's instance word is not part of the trailer).
  ASSERT_EQ(ftmpi::ft::split_bridge_key(frame({}, sample()), &got_head, &got), BridgeKeyParse::ok);
  EXPECT_TRUE(got_head.empty());
}

TEST(BridgeKey, NoTrailer) {
  std::span<const std::byte> head;
  BridgeKey k;
  std::vector<std::byte> junk(40, std::byte{7});
  EXPECT_EQ(ftmpi::ft::split_bridge_key(junk, &head, &k), BridgeKeyParse::none);
  EXPECT_EQ(ftmpi::ft::split_bridge_key({}, &head, &k), BridgeKeyParse::none);
}

TEST(BridgeKey, UnknownVersionRefused) {
  std::vector<std::byte> f = frame({}, sample());
  poke_u32(f, 8, 2);
  std::span<const std::byte> head;
  BridgeKey k;
  EXPECT_EQ(ftmpi::ft::split_bridge_key(f, &head, &k), BridgeKeyParse::unknown_version);
}

TEST(BridgeKey, MalformedRefused) {
  std::span<const std::byte> head;
  BridgeKey k;
  auto parse = [&](const std::vector<std::byte>& f) { return ftmpi::ft::split_bridge_key(f, &head, &k); };
  {  // lengths beyond the payload
    std::vector<std::byte> f = frame({}, sample());
    poke_u32(f, 16, 1000);
    EXPECT_EQ(parse(f), BridgeKeyParse::malformed);
    poke_u32(f, 16, 0xffffffffu);
    EXPECT_EQ(parse(f), BridgeKeyParse::malformed);
  }
  {  // an empty side
    std::vector<std::byte> f = frame({}, sample());
    poke_u32(f, 12, 0);
    EXPECT_EQ(parse(f), BridgeKeyParse::malformed);
  }
  {  // the magic alone
    std::vector<std::byte> f(16, std::byte{0});
    poke_u32(f, 4, ftmpi::ft::kBridgeKeyMagic);
    poke_u32(f, 8, ftmpi::ft::kBridgeKeyVersion);
    EXPECT_EQ(parse(f), BridgeKeyParse::malformed);
  }
  {  // members not sorted, overlapping sides, sides out of order, a lowest member outside its side
    BridgeKey bad = sample();
    bad.b.members = {3, 2, 9};
    EXPECT_EQ(parse(frame({}, bad)), BridgeKeyParse::malformed);
    bad = sample();
    bad.b.members = {1, 3, 9};
    bad.b.low = 1;
    EXPECT_EQ(parse(frame({}, bad)), BridgeKeyParse::malformed);
    bad = sample();
    std::swap(bad.a, bad.b);
    EXPECT_EQ(parse(frame({}, bad)), BridgeKeyParse::malformed);
    bad = sample();
    bad.a.low = 5;
    EXPECT_EQ(parse(frame({}, bad)), BridgeKeyParse::malformed);
    bad = sample();
    bad.a.members = {-1, 1};
    bad.a.low = 1;
    EXPECT_EQ(parse(frame({}, bad)), BridgeKeyParse::malformed);
  }
  {  // every truncation of a valid frame either parses as something else or is refused: never a crash
    const std::vector<std::byte> f = frame({std::byte{9}}, sample());
    for (std::size_t cut = 0; cut < f.size(); ++cut) {
      std::vector<std::byte> t(f.begin() + static_cast<std::ptrdiff_t>(cut), f.end());
      const BridgeKeyParse r = parse(t);
      if (r == BridgeKeyParse::ok) {
        EXPECT_EQ(k, sample());
      }
    }
  }
}

}  // namespace
