// Agreement messages on the wire (src/ft/agree_wire.*): every kind round-trips, and truncated, padded or
// out-of-range input is refused, never read out of bounds.
#include <gtest/gtest.h>

#include "ft/agree_wire.h"

namespace {
using ftmpi::ft::AgreeMsg;
using ftmpi::ft::RankSet;

AgreeMsg sample(AgreeMsg::Kind k) {
  AgreeMsg m;
  m.kind = k;
  m.decided = k == AgreeMsg::Kind::up;
  m.step = k == AgreeMsg::Kind::fast ? 3 : 0;
  m.view = RankSet({3, 1});
  m.value = {0xffffffff00000001ull, 0x5ull};
  m.failed = RankSet({1});
  return m;
}

TEST(AgreeWire, RoundTripsEveryKind) {
  for (auto k : {AgreeMsg::Kind::up, AgreeMsg::Kind::down, AgreeMsg::Kind::fast}) {
    const AgreeMsg m = sample(k);
    const auto bytes = ftmpi::ft::encode(0x1234567800000009ull, m);
    std::uint64_t id = 0;
    AgreeMsg d;
    ASSERT_TRUE(ftmpi::ft::decode(bytes, &id, &d, 8));
    EXPECT_EQ(id, 0x1234567800000009ull);
    EXPECT_EQ(d.kind, m.kind);
    EXPECT_EQ(d.decided, m.decided);
    EXPECT_EQ(d.step, m.step);
    EXPECT_EQ(d.view, m.view);
    EXPECT_EQ(d.value, m.value);
    EXPECT_EQ(d.failed, m.failed);
  }
  AgreeMsg empty;  // no sets, no value
  const auto bytes = ftmpi::ft::encode(7, empty);
  std::uint64_t id = 0;
  AgreeMsg d;
  ASSERT_TRUE(ftmpi::ft::decode(bytes, &id, &d, 1));
  EXPECT_TRUE(d.view.empty() && d.failed.empty() && d.value.empty());
}

TEST(AgreeWire, RefusesMalformedInput) {
  const auto bytes = ftmpi::ft::encode(1, sample(AgreeMsg::Kind::up));
  std::uint64_t id;
  AgreeMsg d;
  for (std::size_t len = 0; len < bytes.size(); ++len)
    EXPECT_FALSE(ftmpi::ft::decode(std::span(bytes.data(), len), &id, &d, 8)) << "truncated to " << len;
  auto longer = bytes;
  longer.push_back(std::byte{0});
  EXPECT_FALSE(ftmpi::ft::decode(longer, &id, &d, 8));
  EXPECT_FALSE(ftmpi::ft::decode(bytes, &id, &d, 3));  // rank 3 is out of a 3-member communicator
  auto bad_kind = bytes;
  bad_kind[8] = std::byte{9};
  EXPECT_FALSE(ftmpi::ft::decode(bad_kind, &id, &d, 8));
}

}  // namespace
