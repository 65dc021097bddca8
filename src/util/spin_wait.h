// The one back-off rule for every loop in the library that waits for another thread's or process's store:
// the progress engine's waits (progress/progress.h) and the loops that have no doorbell to sleep on (a
// seqlock in another process's memory: rma/cma.cpp, models/reinit/fence_board.cpp).
//
// The rule. Spinning (pause) pays only while the writer has a core of its own; sched_yield pays only while
// the programs sharing our core are the job's own waiting ranks (a yield among them comes back in
// microseconds). Next to a CPU-bound program a single sched_yield lasts a whole time slice of theirs (1-4
// ms: EEVDF pushes the yielder's deadline back), so a loop that keeps yielding there pays a slice per pass.
// Hence every yield is timed (YieldRule::yield): one that kept us off the core for kStolenYieldNs says a
// CPU-bound program is runnable next to us; the caller stops yielding at once and sleeps, and yields stay
// off for kNoYieldNs. A yield phase lasts at most kYieldPhaseNs in any case.
//
// Contract: no locks, no allocation; YieldRule and SpinWait are per thread (not shared between threads).
// Cost: two vDSO clock reads per yield; nothing while spinning.
#pragma once

#include <sched.h>
#include <time.h>

#include "util/mono_clock.h"

namespace ftmpi::util {

inline constexpr long long kYieldPhaseNs = 1'000'000;  // a wait yields for 1 ms at most, then sleeps
inline constexpr long long kStolenYieldNs = 200'000;   // one yield this long: another program had our core
inline constexpr long long kNoYieldNs = 100'000'000;   // and the waits of the next 100 ms do not yield

// The stolen-yield threshold of a rank sharing its core with `per_core` ranks of its job (>= 1): a yield
// among them runs each of the others once, and with 4 ranks per core (8 on 2 cores) such a yield took
// 200-390 us in a quiet oversubscribed Allreduce loop — over kStolenYieldNs, so the job's own ranks made
// every wait sleep instead of yielding (docs/performance.md, 2026-11-27 small13g). kStolenYieldNs per other
// rank, capped at kMaxStolenYieldNs: below a CPU-bound program's time slice (1.5-4 ms here).
inline constexpr long long kMaxStolenYieldNs = 1'000'000;
inline constexpr long long stolen_yield_ns(int per_core) {
  const long long t = kStolenYieldNs * (per_core > 2 ? per_core - 1 : 1);
  return t < kMaxStolenYieldNs ? t : kMaxStolenYieldNs;
}

// Memory of stolen yields, kept across waits (progress::Progress keeps one; a SpinWait has its own).
class YieldRule {
 public:
  // False for kNoYieldNs after a stolen yield: wait without yielding (sleep).
  bool may_yield(long long now_ns) const { return no_yield_until_ns_ == 0 || now_ns >= no_yield_until_ns_; }
  bool may_yield() const { return no_yield_until_ns_ == 0 || may_yield(mono_ns()); }
  // One timed sched_yield. True when it was stolen (kept us off the core for kStolenYieldNs): stop yielding.
  bool yield() {
    const long long before = mono_ns();
    sched_yield();
    const long long after = mono_ns();
    return stolen(after - before, after);
  }
  // The bookkeeping of yield() for a yield that took `took_ns`, ending at `now_ns` (tests drive it directly).
  // `threshold_ns`: how long a yield among the job's own ranks may take (stolen_yield_ns below).
  bool stolen(long long took_ns, long long now_ns, long long threshold_ns = kStolenYieldNs) {
    if (took_ns < threshold_ns) return false;
    no_yield_until_ns_ = now_ns + kNoYieldNs;
    return true;
  }
  // Drop the memory of stolen yields (yields allowed again at once). For a phase whose long yields are the
  // job's own start-up work, not a foreign program (Progress::forget_stolen_yields).
  void forget() { no_yield_until_ns_ = 0; }

 private:
  long long no_yield_until_ns_ = 0;  // CLOCK_MONOTONIC; 0: never stolen
};

// A wait with no doorbell: call idle() after each failed check of the condition. Spins `spins` passes
// (pass 0 where the writer is unlikely to have a core of its own), then yields by YieldRule for at most
// kYieldPhaseNs (none once a yield was stolen), then sleeps, 20 µs first and doubling up to kMaxSleepNs.
class SpinWait {
 public:
  static constexpr long long kFirstSleepNs = 20'000;
  static constexpr long long kMaxSleepNs = 1'000'000;
  enum class Phase { spin, yield, sleep };

  explicit SpinWait(int spins = 64) : spins_(spins) {}
  void idle();
  Phase phase() const { return phase_; }
  long long next_sleep_ns() const { return sleep_ns_; }
  int yields() const { return yields_; }  // sched_yield calls made so far

 private:
  int spins_;
  int passes_ = 0;
  Phase phase_ = Phase::spin;
  long long yield_until_ns_ = 0;
  long long sleep_ns_ = kFirstSleepNs;
  int yields_ = 0;
  YieldRule rule_;
};

}  // namespace ftmpi::util
