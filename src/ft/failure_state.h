// What this process knows about failed processes of the job: a set of world ranks and an epoch that moves
// every time the set grows (and when a communicator is revoked, see bump()). Written only by the service thread (ft/service.*) — or by the engine when a
// transport loses a peer — and read by the application thread; no locks, only atomics.
//
// Fault-free cost: the progress loop does one relaxed load of `epoch()` per pass and compares it with the
// last epoch it handled.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "ft/failure_observer_fwd.h"

namespace ftmpi::ft {

// `reported`: learned from a peer's protocol message (a revoke carries what the revoker knew); the
// launcher's own notice follows. Safe because every notice is true (fail-stop enforced by mpiexec).
enum class Cause : std::uint8_t { exited = 1, signaled = 2, hung = 3, node_lost = 4, disappeared = 5, reported = 6 };

struct FailureRecord {
  int world_rank;
  Cause cause;
  int code;      // exit code or signal number
  double time;   // seconds (CLOCK_REALTIME) when the launcher saw it
};

class FailureState {
 public:
  // `capacity`: the process ids this state can hold (dynamic processes, src/dpm/: ids of every job part of
  // the universe, dpm/universe.h); at least world_size.
  explicit FailureState(int world_size, int capacity = 0)
      : n_(world_size),
        cap_(capacity > world_size ? capacity : world_size),
        bits_(std::make_unique<std::atomic<std::uint64_t>[]>(static_cast<std::size_t>(cap_ + 63) / 64)) {}

  int world_size() const { return n_; }
  int capacity() const { return cap_; }
  std::uint64_t epoch() const { return epoch_.load(std::memory_order_relaxed); }
  // Acquire-load: pairs with the release in mark_failed so the bits are visible once the epoch is.
  std::uint64_t epoch_acquire() const { return epoch_.load(std::memory_order_acquire); }

  bool failed(int world_rank) const {
    if (world_rank < 0 || world_rank >= cap_) return false;
    return (bits_[static_cast<std::size_t>(world_rank) / 64].load(std::memory_order_acquire) >>
            (world_rank % 64)) & 1u;
  }

  // Record a failure (idempotent). Returns true when it was new. Any thread.
  bool mark_failed(const FailureRecord& rec) {
    if (rec.world_rank < 0 || rec.world_rank >= cap_) return false;
    auto& w = bits_[static_cast<std::size_t>(rec.world_rank) / 64];
    std::uint64_t bit = std::uint64_t{1} << (rec.world_rank % 64);
    if (w.fetch_or(bit, std::memory_order_acq_rel) & bit) return false;
    {
      // Records are appended under a tiny spin lock (rare: once per failure); readers copy under it.
      while (records_lock_.test_and_set(std::memory_order_acquire)) {
      }
      records_.push_back(rec);
      records_lock_.clear(std::memory_order_release);
    }
    set_version_.fetch_add(1, std::memory_order_release);
    epoch_.fetch_add(1, std::memory_order_release);
    if (FailureObserver* o = observer_.load(std::memory_order_acquire)) notify_failed(o, rec);
    return true;
  }

  // The listener told of every failure recorded from now on (ft/failure_observer.h); null to stop.
  void set_observer(FailureObserver* o) { observer_.store(o, std::memory_order_release); }
  FailureObserver* observer() const { return observer_.load(std::memory_order_acquire); }

  // Move the epoch without a new failure: a communicator was revoked. The epoch is the one word the fault-free
  // path reads (per progress pass and per operation start), so every fault-tolerance event moves it.
  void bump() { epoch_.fetch_add(1, std::memory_order_release); }

  // Reinit (models/reinit): a new epoch starts with nobody failed. Application thread; a notice the
  // service thread records meanwhile belongs to the new epoch and stays.
  void reset() {
    while (records_lock_.test_and_set(std::memory_order_acquire)) {
    }
    records_.clear();
    for (int w = 0; w < (cap_ + 63) / 64; ++w) bits_[static_cast<std::size_t>(w)].store(0, std::memory_order_release);
    records_lock_.clear(std::memory_order_release);
    set_version_.fetch_add(1, std::memory_order_release);
    epoch_.fetch_add(1, std::memory_order_release);
  }

  // Moves whenever the set changes (mark_failed, reset), before the epoch does, and not on bump(): a reader
  // that saw the epoch move tells a revoke (nothing new to learn) from a failure. Acquire: pairs with the
  // release in mark_failed, so the new bits and records are visible once the version is.
  std::uint64_t set_version() const { return set_version_.load(std::memory_order_acquire); }

  std::vector<FailureRecord> records() const {
    while (records_lock_.test_and_set(std::memory_order_acquire)) {
    }
    std::vector<FailureRecord> copy = records_;
    records_lock_.clear(std::memory_order_release);
    return copy;
  }

 private:
  int n_;
  int cap_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> bits_;
  std::atomic<std::uint64_t> epoch_{0};
  std::atomic<std::uint64_t> set_version_{0};
  mutable std::atomic_flag records_lock_ = ATOMIC_FLAG_INIT;
  std::vector<FailureRecord> records_;
  std::atomic<FailureObserver*> observer_{nullptr};
};

}  // namespace ftmpi::ft
