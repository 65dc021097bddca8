// The Reinit respawn template: its command codec (src/models/reinit/respawn_template.h) and the launcher's
// side (tools/launch/template_process.h) with a program that never becomes a template (`sleep`: no libmpi,
// so it never says "ready") and with one that dies — fork_rank must fail at once (the caller falls back
// to fork+exec), never wait, and release() must leave nothing behind. A real template (a libmpi program)
// is exercised with real kills by tests/reinit/reinit_template.c and tests/hosts (reinit_spares_template).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "models/reinit/respawn_template.h"
#include "template_process.h"

using namespace ftmpi;
using namespace ftmpi::reinit;
using ftmpi::mpiexec::SpawnRequest;
using ftmpi::mpiexec::TemplateProcess;

TEST(RespawnTemplateWire, ForkCommandRoundTrip) {
  ForkCommand c;
  c.cpu = 3;
  c.has_ctrl = true;
  c.env = {"PMI_RANK=2", "A=b=c", "EMPTY="};
  auto d = decode_fork(encode_fork(c));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d.value().cpu, 3);
  EXPECT_TRUE(d.value().has_ctrl);
  EXPECT_FALSE(d.value().has_stdin);
  EXPECT_EQ(d.value().env, c.env);
  EXPECT_EQ(d.value().fd_count(), 4);
}

TEST(RespawnTemplateWire, RejectsMalformed) {
  EXPECT_FALSE(decode_fork("fork cpu=1 ctrl=0 in=0").ok());               // no header end
  EXPECT_FALSE(decode_fork("spawn cpu=1\n").ok());                          // not a fork command
  EXPECT_FALSE(decode_fork(std::string("fork cpu=-1\nNOEQUALS", 21)).ok()); // no NUL after the entry
  EXPECT_FALSE(decode_fork(std::string("fork cpu=-1\nNOEQ\0", 17)).ok());   // no '='
  EXPECT_FALSE(decode_fork(std::string("fork cpu=-1\n=x\0", 15)).ok());     // no name
  auto empty = decode_fork("fork cpu=-1 ctrl=0 in=0\n");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty.value().env.empty());
}

TEST(RespawnTemplateWire, PlacesChannelFds) {
  std::vector<std::string> env = {"PMI_FD=7", "X=1", "FTMPI_CTRL_FD=9"};
  place_channel_fds(env, 4, 5);
  EXPECT_EQ(std::count(env.begin(), env.end(), "PMI_FD=4"), 1);
  EXPECT_EQ(std::count(env.begin(), env.end(), "FTMPI_CTRL_FD=5"), 1);
  EXPECT_EQ(env.size(), 3u);
  std::vector<std::string> no_ctrl = {"PMI_FD=7", "FTMPI_CTRL_FD=9"};
  place_channel_fds(no_ctrl, 4, -1);  // no control channel sent: the entry is left alone
  EXPECT_EQ(std::count(no_ctrl.begin(), no_ctrl.end(), "FTMPI_CTRL_FD=9"), 1);
}

namespace {
SpawnRequest sleeper() {
  SpawnRequest r;
  r.path = "/bin/sleep";
  r.argv = {"sleep", "60"};
  r.env = {"PATH=/usr/bin:/bin", "PMI_RANK=1", "FTMPI_SPARE=0"};
  return r;
}
SpawnRequest rank_request(int fds[3]) {
  SpawnRequest r = sleeper();
  r.stdout_fd = fds[0];
  r.stderr_fd = fds[1];
  r.pmi_fd = fds[2];
  return r;
}
}  // namespace

TEST(TemplateProcess, NeverReadyProgramIsNotUsedAndReleased) {
  TemplateProcess t;
  ASSERT_TRUE(t.start(sleeper()).ok());
  const pid_t pid = t.pid();
  ASSERT_GT(pid, 0);
  int fds[3] = {dup(2), dup(2), dup(2)};
  auto t0 = std::chrono::steady_clock::now();
  auto r = t.fork_rank(rank_request(fds));
  EXPECT_FALSE(r.ok());  // not ready: the caller falls back at once
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(200));
  EXPECT_TRUE(t.running());
  t.release();
  EXPECT_FALSE(t.running());
  EXPECT_NE(kill(pid, 0), 0);  // killed and reaped
  for (int fd : fds) close(fd);
}

TEST(TemplateProcess, DeadTemplateFailsFast) {
  TemplateProcess t;
  ASSERT_TRUE(t.start(sleeper()).ok());
  const pid_t pid = t.pid();
  kill(pid, SIGKILL);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);  // the caller reaps it, as mpiexec's waitpid(-1) would
  EXPECT_TRUE(t.reaped(pid));
  EXPECT_FALSE(t.reaped(pid));
  int fds[3] = {dup(2), dup(2), dup(2)};
  EXPECT_FALSE(t.fork_rank(rank_request(fds)).ok());
  for (int fd : fds) close(fd);
}

TEST(TemplateProcess, WorkingDirectoryOfItsOwnIsNotForked) {
  TemplateProcess t;
  int fds[3] = {dup(2), dup(2), dup(2)};
  SpawnRequest r = rank_request(fds);
  r.cwd = "/tmp";
  EXPECT_FALSE(t.fork_rank(r).ok());  // also without a template
  for (int fd : fds) close(fd);
}
