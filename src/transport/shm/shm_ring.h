// The single-producer / single-consumer byte ring of packed frames that carries frames from one sender to
// one receiver (layout and frame word in shm_layout.h). Lock-free, no syscalls: release/acquire atomics only.
//
// RingProducer lives in the sender process, RingConsumer in the receiver process; both are views over the
// same RingControl and cell array in the receiver's segment, and each keeps its position privately.
// Exactly one producer and one consumer may exist per ring at any time.
#pragma once
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <type_traits>

#include "transport/shm/shm_layout.h"
#include "util/copy_small.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace ftmpi::transport::shm {

template <class T>
inline std::atomic_ref<T> atomic_at(T& v) {
  return std::atomic_ref<T>(v);
}

// The p2p engine's headers (p2p/envelope.h): copied with a fixed-size copy (inline moves). A standard eager
// frame's is kShortEagerHeader bytes, so that its word, that header and up to 8 payload bytes take 32 bytes
// (two frames per cache line); a synchronous eager frame's kEagerHeader, the other frames' kCommonHeader.
inline constexpr std::size_t kCommonHeader = 56;
inline constexpr std::size_t kEagerHeader = 40;
inline constexpr std::size_t kShortEagerHeader = 20;

// How far ahead of its next frame the producer asks for the ring's lines for writing (PREFETCHW), in bytes;
// 0 = not at all. Why: the consumer read every line of the ring in the previous lap (and polls the word at
// its head, the producer's next slot), so each line the producer writes next is in the consumer's cache and
// the producer's store must first take it back (a read-for-ownership: ~50 ns when the two cores share a
// cache, ~230 ns when the line crosses the host's interconnect, docs/performance.md "Small-message fast
// path"). Without the hint those transfers happen one at a time as the stores reach each line, and the
// sender, the slower side of a small-message stream, waits for them; asking 2 lines ahead (4 small frames)
// overlaps them with the sending (8-byte windows: 5.4 -> 10.4 M msgs/s on the crossing placement). Only the
// line 2 ahead is asked, once per frame: the consumer never reads past the producer's tail, so the hint takes
// no line it still has to read unless the ring is nearly full. A hint changes no data: correctness never
// depends on it. FTMPI_SHM_PREFETCH=<lines> (0..16) overrides; CPUs without PREFETCHW (x86
// CPUID 0x80000001 ECX bit 8) get 0.
inline std::size_t producer_prefetch_bytes() {
  static const std::size_t bytes = [] {
    long lines = 2;
    if (const char* v = std::getenv("FTMPI_SHM_PREFETCH"); v != nullptr && *v != '\0') {
      char* end = nullptr;
      lines = std::strtol(v, &end, 10);
      if (*end != '\0' || lines < 0 || lines > 16) lines = 2;
    }
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(0x80000001u, &a, &b, &c, &d) == 0 || (c & (1u << 8)) == 0) lines = 0;
#endif
    return static_cast<std::size_t>(lines) * kCacheLine;
  }();
  return bytes;
}

