// The SPSC byte ring of the shared-memory transport, in one process: order, wrap-around (also with stale
// bytes of earlier laps under every word read), full ring, frame sizes and packing, and that zeroed memory
// is an empty ring.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "transport/shm/shm_layout.h"
#include "transport/shm/shm_ring.h"

namespace shm = ftmpi::transport::shm;

namespace {

// A zeroed, cache-line aligned ring in private memory (the same bytes a fresh segment holds).
struct TestRing {
  explicit TestRing(shm::Geometry g) : geometry(g) {
    bytes = sizeof(shm::RingControl) + std::size_t{g.cells} * g.cell_bytes;
    mem = static_cast<std::byte*>(std::aligned_alloc(shm::kCacheLine, bytes));
    std::memset(mem, 0, bytes);
    ctl = reinterpret_cast<shm::RingControl*>(mem);
    cells = mem + sizeof(shm::RingControl);
  }
  ~TestRing() { std::free(mem); }
  shm::RingProducer producer() { return shm::RingProducer(ctl, cells, geometry); }
  shm::RingConsumer consumer() { return shm::RingConsumer(ctl, cells, geometry); }

  shm::Geometry geometry;
  std::size_t bytes;
  std::byte* mem;
  shm::RingControl* ctl;
  std::byte* cells;
};

std::vector<std::byte> pattern(std::size_t n, std::uint32_t seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((seed * 131 + i * 7) & 0xff);
  return v;
}

struct Frame {
  std::vector<std::byte> hdr, payload;
};

int drain_into(shm::RingConsumer& c, int max, std::vector<Frame>& out) {
  return c.drain(max, [&](std::span<const std::byte> h, std::span<const std::byte> p) {
    out.push_back({{h.begin(), h.end()}, {p.begin(), p.end()}});
  });
}

}  // namespace

TEST(ShmLayout, FrameWordRoundTrip) {
  for (std::size_t hl : {std::size_t{0}, std::size_t{20}, std::size_t{56}, ftmpi::transport::kMaxHeader}) {
    for (std::size_t pl : {std::size_t{0}, std::size_t{8}, std::size_t{shm::kMaxPayloadField}}) {
      std::uint32_t w = shm::frame_word(hl, pl);
      EXPECT_TRUE(shm::frame_word_full(w));
      EXPECT_NE(w, shm::kWrapWord);
      EXPECT_EQ(shm::frame_word_hdr_len(w), hl);
      EXPECT_EQ(shm::frame_word_payload_len(w), pl);
    }
  }
  EXPECT_FALSE(shm::frame_word_full(0));  // zero memory holds no frame
  EXPECT_FALSE(shm::frame_word_full(shm::kWrapWord));
  EXPECT_EQ(shm::frame_bytes(0, 20, 8), 32u);  // a small eager message: two per cache line
  EXPECT_EQ(shm::frame_bytes(32, 20, 8), 32u);
  EXPECT_EQ(shm::frame_bytes(0, 0, 0), 32u);
  // Larger frames end 32 bytes into a cache line, so that the word after them is in their last line.
  EXPECT_EQ(shm::frame_bytes(0, 20, 9), 96u);
  EXPECT_EQ(shm::frame_bytes(32, 20, 9), 64u);
  EXPECT_EQ(shm::frame_bytes(64, 56, 8), 96u);
  EXPECT_EQ(shm::frame_bytes(96, 56, 8), 128u);
  const shm::Geometry g{};
  EXPECT_EQ(shm::frame_bytes(0, ftmpi::transport::kMaxHeader, shm::max_payload(g)), g.cell_bytes - 32);
  EXPECT_EQ(shm::frame_bytes(32, ftmpi::transport::kMaxHeader, shm::max_payload(g)), g.cell_bytes);
}

