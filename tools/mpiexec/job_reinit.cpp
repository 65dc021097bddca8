// Job, Reinit mode (--with-ft reinit): restarting a failed rank on this host (RankRestarter) and the
// hooks that feed the ReinitDriver (respawn.h). The generic FT machinery (notices, barriers, heartbeats)
// stays in job_ft.cpp; this file only adds what Reinit needs on top.
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "boot/process_mapping.h"
#include "job.h"
#include "rank_stdout.h"
#include "say.h"
#include "spawn.h"
#include "util/log.h"

namespace ftmpi::mpiexec {

namespace {
constexpr int kLifeWatchMaxRanks = 256;
}  // namespace

void Job::reinit_setup() {
  if (!opt_.ft.reinit()) return;
  ReinitDriver::Hooks hooks;
  hooks.restarter = this;
  hooks.tell = [this](int r, const std::string& line) {
    ControlConn& c = ctrl_[static_cast<std::size_t>(r)];
    if (c.fd < 0) return;
    c.out += line;
    if (!c.flush()) c.close();
  };
  hooks.fatal = [this](const std::string& why) { fail_job(1, why + "; terminating the job"); };
  hooks.cheap_restarts = [this] { return static_cast<int>(spares_.size()); };
  // A spare taken over is replaced once the change is committed (every rank is running again): its
  // start-up then competes with the computation, not with the recovery, and the next failure (a cascade)
  // finds a warm process again.
  hooks.committed = [this](int) {
    if (!end_.running()) return;
    launch_spares();
    renew_template();
  };
  // Every rank runs on this host: fence 1 of each epoch goes over a shared-memory board among the ranks
  // instead of through this process (models/reinit/fence_board.h). FTMPI_REINIT_BOARD=0 turns it off.
  const char* off = std::getenv("FTMPI_REINIT_BOARD");
  if (opt_.np <= reinit::kBoardMaxRanks && !(off && std::string(off) == "0")) {
    std::string name = kvsname_ + "-rboard";  // removed with the job's other segments
    auto b = reinit::FenceBoard::create(name, opt_.np);
    if (b.ok()) {
      board_.emplace(std::move(b.value()));
      board_name_ = name;
      hooks.board_begin = [this](int epoch, int members) { board_->begin(epoch, members); };
      // One watcher thread per rank (each asleep in the kernel until its rank ends): not for huge jobs.
      if (opt_.np <= kLifeWatchMaxRanks && reinit::life_lock_enabled())
        life_ = std::make_unique<LifeWatch>(*board_, opt_.np);
      // Opt-in: measured, the commit (fence 2) then waited up to ~1 s for the demoted teardown in 1 run of 5
      // on the loaded machine (something waits for it: a priority inversion), for no gain of the recovery
      // beyond the noise (docs/performance.md, reinit9n).
      const char* demote = std::getenv("FTMPI_REINIT_DEMOTE_EXIT");
      demote_teardown_ = demote && std::string(demote) == "1";
    } else {
      log::debug("mpiexec: %s; fence 1 goes through mpiexec", b.status().message().c_str());
    }
  }
  reinit_ = std::make_unique<ReinitDriver>(opt_.np, opt_.ft.restarts_limit(), std::move(hooks), start_realtime_);
}

// A rank's life lock says its process is ending (life_lock.h): handle it as ended now, with the exit status
// the kernel already holds, instead of when SIGCHLD comes after the teardown of its address space. Only if
// the rank is still that process, alive to us and not finalized, and the kernel says the thread is exiting;
// else the report is stale and SIGCHLD decides as before. The process is reaped later, quietly.
void Job::on_life_readable() {
  for (const LifeWatch::Report& rep : life_->drain()) {
    if (!reinit_ || !end_.running() || rep.rank < 0 || rep.rank >= static_cast<int>(ranks_.size())) continue;
    const RankRecord& rec = ranks_[static_cast<std::size_t>(rep.rank)];
    if (rec.pid != rep.pid || !rec.alive() || rec.pmi_finalized) continue;
    int status = 0;
    if (!reinit::thread_exit_status(rep.pid, rep.tid, &status)) continue;
    log::debug("mpiexec: rank %d (pid %d) is exiting (life lock): handled before it is reaped", rep.rank,
               static_cast<int>(rep.pid));
    ended_early_.push_back(rep.pid);
    // Its teardown must not take a core from the recovery this death starts (life_lock.h, demote_exit).
    if (demote_teardown_) reinit::demote_exit(rep.pid);
    on_rank_exit(rep.rank, status);
  }
}

void Job::reinit_on_exit(int r, bool failure) {
  if (!reinit_ || !end_.running()) return;
  if (!failure) {
    reinit_->on_finalized(r);
    return;
  }
  if (host_loss_batch_) {
    host_loss_batch_->push_back(r);
    return;
  }
  reinit_->on_death(r, ranks_[static_cast<std::size_t>(r)].cause());
}

// Reinit++ programs simulate a node failure with kill(getppid(), SIGTERM): on a cluster a rank's parent is
// its node's daemon, which dies of it and takes the node's ranks with it, and Reinit++ restarts them
// elsewhere. On one host mpiexec is that parent, and the job must go on as with a daemon: the signal is
// this host's loss, not an order to end the job. Every live rank (not finalized) is killed and fails at
// once — one epoch change — and, there being no other host, restarts here (RESTARTED). The sender is
// recognised by the signal's pid, also when its death was already handled and the rank restarted.
bool Job::reinit_signal_from_rank(const JobSignal& s) {
  if (!reinit_ || !end_.running() || s.from <= 0) return false;
  int by = find_rank_by_pid(s.from);
  if (by < 0)
    for (const auto& [rank, pid] : replaced_pids_)
      if (pid == s.from) by = rank;
  if (by < 0 || by >= opt_.np) return false;
  say("reinit: rank %d sent signal %d (%s) to mpiexec, its parent: this host is lost (as a Reinit++ node whose "
      "daemon dies); its ranks restart on it",
      by, s.sig, strsignal(s.sig));
  std::vector<int> lost;
  host_loss_batch_ = &lost;
  for (int r = 0; r < opt_.np && end_.running(); ++r) {
    const RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
    if (!rec.alive() || rec.pid <= 0 || rec.pmi_finalized) continue;
    const pid_t pid = rec.pid;
    if (kill(-pid, SIGKILL) != 0) kill(pid, SIGKILL);
    ended_early_.push_back(pid);  // reaped later, quietly (reap_children)
    on_rank_exit(r, SIGKILL);     // the wait status of a process killed by SIGKILL
  }
  host_loss_batch_ = nullptr;
  if (!lost.empty() && end_.running())
    reinit_->on_deaths(lost, "host lost: rank " + std::to_string(by) + " signalled its parent");
  return true;
}

Result<Job::Started> Job::start_process(int app, std::vector<std::string> env, bool from_template) {
  int sv[2] = {-1, -1}, err[2] = {-1, -1}, cv[2] = {-1, -1};
  OutputChannel out;
  bool have_out = open_output_channel(!opt_.output_pipe, out);
  if (!have_out || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
      socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cv) != 0) {
    int e = errno;
    for (int fd : {sv[0], sv[1], err[0], err[1], cv[0], cv[1], out.read_end, out.write_end})
      if (fd >= 0) ::close(fd);
    return Status(Errc::other, std::string("cannot create its pipes: ") + strerror(e));
  }
  const AppContext& a = opt_.apps[static_cast<std::size_t>(app)];
  SpawnRequest req;
  req.path = a.path;
  req.argv = a.argv;
  req.cwd = a.wdir;
  req.env = std::move(env);
  std::erase_if(req.env, [](const std::string& e) { return e.rfind("FTMPI_INJECT_AT=", 0) == 0; });  // once only
  for (std::string& e : req.env) {
    if (e.rfind("PMI_FD=", 0) == 0) e = "PMI_FD=" + std::to_string(sv[1]);
    if (e.rfind("FTMPI_CTRL_FD=", 0) == 0) e = "FTMPI_CTRL_FD=" + std::to_string(cv[1]);
  }
  req.pmi_fd = sv[1];
  req.ctrl_fd = cv[1];
  req.stdout_fd = out.write_end;
  req.stderr_fd = err[1];
  Result<pid_t> pid = Status(Errc::other, "no template");
  if (from_template && template_.running()) {
    pid = template_.fork_rank(req);
    if (!pid.ok())
      log::debug("mpiexec: respawn template not used (%s): fork+exec", pid.status().message().c_str());
  }
  if (!pid.ok()) pid = spawn_rank(req);
  ::close(sv[1]);
  ::close(cv[1]);
  ::close(out.write_end);
  ::close(err[1]);
  if (!pid.ok()) {
    for (int fd : {sv[0], cv[0], out.read_end, err[0]}) ::close(fd);
    return pid.status();
  }
  for (int fd : {sv[0], cv[0], out.read_end, err[0]}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return Started{pid.value(), sv[0], cv[0], out.read_end, err[0]};
}

// What a restarted process's MPI_Init would otherwise ask this process for over PMI (the handshake's kvs
// name, the host map): given in its environment, so that no launcher round trip is on the recovery's
// critical path (boot/pmi_client.cpp). WORLD's map on one host does not change across epochs.
void Job::add_restart_answers(std::vector<std::string>& env) const {
  env.push_back("FTMPI_PMI_KVSNAME=" + kvsname_);
  env.push_back("FTMPI_PMI_PROCESS_MAPPING=" + boot::single_node_mapping(opt_.np));
}

void Job::launch_spares() {
  // A spare has no rank yet: it learns it (and the epoch to join) from `cmd=adopt` in MPI_Init.
  spares_.set_target(opt_.ft.spares);
  std::string error;
  const int before = spares_.size();
  std::vector<std::string> base = rank_environment(0, -1);
  add_restart_answers(base);
  spares_.fill(base, [this](std::vector<std::string> env) { return start_process(0, std::move(env)); },
               &error);
  if (!error.empty())
    say("warning: cannot start spare process %d: %s (failed ranks are restarted by fork+exec)", spares_.size(),
        error.c_str());
  for (int i = before; i < spares_.size(); ++i)
    log::debug("mpiexec: spare %d is pid %d", i, static_cast<int>(spares_.spares()[static_cast<std::size_t>(i)].pid));
}

bool Job::reap_spare(pid_t pid, int wait_status) {
  if (!spares_.reap(pid)) return false;
  if (end_.running())
    say("warning: spare process %d ended before it was used (status 0x%x)", static_cast<int>(pid), wait_status);
  return true;
}

void Job::release_spares() {
  spares_.release();
  template_.release();
}

void Job::launch_template() {
  if (!template_enabled() || !opt_.single_program()) return;
  // Its environment is a rank's with the restart answers (the rank's own part comes with each command).
  SpawnRequest req;
  req.path = opt_.apps.front().path;
  req.argv = opt_.apps.front().argv;
  req.cwd = opt_.apps.front().wdir;
  req.env = rank_environment(0, -1);
  add_restart_answers(req.env);
  Status st = template_.start(std::move(req));
  if (st.code() == Errc::unsupported) {
    log::debug("mpiexec: no respawn template: %s", st.message().c_str());
    return;
  }
  if (!st.ok()) {
    say("warning: cannot start the respawn template: %s (failed ranks are restarted by fork+exec)",
        st.message().c_str());
    return;
  }
  log::debug("mpiexec: the respawn template is pid %d", static_cast<int>(template_.pid()));
}

void Job::renew_template() {
  switch (template_.renew()) {
    case TemplateProcess::Renewal::none: break;
    case TemplateProcess::Renewal::started:
      log::debug("mpiexec: the respawn template was lost; a new one is pid %d", static_cast<int>(template_.pid()));
      break;
    case TemplateProcess::Renewal::failed:
      log::debug("mpiexec: the respawn template was lost and a new one could not be started");
      break;
    case TemplateProcess::Renewal::given_up:
      say("warning: the respawn template keeps dying (%d times in a row soon after its start, or %d replacements): "
          "failed ranks are restarted by fork+exec from now on",
          template_.renewal().young_in_a_row(), template_.renewal().renewals());
      break;
  }
}

Result<pid_t> Job::restart(int r, int epoch, const std::vector<int>& failed) {
  std::string failed_list;
  for (int f : failed) failed_list += (failed_list.empty() ? "" : ",") + std::to_string(f);
  Started s;
  bool adopted = false;
  const int forked_before = template_.forked();
  if (auto spare = spares_.take()) {
    // A warm spare takes the rank over: no fork, exec, dynamic loading or program start-up on the
    // recovery path. It reads this one line inside MPI_Init and goes on as a restarted process.
    s = *spare;
    adopted = true;
  } else {
    std::vector<std::string> env = rank_environment(r, -1);
    env.push_back("FTMPI_REINIT_EPOCH=" + std::to_string(epoch));
    env.push_back("FTMPI_REINIT_FAILED=" + failed_list);
    add_restart_answers(env);
    // The respawn template is a process of the first program: only a job of one program uses it.
    auto started = start_process(opt_.app_of(r), std::move(env), opt_.single_program());
    if (!started.ok()) return started.status();
    s = started.value();
  }

  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  if (rec.pid > 0) {
    if (replaced_pids_.size() == 64) replaced_pids_.erase(replaced_pids_.begin());
    replaced_pids_.emplace_back(r, rec.pid);
  }
  rec = RankRecord{};
  rec.rank = r;
  rec.pid = s.pid;
  rec.started = Clock::now();
  PmiConn& p = pmi_[static_cast<std::size_t>(r)];
  close_pmi(r);
  p.fd = s.pmi_fd;
  p.in = boot::pmi::LineSplitter{};
  ControlConn& c = ctrl_[static_cast<std::size_t>(r)];
  c.close();
  c.fd = s.ctrl_fd;
  c.in = boot::pmi::LineSplitter{};
  c.out.clear();
  if (adopted) {
    c.out = SparePool::adopt_line(r, epoch, failed);
    if (!c.flush()) c.close();
  }
  // The old process's streams drain to EOF on their own; the new ones are appended.
  streams_.emplace_back(r, 1, s.out_fd, opt_.tag_output, outfiles_.get());
  streams_.emplace_back(r, 2, s.err_fd, opt_.tag_output, outfiles_.get());
  server_->rank_back(r);
  last_restart_how_ = adopted ? "a warm spare" : template_.forked() != forked_before ? "the respawn template" : "fork+exec";
  return s.pid;
}

}  // namespace ftmpi::mpiexec
