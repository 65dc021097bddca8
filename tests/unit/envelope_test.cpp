// The p2p wire header (p2p/envelope.h): a standard eager frame carries the envelope's first
// kShortEagerHeader bytes, a synchronous one kEagerHeader bytes, the other frames all of it; decode() takes
// all three and restores what a short header leaves out (len from the payload, the rest zeros).
#include "p2p/envelope.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using ftmpi::p2p::as_bytes;
using ftmpi::p2p::decode;
using ftmpi::p2p::Envelope;
using ftmpi::p2p::FrameKind;
using ftmpi::p2p::kEagerHeader;
using ftmpi::p2p::kShortEagerHeader;

namespace {
Envelope sample(FrameKind kind) {
  Envelope e{};
  e.kind = kind;
  e.flags = ftmpi::p2p::kFlagSync;
  e.context = 12;
  e.src = 3;
  e.tag = 77;
  e.len = 8;
  e.sreq = 0x0001'0000'dead'beefull;
  e.rreq = 0x1234;
  e.addr = 0x5678;
  return e;
}
}  // namespace

TEST(Envelope, SynchronousEagerFrameCarriesSreqAndDecodesWithZeroedTail) {
  const Envelope e = sample(FrameKind::eager);
  const auto bytes = as_bytes(e);
  ASSERT_EQ(bytes.size(), kEagerHeader);
  std::vector<std::byte> wire(bytes.begin(), bytes.end());
  Envelope d;
  std::memset(&d, 0xff, sizeof d);
  ASSERT_TRUE(decode(wire, 8, &d));
  EXPECT_EQ(d.kind, FrameKind::eager);
  EXPECT_EQ(d.flags, e.flags);
  EXPECT_EQ(d.context, e.context);
  EXPECT_EQ(d.src, e.src);
  EXPECT_EQ(d.tag, e.tag);
  EXPECT_EQ(d.len, e.len);
  EXPECT_EQ(d.sreq, e.sreq);  // a synchronous send's ack needs it
  EXPECT_EQ(d.rreq, 0u);
  EXPECT_EQ(d.addr, 0u);
}

TEST(Envelope, StandardEagerFrameCarriesTwentyBytesAndTakesLenFromThePayload) {
  Envelope e = sample(FrameKind::eager);
  e.flags = 0;
  e.epoch = 5;
  const auto bytes = as_bytes(e);
  ASSERT_EQ(bytes.size(), kShortEagerHeader);
  std::vector<std::byte> wire(bytes.begin(), bytes.end());
  Envelope d;
  std::memset(&d, 0xff, sizeof d);
  ASSERT_TRUE(decode(wire, 13, &d));
  EXPECT_EQ(d.kind, FrameKind::eager);
  EXPECT_EQ(d.flags, 0);
  EXPECT_EQ(d.epoch, 5u);
  EXPECT_EQ(d.context, e.context);
  EXPECT_EQ(d.src, e.src);
  EXPECT_EQ(d.tag, e.tag);
  EXPECT_EQ(d.len, 13u);
  EXPECT_EQ(d.reserved2, 0u);
  EXPECT_EQ(d.sreq, 0u);
  EXPECT_EQ(d.rreq, 0u);
  EXPECT_EQ(d.addr, 0u);
}

TEST(Envelope, ShortHeaderOfASynchronousOrNonEagerFrameIsRejected) {
  Envelope e = sample(FrameKind::eager);  // kFlagSync set: its sreq would be lost
  std::vector<std::byte> wire(sizeof(Envelope));
  std::memcpy(wire.data(), &e, sizeof e);
  Envelope d{};
  EXPECT_FALSE(decode(std::span<const std::byte>(wire.data(), kShortEagerHeader), 8, &d));
  e = sample(FrameKind::rts);
  e.flags = 0;
  std::memcpy(wire.data(), &e, sizeof e);
  EXPECT_FALSE(decode(std::span<const std::byte>(wire.data(), kShortEagerHeader), 8, &d));
}

TEST(Envelope, OtherFramesCarryTheWholeEnvelope) {
  for (FrameKind k : {FrameKind::rts, FrameKind::cts, FrameKind::data, FrameKind::fin, FrameKind::sync_ack,
                      FrameKind::ft, FrameKind::retire}) {
    const Envelope e = sample(k);
    const auto bytes = as_bytes(e);
    ASSERT_EQ(bytes.size(), sizeof(Envelope));
    Envelope d{};
    ASSERT_TRUE(decode(bytes, 8, &d));
    EXPECT_EQ(std::memcmp(&d, &e, sizeof e), 0);
  }
}

TEST(Envelope, AWholeEnvelopeOfAnEagerFrameStillDecodes) {  // e.g. from a sender's backlog, any length >= 56
  const Envelope e = sample(FrameKind::eager);
  std::vector<std::byte> wire(sizeof(Envelope));
  std::memcpy(wire.data(), &e, sizeof e);
  Envelope d{};
  ASSERT_TRUE(decode(wire, 8, &d));
  EXPECT_EQ(d.rreq, e.rreq);
}

TEST(Envelope, MalformedHeadersAreRejected) {
  const Envelope rts = sample(FrameKind::rts);
  std::vector<std::byte> wire(sizeof(Envelope));
  std::memcpy(wire.data(), &rts, sizeof rts);
  Envelope d{};
  // a short header is only an eager frame's
  EXPECT_FALSE(decode(std::span<const std::byte>(wire.data(), kEagerHeader), 8, &d));
  // anything shorter than the short header, or between the two lengths
  for (std::size_t n : {std::size_t{0}, std::size_t{8}, kShortEagerHeader - 1, kShortEagerHeader + 1, kEagerHeader - 1, kEagerHeader + 1, sizeof(Envelope) - 1})
    EXPECT_FALSE(decode(std::span<const std::byte>(wire.data(), n), 8, &d)) << n << " bytes";
}