TEST(ShmLayout, GeometryAndSizes) {
  EXPECT_TRUE(shm::valid(shm::Geometry{}));
  EXPECT_FALSE(shm::valid(shm::Geometry{3, 8192}));
  EXPECT_FALSE(shm::valid(shm::Geometry{256, 8192}));
  EXPECT_FALSE(shm::valid(shm::Geometry{64, 100}));
  EXPECT_EQ(shm::max_payload(shm::Geometry{64, 8192}), 8192u - 4 - 64 - 32);
  EXPECT_LE(shm::max_payload(shm::Geometry{2, 128u << 10}), shm::kMaxPayloadField);
  auto l = shm::layout_for(4, shm::Geometry{64, 8192});
  EXPECT_EQ(l.ctrl_offset % shm::kPage, 0u);
  EXPECT_EQ(l.cells_offset % shm::kPage, 0u);
  EXPECT_EQ(l.total, l.cells_offset + 4u * 64 * 8192);
}

TEST(ShmRing, ZeroedMemoryIsEmpty) {
  TestRing r(shm::Geometry{4, 256});
  auto c = r.consumer();
  EXPECT_FALSE(c.nonempty());
  std::vector<Frame> got;
  EXPECT_EQ(drain_into(c, 100, got), 0);
}

TEST(ShmRing, FullRingRejectsThenAcceptsAfterDrain) {
  TestRing r(shm::Geometry{4, 256});  // 1024 bytes
  auto p = r.producer();
  auto c = r.consumer();
  auto h = pattern(56, 1);
  // 4 + 56 + 8 bytes: the first frame takes [0, 96), the next ones 128 bytes each (ending 32 bytes into a
  // line); 8 fit (the last ends at 992, its 0 word at 992 + 4 <= 1024).
  std::uint32_t k = 0;
  while (p.try_push(h, pattern(8, k))) ++k;
  EXPECT_EQ(k, 8u);
  std::vector<Frame> got;
  // The 9th wraps (32 bytes wasted at the end) and takes [0, 96) again: 992 + 32 + 96 + 4 bytes must lie
  // within head + 1024, so the first frame's room is not enough.
  EXPECT_EQ(drain_into(c, 1, got), 1);
  EXPECT_FALSE(p.try_push(h, pattern(8, k)));
  EXPECT_EQ(drain_into(c, 1, got), 1);
  EXPECT_TRUE(p.try_push(h, pattern(8, k++)));
  EXPECT_EQ(drain_into(c, 100, got), static_cast<int>(k) - 2);
  ASSERT_EQ(got.size(), k);
  for (std::uint32_t i = 0; i < k; ++i) EXPECT_EQ(got[i].payload, pattern(8, i)) << i;
  EXPECT_FALSE(c.nonempty());
}

TEST(ShmRing, SmallFramesArePackedTwoPerCacheLine) {
  TestRing r(shm::Geometry{4, 256});
  auto p = r.producer();
  auto c = r.consumer();
  for (std::uint32_t i = 0; i < 3; ++i) ASSERT_TRUE(p.try_push(pattern(20, i), pattern(8, ~i)));
  ASSERT_TRUE(p.try_push(pattern(20, 3), pattern(9, 3)));  // 33 bytes at 96: up to 160
  ASSERT_TRUE(p.try_push(pattern(20, 4), pattern(1, 4)));
  auto word = [&](std::size_t at) {
    std::uint32_t w;
    std::memcpy(&w, r.cells + at, sizeof w);
    return w;
  };
  EXPECT_EQ(word(0), shm::frame_word(20, 8));
  EXPECT_EQ(word(32), shm::frame_word(20, 8));
  EXPECT_EQ(word(64), shm::frame_word(20, 8));
  EXPECT_EQ(word(96), shm::frame_word(20, 9));
  EXPECT_EQ(word(160), shm::frame_word(20, 1));
  EXPECT_EQ(word(192), 0u);  // where the consumer looks next
  std::vector<Frame> got;
  EXPECT_EQ(drain_into(c, 10, got), 5);
  for (std::uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(got[i].hdr, pattern(20, i));
    EXPECT_EQ(got[i].payload, pattern(8, ~i));
  }
  EXPECT_EQ(got[3].payload, pattern(9, 3));
  EXPECT_EQ(got[4].payload, pattern(1, 4));
  EXPECT_FALSE(c.nonempty());
}

