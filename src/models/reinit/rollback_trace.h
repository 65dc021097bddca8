// Reinit: where one rank's rollback spends its time, for measuring (bench/reinit, docs/performance.md).
// FTMPI_REINIT_TRACE=1: at each commit a rank prints on stderr one line "TRACE r<rank> <step>=<ms>/<n> ...":
// the step's CLOCK_REALTIME in ms within the current 100 s (comparable across ranks and with the
// benchmark's kill time) and how many request/reply exchanges with the launcher (PMI transactions) it had
// made since landing in MPI_Reinit. Off by default; when off, mark() is one load and a branch.
// Application thread only, except notice (set by the service thread before the jump it causes).
#pragma once
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace ftmpi::reinit::trace {

inline bool enabled() {
  static const bool on = [] {
    const char* v = std::getenv("FTMPI_REINIT_TRACE");
    return v && *v && *v != '0';
  }();
  return on;
}
inline std::atomic<int> launcher_calls{0};  // PMI transactions (boot/pmi_client.cpp)
inline std::atomic<double> notice{0};       // the service thread read `reinit`
inline double base = 0;
inline char line[2048];
inline int used = 0;

inline double now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
inline void count_launcher_call() {
  if (enabled()) launcher_calls.fetch_add(1, std::memory_order_relaxed);
}
inline void mark(const char* step) {
  if (!enabled() || used > 1900) return;
  timespec cpu{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  used += std::snprintf(line + used, sizeof line - static_cast<std::size_t>(used), " %s=%.2f/%d/c%.2f", step,
                        (now() - base) * 1e3, launcher_calls.load(std::memory_order_relaxed),
                        static_cast<double>(cpu.tv_sec) * 1e3 + static_cast<double>(cpu.tv_nsec) * 1e-6);
}
// Landed in MPI_Reinit (or a restarted process entered its epoch): a new line.
inline void start() {
  if (!enabled()) return;
  const double t = now();
  base = static_cast<double>(static_cast<long>(t / 100)) * 100.0;
  used = 0;
  launcher_calls.store(0, std::memory_order_relaxed);
  if (double n = notice.load(); n > 0) used = std::snprintf(line, sizeof line, " notice=%.2f", (n - base) * 1e3);
}
inline void flush(int rank) {
  if (!enabled()) return;
  std::fprintf(stderr, "TRACE r%d%s\n", rank, line);
  used = 0;
}

}  // namespace ftmpi::reinit::trace
