// Partitioned communication's pure parts (p2p/partitioned.h): the tag spaces (0x60000000 and up, above a
// communicator's collectives and its persistent collectives' channels; handshake and data tags apart) and send_span, which decides which send
// partitions a receive partition waits for when the two sides partition differently.
#include "p2p/partitioned.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace part = ftmpi::p2p::part;

TEST(PartitionedTags, HandshakeAndDataTagsStayInTheirRanges) {
  for (int t : {0, 1, 77, (1 << 29) - 1, 1 << 29, std::numeric_limits<int>::max()}) {
    const int h = part::hs_tag(t);
    EXPECT_GE(h, part::kHsTagBase);
    EXPECT_GE(h, 0x60000000);  // above coll::TagChannel's 0x40000000-0x5fffffff
    EXPECT_LT(h, part::kDataTagBase);
  }
  EXPECT_NE(part::hs_tag(1), part::hs_tag(2));
  EXPECT_EQ(part::hs_tag(5), part::hs_tag(5 + (1 << 28)));  // the documented limit
  for (std::uint32_t base : {0u, 17u, part::kDataTagSpan - 1}) {
    for (std::uint64_t i : {0ull, 1ull, 8191ull}) {
      const int d = part::data_tag(base, i);
      EXPECT_GE(d, part::kDataTagBase);
      EXPECT_GT(d, 0);  // below 2^31
    }
  }
  EXPECT_EQ(part::data_tag(part::kDataTagSpan - 1, 1), part::kDataTagBase);  // wraps inside its range
}

namespace {
void span(std::uint64_t j, std::uint64_t rb, std::uint64_t sb, std::uint64_t ns, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t l = 99, h = 99;
  part::send_span(j, rb, sb, ns, &l, &h);
  EXPECT_EQ(l, lo) << "j=" << j << " rbytes=" << rb << " sbytes=" << sb;
  EXPECT_EQ(h, hi) << "j=" << j << " rbytes=" << rb << " sbytes=" << sb;
}
}  // namespace

TEST(PartitionedSpan, EqualPartitions) {
  for (std::uint64_t j = 0; j < 8; ++j) span(j, 32, 32, 8, j, j);
}

TEST(PartitionedSpan, ReceivePartitionsSmaller) {
  // 8 send partitions of 64 bytes, 32 receive partitions of 16: four receive partitions per send partition
  span(0, 16, 64, 8, 0, 0);
  span(3, 16, 64, 8, 0, 0);
  span(4, 16, 64, 8, 1, 1);
  span(31, 16, 64, 8, 7, 7);
}

TEST(PartitionedSpan, ReceivePartitionsLarger) {
  // 32 send partitions of 16 bytes, 4 receive partitions of 128
  span(0, 128, 16, 32, 0, 7);
  span(3, 128, 16, 32, 24, 31);
}

TEST(PartitionedSpan, UnalignedBoundaries) {
  // receive partitions of 24 bytes over send partitions of 16: partition 1 = bytes [24, 48) = send 1 and 2
  span(0, 24, 16, 6, 0, 1);
  span(1, 24, 16, 6, 1, 2);
  span(2, 24, 16, 6, 3, 4);  // bytes [48, 72)
}

TEST(PartitionedSpan, BeyondTheMessageOrEmpty) {
  // a receive larger than the message: its last partitions wait for nothing
  std::uint64_t l = 0, h = 0;
  part::send_span(5, 64, 64, 2, &l, &h);
  EXPECT_GT(l, h);
  part::send_span(0, 64, 64, 0, &l, &h);  // no send partition at all
  EXPECT_GT(l, h);
  span(2, 0, 16, 4, 0, 3);  // zero-byte receive partitions wait for the whole message
  span(0, 16, 0, 4, 0, 3);
}
