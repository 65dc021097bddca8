// How long the calling thread was runnable but kept off every CPU, as the scheduler counts it: the run-queue
// wait of /proc/thread-self/schedstat (its second field, in ns; kernels with CONFIG_SCHED_INFO). Time spent
// asleep (poll), stopped (SIGSTOP) or in a frozen VM is not counted: only starvation by other programs.
// The daemon feeds it to TreeLiveness::stalled so that its own starvation is not taken for its parent's
// silence (tree_liveness.h, "Starvation").
//
// Contract: one meter per thread, used by the thread that created it. Where the file cannot be read every
// take() is 0 (the old behaviour: starvation counts as silence). Cost: one pread of a small proc file.
#pragma once
#include <chrono>

namespace ftmpi::mpiexec {

class StallMeter {
 public:
  StallMeter();
  ~StallMeter();
  StallMeter(const StallMeter&) = delete;
  StallMeter& operator=(const StallMeter&) = delete;

  // The run-queue wait since the previous call (0 at the first call).
  std::chrono::milliseconds take();
  bool available() const { return fd_ >= 0; }

  // The run-queue wait in a schedstat line ("<cpu ns> <wait ns> <slices>"), or -1 (exposed for tests).
  static long long parse_wait_ns(const char* line);

 private:
  int fd_ = -1;
  long long last_ns_ = -1;
};

}  // namespace ftmpi::mpiexec
