// A rank's life lock (src/models/reinit/life_lock.h) with real processes: a holder killed by SIGKILL is
// reported as died, with its pid and the exit status waitpid will give, before the parent reaps it; a
// holder that releases is not; a new holder of the same slot takes a dead holder's lock over and is
// watched in turn; a process that died before writing its pid is not reported.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <new>

#include "models/reinit/life_lock.h"

namespace {
using ftmpi::reinit::LifeEnd;
using ftmpi::reinit::LifeSlot;

LifeSlot* shared_slot() {
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  auto* s = new (p) LifeSlot;
  return ftmpi::reinit::init_life_slot(*s) ? s : nullptr;
}

// A child that takes the lock, then either dies by SIGKILL or releases it and exits 0.
pid_t holder(LifeSlot* s, bool die) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  if (!ftmpi::reinit::hold_life(*s)) _exit(3);
  usleep(20000);
  if (die) raise(SIGKILL);
  ftmpi::reinit::release_life(*s);
  _exit(0);
}

TEST(ReinitLifeLock, KilledHolderIsReportedBeforeItIsReaped) {
  LifeSlot* s = shared_slot();
  ASSERT_NE(s, nullptr);
  std::atomic<bool> stop{false};
  std::uint32_t seen = 0;
  pid_t child = holder(s, true);
  pid_t pid = 0, tid = 0;
  EXPECT_EQ(ftmpi::reinit::watch_life(*s, &seen, &pid, &tid, stop), LifeEnd::died);
  EXPECT_EQ(pid, child);
  EXPECT_EQ(tid, child);  // its only thread
  int status = -1;
  // The kernel may still be tearing the process down, or it is a zombie: either way not reaped yet.
  ASSERT_TRUE(ftmpi::reinit::thread_exit_status(pid, tid, &status));
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  int ws = 0;
  ASSERT_EQ(waitpid(child, &ws, 0), child);
  EXPECT_EQ(ws, status);  // what waitpid says is what the report said

  // The next process of the same rank takes the lock over (no EOWNERDEAD left to it) and is watched.
  pid_t second = holder(s, true);
  EXPECT_EQ(ftmpi::reinit::watch_life(*s, &seen, &pid, &tid, stop), LifeEnd::died);
  EXPECT_EQ(pid, second);
  ASSERT_EQ(waitpid(second, &ws, 0), second);
  munmap(s, 4096);
}

TEST(ReinitLifeLock, ReleasedHolderIsNotADeath) {
  LifeSlot* s = shared_slot();
  ASSERT_NE(s, nullptr);
  std::atomic<bool> stop{false};
  std::uint32_t seen = 0;
  pid_t child = holder(s, false);
  pid_t pid = 0, tid = 0;
  EXPECT_EQ(ftmpi::reinit::watch_life(*s, &seen, &pid, &tid, stop), LifeEnd::released);
  int ws = 0;
  ASSERT_EQ(waitpid(child, &ws, 0), child);
  EXPECT_TRUE(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
  munmap(s, 4096);
}

TEST(ReinitLifeLock, WatcherStopsWithoutAHolder) {
  LifeSlot* s = shared_slot();
  ASSERT_NE(s, nullptr);
  std::atomic<bool> stop{true};
  std::uint32_t seen = 0;
  pid_t pid = 0, tid = 0;
  EXPECT_EQ(ftmpi::reinit::watch_life(*s, &seen, &pid, &tid, stop), LifeEnd::stopped);
  munmap(s, 4096);
}

TEST(ReinitLifeLock, LivingProcessIsNotExiting) {
  int status = 0;
  EXPECT_FALSE(ftmpi::reinit::thread_exit_status(getpid(), getpid(), &status));
}

}  // namespace