TEST(ShmRing, FrameEndingExactlyAtTheRingEndContinuesAtZero) {
  TestRing r(shm::Geometry{2, 128});  // 256 bytes, 32-byte frames
  auto p = r.producer();
  auto c = r.consumer();
  std::vector<Frame> got;
  for (std::uint32_t i = 0; i < 7; ++i) ASSERT_TRUE(p.try_push({}, pattern(28, i)));
  EXPECT_FALSE(p.try_push({}, pattern(28, 7)));  // 256 + 4 bytes would be needed
  ASSERT_EQ(drain_into(c, 10, got), 7);
  ASSERT_TRUE(p.try_push({}, pattern(28, 7)));  // [224, 256): its 0 word goes to offset 0
  ASSERT_TRUE(p.try_push({}, pattern(28, 8)));  // at 0, over the first lap's frame
  ASSERT_EQ(drain_into(c, 10, got), 2);
  for (std::uint32_t i = 0; i < 9; ++i) EXPECT_EQ(got[i].payload, pattern(28, i)) << i;
  EXPECT_FALSE(c.nonempty());
}

TEST(ShmRing, DeliverReturningFalseStopsTheDrainAfterThatFrame) {
  TestRing r(shm::Geometry{8, 256});
  auto p = r.producer();
  auto c = r.consumer();
  for (std::uint32_t i = 0; i < 5; ++i) EXPECT_TRUE(p.try_push(pattern(8, i), {}));
  std::vector<std::vector<std::byte>> got;
  auto take_until_second = [&](std::span<const std::byte> h, std::span<const std::byte>) {
    got.emplace_back(h.begin(), h.end());
    return got.size() % 2 != 0;  // stop after every second frame
  };
  EXPECT_EQ(c.drain(100, take_until_second), 2);  // the stopping frame is consumed
  EXPECT_EQ(c.drain(100, take_until_second), 2);
  EXPECT_EQ(c.drain(100, take_until_second), 1);  // ring empty before any stop
  EXPECT_EQ(c.drain(100, take_until_second), 0);
  ASSERT_EQ(got.size(), 5u);
  for (std::uint32_t i = 0; i < 5; ++i) EXPECT_EQ(got[i], pattern(8, i)) << i;
  // The consumed cells went back to the producer.
  for (std::uint32_t i = 0; i < 8; ++i) EXPECT_TRUE(p.try_push(pattern(8, i), {}));
}

TEST(ShmRing, WrapsAroundManyLapsInOrder) {
  shm::Geometry g{8, 192};
  TestRing r(g);
  auto p = r.producer();
  auto c = r.consumer();
  std::uint32_t sent = 0, received = 0;
  const std::uint32_t total = 5000;  // hundreds of laps, frames of every size at every offset
  std::vector<Frame> got;
  while (received < total) {
    // Push a varying number (1..8) of frames of varying sizes, then drain a varying number.
    for (std::uint32_t k = 0; k < 1 + sent % 8 && sent < total; ++k) {
      std::size_t hl = sent % 65;
      std::size_t pl = (sent * 13) % (g.cell_bytes - shm::kCellMeta - 32 - hl + 1);
      if (!p.try_push(pattern(hl, sent), pattern(pl, ~sent))) break;
      ++sent;
    }
    got.clear();
    drain_into(c, 1 + static_cast<int>(received % 5), got);
    for (const Frame& f : got) {
      std::size_t hl = received % 65;
      std::size_t pl = (received * 13) % (g.cell_bytes - shm::kCellMeta - 32 - hl + 1);
      ASSERT_EQ(f.hdr, pattern(hl, received)) << received;
      ASSERT_EQ(f.payload, pattern(pl, ~received)) << received;
      ++received;
    }
  }
  EXPECT_EQ(p.produced(), total);
  EXPECT_EQ(c.consumed(), total);
  EXPECT_FALSE(c.nonempty());
}

