// The futex doorbell in a receiver's segment header (SegmentHeader::sleeping / ::doorbell).
//
// Protocol (Dekker-style; a lost wake-up is impossible, and the wait timeout would bound it anyway):
//   receiver: v = doorbell; sleeping = 1; fence(seq_cst); re-check the rings;
//             if empty futex_wait(doorbell, v) with a timeout; sleeping = 0.
//   sender:   publish the cell (release); fence(seq_cst); if sleeping (relaxed load): ++doorbell; futex_wake.
// Either the receiver's re-check sees the frame or the sender sees `sleeping`; a bump between the
// receiver's read of v and its futex_wait makes futex_wait return at once.
// The futex is process-shared (no FUTEX_PRIVATE_FLAG): senders are other processes.
#pragma once
#include <atomic>
#include <cstdint>

#include "transport/shm/shm_layout.h"

namespace ftmpi::transport::shm {

// Unconditional: bump the doorbell and wake the owner (used by wake_self()).
void ring_doorbell(SegmentHeader& hdr);

// Sender side, after publishing a frame into a ring of `hdr`'s owner. Costs one fence and one relaxed
// load when the owner is awake (inline: it is on every send's path).
inline void ring_doorbell_if_sleeping(SegmentHeader& hdr) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (std::atomic_ref<std::uint32_t>(hdr.sleeping).load(std::memory_order_relaxed) != 0) [[unlikely]]
    ring_doorbell(hdr);
}

// Receiver side. `has_work()` is the re-check, called after the sleeping flag is visible.
// Sleeps at most timeout_us (> 0). Returns early on a doorbell, a signal, or when has_work() is true.
template <class HasWork>
void sleep_on_doorbell(SegmentHeader& hdr, int timeout_us, HasWork&& has_work);

// Implementation detail of sleep_on_doorbell.
void futex_wait_doorbell(SegmentHeader& hdr, std::uint32_t seen, int timeout_us);
void set_sleeping(SegmentHeader& hdr, bool on);
std::uint32_t load_doorbell(SegmentHeader& hdr);

template <class HasWork>
void sleep_on_doorbell(SegmentHeader& hdr, int timeout_us, HasWork&& has_work) {
  std::uint32_t seen = load_doorbell(hdr);
  set_sleeping(hdr, true);  // includes the seq_cst fence
  if (!has_work()) futex_wait_doorbell(hdr, seen, timeout_us);
  set_sleeping(hdr, false);
}

}  // namespace ftmpi::transport::shm
