#include "ft/shm_board.h"

#include "ft/agreement_board_step.h"

#include <algorithm>
#include <cstring>

namespace ftmpi::ft {

static_assert(coll::kShmAgreeRing == kBoardRing, "one ring length");
static_assert(sizeof(coll::ShmAgreeEntry::words) / sizeof(std::uint64_t) == kBoardWords, "one entry size");
static_assert(sizeof(coll::ShmAgreeOutcome::words) / sizeof(std::uint64_t) == kBoardResultWords, "one outcome size");
static_assert(coll::kShmMaxRanks < 0x80, "the arrivals count fits below the closed bit");

// The arrivals word of j: (j << 8) | 0x80 (one arrived closed) | count; a word of another instance (an
// earlier use of the slot: the window) counts as nobody arrived. A CAS loop (the word is reset per instance,
// so no plain fetch_add); seq_cst like the states' CASes.
bool ShmBoard::arrive(std::uint64_t j, bool closed, bool* any_closed) {
  std::atomic<std::uint64_t>& w = o(j).arrivals;
  std::uint64_t cur = w.load(std::memory_order_relaxed), next;
  do {
    const std::uint64_t mine = (cur >> 8) == j ? cur & 0xff : 0;
    next = (j << 8) | (mine & 0x80) | (closed ? 0x80 : 0) | ((mine & 0x7f) + 1);
  } while (!w.compare_exchange_weak(cur, next, std::memory_order_seq_cst, std::memory_order_relaxed));
  *any_closed = (next & 0x80) != 0;
  return static_cast<int>(next & 0x7f) == a_.size();
}

void ShmBoard::publish(std::uint64_t j, std::uint64_t tag, std::uint32_t total, std::uint32_t off,
                       std::span<const std::uint64_t> words, std::uint32_t repeat) {
  coll::ShmAgreeOutcome& x = o(j);
  x.total = total;
  x.off = off;
  x.len = repeat > 0 ? repeat : static_cast<std::uint32_t>(words.size());
  x.repeated = repeat > 0 ? 1 : 0;
  if (!words.empty()) std::memcpy(x.words, words.data(), words.size() * sizeof(std::uint64_t));
  x.outcome.store(tag, std::memory_order_release);
}

ShmBoard::ShmBoard(coll::ShmArea& area, bool counted) : a_(area) {
  std::uint64_t kind = 0;
  a_.header().agree_kind.compare_exchange_strong(kind, counted ? 2 : 1, std::memory_order_acq_rel);
  counted_ = (kind == 0 ? (counted ? 2 : 1) : kind) == 2;
}

void ShmBoard::write(std::uint64_t j, std::uint32_t total, std::uint32_t off, std::span<const std::uint64_t> words) {
  coll::ShmAgreeEntry& x = e(a_.rank(), j);
  x.total = total;
  x.off = static_cast<std::uint16_t>(off);
  x.len = static_cast<std::uint16_t>(words.size());
  if (!words.empty()) std::memcpy(x.words, words.data(), words.size() * sizeof(std::uint64_t));
}

// `done` of a member: every instance below it has finished its board phase there (0 at first: nothing).
bool ShmBoard::window_open(std::uint64_t j, const RankSet& failed) {
  if (j < kBoardRing || min_done_ > j - kBoardRing) [[likely]]
    return true;
  std::uint64_t lo = ~std::uint64_t{0};
  for (int r = 0; r < a_.size(); ++r) {
    if (failed.contains(r)) continue;  // known failed: reads nothing any more
    lo = std::min(lo, a_.of(r).agree_done.load(std::memory_order_acquire));
  }
  if (failed.empty()) min_done_ = lo;  // a bound valid for every member
  return lo > j - kBoardRing;
}

void ShmBoard::publish_done() {
  const std::uint64_t done = open_.empty() ? next_ : *std::min_element(open_.begin(), open_.end());
  a_.of(a_.rank()).agree_done.store(done, std::memory_order_release);
}

void ShmBoard::begin(std::uint64_t j) {
#if defined(__x86_64__) || defined(__i386__)
  // `done` is stored when the phase ends: ask for its line now (the others read it at their window checks),
  // so that the store does not hold up the next CAS.
  asm volatile("prefetchw %0" : : "m"(*reinterpret_cast<const char*>(&a_.of(a_.rank()).agree_done)));
#endif
  if (next_ == 0 || j + 1 > next_) {
    const bool first = next_ == 0;
    next_ = j + 1;
    if (first) {  // nothing below j is read here: done = j while j is open
      open_.push_back(j);
      publish_done();
      return;
    }
  }
  open_.push_back(j);
}

void ShmBoard::finish(std::uint64_t j) {
  if (open_.size() == 1 && open_[0] == j) [[likely]] {  // the only open instance: done = next_
    open_.clear();
    a_.of(a_.rank()).agree_done.store(next_, std::memory_order_release);
    prefetch_own(next_);
    return;
  }
  auto it = std::find(open_.begin(), open_.end(), j);
  if (it != open_.end()) {
    *it = open_.back();
    open_.pop_back();
  }
  publish_done();
}

// Ask for this member's entry line of instance j in the exclusive state now (x86: PREFETCHW, a hint that
// changes no memory), so that its CAS at j does not wait for the others' copies — they read that line at
// j - kBoardRing — to be invalidated: that hand-off then happens while the caller is outside the agreement.
void ShmBoard::prefetch_own(std::uint64_t j) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetchw %0" : : "m"(*reinterpret_cast<const char*>(&e(a_.rank(), j))));
#else
  (void)j;
#endif
}

void ShmBoard::step(Agreement& a) { a.board_step_on(*this); }

void ShmBoard::ring_after_cas() {
#if defined(__x86_64__) || defined(__i386__)
  // A locked CMPXCHG orders every earlier store before every later load (the Dekker protocol's StoreLoad
  // barrier, shm_doorbell.h), as the fence in ring() does; MFENCE costs ~20 ns here on the critical path.
  std::atomic_signal_fence(std::memory_order_seq_cst);
  a_.ring_others();
#else
  ring();
#endif
}

void ShmBoard::ring() {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // the store before, the sleeping flags after
  a_.ring_others();
}

}  // namespace ftmpi::ft
