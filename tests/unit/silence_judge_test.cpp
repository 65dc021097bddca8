// tools/launch/silence_judge.*: a heartbeat silence is a hang unless the service thread is runnable (or in D)
// and not spinning, and never beyond kStarvedTimeouts timeouts; real processes: a stopped one is judged
// hung, a runnable one starved, one whose service thread spins hung once it burnt kSpinTicks.
// tools/launch/stop_judge.*: a stop held through the timeout is a hang (pure, and a real stopped process).
#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "silence_judge.h"
#include "stop_judge.h"

using namespace ftmpi::mpiexec;
using ms = std::chrono::milliseconds;

namespace {
std::optional<ThreadSample> s(char state, unsigned long long cpu) { return ThreadSample{state, cpu}; }
}  // namespace

TEST(SilenceJudge, StateDecides) {
  const ms t(1000);
  EXPECT_EQ(judge_silence(ms(1500), t, s('R', 5), true, 5), Silence::starved);
  EXPECT_EQ(judge_silence(ms(1500), t, s('D', 5), true, 5), Silence::starved);
  EXPECT_EQ(judge_silence(ms(1500), t, s('T', 5), true, 5), Silence::hung);  // SIGSTOP
  EXPECT_EQ(judge_silence(ms(1500), t, s('t', 5), true, 5), Silence::hung);  // ptrace stop
  EXPECT_EQ(judge_silence(ms(1500), t, s('S', 5), true, 5), Silence::hung);  // blocked elsewhere
  EXPECT_EQ(judge_silence(ms(1500), t, s('Z', 5), true, 5), Silence::hung);
  EXPECT_EQ(judge_silence(ms(1500), t, std::nullopt, true, 0), Silence::hung);  // gone
}

TEST(SilenceJudge, Bounded) {
  const ms t(1000);
  // Runnable but burning CPU without a heartbeat: stuck in a loop.
  EXPECT_EQ(judge_silence(ms(1500), t, s('R', 5 + kSpinTicks), true, 5), Silence::starved);
  EXPECT_EQ(judge_silence(ms(1500), t, s('R', 6 + kSpinTicks), true, 5), Silence::hung);
  // The process fallback (no service thread found) has no CPU test: its main thread may compute.
  EXPECT_EQ(judge_silence(ms(1500), t, s('R', 500), false, 5), Silence::starved);
  // Whatever the state, never beyond kStarvedTimeouts timeouts.
  EXPECT_EQ(judge_silence(t * kStarvedTimeouts - ms(1), t, s('R', 5), true, 5), Silence::starved);
  EXPECT_EQ(judge_silence(t * kStarvedTimeouts, t, s('R', 5), true, 5), Silence::hung);
}

namespace {
// A child with a thread named like the service thread that spins (spin=true) or sleeps.
pid_t child_with_service_thread(bool spin) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  std::thread th([spin] {
    pthread_setname_np(pthread_self(), kServiceThreadName);
    std::atomic<unsigned long> x{0};
    for (;;) {
      if (spin)
        x.fetch_add(1, std::memory_order_relaxed);
      else
        pause();
    }
  });
  th.join();
  _exit(0);
}

pid_t wait_for_service_thread(pid_t pid) {
  for (int i = 0; i < 500; ++i) {
    if (pid_t tid = find_service_thread(pid); tid > 0) return tid;
    usleep(2000);
  }
  return -1;
}

void end(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}
}  // namespace

