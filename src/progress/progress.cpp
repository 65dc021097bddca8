#include "progress/progress.h"

#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <ctime>
#include <string_view>

namespace ftmpi::progress {

BackoffPolicy BackoffPolicy::for_load(int local_ranks, int cores) {
  if (cores < 1) cores = 1;
  if (local_ranks > cores) {
    // Oversubscribed: our core is someone else's too. Give it away almost at once.
    return BackoffPolicy{/*spin=*/32, /*yield=*/64, /*sleep_us=*/2000};
  }
  // A core of our own: spin for a while (lowest latency), then yield, then sleep.
  return BackoffPolicy{/*spin=*/20000, /*yield=*/2000, /*sleep_us=*/1000};
}

BackoffPolicy BackoffPolicy::contended() { return BackoffPolicy{/*spin=*/32, /*yield=*/0, /*sleep_us=*/2000}; }

void Progress::probe_contention() {
  rusage ru{};
  if (getrusage(RUSAGE_THREAD, &ru) != 0) return;
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  const long long now = static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
  if (last_nivcsw_ >= 0 && ru.ru_nivcsw > last_nivcsw_) {
    contended_ = true;
    contended_until_ns_ = now + 1000000000LL;  // re-examined after a second
  } else if (contended_ && now >= contended_until_ns_) {
    contended_ = false;
  }
  last_nivcsw_ = ru.ru_nivcsw;
}

void Progress::back_off(int idle) {
  const BackoffPolicy* p = contended_ ? &contended_policy_ : &policy_;
  if (idle < p->spin_iterations) return;
  if (idle == p->spin_iterations) {  // a wait that outlasts its spin phase: is our core contested?
    probe_contention();
    p = contended_ ? &contended_policy_ : &policy_;
    if (idle < p->spin_iterations) return;
  }
  if (idle < p->spin_iterations + p->yield_iterations || engine_.has_backlog()) {
    sched_yield();
    return;
  }
  // Sleep in the transports: a frame arriving wakes us (futex doorbell / socket readiness).
  auto ts = router_.transports();
  int sleepers = static_cast<int>(std::count_if(ts.begin(), ts.end(), [](transport::Transport* t) {
    return std::string_view(t->name()) != "self";
  }));
  if (sleepers == 0) {
    // Only the self transport (a one-rank job): no frame can wake us, and what we wait for comes from another
    // thread (MPI_Grequest_complete, a THREAD_MULTIPLE peer thread). Nap instead of yielding in a loop, which
    // burnt a third of a core in MPI_Wait on a generalized request.
    struct timespec nap {0, static_cast<long>(p->sleep_us) * 1000L};
    nanosleep(&nap, nullptr);
    return;
  }
  int each = std::max(1, p->sleep_us / sleepers);
  for (transport::Transport* t : ts) t->wait(each);
}

}  // namespace ftmpi::progress
