// The SPSC cell ring of the shared-memory transport, in one process: order, wrap-around, full ring,
// frame sizes, and that zeroed memory is an empty ring.
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

TEST(ShmLayout, CellWordRoundTrip) {
  for (std::uint64_t pos : {0ull, 1ull, 254ull, 255ull, 256ull, 1ull << 40}) {
    std::uint32_t w = shm::cell_word(pos, 56, shm::kMaxPayloadField);
    EXPECT_TRUE(shm::cell_word_full(w, pos));
    EXPECT_FALSE(shm::cell_word_full(w, pos + 1));
    EXPECT_FALSE(shm::cell_word_full(w, pos + 128));
    EXPECT_EQ(shm::cell_word_hdr_len(w), 56u);
    EXPECT_EQ(shm::cell_word_payload_len(w), shm::kMaxPayloadField);
  }
  EXPECT_FALSE(shm::cell_word_full(0, 0));  // zero memory is empty at position 0
}

TEST(ShmLayout, GeometryAndSizes) {
  EXPECT_TRUE(shm::valid(shm::Geometry{}));
  EXPECT_FALSE(shm::valid(shm::Geometry{3, 8192}));
  EXPECT_FALSE(shm::valid(shm::Geometry{256, 8192}));
  EXPECT_FALSE(shm::valid(shm::Geometry{64, 100}));
  EXPECT_EQ(shm::max_payload(shm::Geometry{64, 8192}), 8192u - 4 - 64);
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
  TestRing r(shm::Geometry{4, 256});
  auto p = r.producer();
  auto c = r.consumer();
  auto h = pattern(56, 1);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(p.try_push(h, pattern(8, static_cast<std::uint32_t>(i))));
  EXPECT_FALSE(p.try_push(h, {}));
  std::vector<Frame> got;
  EXPECT_EQ(drain_into(c, 1, got), 1);
  EXPECT_TRUE(p.try_push(h, pattern(8, 4)));
  EXPECT_FALSE(p.try_push(h, {}));
  EXPECT_EQ(drain_into(c, 100, got), 4);
  ASSERT_EQ(got.size(), 5u);
  for (std::uint32_t i = 0; i < 5; ++i) EXPECT_EQ(got[i].payload, pattern(8, i)) << i;
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
  const std::uint32_t total = 5000;  // > 19 laps of the 8-bit sequence
  std::vector<Frame> got;
  while (received < total) {
    // Push a varying number (1..8) of frames of varying sizes, then drain a varying number.
    for (std::uint32_t k = 0; k < 1 + sent % 8 && sent < total; ++k) {
      std::size_t hl = sent % 65;
      std::size_t pl = (sent * 13) % (g.cell_bytes - shm::kCellMeta - hl + 1);
      if (!p.try_push(pattern(hl, sent), pattern(pl, ~sent))) break;
      ++sent;
    }
    got.clear();
    drain_into(c, 1 + static_cast<int>(received % 5), got);
    for (const Frame& f : got) {
      std::size_t hl = received % 65;
      std::size_t pl = (received * 13) % (g.cell_bytes - shm::kCellMeta - hl + 1);
      ASSERT_EQ(f.hdr, pattern(hl, received)) << received;
      ASSERT_EQ(f.payload, pattern(pl, ~received)) << received;
      ++received;
    }
  }
  EXPECT_EQ(p.produced(), total);
  EXPECT_EQ(c.consumed(), total);
  EXPECT_FALSE(c.nonempty());
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

TEST(ShmRing, SmallFrameFitsInFirstCacheLine) {
  // A 56-byte p2p envelope plus a 4-byte payload: meta + header + payload within 64 bytes.
  EXPECT_LE(shm::kCellMeta + 56 + 4, shm::kCacheLine);
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
  auto p = r.producer();  // tail = 3, head = 2 read back from RingControl
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
// arrives once, in order, with its content, across ~12500 wrap-arounds of a 16-cell ring. No throughput is
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

TEST(ShmRing, CorruptedCellStopsTheRing) {
  shm::Geometry g{4, 256};
  TestRing r(g);
  auto p = r.producer();
  auto c = r.consumer();
  ASSERT_TRUE(p.try_push({}, pattern(8, 0)));
  ASSERT_TRUE(p.try_push({}, pattern(8, 1)));
  // Overwrite the second cell's word with a payload length larger than the cell.
  auto* word = reinterpret_cast<std::uint32_t*>(r.cells + g.cell_bytes);
  *word = shm::cell_word(1, 0, 1000);
  std::vector<Frame> got;
  EXPECT_EQ(drain_into(c, 10, got), 1);
  EXPECT_TRUE(c.broken());
  EXPECT_EQ(drain_into(c, 10, got), 0);
}