TEST(SilenceJudge, RealProcesses) {
  const ms t(1000);
  pid_t sleeper = child_with_service_thread(false);
  ASSERT_GT(wait_for_service_thread(sleeper), 0);
  {
    SilenceWatch w;
    SilenceCheck c(w, sleeper);
    ASSERT_TRUE(c.sample());
    EXPECT_EQ(c.sample()->state, 'S');
    EXPECT_EQ(c.verdict(ms(1500), t), Silence::hung);  // asleep outside its loop: a hang
  }
  kill(sleeper, SIGSTOP);
  for (int i = 0; i < 500; ++i) {  // the stop reaches every thread
    auto st = read_thread_sample(sleeper, find_service_thread(sleeper));
    if (st && st->state == 'T') break;
    usleep(2000);
  }
  {
    SilenceWatch w;
    SilenceCheck c(w, sleeper);
    EXPECT_EQ(c.sample()->state, 'T');
    EXPECT_EQ(c.verdict(ms(1500), t), Silence::hung);
  }
  end(sleeper);

  pid_t spinner = child_with_service_thread(true);
  ASSERT_GT(wait_for_service_thread(spinner), 0);
  SilenceWatch w;
  {
    SilenceCheck c(w, spinner);
    ASSERT_TRUE(c.sample());
    EXPECT_EQ(c.sample()->state, 'R');
    EXPECT_EQ(c.verdict(ms(1500), t), Silence::starved);  // first look: runnable
  }
  // It keeps running without a heartbeat: once it has used more than kSpinTicks of CPU it is hung.
  Silence v = Silence::starved;
  for (int i = 0; i < 3000 && v == Silence::starved; ++i) {  // up to 30 s on a loaded machine
    usleep(10000);
    SilenceCheck c(w, spinner);
    v = c.verdict(ms(1500), t);
  }
  EXPECT_EQ(v, Silence::hung);
  end(spinner);
}

// tools/launch/stop_judge.*: before the first heartbeat and after the goodbye only a stop held through
// every sample for the timeout is a hang.
TEST(StopJudge, HeldThroughTheTimeout) {
  using C = StopWatch::Clock;
  const C::time_point t0{};
  const ms limit(1000);
  StopWatch w;
  EXPECT_FALSE(w.stopped_for(false, t0, limit));
  EXPECT_FALSE(w.stopped_for(true, t0 + ms(100), limit));   // first seen stopped: the clock starts
  EXPECT_FALSE(w.stopped_for(true, t0 + ms(1099), limit));
  EXPECT_TRUE(w.stopped_for(true, t0 + ms(1100), limit));
  // Resumed (a sample found it running): the next stop starts a new clock.
  EXPECT_FALSE(w.stopped_for(false, t0 + ms(1200), limit));
  EXPECT_FALSE(w.stopped_for(true, t0 + ms(1300), limit));
  EXPECT_FALSE(w.stopped_for(true, t0 + ms(2200), limit));
  EXPECT_TRUE(w.stopped_for(true, t0 + ms(2300), limit));
  // A heartbeat in between (it ran) resets it as well.
  w.reset();
  EXPECT_FALSE(w.stopped_for(true, t0 + ms(2400), limit));
  EXPECT_TRUE(w.stopped_for(true, t0 + ms(3400), limit));
}

TEST(StopJudge, RealProcesses) {
  const auto limit = std::chrono::milliseconds(50);
  pid_t sleeper = child_with_service_thread(false);
  ASSERT_GT(wait_for_service_thread(sleeper), 0);
  StopWatch w;
  auto now = StopWatch::Clock::now();
  EXPECT_FALSE(w.sample(sleeper, now, limit));
  EXPECT_FALSE(w.sample(sleeper, now + std::chrono::seconds(5), limit));  // asleep, never judged by silence
  kill(sleeper, SIGSTOP);
  bool stopped = false;
  for (int i = 0; i < 2500 && !stopped; ++i) {  // the stop takes effect (up to 5 s on a loaded machine)
    usleep(2000);
    stopped = w.sample(sleeper, StopWatch::Clock::now(), limit);
  }
  EXPECT_TRUE(stopped);
  end(sleeper);
  StopWatch gone;
  EXPECT_FALSE(gone.sample(sleeper, StopWatch::Clock::now(), limit));  // reaped: its exit says how it ended
}
