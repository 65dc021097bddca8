#include "progress/progress.h"

#include <sched.h>

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

void Progress::back_off(int idle) {
  if (idle < policy_.spin_iterations) return;
  if (idle < policy_.spin_iterations + policy_.yield_iterations || engine_.has_backlog()) {
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
    struct timespec nap {0, static_cast<long>(policy_.sleep_us) * 1000L};
    nanosleep(&nap, nullptr);
    return;
  }
  int each = std::max(1, policy_.sleep_us / sleepers);
  for (transport::Transport* t : ts) t->wait(each);
}

}  // namespace ftmpi::progress
