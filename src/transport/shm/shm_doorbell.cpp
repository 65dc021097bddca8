#include "transport/shm/shm_doorbell.h"

#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdlib>
#include <mutex>

#include "transport/shm/shm_ring.h"
#include "util/futex.h"

namespace ftmpi::transport::shm {

namespace {
using util::futex;
long membarrier(int cmd) { return ::syscall(SYS_membarrier, cmd, 0, 0); }
}  // namespace

bool register_asymmetric_fence() {
  // Per process: registration belongs to the address space, and a forked child (the unit tests' ranks) has a
  // new one, so the answer is recomputed when the pid changed. Called at set-up only (not thread-hot).
  static std::mutex mu;
  static pid_t for_pid = 0;
  static bool ok = false;
  std::lock_guard<std::mutex> hold(mu);
  if (for_pid == ::getpid()) return ok;
  for_pid = ::getpid();
  ok = false;
  const long cmds = membarrier(MEMBARRIER_CMD_QUERY);
  if (cmds < 0 || (cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0 ||
      (cmds & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0)
    return ok;
  ok = membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
  return ok;
}

void ring_doorbell(SegmentHeader& hdr) {
  atomic_at(hdr.doorbell).fetch_add(1, std::memory_order_seq_cst);
  futex(&hdr.doorbell, FUTEX_WAKE, INT_MAX, nullptr);
}

std::uint32_t load_doorbell(SegmentHeader& hdr) {
  return atomic_at(hdr.doorbell).load(std::memory_order_acquire);
}

bool set_sleeping(SegmentHeader& hdr, bool on) {
  atomic_at(hdr.sleeping).store(on ? 1u : 0u, std::memory_order_relaxed);
  if (!on) return true;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // Senders registered for the asymmetric fence skip theirs toward this segment (shm_doorbell.h).
  if ((hdr.owner_flags & kOwnerMembarrier) != 0 && membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0)
    return false;
  return true;
}

void futex_wait_doorbell(SegmentHeader& hdr, std::uint32_t seen, int timeout_us) {
  struct timespec ts;
  ts.tv_sec = timeout_us / 1000000;
  ts.tv_nsec = static_cast<long>(timeout_us % 1000000) * 1000;
  // EAGAIN (doorbell moved), EINTR and ETIMEDOUT all mean "go and look": the caller re-polls.
  futex(&hdr.doorbell, FUTEX_WAIT, seen, &ts);
}

}  // namespace ftmpi::transport::shm
