// Reinit on several hosts, the host daemon's part (--with-ft reinit; the origin's part:
// tools/mpiexec/origin_reinit.cpp): restarting a failed rank on this host ("restart" frame) and keeping
// this host's warm spare processes (--spares N: N per host, spare_pool.h, the same bookkeeping as mpiexec's
// on one host).
//
// Spares. The launch frame's spares=N sets the target; the daemon starts N spares once its ranks are
// started, and tops them up again when the origin says "replenish" (after each committed epoch change:
// their start-up then competes with the computation, not with a recovery). A "restart rank=R" is carried
// out by the oldest spare when there is one (one line on its control channel: no fork, exec or loading on
// the recovery path), else by fork+exec. The origin keeps a count of each host's spares to decide where a
// rank goes (origin_reinit.cpp); the daemon keeps it true: "spare ev=up pid=P node=N" for each spare
// started, "spare ev=gone pid=P node=N" for one that ended before it was used, and "restarted rank=R pid=P
// spare=0|1" for each restart (the origin's timeline names the process that took the rank over).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "daemon.h"
#include "say.h"
#include "util/log.h"

namespace ftmpi::mpiexec {

void Daemon::restart_rank(const Frame& f) {
  if (!launched_ || !reinit_) return;
  int rank = static_cast<int>(f.num("rank", -1));
  int epoch = static_cast<int>(f.num("epoch", 0));
  if (rank < 0) return;
  // Its entry here if it ran here before (long ended: the origin restarts only what a daemon reported
  // dead, or a lost host's ranks elsewhere), else a new one: a rank moved here from a lost host or taken
  // by a spare of this host.
  Rank* slot = nullptr;
  for (Rank& r : ranks_)
    if (r.rank == rank && !r.alive && r.pidfd < 0) slot = &r;
  if (!slot) {
    ranks_.emplace_back();
    slot = &ranks_.back();
  }
  *slot = Rank{};
  slot->rank = rank;
  Frame done("restarted");
  done.set("rank", rank);
  if (auto spare = spares_.take()) {
    std::vector<int> failed;
    for (std::size_t p = 0; p < f.payload.size();) {
      std::size_t c = f.payload.find(',', p);
      if (c == std::string::npos) c = f.payload.size();
      if (c > p) failed.push_back(std::atoi(f.payload.substr(p, c - p).c_str()));
      p = c + 1;
    }
    attach(*slot, *spare);
    slot->ctrl.out = SparePool::adopt_line(rank, epoch, failed);
    if (!slot->ctrl.flush()) slot->ctrl.close();
    done.set("pid", slot->pid).set("spare", 1);
    log::debug("ftmpid: host %s: rank %d taken over by spare pid %d (epoch %d)", host_.c_str(), rank,
               static_cast<int>(slot->pid), epoch);
  } else {
    int local = static_cast<int>(slot - ranks_.data());
    const std::string no_cwd;
    const std::vector<std::string> no_inject;  // an injection fires at the first launch only
    const AppSpec* app = spec_.app_of(rank);  // its program (the template is used by a job of one program)
    RankStart how{app ? app->path : spec_.path, app ? app->argv : spec_.argv, spec_.env, no_inject,
                  app ? app->cwd : no_cwd, spec_.pty, false, rank, local, static_cast<int>(ranks_.size())};
    if (app) how.extra = app->env;
    how.extra.push_back("FTMPI_REINIT_EPOCH=" + std::to_string(epoch));
    how.extra.push_back("FTMPI_REINIT_FAILED=" + f.payload);
    how.from_template = spec_.apps.size() <= 1;
    const int forked_before = template_.forked();
    if (!start_rank(*slot, how)) return;  // its exit (127) went up
    done.set("pid", slot->pid).set("spare", 0).set("template", template_.forked() != forked_before ? 1 : 0);
  }
  send_up(done);
}

void Daemon::fill_spares() {
  if (!reinit_ || ending_ || spares_.target() == 0) return;
  const int before = spares_.size();
  const std::string no_cwd;
  const std::vector<std::string> no_inject;
  const int local_size = static_cast<int>(ranks_.size());
  std::string error;
  spares_.fill(spec_.env,
               [&](std::vector<std::string> env) {
                 RankStart how{spec_.path, spec_.argv, env, no_inject, no_cwd, spec_.pty, false, -1, 0, local_size};
                 return spawn_process(how, -1);
               },
               &error);
  if (!error.empty())
    say("warning: host %s: cannot start a spare process: %s (failed ranks are restarted by fork+exec)",
        host_.c_str(), error.c_str());
  for (int k = before; k < spares_.size(); ++k) {
    const WarmProcess& p = spares_.spares()[static_cast<std::size_t>(k)];
    log::debug("ftmpid: host %s: spare pid %d", host_.c_str(), static_cast<int>(p.pid));
    Frame up("spare");
    up.set("ev", "up").set("pid", p.pid).set("node", o_.node);
    send_up(up);
  }
}

void Daemon::start_template() {
  if (!template_enabled()) return;
  SpawnRequest req;
  req.path = spec_.path;
  req.argv = spec_.argv;
  req.env = spec_.env;
  req.env.push_back("FTMPI_NUM_CORES=" + std::to_string(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))));
  Status st = template_.start(std::move(req));
  if (st.code() == Errc::unsupported) {
    log::debug("ftmpid: host %s: no respawn template: %s", host_.c_str(), st.message().c_str());
    return;
  }
  if (!st.ok()) {
    say("warning: host %s: cannot start the respawn template: %s (failed ranks are restarted by fork+exec)",
        host_.c_str(), st.message().c_str());
    return;
  }
  log::debug("ftmpid: host %s: respawn template pid %d", host_.c_str(), static_cast<int>(template_.pid()));
}

void Daemon::renew_template() {
  if (!reinit_ || ending_) return;
  switch (template_.renew()) {
    case TemplateProcess::Renewal::none: break;
    case TemplateProcess::Renewal::started:
      log::debug("ftmpid: host %s: the respawn template was lost; a new one is pid %d", host_.c_str(),
                 static_cast<int>(template_.pid()));
      break;
    case TemplateProcess::Renewal::failed:
      log::debug("ftmpid: host %s: the respawn template was lost and a new one could not be started", host_.c_str());
      break;
    case TemplateProcess::Renewal::given_up:
      say("warning: host %s: the respawn template keeps dying: failed ranks are restarted by fork+exec from now on",
          host_.c_str());
      break;
  }
}

void Daemon::on_spare_ended(pid_t pid) {
  // Taken over since the poll (a restart frame of the same round): it is a rank now, and its end is
  // on_rank_ended's to reap and report.
  if (!spares_.holds(pid)) return;
  int st = 0;
  if (waitpid(pid, &st, WNOHANG) <= 0) return;
  spares_.reap(pid);
  if (!ending_) say("warning: host %s: spare process %d ended before it was used (status 0x%x)", host_.c_str(),
                    static_cast<int>(pid), st);
  Frame gone("spare");
  gone.set("ev", "gone").set("pid", pid).set("node", o_.node);
  send_up(gone);
}

}  // namespace ftmpi::mpiexec
