#include "progress/progress.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <climits>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "util/futex.h"

namespace ftmpi::progress {

namespace {

// FTMPI_BACKOFF=spin,yield,sleep_us: replaces the policy for_load() chose (tuning and measurement; the
// launcher gives every rank the same environment). Anything else leaves the policy as it is.
BackoffPolicy with_env(BackoffPolicy p) {
  const char* v = std::getenv("FTMPI_BACKOFF");
  if (v == nullptr || *v == '\0') return p;
  int spin = 0, yield = 0, sleep_us = 0;
  char extra = 0;
  if (std::sscanf(v, "%d,%d,%d%c", &spin, &yield, &sleep_us, &extra) == 3 && spin >= 0 && yield >= 0 &&
      sleep_us > 0)
    return BackoffPolicy{spin, yield, sleep_us, p.stolen_yield_ns};
  return p;
}

}  // namespace

BackoffPolicy BackoffPolicy::for_load(int local_ranks, int cores) {
  if (cores < 1) cores = 1;
  if (local_ranks > cores) {
    // Oversubscribed: our core is some other rank's too, and that rank probably holds what we wait for. As Open
    // MPI does (yield_when_idle), give the core away from the first idle pass: sched_yield at once, no spin and
    // no contention probe. Unlike Open MPI, not forever: after 2000 yields or 1 ms of yielding, whichever
    // comes first (util::kYieldPhaseNs), sleep on the doorbell, so a rank blocked for long uses no CPU and
    // CPU-bound neighbours do not take a time slice per yield. Measured (docs/performance.md, issue 13
    // target 5): 4 and 8 ranks on 2 cores, 8-byte Allreduce/Barrier/Reduce 2-13x faster than
    // {spin 32, yield 64, contention probe}, which slept after ~32 passes because the probe always fired.
    // A yield runs the other ranks of our core once: the stolen-yield threshold grows with them.
    const int per_core = (local_ranks + cores - 1) / cores;
    return with_env(BackoffPolicy{/*spin=*/0, /*yield=*/2000, /*sleep_us=*/2000, util::stolen_yield_ns(per_core)});
  }
  // A core of our own: spin for a while (lowest latency), then yield, then sleep.
  return with_env(BackoffPolicy{/*spin=*/20000, /*yield=*/2000, /*sleep_us=*/1000});
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

int Progress::back_off(int idle) {
  const BackoffPolicy* p = contended_ ? &contended_policy_ : &policy_;
  if (idle < p->spin_iterations) return idle + 1;
  // A wait that outlasts its spin phase: is our core contested? A policy without a spin phase (oversubscribed)
  // does not ask: it yields from the first idle pass, and its own ranks preempt each other all the time.
  if (idle == p->spin_iterations && p->spin_iterations > 0) {
    probe_contention();
    p = contended_ ? &contended_policy_ : &policy_;
    if (idle < p->spin_iterations) return idle + 1;
  }
  const int sleep_from = p->spin_iterations + p->yield_iterations;
  // Yields were handed to other programs lately (see kStolenYieldNs): this wait skips its yield phase.
  const bool yielding = idle < sleep_from && !(idle == p->spin_iterations && !yields_.may_yield()) &&
                        !(no_yield_ && no_yield_->load(std::memory_order_relaxed));
  if (yielding || engine_.has_backlog()) {
    const long long before = util::mono_ns();
    if (idle == p->spin_iterations) {
      yield_deadline_ns_ = before + util::kYieldPhaseNs;  // the first yield of this wait
    } else if (idle < sleep_from && before >= yield_deadline_ns_) {
      // Every pass (a vDSO clock read, ~0.1 us, next to a sched_yield of 1-3 us): with 8 ranks per core one
      // pass is a round of 8 yields (~50-100 us here), and looking every 16th pass let the phase run 1.6-2 ms,
      // so a revoke 2 ms into a wait found some ranks asleep and some still yielding, and the yielders got
      // no core until every woken rank had run (docs/performance.md, 2026-11-27 revoke13e).
      idle = sleep_from - 1;  // yielded for kYieldPhaseNs already: sleep from the next pass on
    }
    sched_yield();
    const long long after = util::mono_ns();
    if (yields_.stolen(after - before, after, p->stolen_yield_ns)) {
      // Someone ran on our core for a long while before giving it back: a CPU-bound program (or a computing
      // rank) is runnable next to us, and every further yield would hand it another time slice. Sleep from
      // the next pass on; the waits of the next kNoYieldNs skip their yield phase (util/spin_wait.h).
      if (idle < sleep_from) idle = sleep_from - 1;
    }
    return idle + 1;
  }
  if (idle < sleep_from) idle = sleep_from;  // the yield phase was skipped: count on from the first sleep
  // Sleep in the transports: a frame arriving wakes us (futex doorbell / socket readiness).
  auto ts = router_.transports();
  int sleepers = static_cast<int>(std::count_if(ts.begin(), ts.end(), [](transport::Transport* t) {
    return std::string_view(t->name()) != "self";
  }));
  const bool locked = lock_ != nullptr && lock_->held_by_me();
  if (locked) {
    const std::thread::id me = std::this_thread::get_id();
    if (sleeper_ != std::thread::id() && sleeper_ != me) {
      park(p->sleep_us);
      return idle == sleep_from ? idle + 1 : idle;
    }
    sleeper_ = me;
  }
  if (sleepers == 0) {
    // Only the self transport (a one-rank job): no frame can wake us, and what we wait for comes from another
    // thread (MPI_Grequest_complete, a THREAD_MULTIPLE peer thread). Nap instead of yielding in a loop, which
    // burnt a third of a core in MPI_Wait on a generalized request. Without the lock: that thread needs it.
    struct timespec nap {0, static_cast<long>(p->sleep_us) * 1000L};
    const int depth = locked ? lock_->release_all() : 0;
    nanosleep(&nap, nullptr);
    if (locked) lock_->reacquire(depth);
    return idle == sleep_from ? idle + 1 : idle;
  }
  int each = std::max(1, p->sleep_us / sleepers);
  for (transport::Transport* t : ts) t->wait(each);
  return idle == sleep_from ? idle + 1 : idle;  // past every phase test; stops growing
}

void Progress::wake_parked() {
  if (parked_.load(std::memory_order_seq_cst) == 0) return;
  turn_gen_.fetch_add(1, std::memory_order_seq_cst);
  util::futex(&turn_gen_, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr);
}

void Progress::leave_turn() {
  if (sleeper_ != std::this_thread::get_id()) return;
  sleeper_ = std::thread::id();
  wake_parked();  // one of them becomes the sleeper
}

void Progress::park(int timeout_us) {
  // Read under the lock: a sleeper that leaves (under the lock) after we let go moves turn_gen_ first, so the
  // futex wait returns at once (parked_ is counted before the lock is released).
  const std::uint32_t seen = turn_gen_.load(std::memory_order_seq_cst);
  parked_.fetch_add(1, std::memory_order_seq_cst);
  const int depth = lock_->release_all();
  struct timespec ts {timeout_us / 1000000, static_cast<long>(timeout_us % 1000000) * 1000L};
  util::futex(&turn_gen_, FUTEX_WAIT_PRIVATE, seen, &ts);  // EAGAIN, EINTR, ETIMEDOUT: look again
  parked_.fetch_sub(1, std::memory_order_seq_cst);
  lock_->reacquire(depth);
}

}  // namespace ftmpi::progress
