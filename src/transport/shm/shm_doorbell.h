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
//
// Host bell (one wake for many sleepers, used for job-wide events: a revoke delivered to every member on this
// host, ft/ft_manager.cpp flush_revoke). Every rank of the host also waits on one shared futex word, the
// `bell` of the segment of the host's lowest attached rank (futex_waitv(2) on the doorbell and the bell; kernel
// 5.16+, probed once: without it no rank chooses a bell and everything rings doorbells). A sender that
// publishes frames to several sleeping peers with its wakes held (ShmTransport::hold_wakes) rings the bell
// once instead of each doorbell: FUTEX_WAKE(INT_MAX) of the bell wakes them all in one system call (a
// doorbell wake costs the sender 5-8 us each on this VM, docs/performance.md). Protocol, as the doorbell's:
//   receiver: b = bell; v = doorbell; sleeping = 1; fence; re-check; futex_waitv({doorbell, v}, {bell, b}).
//   sender:   publish (release); fence; sleeping seen set -> held; ... release: ++bell; FUTEX_WAKE(bell).
// A bump of the bell after the receiver read b makes futex_waitv return at once; before it, the frame was
// published before the bump, so the receiver's re-check (after its acquire load of the bell) sees it.
// A bell wakes every sleeper of the host, members of the event or not (they re-check and sleep again): the
// sender rings it only when the sleepers it would wake anyway are at least half the host's other ranks.
// Which bell a receiver waits on is published in its header (bell_pid: the bell segment owner's pid); a
// sender rings the bell for a peer only when its own bell is the same segment, and its doorbell otherwise
// (a Reinit rollback's new segments choose no bell).
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

// Sender side, the fence and the load of ring_doorbell_if_sleeping without the ring: true when the owner
// of `hdr` sleeps (the caller rings its doorbell, or holds the wake for the bell).
inline bool peer_sleeping(SegmentHeader& hdr, bool fenced = true) {
  if (fenced)
    std::atomic_thread_fence(std::memory_order_seq_cst);
  else
    std::atomic_signal_fence(std::memory_order_seq_cst);
  return std::atomic_ref<std::uint32_t>(hdr.sleeping).load(std::memory_order_relaxed) != 0;
}

// The host bell. host_bell_supported: futex_waitv(2) works here (probed once per process). ring_host_bell:
// bump `bell_owner.bell` and wake every sleeper waiting on it.
bool host_bell_supported();
void ring_host_bell(SegmentHeader& bell_owner);

// Receiver side. `has_work()` is the re-check, called after the sleeping flag is visible.
// Sleeps at most timeout_us (> 0). Returns early on a doorbell, a ring of `bell` (the `bell` word of the
// host bell's segment, or nullptr: the doorbell only), a signal, or when has_work() is true.
template <class HasWork>
void sleep_on_doorbell(SegmentHeader& hdr, std::uint32_t* bell, int timeout_us, HasWork&& has_work);

// Implementation detail of sleep_on_doorbell.
void futex_wait_doorbell(SegmentHeader& hdr, std::uint32_t seen, std::uint32_t* bell, std::uint32_t bell_seen,
                         int timeout_us);
// Raising (on) returns false when the owner's membarrier failed: it must not sleep on this pass.
bool set_sleeping(SegmentHeader& hdr, bool on);
std::uint32_t load_doorbell(SegmentHeader& hdr);

template <class HasWork>
void sleep_on_doorbell(SegmentHeader& hdr, std::uint32_t* bell, int timeout_us, HasWork&& has_work) {
  const std::uint32_t bell_seen = bell != nullptr ? std::atomic_ref<std::uint32_t>(*bell).load(std::memory_order_acquire) : 0;
  std::uint32_t seen = load_doorbell(hdr);
  const bool ordered = set_sleeping(hdr, true);  // includes the seq_cst fence (and the membarrier)
  if (ordered && !has_work()) futex_wait_doorbell(hdr, seen, bell, bell_seen, timeout_us);
  set_sleeping(hdr, false);
}

}  // namespace ftmpi::transport::shm
