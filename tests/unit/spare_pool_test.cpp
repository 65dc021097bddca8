// Warm spare bookkeeping (tools/launch/spare_pool.h), shared by mpiexec (one host) and ftmpid (several
// hosts): the spare's environment, the adopt line, and fill / take / reap / release on real processes
// (`sleep`, started with the environment the pool gives), with a start that fails half-way.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "spare_pool.h"

using namespace ftmpi::mpiexec;
using ftmpi::Errc;
using ftmpi::Result;
using ftmpi::Status;

namespace {

bool has(const std::vector<std::string>& env, const std::string& prefix) {
  return std::any_of(env.begin(), env.end(), [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
}

// A stand-in for a spare: `sleep 60`, its environment recorded.
struct Starter {
  std::vector<std::vector<std::string>> envs;
  int fail_after = -1;  // the start number that fails (-1: none)
  Result<WarmProcess> operator()(std::vector<std::string> env) {
    if (fail_after >= 0 && static_cast<int>(envs.size()) == fail_after) return Status(Errc::other, "no more processes");
    envs.push_back(env);
    pid_t pid = fork();
    if (pid == 0) {
      execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
      _exit(127);
    }
    WarmProcess p;
    p.pid = pid;
    int fds[2];
    if (pipe(fds) == 0) {  // descriptors the pool must close
      p.pmi_fd = fds[0];
      p.ctrl_fd = fds[1];
    }
    return p;
  }
};

bool gone(pid_t pid) { return kill(pid, 0) != 0; }

}  // namespace

TEST(SparePool, SpareEnvironmentDropsTheRankAndInjection) {
  auto env = SparePool::spare_environment(
      {"PATH=/bin", "PMI_RANK=3", "FTMPI_LOCAL_RANK=1", "FTMPI_INJECT_AT=MPI_Send:2", "FTMPI_SPARE=9", "PMI_FD=5"}, 4);
  EXPECT_FALSE(has(env, "PMI_RANK="));
  EXPECT_FALSE(has(env, "FTMPI_LOCAL_RANK="));
  EXPECT_FALSE(has(env, "FTMPI_INJECT_AT="));
  EXPECT_TRUE(has(env, "PATH=/bin"));
  EXPECT_TRUE(has(env, "PMI_FD=5"));
  EXPECT_EQ(std::count(env.begin(), env.end(), "FTMPI_SPARE=4"), 1);
  EXPECT_FALSE(has(env, "FTMPI_SPARE=9"));
}

TEST(SparePool, AdoptLine) {
  EXPECT_EQ(SparePool::adopt_line(2, 3, {2, 5}), "cmd=adopt rank=2 epoch=3 failed=2,5\n");
  EXPECT_EQ(SparePool::adopt_line(0, 1, {}), "cmd=adopt rank=0 epoch=1 failed=\n");
}

TEST(SparePool, FillTakeReapRelease) {
  SparePool pool;
  Starter st;
  std::string error;
  auto start = [&st](std::vector<std::string> env) { return st(std::move(env)); };
  EXPECT_EQ(pool.fill({"PMI_RANK=0"}, start, &error), 0);  // target 0: nothing
  pool.set_target(3);
  EXPECT_EQ(pool.fill({"PMI_RANK=0", "X=1"}, start, &error), 3);
  EXPECT_TRUE(error.empty());
  ASSERT_EQ(pool.size(), 3);
  for (const auto& env : st.envs) {
    EXPECT_FALSE(has(env, "PMI_RANK="));
    EXPECT_TRUE(has(env, "X=1"));
  }
  const pid_t first = pool.spares()[0].pid, second = pool.spares()[1].pid, third = pool.spares()[2].pid;
  // take: the oldest first; it is the caller's now (not held, not released by the pool).
  auto t = pool.take();
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->pid, first);
  EXPECT_FALSE(pool.holds(first));
  EXPECT_TRUE(pool.holds(second));
  // A spare that ended before it was used is forgotten; an unknown pid is not one.
  kill(second, SIGKILL);
  waitpid(second, nullptr, 0);
  EXPECT_TRUE(pool.reap(second));
  EXPECT_FALSE(pool.reap(second));
  EXPECT_FALSE(pool.reap(first));
  EXPECT_EQ(pool.size(), 1);
  // Top up again (after a commit): back to 3, FTMPI_SPARE numbers never repeat.
  EXPECT_EQ(pool.fill({"PMI_RANK=0"}, start, &error), 2);
  EXPECT_EQ(pool.size(), 3);
  std::vector<std::string> ids;
  for (const auto& env : st.envs)
    for (const auto& e : env)
      if (e.rfind("FTMPI_SPARE=", 0) == 0) ids.push_back(e);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end());
  // release: every spare killed and reaped.
  std::vector<pid_t> held;
  for (const auto& p : pool.spares()) held.push_back(p.pid);
  pool.release();
  EXPECT_EQ(pool.size(), 0);
  for (pid_t p : held) EXPECT_TRUE(gone(p)) << p;
  EXPECT_TRUE(gone(third));
  // The taken one is still the caller's to end.
  EXPECT_FALSE(gone(first));
  kill(first, SIGKILL);
  waitpid(first, nullptr, 0);
  t->close_fds();
  EXPECT_EQ(t->pmi_fd, -1);
}

TEST(SparePool, AStartThatFailsStopsTheFill) {
  SparePool pool;
  Starter st;
  st.fail_after = 1;
  pool.set_target(3);
  std::string error;
  EXPECT_EQ(pool.fill({}, [&st](std::vector<std::string> env) { return st(std::move(env)); }, &error), 1);
  EXPECT_EQ(error, "no more processes");
  EXPECT_EQ(pool.size(), 1);
  pool.set_target(-2);  // negative counts as none
  EXPECT_EQ(pool.target(), 0);
  pool.release();
}
