// The single-producer / single-consumer ring of fixed-size cells that carries frames from one sender to one
// receiver (layout and cell word in shm_layout.h). Lock-free, no syscalls: release/acquire atomics only.
//
// RingProducer lives in the sender process, RingConsumer in the receiver process; both are views over the
// same RingControl and cell array in the receiver's segment, and each keeps its position privately.
// Exactly one producer and one consumer may exist per ring at any time.
#pragma once
#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

#include "transport/shm/shm_layout.h"
#include "util/copy_small.h"

namespace ftmpi::transport::shm {

template <class T>
inline std::atomic_ref<T> atomic_at(T& v) {
  return std::atomic_ref<T>(v);
}

// The p2p engine's headers (p2p/envelope.h): copied with a fixed-size copy (inline moves). An eager
// frame's is kEagerHeader bytes, so that a cell's word, that header and up to 20 payload bytes share the
// cell's first cache line; the other frames' kCommonHeader.
inline constexpr std::size_t kCommonHeader = 56;
inline constexpr std::size_t kEagerHeader = 40;

class RingProducer {
 public:
  RingProducer() = default;
  // `ctl` and `cells` (cells * cell_bytes bytes, cache-line aligned) must stay mapped while in use.
  RingProducer(RingControl* ctl, std::byte* cells, const Geometry& g)
      : ctl_(ctl),
        cells_(cells),
        mask_(g.cells - 1),
        cell_bytes_(g.cell_bytes),
        tail_(atomic_at(ctl->tail).load(std::memory_order_relaxed)),
        head_cache_(atomic_at(ctl->head).load(std::memory_order_acquire)) {}

  bool attached() const { return ctl_ != nullptr; }

  // Copy one frame into the next cell. Expects hdr.size() <= kMaxHeader and
  // hdr.size() + payload.size() <= cell_bytes - kCellMeta. Returns false (and changes nothing) when all
  // cells are still held by the consumer.
  [[gnu::always_inline]] bool try_push(std::span<const std::byte> hdr, std::span<const std::byte> payload) {
    assert(hdr.size() <= kMaxHeader);
    assert(kCellMeta + hdr.size() + payload.size() <= cell_bytes_);
    if (tail_ - head_cache_ > mask_) {
      head_cache_ = atomic_at(ctl_->head).load(std::memory_order_acquire);
      if (tail_ - head_cache_ > mask_) return false;
    }
    std::byte* cell = cells_ + static_cast<std::size_t>(tail_ & mask_) * cell_bytes_;
    std::byte* data = cell + kCellMeta;
    if (hdr.size() == kEagerHeader) [[likely]]
      std::memcpy(data, hdr.data(), kEagerHeader);
    else if (hdr.size() == kCommonHeader)
      std::memcpy(data, hdr.data(), kCommonHeader);
    else if (!hdr.empty())
      std::memcpy(data, hdr.data(), hdr.size());
    util::copy_small(data + hdr.size(), payload.data(), payload.size());
    auto* word = reinterpret_cast<std::uint32_t*>(cell);
    atomic_at(*word).store(cell_word(tail_, hdr.size(), payload.size()), std::memory_order_release);
    ++tail_;
    atomic_at(ctl_->tail).store(tail_, std::memory_order_relaxed);
    return true;
  }

  std::uint64_t produced() const { return tail_; }

 private:
  RingControl* ctl_ = nullptr;
  std::byte* cells_ = nullptr;
  std::uint64_t mask_ = 0;
  std::size_t cell_bytes_ = 0;
  std::uint64_t tail_ = 0;        // next position to write
  std::uint64_t head_cache_ = 0;  // last head we read from the consumer
};

class RingConsumer {
 public:
  RingConsumer() = default;
  RingConsumer(RingControl* ctl, std::byte* cells, const Geometry& g)
      : ctl_(ctl),
        cells_(cells),
        mask_(g.cells - 1),
        cell_bytes_(g.cell_bytes),
        head_(atomic_at(ctl->head).load(std::memory_order_relaxed)) {}

  // True when a frame waits at the head (acquire load of one cell word).
  bool nonempty() const {
    return cell_word_full(atomic_at(*word_at(head_)).load(std::memory_order_acquire), head_);
  }

  // Deliver up to `max` frames in order: deliver(hdr, payload) with spans into the cell, valid only
  // during the call. The delivered cells are released to the producer together when drain() returns (one
  // store to the shared head line per call, not per frame). Returns the number delivered. deliver() may
  // push into other rings, but must not drain this one. A deliver() returning bool stops the drain after
  // the frame it returned false for (that frame is consumed).
  template <class Deliver>
  int drain(int max, Deliver&& deliver) {
    int n = 0;
    while (n < max && !broken_) {
      std::uint32_t* wp = word_at(head_);
      std::uint32_t w = atomic_at(*wp).load(std::memory_order_acquire);
      if (!cell_word_full(w, head_)) break;
      const std::byte* data = reinterpret_cast<const std::byte*>(wp) + kCellMeta;
      std::size_t hl = cell_word_hdr_len(w);
      std::size_t pl = cell_word_payload_len(w);
      if (hl > kMaxHeader || kCellMeta + hl + pl > cell_bytes_) [[unlikely]] {
        broken_ = true;  // a corrupted cell: never read past it (nor past the cell)
        break;
      }
      const std::span<const std::byte> h(data, hl), p(data + hl, pl);
      if constexpr (std::is_same_v<decltype(deliver(h, p)), bool>) {
        const bool more = deliver(h, p);
        ++head_;
        ++n;
        if (!more) break;
      } else {
        deliver(h, p);
        ++head_;
        ++n;
      }
    }
    if (n > 0) atomic_at(ctl_->head).store(head_, std::memory_order_release);
    return n;
  }

  std::uint64_t consumed() const { return head_; }
  // True once drain() met a cell whose lengths cannot be right (a buggy or corrupted sender); the ring
  // delivers nothing more.
  bool broken() const { return broken_; }

 private:
  std::uint32_t* word_at(std::uint64_t pos) const {
    return reinterpret_cast<std::uint32_t*>(cells_ + static_cast<std::size_t>(pos & mask_) * cell_bytes_);
  }

  RingControl* ctl_ = nullptr;
  std::byte* cells_ = nullptr;
  std::uint64_t mask_ = 0;
  std::size_t cell_bytes_ = 0;
  std::uint64_t head_ = 0;  // next position to read
  bool broken_ = false;
};

}  // namespace ftmpi::transport::shm