// The reservation frontier (shm_transport.cpp reserves a ring's pages chunk by chunk): no byte at or past
// it is written, a push it stops says so (and a push stopped by a full ring does not), and a producer whose
// frontier is moved the way the transport moves it (up to the chunk holding the stopped push's end, the
// whole ring once the first lap wraps) carries every frame in order over many laps.
TEST(ShmRing, FrontierStopsPushesUntilMovedAndNothingIsWrittenPastIt) {
  shm::Geometry g{8, 192};  // 1536 bytes
  TestRing r(g);
  const std::size_t ring = std::size_t{g.cells} * g.cell_bytes;
  const std::size_t chunk = 256;
  std::memset(r.cells + chunk, 0xab, ring - chunk);  // never read: the consumer stops at the producer's 0 word
  auto p = r.producer();
  auto c = r.consumer();
  p.set_frontier(chunk);
  std::uint32_t sent = 0, received = 0;
  auto hl = [](std::uint32_t k) { return std::size_t{k % 41}; };
  auto pl = [&](std::uint32_t k) { return (k * 13) % (g.cell_bytes - shm::kCellMeta - 32 - hl(k) + 1); };
  // First lap: push until the frontier stops us; nothing past it changed.
  while (p.try_push(pattern(hl(sent), sent), pattern(pl(sent), ~sent))) ++sent;
  ASSERT_TRUE(p.stopped_by_frontier());
  EXPECT_GT(p.wanted(), chunk);
  for (std::size_t i = chunk; i < ring; ++i) ASSERT_EQ(r.cells[i], std::byte{0xab}) << i;
  const std::uint32_t total = 3000;
  std::vector<Frame> got;
  while (received < total) {
    for (std::uint32_t k = 0; k < 1 + sent % 6 && sent < total; ++k) {
      if (p.try_push(pattern(hl(sent), sent), pattern(pl(sent), ~sent))) {
        ++sent;
        continue;
      }
      if (!p.stopped_by_frontier()) break;  // full: drain first
      const std::uint64_t w = p.wanted();
      const std::size_t to = w < ring ? std::min((static_cast<std::size_t>(w) + chunk - 1) / chunk * chunk, ring) : ring;
      ASSERT_GT(to, p.frontier());
      for (std::size_t i = to; i < ring; ++i) ASSERT_EQ(r.cells[i], std::byte{0xab}) << i;
      p.set_frontier(to < ring ? to : shm::RingProducer::kNoFrontier);
    }
    got.clear();
    drain_into(c, 1 + static_cast<int>(received % 4), got);
    for (const Frame& f : got) {
      ASSERT_EQ(f.hdr, pattern(hl(received), received)) << received;
      ASSERT_EQ(f.payload, pattern(pl(received), ~received)) << received;
      ++received;
    }
  }
  EXPECT_EQ(p.frontier(), shm::RingProducer::kNoFrontier);
  EXPECT_EQ(c.consumed(), total);
  // A full ring (no frontier) is not "stopped by the frontier".
  while (p.try_push(pattern(8, 1), pattern(8, 2))) {
  }
  EXPECT_FALSE(p.stopped_by_frontier());
}

TEST(ShmRing, MaxSizeAndEmptyFrames) {
  shm::Geometry g{2, 4096};
  TestRing r(g);
  auto p = r.producer();
  auto c = r.consumer();
  auto h = pattern(ftmpi::transport::kMaxHeader, 9);
  auto big = pattern(shm::max_payload(g), 10);
  ASSERT_TRUE(p.try_push(h, big));
  ASSERT_TRUE(p.try_push({}, {}));
  std::vector<Frame> got;
  EXPECT_EQ(drain_into(c, 10, got), 2);
  EXPECT_EQ(got[0].hdr, h);
  EXPECT_EQ(got[0].payload, big);
  EXPECT_TRUE(got[1].hdr.empty());
  EXPECT_TRUE(got[1].payload.empty());
}

TEST(ShmRing, ProducerAndConsumerResumeFromSharedState) {
  TestRing r(shm::Geometry{4, 256});
  {
    auto p = r.producer();
    auto c = r.consumer();
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(p.try_push({}, pattern(4, static_cast<std::uint32_t>(i))));
    std::vector<Frame> got;
    ASSERT_EQ(drain_into(c, 2, got), 2);
  }
  auto p = r.producer();  // tail and head (bytes) read back from RingControl
  auto c = r.consumer();
  std::vector<Frame> got;
  EXPECT_TRUE(p.try_push({}, pattern(4, 3)));
  EXPECT_EQ(drain_into(c, 10, got), 2);
  EXPECT_EQ(got[0].payload, pattern(4, 2));
  EXPECT_EQ(got[1].payload, pattern(4, 3));
}

