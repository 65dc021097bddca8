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

// --display-map: which ranks of which program run on which host (ranks [first, first + n) of a host).
void display_map(const ftmpi::mpiexec::Options& o, const std::string& host, int first, int n) {
  std::string line = "mpiexec: map: host " + host + ": ";
  if (n == 0) line += "no ranks";
  for (int r = first; r < first + n;) {
    const int k = o.app_of(r);
    int end = r;
    while (end + 1 < first + n && o.app_of(end + 1) == k) ++end;
    if (r > first) line += ", ";
    line += (r == end ? "rank " + std::to_string(r) : "ranks " + std::to_string(r) + "-" + std::to_string(end)) + " " +
            o.apps[static_cast<std::size_t>(k)].argv[0];
    r = end + 1;
  }
  line += "\n";
  (void)!::write(2, line.data(), line.size());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ftmpi::mpiexec;
  ensure_std_fds();
  ParsedCommandLine cl = parse_command_line(argc, argv);
  for (const std::string& w : cl.warnings) {
    std::string line = "mpiexec: " + w + "\n";
    (void)!::write(2, line.data(), line.size());
  }
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
  // -ppn / --npernode / --map-by ppr:N:node: N ranks per host; without -n, N on each host (one host when
  // none is given).
  if (o.per_host > 0) {
    if (layout->hosts.empty()) {
      if (!o.np_given) o.np = o.apps.front().np = o.per_host;
    } else {
      for (HostEntry& h : layout->hosts) h.slots = o.per_host;
    }
  }
  // Hosts given without -n: one rank per slot, as Open MPI does (also when every host is this machine).
  if (!o.np_given && !layout->hosts.empty()) o.np = o.apps.front().np = layout->total_slots();
  // What can be checked before forking is checked now: one clear line instead of N failed children.
  for (AppContext& app : o.apps) {
    // A relative program is found from mpiexec's directory, else from the program's -wdir; it is run by
    // its absolute name, since its ranks may start in another directory.
    auto path = resolve_program(app.argv[0]);
    if (!path.ok() && !app.wdir.empty() && app.argv[0].find('/') != std::string::npos && app.argv[0][0] != '/')
      if (auto in_wdir = resolve_program(app.wdir + "/" + app.argv[0]); in_wdir.ok()) path = in_wdir;
    if (!path.ok()) return usage_error(path.status().message());
    if (char abs[PATH_MAX]; path.value()[0] != '/' && realpath(path.value().c_str(), abs)) path = std::string(abs);
    if (ftmpi::Status st = check_executable_format(path.value()); !st.ok()) return usage_error(st.message());
    app.path = path.value();
  }
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
    place_ranks(layout.value(), o.np);
    for (const InjectSpec& s : o.ft.injections)
      if (s.host.empty() && s.rank >= o.np)
        return usage_error("--inject names rank " + std::to_string(s.rank) + " but the job has " + std::to_string(o.np) + " ranks");
    if (o.display_map)
      for (const HostEntry& h : layout->hosts) display_map(o, h.name, h.first_rank, h.nranks);
    Origin origin(std::move(o), std::move(layout.value()));
    return origin.run();
  }
  if (o.display_map) {
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    display_map(o, host, 0, o.np);
  }
  Job job(std::move(o));
  return job.run();
}
