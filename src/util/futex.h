// The futex system call (no C library wrapper), for the library's doorbells and fences: the shm transport's
// doorbell, the Reinit fence board and life lock, the progress engine's parked threads.
// Contract: `op` is FUTEX_WAIT / FUTEX_WAKE with or without FUTEX_PRIVATE_FLAG (private only for words no
// other process maps); the caller handles EAGAIN / EINTR / ETIMEDOUT from a wait by looking again.
#pragma once
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace ftmpi::util {

inline long futex(std::uint32_t* word, int op, std::uint32_t val, const timespec* timeout) {
  return ::syscall(SYS_futex, word, op, val, timeout, nullptr, 0);
}
inline long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t val, const timespec* timeout) {
  static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
  return futex(reinterpret_cast<std::uint32_t*>(word), op, val, timeout);
}

}  // namespace ftmpi::util
