// The Reinit respawn template: its command codec (src/models/reinit/respawn_template.h) and the launcher's
// side (tools/launch/template_process.h) with a real template (a libmpi program): a rank it makes is the
// caller's child and runs main from the top; a program that does not load libmpi gets no template; a dead
// template (reaped or not) makes fork_rank fail at once (the caller falls back to fork+exec), never wait;
// release() leaves nothing behind. Jobs with real kills: tests/reinit/reinit_template.c, tests/hosts.
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
using ftmpi::Errc;
using ftmpi::Result;
using ftmpi::Status;

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
// A real template: a libmpi program (tests/reinit/reinit_template.c), started with no arguments, so that a
// rank it makes runs main from the top, prints its usage line on the stderr it was given and exits 2.
SpawnRequest libmpi_program() {
  SpawnRequest r;
  r.path = FTMPI_TEST_LIBMPI_PROGRAM;
  r.argv = {"reinit_template"};
  r.env = {"PATH=/usr/bin:/bin", "PMI_RANK=1", "FTMPI_SPARE=0"};
  return r;
}
SpawnRequest with_fds(SpawnRequest r, int out, int err, int pmi) {
  r.stdout_fd = out;
  r.stderr_fd = err;
  r.pmi_fd = pmi;
  return r;
}
// fork_rank until the template says ready (it is loading): up to 10 s.
Result<pid_t> fork_when_ready(TemplateProcess& t, const SpawnRequest& r) {
  for (int i = 0; i < 1000; ++i) {
    auto p = t.fork_rank(r);
    if (p.ok() || p.status().message().find("not ready") == std::string::npos) return p;
    usleep(10000);
  }
  return Status(Errc::other, "never ready");
}
}  // namespace

TEST(TemplateProcess, OnlyProgramsThatLoadLibmpi) {
  EXPECT_TRUE(ftmpi::mpiexec::program_loads_libmpi(FTMPI_TEST_LIBMPI_PROGRAM));
  EXPECT_FALSE(ftmpi::mpiexec::program_loads_libmpi("/bin/sleep"));
  EXPECT_FALSE(ftmpi::mpiexec::program_loads_libmpi("/bin/sh"));
  EXPECT_FALSE(ftmpi::mpiexec::program_loads_libmpi("/nonexistent"));
  TemplateProcess t;
  SpawnRequest r;
  r.path = "/bin/sleep";
  r.argv = {"sleep", "60"};
  Status st = t.start(r);
  EXPECT_EQ(st.code(), Errc::unsupported);  // it would run to its end as the template
  EXPECT_FALSE(t.running());
}

TEST(TemplateProcess, ForksARankThatRunsMainFromTheTop) {
  TemplateProcess t;
  ASSERT_TRUE(t.start(libmpi_program()).ok());
  int err[2], out = dup(1), pmi = dup(1);
  ASSERT_EQ(pipe(err), 0);
  auto pid = fork_when_ready(t, with_fds(libmpi_program(), out, err[1], pmi));
  close(err[1]);
  close(out);
  close(pmi);
  ASSERT_TRUE(pid.ok()) << pid.status().message();
  int st = 0;
  ASSERT_EQ(waitpid(pid.value(), &st, 0), pid.value());  // our child, as a fork+exec'd rank would be
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 2);
  char buf[256] = {};
  ssize_t n = read(err[0], buf, sizeof buf - 1);
  close(err[0]);
  EXPECT_GT(n, 0);
  EXPECT_NE(std::string(buf).find("usage: reinit_template"), std::string::npos) << buf;
  EXPECT_EQ(t.forked(), 1);
  const pid_t tp = t.pid();
  t.release();
  EXPECT_NE(kill(tp, 0), 0);  // killed and reaped
}

TEST(TemplateProcess, DeadTemplateFailsFast) {
  TemplateProcess t;
  ASSERT_TRUE(t.start(libmpi_program()).ok());
  const pid_t pid = t.pid();
  kill(pid, SIGKILL);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);  // the caller reaps it, as mpiexec's waitpid(-1) would
  EXPECT_TRUE(t.reaped(pid));
  EXPECT_FALSE(t.reaped(pid));
  int fds[3] = {dup(2), dup(2), dup(2)};
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(t.fork_rank(with_fds(libmpi_program(), fds[0], fds[1], fds[2])).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(200));
  for (int fd : fds) close(fd);
  while (waitpid(-1, nullptr, WNOHANG) > 0) {  // a waiting child it may have made ends with it
  }
}

TEST(TemplateProcess, KilledButNotReapedTemplateFailsFast) {  // ftmpid does not reap it
  TemplateProcess t;
  ASSERT_TRUE(t.start(libmpi_program()).ok());
  int fds[3] = {dup(2), dup(2), dup(2)};
  usleep(200000);
  kill(t.pid(), SIGKILL);
  usleep(50000);
  auto p = t.fork_rank(with_fds(libmpi_program(), fds[0], fds[1], fds[2]));
  EXPECT_FALSE(p.ok());
  EXPECT_FALSE(t.running());
  for (int fd : fds) close(fd);
}

TEST(TemplateProcess, WorkingDirectoryOfItsOwnIsNotForked) {
  TemplateProcess t;
  int fds[3] = {dup(2), dup(2), dup(2)};
  SpawnRequest r = with_fds(libmpi_program(), fds[0], fds[1], fds[2]);
  r.cwd = "/tmp";
  EXPECT_FALSE(t.fork_rank(r).ok());  // also without a template
  for (int fd : fds) close(fd);
}

