// Monotonic wall time in milliseconds, for the failure-detection timers (heartbeat deadlines, guardian
// grace periods). Contract: never goes backwards, unaffected by settimeofday; async-signal-safe
// (clock_gettime is on the POSIX list), so signal handlers and the guardian process may call it.
#pragma once

#include <time.h>

namespace ftmpi::util {

// The same clock in nanoseconds, for short waits (util/spin_wait.h, the progress engine's yield phase).
inline long long mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

inline double mono_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

}  // namespace ftmpi::util
