// mpiexec / mpirun: parse the command line, check the program and hosts, run the job, report.
#include <fcntl.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "exec_check.h"
#include "host_layout.h"
#include "job.h"
#include "job_control.h"
#include "options.h"
#include "dpm/name_dir.h"
#include "origin.h"
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
    case ParsedCommandLine::Action::status:
      return job_control_client(cl.job_id, "status", 5);
    case ParsedCommandLine::Action::halt:
      return job_control_client(cl.job_id, "halt", 30);
    case ParsedCommandLine::Action::run:
      break;
  }
  Options& o = cl.options;
  auto layout = parse_hosts(o.hosts, o.hostfile);
  if (!layout.ok()) return usage_error(layout.status().message());
  // Several hosts: one daemon per host, mpiexec is the origin (origin.h). All hosts local (or none
  // given): the single-host Job.
  bool several = !layout->hosts.empty() && !layout->all_local();
  for (const InjectSpec& s : o.ft.injections) {
    if (s.host.empty()) continue;
    if (!several) return usage_error("--inject host=" + s.host + " needs a job on several hosts (--host/--hostfile)");
    bool known = false;
    for (const HostEntry& h : layout->hosts) known = known || h.name == s.host;
    if (!known) return usage_error("--inject names host '" + s.host + "', which is not a host of the job");
  }
  auto path = resolve_program(o.program[0]);
  if (!path.ok()) return usage_error(path.status().message());
  // What can be checked before forking is checked now: one clear line instead of N failed children.
  if (ftmpi::Status st = check_executable_format(path.value()); !st.ok()) return usage_error(st.message());
  if (ftmpi::Status st = check_job_fits(o.np, o.ft.enabled()); !st.ok()) return usage_error(st.message());

  if (o.singleton_pid > 0) {
    // Started by a singleton for its dynamic processes (src/boot/launcher_on_demand.h): its secret, and no name
    // service (the singleton's process id, 0, was fixed in its MPI_Init, outside any universe slot).
    const char* secret = getenv("FTMPI_DPM_SECRET");
    if (!secret || !*secret) return usage_error("--singleton needs FTMPI_DPM_SECRET in the environment");
    o.dpm_secret = secret;
    unsetenv("FTMPI_NAME_SERVICE");
  }
  // A name service shared with other jobs (src/dpm/name_dir.h): the job holds a slot in it while it runs.
  if (o.name_service.empty())
    if (const char* ns = getenv("FTMPI_NAME_SERVICE"); ns && *ns) o.name_service = ns;
  std::unique_ptr<ftmpi::dpm::JobSlot> slot;
  if (!o.name_service.empty()) {
    // A rollback restarts ranks under the same process ids, which connected jobs hold as failed for good
    // (docs/dpm.md "Limits").
    if (o.ft.reinit())
      return usage_error("--name-service cannot be used with --with-ft reinit (a rollback restarts processes under "
                         "ids that connected jobs hold as failed; use --with-ft ulfm across jobs, docs/dpm.md)");
    char abs[PATH_MAX];
    if (o.name_service[0] != '/' && realpath(".", abs)) o.name_service = std::string(abs) + "/" + o.name_service;
    auto s = ftmpi::dpm::JobSlot::claim(o.name_service);
    if (!s.ok()) return usage_error(s.status().message());
    slot = std::move(s.value());
    o.universe_slot = slot->slot();
    o.dpm_secret = slot->secret();
  }

  fflush(stdout);
  if (several) {
    // Reinit across hosts restarts ranks through their daemons, --spares N keeps N warm spare processes
    // on every host (origin_reinit.cpp, tools/ftmpid/daemon_reinit.cpp).
    if (!o.np_given) o.np = layout->total_slots();
    place_ranks(layout.value(), o.np);
    for (const InjectSpec& s : o.ft.injections)
      if (s.host.empty() && s.rank >= o.np)
        return usage_error("--inject names rank " + std::to_string(s.rank) + " but the job has " + std::to_string(o.np) + " ranks");
    Origin origin(std::move(o), path.value(), std::move(layout.value()));
    return origin.run();
  }
  Job job(std::move(o), path.value());
  return job.run();
}
