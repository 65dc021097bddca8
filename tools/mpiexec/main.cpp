// mpiexec / mpirun: parse the command line, check the program and hosts, run the job, report.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

#include "exec_check.h"
#include "hosts.h"
#include "job.h"
#include "options.h"
#include "spawn.h"

namespace {

int usage_error(const std::string& msg) {
  std::string line = "mpiexec: " + msg + "\n";
  (void)!::write(2, line.data(), line.size());
  return ftmpi::mpiexec::kExitUsage;
}

// Ranks' fds are dup2'ed onto 0/1/2: make sure those exist so that no pipe lands on them.
void ensure_std_fds() {
  for (int fd = 0; fd < 3; ++fd)
    if (fcntl(fd, F_GETFD) < 0) {
      int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
      if (n >= 0 && n != fd) {
        dup2(n, fd);
        close(n);
      }
    }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ftmpi::mpiexec;
  ensure_std_fds();
  ParsedCommandLine cl = parse_command_line(argc, argv);
  switch (cl.action) {
    case ParsedCommandLine::Action::help:
      fputs(usage_text(), stdout);
      return 0;
    case ParsedCommandLine::Action::version:
      printf("mpiexec (ftmpi) %s\n", FTMPI_MPIEXEC_VERSION);
      return 0;
    case ParsedCommandLine::Action::error:
      return usage_error(cl.error);
    case ParsedCommandLine::Action::run:
      break;
  }
  Options& o = cl.options;
  if (std::string err = check_hosts_are_local(o); !err.empty()) return usage_error(err);
  auto path = resolve_program(o.program[0]);
  if (!path.ok()) return usage_error(path.status().message());
  // What can be checked before forking is checked now: one clear line instead of N failed children.
  if (ftmpi::Status st = check_executable_format(path.value()); !st.ok()) return usage_error(st.message());
  if (ftmpi::Status st = check_job_fits(o.np, o.ft.enabled()); !st.ok()) return usage_error(st.message());

  fflush(stdout);
  Job job(std::move(o), path.value());
  return job.run();
}