// Replacement of a lost template (template_renewal.h): bounded by young deaths in a row and by a total.
TEST(TemplateRenewal, ReplacesALostTemplateButNotOneThatKeepsDyingYoung) {
  using ftmpi::mpiexec::TemplateRenewal;
  using namespace std::chrono_literals;
  TemplateRenewal r;
  auto t = TemplateRenewal::Clock::now();
  r.started(t);
  EXPECT_FALSE(r.due());  // running
  r.ready();
  r.lost(t + 10s);        // lived long: not young
  EXPECT_TRUE(r.due());
  EXPECT_EQ(r.young_in_a_row(), 0);
  r.lost(t + 11s);        // once per template
  r.renewing();
  EXPECT_FALSE(r.due());
  for (int i = 0; i < TemplateRenewal::kMaxYoungDeaths; ++i) {
    r.started(t);
    r.lost(t + 1ms);      // before "ready": young
    EXPECT_EQ(r.due(), i + 1 < TemplateRenewal::kMaxYoungDeaths) << i;
    if (r.due()) r.renewing();
  }
  EXPECT_TRUE(r.given_up());
}

TEST(TemplateRenewal, ALongLifeResetsTheYoungDeathsAndTheTotalIsBounded) {
  using ftmpi::mpiexec::TemplateRenewal;
  using namespace std::chrono_literals;
  TemplateRenewal r;
  auto t = TemplateRenewal::Clock::now();
  int renewals = 0;
  for (int i = 0; i < 2 * TemplateRenewal::kMaxRenewals && !r.given_up(); ++i) {
    r.started(t);
    r.ready();
    // two young deaths, then one that lived: never kMaxYoungDeaths in a row
    r.lost(i % 3 == 2 ? t + 5s : t + 1ms);
    EXPECT_LT(r.young_in_a_row(), TemplateRenewal::kMaxYoungDeaths);
    if (!r.due()) break;
    r.renewing();
    ++renewals;
  }
  EXPECT_EQ(renewals, TemplateRenewal::kMaxRenewals);
  EXPECT_TRUE(r.given_up());
  EXPECT_FALSE(r.due());
}

TEST(TemplateRenewal, ARefusedTemplateIsNeverReplaced) {
  ftmpi::mpiexec::TemplateRenewal r;
  r.started(ftmpi::mpiexec::TemplateRenewal::Clock::now());
  r.refused();
  EXPECT_TRUE(r.given_up());
  EXPECT_FALSE(r.due());
}

TEST(TemplateProcess, ALostTemplateIsReplacedByRenew) {
  TemplateProcess t;
  EXPECT_EQ(t.renew(), TemplateProcess::Renewal::none);  // never started
  ASSERT_TRUE(t.start(libmpi_program()).ok());
  EXPECT_EQ(t.renew(), TemplateProcess::Renewal::none);  // running
  const pid_t first = t.pid();
  kill(first, SIGKILL);
  int st = 0;
  ASSERT_EQ(waitpid(first, &st, 0), first);
  EXPECT_TRUE(t.reaped(first));
  EXPECT_FALSE(t.running());
  ASSERT_EQ(t.renew(), TemplateProcess::Renewal::started);
  EXPECT_TRUE(t.running());
  EXPECT_NE(t.pid(), first);
  EXPECT_EQ(t.renew(), TemplateProcess::Renewal::none);  // running again
  // The new one forks ranks.
  int err[2], out = dup(1), pmi = dup(1);
  ASSERT_EQ(pipe(err), 0);
  auto pid = fork_when_ready(t, with_fds(libmpi_program(), out, err[1], pmi));
  close(err[1]);
  close(err[0]);
  close(out);
  close(pmi);
  ASSERT_TRUE(pid.ok()) << pid.status().message();
  ASSERT_EQ(waitpid(pid.value(), &st, 0), pid.value());
  // Released at the job's end: not lost, not replaced.
  t.release();
  EXPECT_EQ(t.renew(), TemplateProcess::Renewal::none);
  EXPECT_FALSE(t.running());
}

TEST(TemplateProcess, ATemplateThatKeepsDyingYoungIsGivenUp) {
  TemplateProcess t;
  ASSERT_TRUE(t.start(libmpi_program()).ok());
  int given_up = 0, started = 0;
  for (int i = 0; i < 10 && t.running(); ++i) {
    const pid_t p = t.pid();
    kill(p, SIGKILL);  // at once: before it is ready
    int st = 0;
    ASSERT_EQ(waitpid(p, &st, 0), p);
    EXPECT_TRUE(t.reaped(p));
    while (waitpid(-1, nullptr, WNOHANG) > 0) {  // a waiting child it may have made
    }
    switch (t.renew()) {
      case TemplateProcess::Renewal::started: ++started; break;
      case TemplateProcess::Renewal::given_up: ++given_up; break;
      default: break;
    }
  }
  EXPECT_EQ(started, ftmpi::mpiexec::TemplateRenewal::kMaxYoungDeaths - 1);
  EXPECT_EQ(given_up, 1);
  EXPECT_FALSE(t.running());
  EXPECT_EQ(t.renew(), TemplateProcess::Renewal::none);  // said once
}