// The hint itself: the line at `p` is about to be written (no fault, no effect on what is read).
[[gnu::always_inline]] inline void prefetch_for_write(const std::byte* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetchw %0" ::"m"(*reinterpret_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}

// The producer's side. Positions (tail, head) count bytes since the ring was new, wrap-around waste
// included; `off_` is tail % ring bytes, kept alongside so that the hot path divides nothing. Every offset
// is a multiple of kSmallFrame (32).
//
// Room rule: a frame of n bytes (frame_bytes) goes at the current offset, or, when it would not fit before
// the ring's end, at offset 0 (a wrap word left at the offset, the rest of the ring wasted). After the frame
// comes a 0 word (the consumer's next read), at offset 0 when the frame ends at the ring's end. All the
// bytes written, [tail, new tail + 4), must lie within head + ring bytes. Liveness: a frame is at most
// cell_bytes <= ring/2, so an empty ring always has room for it, wherever its offset (a frame that wraps
// from offset o needs ring - o + n + 4 <= ring, and o > ring - n' >= n + 32 then, n' its size at o).
//
// Frontier: the producer never writes at or beyond position frontier() either (default: no frontier). The
// transport reserves the ring's backing pages chunk by chunk as the first lap needs them (shm_transport.cpp,
// reserve_ring): a push that the frontier stops returns false with stopped_by_frontier(); the caller moves
// the frontier (set_frontier) and pushes again. Both limits are folded into one precomputed position
// (limit_), so the hot path compares once, as it did for the room alone.
class RingProducer {
 public:
  RingProducer() = default;
  // `ctl` and `cells` (cells * cell_bytes bytes, cache-line aligned) must stay mapped while in use.
  RingProducer(RingControl* ctl, std::byte* cells, const Geometry& g)
      : ctl_(ctl),
        ring_(cells),
        size_(std::size_t{g.cells} * g.cell_bytes),
        max_frame_(g.cell_bytes),
        tail_(atomic_at(ctl->tail).load(std::memory_order_relaxed)),
        off_(static_cast<std::size_t>(tail_ % size_)),
        head_cache_(atomic_at(ctl->head).load(std::memory_order_acquire)),
        limit_(head_cache_ + size_),
        ahead_(producer_prefetch_bytes() * 4 <= size_ ? producer_prefetch_bytes() : 0) {}

  bool attached() const { return ctl_ != nullptr; }
  // Bytes produced so far (the position of the next frame, wrap-around waste included).
  std::uint64_t tail() const { return tail_; }

  // The producer writes only below position `f` (kNoFrontier: anywhere the room rule allows).
  static constexpr std::uint64_t kNoFrontier = ~std::uint64_t{0};
  void set_frontier(std::uint64_t f) {
    frontier_ = f;
    refresh_limit();
  }
  std::uint64_t frontier() const { return frontier_; }
  // The last failed try_push was stopped by the frontier (the consumer may have had room for it), and would
  // have written up to position wanted() (exclusive).
  bool stopped_by_frontier() const { return wanted_ > frontier_; }
  std::uint64_t wanted() const { return wanted_; }

  // Copy one frame into the ring. Expects hdr.size() <= kMaxHeader and payload.size() <= max_payload().
  // Returns false (and changes nothing) when the consumer has not yet released enough room.
  [[gnu::always_inline]] bool try_push(std::span<const std::byte> hdr, std::span<const std::byte> payload) {
    assert(hdr.size() <= kMaxHeader);
    std::size_t at = off_;
    std::size_t n = frame_bytes(at, hdr.size(), payload.size());
    std::size_t skip = 0;  // bytes wasted before the frame (wrap-around)
    if (at + n > size_) [[unlikely]] {
      skip = size_ - at;
      at = 0;
      n = frame_bytes(0, hdr.size(), payload.size());
    }
    assert(n <= max_frame_);
    // Bytes written: the wasted end (only its word), the frame and the 0 word after it.
    const std::uint64_t need = tail_ + skip + n + kCellMeta;
    if (need > limit_) {
      head_cache_ = atomic_at(ctl_->head).load(std::memory_order_acquire);
      refresh_limit();
      if (need > limit_) {
        wanted_ = need;
        return false;
      }
    }
    std::byte* frame = ring_ + at;
    std::size_t next = at + n;
    if (next == size_) next = 0;
    // The word the consumer reads after this frame: 0 until the next frame is published. Written before
    // this frame's word (release), so a consumer that sees this frame sees it too.
    atomic_at(*reinterpret_cast<std::uint32_t*>(ring_ + next)).store(0, std::memory_order_relaxed);
    std::byte* data = frame + kCellMeta;
    if (hdr.size() == kShortEagerHeader) [[likely]]
      std::memcpy(data, hdr.data(), kShortEagerHeader);
    else if (hdr.size() == kCommonHeader)
      std::memcpy(data, hdr.data(), kCommonHeader);
    else if (hdr.size() == kEagerHeader)
      std::memcpy(data, hdr.data(), kEagerHeader);
    else if (!hdr.empty())
      std::memcpy(data, hdr.data(), hdr.size());
    util::copy_small(data + hdr.size(), payload.data(), payload.size());
    atomic_at(*reinterpret_cast<std::uint32_t*>(frame))
        .store(frame_word(hdr.size(), payload.size()), std::memory_order_release);
    if (skip != 0) [[unlikely]]  // after the frame at 0 is complete: the consumer goes straight to it
      atomic_at(*reinterpret_cast<std::uint32_t*>(ring_ + off_)).store(kWrapWord, std::memory_order_release);
    tail_ += skip + n;
    off_ = next;
    if (ahead_ != 0) {  // producer_prefetch_bytes(): the line `ahead_` past the next frame's
      std::size_t o = (next & ~(kCacheLine - 1)) + ahead_;
      if (o >= size_) o -= size_;
      prefetch_for_write(ring_ + o);
    }
    ++frames_;
    atomic_at(ctl_->tail).store(tail_, std::memory_order_relaxed);
    return true;
  }

  // Frames pushed by this producer object (tests, inspection).
  std::uint64_t produced() const { return frames_; }

 private:
  // limit_ = min(head_cache_ + size_, frontier_)
  void refresh_limit() { limit_ = head_cache_ + size_ < frontier_ ? head_cache_ + size_ : frontier_; }
  RingControl* ctl_ = nullptr;
  std::byte* ring_ = nullptr;
  std::size_t size_ = 0;          // ring bytes
  std::size_t max_frame_ = 0;     // cell_bytes
  std::uint64_t tail_ = 0;        // bytes produced
  std::size_t off_ = 0;           // tail_ % size_
  std::uint64_t head_cache_ = 0;  // last head we read from the consumer
  std::uint64_t frontier_ = kNoFrontier;  // set_frontier()
  std::uint64_t limit_ = 0;       // min(head_cache_ + size_, frontier_): a frame may write below it
  std::uint64_t wanted_ = 0;      // the last failed push's end position
  std::size_t ahead_ = 0;         // producer_prefetch_bytes(), 0 for rings too small for it
  std::uint64_t frames_ = 0;
};

class RingConsumer {
 public:
  RingConsumer() = default;
  RingConsumer(RingControl* ctl, std::byte* cells, const Geometry& g)
      : ctl_(ctl),
        ring_(cells),
        size_(std::size_t{g.cells} * g.cell_bytes),
        max_frame_(g.cell_bytes),
        head_(atomic_at(ctl->head).load(std::memory_order_relaxed)),
        off_(static_cast<std::size_t>(head_ % size_)) {}

  // True when a frame (or a wrap word, which leads to one) waits at the head (acquire load of one word).
  bool nonempty() const { return atomic_at(*word_at(off_)).load(std::memory_order_acquire) != 0; }

  // Deliver up to `max` frames in order: deliver(hdr, payload) with spans into the ring, valid only
  // during the call. The space of the delivered frames goes back to the producer together when drain()
  // returns (one store to the shared head line per call, not per frame). Returns the number delivered.
  // deliver() may push into other rings, but must not drain this one. A deliver() returning bool stops
  // the drain after the frame it returned false for (that frame is consumed).
  template <class Deliver>
  int drain(int max, Deliver&& deliver) {
    int n = 0;
    const std::uint64_t start = head_;
    while (n < max && !broken_) {
      std::uint32_t* wp = word_at(off_);
      std::uint32_t w = atomic_at(*wp).load(std::memory_order_acquire);
      if (!frame_word_full(w)) [[unlikely]] {
        if (w == 0) break;  // nothing yet
        if (w != kWrapWord || off_ == 0) {  // no word the producer writes
          broken_ = true;
          break;
        }
        head_ += size_ - off_;
        off_ = 0;
        continue;
      }
      const std::byte* data = reinterpret_cast<const std::byte*>(wp) + kCellMeta;
      const std::size_t hl = frame_word_hdr_len(w);
      const std::size_t pl = frame_word_payload_len(w);
      const std::size_t fb = frame_bytes(off_, hl, pl);
      if (hl > kMaxHeader || fb > max_frame_ || off_ + fb > size_) [[unlikely]] {
        broken_ = true;  // a corrupted word: never read past it (nor past the ring)
        break;
      }
      const std::span<const std::byte> h(data, hl), p(data + hl, pl);
      head_ += fb;
      off_ += fb;
      if (off_ == size_) off_ = 0;
      ++n;
      if constexpr (std::is_same_v<decltype(deliver(h, p)), bool>) {
        if (!deliver(h, p)) break;
      } else {
        deliver(h, p);
      }
    }
    if (head_ != start) atomic_at(ctl_->head).store(head_, std::memory_order_release);
    frames_ += static_cast<std::uint64_t>(n);
    return n;
  }

  // Frames delivered by this consumer object (tests, inspection).
  std::uint64_t consumed() const { return frames_; }
  // True once drain() met a frame word that cannot be right (a buggy or corrupted sender); the ring
  // delivers nothing more.
  bool broken() const { return broken_; }

 private:
  std::uint32_t* word_at(std::size_t off) const { return reinterpret_cast<std::uint32_t*>(ring_ + off); }

  RingControl* ctl_ = nullptr;
  std::byte* ring_ = nullptr;
  std::size_t size_ = 0;
  std::size_t max_frame_ = 0;
  std::uint64_t head_ = 0;  // bytes consumed
  std::size_t off_ = 0;     // head_ % size_
  std::uint64_t frames_ = 0;
  bool broken_ = false;
};

}  // namespace ftmpi::transport::shm
