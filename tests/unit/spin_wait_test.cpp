// util/spin_wait.h: the shared back-off rule of the library's waits (spin, timed yields, sleep).
#include "util/spin_wait.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <thread>

using ftmpi::util::kNoYieldNs;
using ftmpi::util::kStolenYieldNs;
using ftmpi::util::kYieldPhaseNs;
using ftmpi::util::mono_ns;
using ftmpi::util::SpinWait;
using ftmpi::util::YieldRule;

TEST(YieldRule, AShortYieldKeepsYieldingALongOneStopsItForAWhile) {
  YieldRule r;
  EXPECT_TRUE(r.may_yield(0));
  EXPECT_FALSE(r.stolen(kStolenYieldNs - 1, 1'000));
  EXPECT_TRUE(r.may_yield(1'000));
  EXPECT_TRUE(r.stolen(kStolenYieldNs, 5'000'000));
  EXPECT_FALSE(r.may_yield(5'000'000));
  EXPECT_FALSE(r.may_yield(5'000'000 + kNoYieldNs - 1));
  EXPECT_TRUE(r.may_yield(5'000'000 + kNoYieldNs));
}

TEST(YieldRule, ForgettingAStolenYieldAllowsYieldsAtOnce) {
  YieldRule r;
  EXPECT_TRUE(r.stolen(kStolenYieldNs, 1'000'000));
  EXPECT_FALSE(r.may_yield(2'000'000));
  r.forget();  // the end of the job's start-up (progress::Progress::forget_stolen_yields)
  EXPECT_TRUE(r.may_yield(2'000'000));
  EXPECT_TRUE(r.stolen(kStolenYieldNs, 3'000'000));  // a later long yield counts again
  EXPECT_FALSE(r.may_yield(3'000'000));
}

TEST(YieldRule, TheThresholdGrowsWithTheRanksSharingACoreUpToACap) {
  using ftmpi::util::kMaxStolenYieldNs;
  using ftmpi::util::stolen_yield_ns;
  EXPECT_EQ(stolen_yield_ns(1), kStolenYieldNs);
  EXPECT_EQ(stolen_yield_ns(2), kStolenYieldNs);
  EXPECT_EQ(stolen_yield_ns(4), 3 * kStolenYieldNs);  // 8 ranks on 2 cores: the others' turns are not stolen
  EXPECT_EQ(stolen_yield_ns(8), kMaxStolenYieldNs);   // capped below a CPU-bound program's time slice
  EXPECT_EQ(stolen_yield_ns(64), kMaxStolenYieldNs);
  YieldRule r;
  EXPECT_FALSE(r.stolen(2 * kStolenYieldNs, 1'000'000, stolen_yield_ns(4)));
  EXPECT_TRUE(r.may_yield(1'000'000));
  EXPECT_TRUE(r.stolen(stolen_yield_ns(4), 2'000'000, stolen_yield_ns(4)));
  EXPECT_FALSE(r.may_yield(2'000'000));
}

TEST(SpinWait, SpinsThenYieldsForAtMostTheYieldPhaseThenSleepsLonger) {
  SpinWait w(3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(w.phase(), SpinWait::Phase::spin);
    w.idle();
  }
  EXPECT_EQ(w.yields(), 0);
  const long long start = mono_ns();
  while (w.phase() != SpinWait::Phase::sleep) {
    w.idle();
    ASSERT_LT(mono_ns() - start, 50 * kYieldPhaseNs) << "the yield phase did not end";
  }
  EXPECT_GE(w.yields(), 1);
  // Sleeps double up to the cap.
  long long last = w.next_sleep_ns();
  for (int i = 0; i < 10; ++i) {
    w.idle();
    EXPECT_GE(w.next_sleep_ns(), last);
    last = w.next_sleep_ns();
  }
  EXPECT_EQ(last, SpinWait::kMaxSleepNs);
}

// The reason for the rule: next to a CPU-bound program on our core a sched_yield hands it a time slice, so a
// wait stops yielding after the first such yield (not after kYieldPhaseNs of them).
TEST(SpinWait, StopsYieldingAfterOneYieldStolenByACpuBoundNeighbour) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  cpu_set_t old;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof old, &old), 0);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) GTEST_SKIP() << "cannot pin to CPU 0";
  std::atomic<bool> stop{false}, pinned{false};
  std::thread busy([&] {
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    pinned = true;
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  while (!pinned) sched_yield();
  SpinWait w(0);
  int passes = 0, long_passes = 0;
  bool slept_after_long = false;
  while (w.phase() != SpinWait::Phase::sleep && passes < 100000) {
    const long long t = mono_ns();
    w.idle();
    ++passes;
    if (mono_ns() - t >= kStolenYieldNs) {
      ++long_passes;
      slept_after_long = w.phase() == SpinWait::Phase::sleep;
    }
  }
  stop = true;
  busy.join();
  pthread_setaffinity_np(pthread_self(), sizeof old, &old);
  EXPECT_EQ(w.phase(), SpinWait::Phase::sleep);
  // EEVDF may return the first yields at once (the busy thread not eligible yet); the first that hands it a
  // slice ends the phase (a second long pass only if we were also preempted outside the timed yield).
  EXPECT_GE(long_passes, 1);
  EXPECT_LE(long_passes, 2) << "each further yield handed the busy thread another time slice";
  EXPECT_TRUE(slept_after_long);
}
