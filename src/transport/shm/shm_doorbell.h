// The futex doorbell in a receiver's segment header (SegmentHeader::sleeping / ::doorbell).
//
// Protocol (Dekker-style; a lost wake-up is impossible, and the wait timeout would bound it anyway):
//   receiver: v = doorbell; sleeping = 1; fence(seq_cst) [+ membarrier, below]; re-check the rings;
//             if empty futex_wait(doorbell, v) with a timeout; sleeping = 0.
//   sender:   publish the frame (release); fence(seq_cst) [or none, below]; if sleeping (relaxed load):
//             ++doorbell; futex_wake.
// Either the receiver's re-check sees the frame or the sender sees `sleeping`; a bump between the
// receiver's read of v and its futex_wait makes futex_wait return at once.
// The futex is process-shared (no FUTEX_PRIVATE_FLAG): senders are other processes.
//
// Asymmetric fence. The sender's fence is on every small message's path, and on x86 it waits until the
// frame's stores have left the store buffer: when the receiver is polling the line the frame went into, that
// is a cache-line round trip per message (docs/performance.md, msgrate13f). The receiver goes to sleep
// rarely (after a spin and yield phase, progress/progress.cpp), so the cost is moved to it: a process that
// registered for membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) (register_asymmetric_fence) marks its
// segment kOwnerMembarrier and, after raising `sleeping`, calls membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED):
// when that returns, every running thread of every registered process has passed a full barrier after
// `sleeping` = 1 became visible. So for a sender whose process is registered, the two orders left are:
// its barrier point came before its load of `sleeping` (the load sees 1: it rings), or after its frame
// store (the frame is visible to the receiver's re-check); a thread not running is ordered by the context
// switch. Such a sender skips its fence (ring_doorbell_if_sleeping(hdr, /*fenced=*/false)) toward an owner
// that marked its segment; every other pair keeps the fence. If the membarrier call ever fails, the owner
// does not sleep on that pass (it re-polls), so a sender that skipped its fence is never missed.
#pragma once
#include <atomic>
#include <cstdint>

#include "transport/shm/shm_layout.h"

namespace ftmpi::transport::shm {

// Register this process for the asymmetric fence (idempotent). True when the kernel supports
// MEMBARRIER_CMD_GLOBAL_EXPEDITED and registration succeeded; false (the fences stay) otherwise (whether a
// transport uses it at all: ShmOptions::asymmetric_fence). The result is computed once per process (again in a forked child).
bool register_asymmetric_fence();

// Unconditional: bump the doorbell and wake the owner (used by wake_self()).
void ring_doorbell(SegmentHeader& hdr);

// Sender side, after publishing a frame into a ring of `hdr`'s owner. `fenced` false only when this
// process is registered (register_asymmetric_fence()) and the owner's segment says kOwnerMembarrier.
// Costs one relaxed load (and one fence when `fenced`) when the owner is awake (inline: it is on every
// send's path).
inline void ring_doorbell_if_sleeping(SegmentHeader& hdr, bool fenced = true) {
  if (fenced)
    std::atomic_thread_fence(std::memory_order_seq_cst);
  else
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the compiler keeps the load after the frame
  if (std::atomic_ref<std::uint32_t>(hdr.sleeping).load(std::memory_order_relaxed) != 0) [[unlikely]]
    ring_doorbell(hdr);
}

// Receiver side. `has_work()` is the re-check, called after the sleeping flag is visible.
// Sleeps at most timeout_us (> 0). Returns early on a doorbell, a signal, or when has_work() is true.
template <class HasWork>
void sleep_on_doorbell(SegmentHeader& hdr, int timeout_us, HasWork&& has_work);

// Implementation detail of sleep_on_doorbell.
void futex_wait_doorbell(SegmentHeader& hdr, std::uint32_t seen, int timeout_us);
// Raising (on) returns false when the owner's membarrier failed: it must not sleep on this pass.
bool set_sleeping(SegmentHeader& hdr, bool on);
std::uint32_t load_doorbell(SegmentHeader& hdr);

template <class HasWork>
void sleep_on_doorbell(SegmentHeader& hdr, int timeout_us, HasWork&& has_work) {
  std::uint32_t seen = load_doorbell(hdr);
  const bool ordered = set_sleeping(hdr, true);  // includes the seq_cst fence (and the membarrier)
  if (ordered && !has_work()) futex_wait_doorbell(hdr, seen, timeout_us);
  set_sleeping(hdr, false);
}

}  // namespace ftmpi::transport::shm