// One side's "I made progress" signal to the other: a counter bumped under a mutex and a condition variable.
// A thread that finds the ring full (producer) or empty (consumer) sleeps until the other side moved, rather
// than spinning on yield(): on a loaded machine a yielding thread burns its time slices while the thread it
// waits for is not running, and the handoff rate drops to one ring-full per scheduler round.
class Progress {
 public:
  std::uint64_t seen() {
    std::lock_guard<std::mutex> lk(m_);
    return count_;
  }
  void bump() {
    {
      std::lock_guard<std::mutex> lk(m_);
      ++count_;
    }
    cv_.notify_one();
  }
  // Returns when count() != seen or after `most` (the caller re-checks the ring either way).
  void wait_past(std::uint64_t seen, std::chrono::milliseconds most) {
    std::unique_lock<std::mutex> lk(m_);
    cv_.wait_for(lk, most, [&] { return count_ != seen; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::uint64_t count_ = 0;
};

// Producer and consumer on two threads (also the configuration a ThreadSanitizer build checks): every frame
// arrives once, in order, with its content, across thousands of wrap-arounds of a 4 KiB ring. No throughput is
// assumed: each side sleeps while the other has to move, and the test fails only if neither side makes any
// progress for 20 s (a lost frame or a stuck ring), however slowly a loaded machine runs them.
TEST(ShmRing, TwoThreadsKeepOrderAndContent) {
  shm::Geometry g{16, 256};
  TestRing r(g);
  constexpr std::uint32_t kFrames = 200000;
  constexpr auto kStall = std::chrono::seconds(20);
  std::atomic<bool> stop{false};  // the consumer gave up: the producer must not wait for room forever
  Progress room, data;            // room: the consumer freed cells; data: the producer published frames
  std::thread producer([&] {
    auto p = r.producer();
    for (std::uint32_t i = 0; i < kFrames && !stop.load();) {
      std::uint32_t hdr[2] = {i, ~i};
      auto payload = pattern(i % 150, i);
      const std::uint64_t before = room.seen();  // read before trying: a drain after it changes the count
      if (p.try_push({reinterpret_cast<const std::byte*>(hdr), sizeof hdr}, payload)) {
        ++i;
        data.bump();
      } else {
        room.wait_past(before, std::chrono::milliseconds(100));
      }
    }
  });
  auto c = r.consumer();
  std::uint32_t next = 0;
  bool bad = false;
  auto last_progress = std::chrono::steady_clock::now();
  while (next < kFrames && !c.broken() && std::chrono::steady_clock::now() - last_progress < kStall) {
    const std::uint64_t before = data.seen();
    int n = c.drain(8, [&](std::span<const std::byte> h, std::span<const std::byte> p) {
      std::uint32_t hdr[2];
      std::memcpy(hdr, h.data(), sizeof hdr);
      auto want = pattern(next % 150, next);
      if (h.size() != sizeof hdr || hdr[0] != next || hdr[1] != ~next || p.size() != want.size() ||
          std::memcmp(p.data(), want.data(), want.size()) != 0)
        bad = true;
      ++next;
    });
    if (n > 0) {
      room.bump();
      last_progress = std::chrono::steady_clock::now();
    } else {
      data.wait_past(before, std::chrono::milliseconds(100));
    }
  }
  stop.store(true);
  room.bump();
  producer.join();
  EXPECT_FALSE(bad);
  EXPECT_FALSE(c.broken());
  EXPECT_EQ(next, kFrames);
}

TEST(ShmRing, CorruptedFrameWordStopsTheRing) {
  shm::Geometry g{4, 256};
  TestRing r(g);
  auto p = r.producer();
  auto c = r.consumer();
  ASSERT_TRUE(p.try_push({}, pattern(8, 0)));
  ASSERT_TRUE(p.try_push({}, pattern(8, 1)));
  // Overwrite the second frame's word (at byte 32) with a payload length larger than a frame may be.
  auto* word = reinterpret_cast<std::uint32_t*>(r.cells + 32);
  *word = shm::frame_word(0, 1000);
  std::vector<Frame> got;
  EXPECT_EQ(drain_into(c, 10, got), 1);
  EXPECT_TRUE(c.broken());
  EXPECT_EQ(drain_into(c, 10, got), 0);
}
