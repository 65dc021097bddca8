// A process the launcher supervises without having started it (tools/launch/adopted_process.h: a singleton
// that started mpiexec on demand), and where the singleton finds mpiexec (src/boot/launcher_on_demand.h).
// The whole path with real processes: tests/mpi/dpm/dpm_singleton.sh.
#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "adopted_process.h"
#include "boot/launcher_on_demand.h"

using ftmpi::Errc;
using ftmpi::mpiexec::AdoptedProcess;

namespace {
bool readable_within(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}
}  // namespace

TEST(AdoptedProcess, SeesTheEndAndReadsTheStatusWhileAZombie) {
  pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  auto w = AdoptedProcess::watch(child);
  ASSERT_TRUE(w.ok()) << w.status().message();
  AdoptedProcess p = std::move(w.value());
  EXPECT_FALSE(readable_within(p.fd(), 50));  // running
  EXPECT_TRUE(p.signal(SIGTERM));             // to it alone
  ASSERT_TRUE(readable_within(p.fd(), 5000));
  auto st = p.exit_status();  // a zombie still: its status is there
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFSIGNALED(*st) && WTERMSIG(*st) == SIGTERM) << *st;
  int real = 0;
  ASSERT_EQ(waitpid(child, &real, 0), child);
  EXPECT_EQ(real, *st);
  EXPECT_FALSE(p.exit_status().has_value());  // reaped: lost
  EXPECT_FALSE(p.signal(SIGTERM));            // never a process that reused the pid
  p.release();
  EXPECT_EQ(p.fd(), -1);
}

TEST(AdoptedProcess, ExitCodeAndAGoneProcess) {
  pid_t child = fork();
  if (child == 0) _exit(7);
  auto w = AdoptedProcess::watch(child);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(readable_within(w.value().fd(), 5000));
  auto st = w.value().exit_status();
  ASSERT_TRUE(st.has_value());
  EXPECT_TRUE(WIFEXITED(*st) && WEXITSTATUS(*st) == 7);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_FALSE(AdoptedProcess::watch(child).ok());  // gone (unless the pid was reused at once)
}

TEST(LauncherOnDemand, FtmpiMpiexecOverrideMustBeAnExecutable) {
  setenv("FTMPI_MPIEXEC", "/nonexistent/mpiexec", 1);
  auto m = ftmpi::boot::find_mpiexec();
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Errc::unsupported);
  EXPECT_NE(m.status().message().find("FTMPI_MPIEXEC=/nonexistent/mpiexec"), std::string::npos);
  setenv("FTMPI_MPIEXEC", "/bin/true", 1);
  m = ftmpi::boot::find_mpiexec();
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value(), "/bin/true");
  unsetenv("FTMPI_MPIEXEC");
  // Without it: next to the code's own file (this test program, linked statically: bin/../bin/mpiexec, the
  // build tree's mpiexec) or an error that says where it looked.
  m = ftmpi::boot::find_mpiexec();
  if (!m.ok()) {
    EXPECT_NE(m.status().message().find("looked for"), std::string::npos) << m.status().message();
  }
}

TEST(LauncherOnDemand, OwnCommandLine) {
  auto cl = ftmpi::boot::own_command_line();
  ASSERT_FALSE(cl.empty());
  EXPECT_EQ(cl[0][0], '/');  // the executable's absolute path
}

TEST(LauncherOnDemand, AnExecFailureIsReported) {
  auto fd = ftmpi::boot::start_mpiexec("/nonexistent/mpiexec", "s", {"x"});
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.status().message().find("No such file"), std::string::npos) << fd.status().message();
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}
