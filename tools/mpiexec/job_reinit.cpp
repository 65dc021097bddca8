// Job, Reinit mode (--with-ft reinit): restarting a failed rank on this host (RankRestarter) and the
// hooks that feed the ReinitDriver (respawn.h). The generic FT machinery (notices, barriers, heartbeats)
// stays in job_ft.cpp; this file only adds what Reinit needs on top.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "job.h"
#include "rank_stdout.h"
#include "say.h"
#include "spawn.h"
#include "util/log.h"

namespace ftmpi::mpiexec {

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
  reinit_ = std::make_unique<ReinitDriver>(opt_.np, opt_.ft.restarts_limit(), std::move(hooks), start_realtime_);
}

void Job::reinit_on_exit(int r, bool failure) {
  if (!reinit_ || !end_.running()) return;
  if (!failure) {
    reinit_->on_finalized(r);
    return;
  }
  reinit_->on_death(r, ranks_[static_cast<std::size_t>(r)].cause());
}

Result<pid_t> Job::restart(int r, int epoch, const std::vector<int>& failed) {
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
  SpawnRequest req;
  req.path = program_path_;
  req.argv = opt_.program;
  req.env = rank_environment(r, -1);
  std::string failed_list;
  for (int f : failed) failed_list += (failed_list.empty() ? "" : ",") + std::to_string(f);
  std::erase_if(req.env, [](const std::string& e) { return e.rfind("FTMPI_INJECT_AT=", 0) == 0; });  // once only
  for (std::string& e : req.env) {
    if (e.rfind("PMI_FD=", 0) == 0) e = "PMI_FD=" + std::to_string(sv[1]);
    if (e.rfind("FTMPI_CTRL_FD=", 0) == 0) e = "FTMPI_CTRL_FD=" + std::to_string(cv[1]);
  }
  req.env.push_back("FTMPI_REINIT_EPOCH=" + std::to_string(epoch));
  req.env.push_back("FTMPI_REINIT_FAILED=" + failed_list);
  req.pmi_fd = sv[1];
  req.ctrl_fd = cv[1];
  req.stdout_fd = out.write_end;
  req.stderr_fd = err[1];
  auto pid = spawn_rank(req);
  ::close(sv[1]);
  ::close(cv[1]);
  ::close(out.write_end);
  ::close(err[1]);
  if (!pid.ok()) {
    for (int fd : {sv[0], cv[0], out.read_end, err[0]}) ::close(fd);
    return pid.status();
  }
  for (int fd : {sv[0], cv[0], out.read_end, err[0]}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  rec = RankRecord{};
  rec.rank = r;
  rec.pid = pid.value();
  rec.started = Clock::now();
  PmiConn& p = pmi_[static_cast<std::size_t>(r)];
  close_pmi(r);
  p.fd = sv[0];
  p.in = boot::pmi::LineSplitter{};
  ControlConn& c = ctrl_[static_cast<std::size_t>(r)];
  c.close();
  c.fd = cv[0];
  c.in = boot::pmi::LineSplitter{};
  c.out.clear();
  // The old process's streams drain to EOF on their own; the new ones are appended.
  streams_.emplace_back(r, 1, out.read_end, opt_.tag_output);
  streams_.emplace_back(r, 2, err[0], opt_.tag_output);
  server_->rank_back(r);
  log::debug("mpiexec: rank %d restarted as pid %d (epoch %d)", r, static_cast<int>(rec.pid), epoch);
  return pid.value();
}

}  // namespace ftmpi::mpiexec
