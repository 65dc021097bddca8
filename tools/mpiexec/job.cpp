#include "job.h"
#include "host_layout.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "boot/process_mapping.h"
#include "rank_env.h"
#include "rank_stdout.h"
#include "say.h"
#include "shm_cleanup.h"
#include "spawn.h"
#include "util/log.h"

extern char** environ;

namespace ftmpi::mpiexec {
namespace {

constexpr auto kDrainLimit = std::chrono::milliseconds(1000);  // wait for output EOF after the last exit
constexpr std::size_t kStdinBufferMax = 64 * 1024;

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::string random_hex() {
  unsigned v = 0;
  if (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v))
    v = static_cast<unsigned>(Clock::now().time_since_epoch().count());
  char buf[16];
  snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

int ms_until(Clock::time_point now, Clock::time_point t) {
  if (t <= now) return 0;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count() + 1;
  return static_cast<int>(std::min<long long>(ms, 60000));
}

}  // namespace

Job::Job(Options options) : opt_(std::move(options)), ft_(opt_.ft.enabled()) {
  kvsname_ = "ftmpi-" + std::to_string(getpid()) + "-" + random_hex();
  parts_.push_back({0, opt_.np, std::make_unique<boot::PmiServer>(opt_.np, kvsname_)});
  server_ = parts_.back().server.get();
  next_gid_ = opt_.np;
  if (opt_.output_files) outfiles_ = std::make_unique<OutputFiles>(*opt_.output_files, opt_.np);
  broker_ = std::make_unique<DpmBroker>("ftmpi-port-" + std::to_string(getpid()) + "-");
  broker_->set_id_limit(next_gid_);
  // The TCP job secret (rank 0 publishes one too, replacing it): present even if rank 0 dies first.
  server_->preset("secret", random_hex() + random_hex() + random_hex() + random_hex());
  // Host identity for the ranks (shared memory only within a host): the standard PMI job attribute, as
  // Hydra and Slurm publish it. Every rank of this job runs on this host.
  server_->preset("PMI_process_mapping", boot::single_node_mapping(opt_.np));
  if (ft_ && opt_.universe_slot > 0) remote_ = std::make_unique<RemoteFailures>(opt_);
}

Job::~Job() {
  for (PmiConn& c : pmi_)
    if (c.fd >= 0) ::close(c.fd);
  for (ControlConn& c : ctrl_) c.close();
  if (stdin_pipe_ >= 0) ::close(stdin_pipe_);
  if (sigfd_ >= 0) ::close(sigfd_);
}

bool Job::setup_signals() {
  sigfd_ = open_job_signalfd();
  return sigfd_ >= 0;
}

std::vector<std::string> job_environment(const Options& opt) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view kv(*e);
    if (kv.rfind("PMI_", 0) == 0) continue;  // a nested launch must not see its parent's PMI
    env.emplace_back(kv);
  }
  auto set = [&env](const std::string& name, const std::string& value) {
    std::string prefix = name + "=";
    std::erase_if(env, [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
    env.push_back(prefix + value);
  };
  for (const auto& [name, value] : opt.env) {
    if (value) {
      set(name, *value);
    } else if (const char* v = getenv(name.c_str())) {
      set(name, v);
    }
  }
  set("PMI_SIZE", std::to_string(opt.np));
  set("PMI_SPAWNED", "0");
  // Dynamic processes (src/dpm/): MPI_UNIVERSE_SIZE and the secret every process of the universe shares.
  int universe = opt.universe_size;
  if (universe <= 0) {
    int slots = 0;
    for (const std::string& h : opt.hosts) {
      auto colon = h.rfind(':');
      int n = colon == std::string::npos ? 1 : std::atoi(h.c_str() + colon + 1);
      slots += n > 0 ? n : 1;
    }
    if (!opt.hostfile.empty())  // the --host and --hostfile slots together (host_layout.h)
      if (auto l = parse_hosts(opt.hosts, opt.hostfile); l.ok()) slots = l.value().total_slots();
    universe = slots > 0 ? slots : static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    universe = std::max(universe, opt.np);
  }
  set("FTMPI_UNIVERSE_SIZE", std::to_string(universe));
  static const std::string dpm_secret = random_hex() + random_hex() + random_hex() + random_hex();
  set("FTMPI_DPM_SECRET", opt.dpm_secret.empty() ? dpm_secret : opt.dpm_secret);
  std::erase_if(env, [](const std::string& e) {
    return e.rfind("FTMPI_GID_BASE=", 0) == 0 || e.rfind("FTMPI_PARENT_PORT=", 0) == 0 || e.rfind("FTMPI_APPNUM=", 0) == 0 ||
           e.rfind("FTMPI_UNIVERSE_SLOT=", 0) == 0 || e.rfind("FTMPI_NAME_SERVICE=", 0) == 0;
  });
  if (opt.universe_slot > 0) {  // a name service shared with other jobs (src/dpm/name_dir.h)
    set("FTMPI_UNIVERSE_SLOT", std::to_string(opt.universe_slot));
    set("FTMPI_NAME_SERVICE", opt.name_service);
  }
  set("FTMPI_LAUNCHER", "ftmpi");
  set("FTMPI_TRANSPORT", opt.transport);
  if (!opt.tcp_if.empty()) set("FTMPI_TCP_IF", opt.tcp_if);
  if (!opt.hostfile.empty()) set("FTMPI_INFO_FILE", opt.hostfile);  // MPI_INFO_ENV's "file"
  if (opt.ft.enabled()) {
    set("FTMPI_FT", opt.ft.rank_mode());
    set("FTMPI_DETECTOR_PERIOD_MS", std::to_string(opt.ft.period_ms()));
    set("FTMPI_DETECTOR_TIMEOUT_MS", std::to_string(opt.ft.timeout_ms()));
  } else {
    // Not fault-tolerant, even if mpiexec itself runs inside an FT job.
    std::erase_if(env, [](const std::string& e) {
      return e.rfind("FTMPI_FT=", 0) == 0 || e.rfind("FTMPI_CTRL_FD=", 0) == 0;
    });
  }
  if (!opt.ft.initial_errhandler.empty()) set("FTMPI_INITIAL_ERRHANDLER", opt.ft.initial_errhandler);
  if (opt.ft.max_restarts >= 0) set("FTMPI_MAX_RESTARTS", std::to_string(opt.ft.max_restarts));
  return env;
}

std::vector<std::string> Job::rank_environment(int rank, int cpu) const {
  std::vector<std::string> env = job_environment(opt_);
  auto set = [&env](const std::string& name, const std::string& value) {
    std::string prefix = name + "=";
    std::erase_if(env, [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
    env.push_back(prefix + value);
  };
  set("PMI_FD", std::to_string(-1));  // replaced by run() once the socket exists
  set("PMI_RANK", std::to_string(rank));
  set("FTMPI_LOCAL_RANK", std::to_string(rank));
  set("FTMPI_LOCAL_SIZE", std::to_string(opt_.np));
  set_foreign_rank_env(env, rank, opt_.np, rank, opt_.np);
  set("FTMPI_NUM_CORES", std::to_string(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))));
  if (cpu >= 0) set("FTMPI_BOUND_CPU", std::to_string(cpu));
  if (ft_) set("FTMPI_CTRL_FD", "-1");  // replaced by launch() once the socket exists
  if (!board_name_.empty()) set("FTMPI_REINIT_BOARD", board_name_);
  apply_app_environment(opt_, rank, env);
  for (const InjectSpec& s : opt_.ft.injections)
    if (s.kind == InjectSpec::Kind::at && s.rank == rank)
      set("FTMPI_INJECT_AT", s.function + ":" + std::to_string(s.call));
  return env;
}

bool Job::launch() {
  std::vector<int> cpus = allowed_cpus();
  bool bind = false;
  if (opt_.bind_to == BindTo::core) bind = !cpus.empty();
  else if (opt_.bind_to == BindTo::unset) bind = !cpus.empty() && opt_.np <= static_cast<int>(cpus.size());

  // Forward our stdin to rank 0 unless it is a terminal we do not own (reading it would stop us). An adopted
  // singleton reads its own stdin.
  forward_stdin_ = opt_.singleton_pid == 0 && (!isatty(0) || tcgetpgrp(0) == getpgrp());

  ranks_.resize(static_cast<std::size_t>(opt_.np));
  pmi_.resize(static_cast<std::size_t>(opt_.np));
  if (ft_) ctrl_.resize(static_cast<std::size_t>(opt_.np));
  streams_.reserve(2 * static_cast<std::size_t>(opt_.np));
  for (int r = 0; r < opt_.np; ++r) {
    if (is_adopted(r)) {
      if (!adopt_singleton()) {
        ranks_.clear();
        return false;
      }
      continue;
    }
    int cpu = bind ? cpus[static_cast<std::size_t>(r) % cpus.size()] : -1;
    const AppContext& app = opt_.app(r);
    if (opt_.report_bindings) {
      if (cpu >= 0) say("rank %d (%s) bound to CPU %d", r, app.argv[0].c_str(), cpu);
      else say("rank %d (%s) not bound", r, app.argv[0].c_str());
    }
    if (!start_process(r, app.path, app.argv, rank_environment(r, cpu), cpu, r == 0 && forward_stdin_, app.wdir)) {
      ranks_.resize(static_cast<std::size_t>(r));  // only launched ranks are supervised
      return false;
    }
  }
  return true;
}

bool Job::adopt_singleton() {
  RankRecord& rec = ranks_[0];
  rec.rank = 0;
  rec.started = Clock::now();
  rec.pid = opt_.singleton_pid;
  streams_.emplace_back(0, 1, -1, opt_.tag_output);  // it writes its own output
  streams_.emplace_back(0, 2, -1, opt_.tag_output);
  const int fd = opt_.singleton_fd;
  if (fcntl(fd, F_GETFD) < 0) {
    say("--singleton: descriptor %d is not open", fd);
    return false;
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);  // not the spawned processes' business
  auto w = AdoptedProcess::watch(opt_.singleton_pid);
  // Its end of the socket still open: the pidfd is the singleton's, not a process that reused its pid.
  pollfd p{fd, POLLIN, 0};
  bool hung_up = ::poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLERR));
  if (!w.ok() || hung_up) {
    log::debug("mpiexec: the singleton (pid %d) is gone before its adoption", opt_.singleton_pid);
    ::close(fd);
    return false;
  }
  adopted_ = std::move(w.value());
  set_nonblocking(fd);
  pmi_[0].fd = fd;
  log::debug("mpiexec: adopted the singleton (pid %d) as rank 0", opt_.singleton_pid);
  return true;
}

void Job::on_adopted_end() {
  std::optional<int> status = adopted_.exit_status();
  adopted_.release();
  if (ranks_.empty() || !ranks_[0].alive()) return;
  ranks_[0].exit_unknown = !status;
  on_rank_exit(0, status.value_or(0));
}

bool Job::start_process(int r, const std::string& path, const std::vector<std::string>& argv,
                        std::vector<std::string> env, int cpu, bool give_stdin, const std::string& cwd) {
  int sv[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1}, cv[2] = {-1, -1};
  OutputChannel stdout_channel;
  bool have_out = open_output_channel(!opt_.output_pipe, stdout_channel);
  out[0] = stdout_channel.read_end;
  out[1] = stdout_channel.write_end;
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || !have_out ||
      pipe2(err, O_CLOEXEC) != 0 || (give_stdin && pipe2(in, O_CLOEXEC) != 0) ||
      (ft_ && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cv) != 0)) {
    say("cannot create the pipes for rank %d: %s", r, strerror(errno));
    for (int fd : {sv[0], sv[1], out[0], out[1], err[0], err[1], in[0], in[1], cv[0], cv[1]})
      if (fd >= 0) ::close(fd);
    return false;
  }
  SpawnRequest req;
  req.path = path;
  req.argv = argv;
  req.env = std::move(env);
  for (std::string& e : req.env) {
    if (e.rfind("PMI_FD=", 0) == 0) e = "PMI_FD=" + std::to_string(sv[1]);
    if (e.rfind("FTMPI_CTRL_FD=", 0) == 0) e = "FTMPI_CTRL_FD=" + std::to_string(cv[1]);
  }
  req.pmi_fd = sv[1];
  req.ctrl_fd = cv[1];
  req.stdin_fd = in[0];
  req.stdout_fd = out[1];
  req.stderr_fd = err[1];
  req.cpu = cpu;
  req.cwd = cwd;

  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  rec.rank = r;
  rec.started = Clock::now();
  auto pid = spawn_rank(req);
  ::close(sv[1]);
  ::close(out[1]);
  ::close(err[1]);
  if (in[0] >= 0) ::close(in[0]);
  if (cv[1] >= 0) ::close(cv[1]);
  if (!pid.ok()) {
    if (cv[0] >= 0) ::close(cv[0]);
    ::close(sv[0]);
    ::close(out[0]);
    ::close(err[0]);
    if (in[1] >= 0) ::close(in[1]);
    say("cannot start rank %d: %s", r, pid.status().message().c_str());
    return false;
  }
  rec.pid = pid.value();
  set_nonblocking(sv[0]);
  set_nonblocking(out[0]);
  set_nonblocking(err[0]);
  pmi_[static_cast<std::size_t>(r)].fd = sv[0];
  if (ft_) {
    set_nonblocking(cv[0]);
    ctrl_[static_cast<std::size_t>(r)].fd = cv[0];
  }
  // A rank of the job (not a spawned process) also writes to its --output-filename files.
  OutputFiles* files = r < opt_.np ? outfiles_.get() : nullptr;
  streams_.emplace_back(r, 1, out[0], opt_.tag_output, files);
  streams_.emplace_back(r, 2, err[0], opt_.tag_output, files);
  if (in[1] >= 0) {
    set_nonblocking(in[1]);
    stdin_pipe_ = in[1];
  }
  log::debug("mpiexec: rank %d is pid %d (cpu %d)", r, static_cast<int>(rec.pid), cpu);
  return true;
}

int Job::run() {
  if (!setup_signals()) {
    say("cannot set up signal handling: %s", strerror(errno));
    return kExitUsage;
  }
  auto now = Clock::now();
  if (opt_.timeout_seconds > 0) {
    end_.set_timeout(opt_.timeout_seconds, now);
  }
  for (const InjectSpec& s : opt_.ft.injections)
    if (s.kind == InjectSpec::Kind::after && s.host.empty())
      timers_.push_back({now + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(s.after_seconds)),
                         s.rank, s.signal});
  start_realtime_ = realtime_seconds();
  if (ft_) reinit_setup();
  if (int n = remove_stale_shm_segments(); n > 0)
    log::debug("mpiexec: removed %d shared-memory segments of dead jobs", n);
  if (!launch()) {
    // Some ranks may be running: end them like any failed job.
    fail_job(kExitUsage, "");
  }
  if (stdin_pipe_ < 0) forward_stdin_ = false;
  if (reinit_ && end_.running()) {
    launch_spares();
    launch_template();
  }
  supervise();
  release_spares();
  remove_job_shm_segments(kvsname_);
  remove_stale_shm_segments();  // scratch segments of ranks killed while making them (shm_cleanup.h)
  if (ft_) {
    if (reinit_) {
      // The rank table holds the restarted processes now: the driver keeps the account of the failures.
      if (!reinit_->summary().empty())
        say("%s%s", reinit_->summary().c_str(), end_.status_set() ? "; the job was terminated" : "; every rank completed");
    } else {
      print_ft_summary();
    }
    end_.set_final_status(ft_exit_status());
  }
  return end_.exit_status();
}

void Job::supervise() {
  enum class Src { signal, pmi, ctrl, stream, stdin_read, stdin_write, board, life, adopted };
  struct Tag {
    Src src;
    int index;
  };
  std::vector<pollfd> fds;
  std::vector<Tag> tags;
  bool draining = false;
  Clock::time_point drain_deadline{};

  for (;;) {
    auto now = Clock::now();
    if (!draining && all_reaped()) {
      // Nothing may outlive the job: leftover children of the ranks go now, then their output drains.
      for (const RankRecord& r : ranks_)
        if (r.pid > 0 && !is_adopted(r.rank)) kill(-r.pid, SIGKILL);
      release_spares();
      draining = true;
      drain_deadline = now + kDrainLimit;
    }
    if (draining) {
      bool open = std::any_of(streams_.begin(), streams_.end(), [](const RankStream& s) { return s.open(); });
      if (!open || now >= drain_deadline) break;
    }

    fds.clear();
    tags.clear();
    auto add = [&](int fd, short events, Src src, int index) {
      fds.push_back({fd, events, 0});
      tags.push_back({src, index});
    };
    add(sigfd_, POLLIN, Src::signal, 0);
    for (std::size_t i = 0; i < streams_.size(); ++i)
      if (streams_[i].open()) add(streams_[i].fd(), POLLIN, Src::stream, static_cast<int>(i));
    if (!draining) {
      for (std::size_t r = 0; r < pmi_.size(); ++r)
        if (pmi_[r].fd >= 0)
          add(pmi_[r].fd, static_cast<short>(POLLIN | (pmi_[r].out.empty() ? 0 : POLLOUT)), Src::pmi,
              static_cast<int>(r));
      for (std::size_t r = 0; r < ctrl_.size(); ++r)
        if (ctrl_[r].fd >= 0)
          add(ctrl_[r].fd, static_cast<short>(POLLIN | (ctrl_[r].out.empty() ? 0 : POLLOUT)), Src::ctrl,
              static_cast<int>(r));
      if (forward_stdin_ && !stdin_eof_ && stdin_buf_.size() < kStdinBufferMax)
        add(0, POLLIN, Src::stdin_read, 0);
      if (stdin_pipe_ >= 0 && !stdin_buf_.empty()) add(stdin_pipe_, POLLOUT, Src::stdin_write, 0);
      if (remote_ && remote_->fd() >= 0 && end_.running()) add(remote_->fd(), POLLIN, Src::board, 0);
      if (life_ && life_->fd() >= 0 && end_.running()) add(life_->fd(), POLLIN, Src::life, 0);
    }
    if (adopted_.fd() >= 0) add(adopted_.fd(), POLLIN, Src::adopted, 0);

    int timeout_ms = -1;
    auto consider = [&](Clock::time_point t) {
      int ms = ms_until(now, t);
      if (timeout_ms < 0 || ms < timeout_ms) timeout_ms = ms;
    };
    if (draining) consider(drain_deadline);
    if (auto t = end_.timeout_deadline()) consider(*t);
    if (auto k = end_.kill_deadline()) consider(*k);
    if (end_.running())
      for (const Timer& t : timers_)
        if (!t.done) consider(t.when);
    if (end_.running() && ft_)
      for (const RankRecord& rec : ranks_) {
        if (heartbeat_watched(rec)) consider(rec.last_heartbeat + std::chrono::milliseconds(opt_.ft.timeout_ms()));
        else if (startup_watched(rec) || goodbye_watched(rec))
          consider(now + std::chrono::milliseconds(opt_.ft.period_ms()));
      }

    int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno != EINTR) {
      say("poll failed: %s", strerror(errno));
      fail_job(1, "");
      break;
    }
    if (n > 0) {
      for (std::size_t i = 0; i < fds.size(); ++i) {
        short re = fds[i].revents;
        if (!re) continue;
        const Tag& t = tags[i];
        switch (t.src) {
          case Src::signal: on_signalfd(); break;
          case Src::stream: streams_[static_cast<std::size_t>(t.index)].pump(); break;
          case Src::pmi:
            if (re & POLLOUT) flush_pmi(t.index);
            if (re & (POLLIN | POLLHUP | POLLERR)) on_pmi_readable(t.index);
            break;
          case Src::ctrl:
            if (re & POLLOUT) on_ctrl_writable(t.index);
            if (re & (POLLIN | POLLHUP | POLLERR)) on_ctrl_readable(t.index);
            break;
          case Src::stdin_read: on_stdin_readable(); break;
          case Src::stdin_write: on_stdin_writable(); break;
          case Src::board: on_board_readable(); break;
          case Src::life: on_life_readable(); break;
          case Src::adopted: on_adopted_end(); break;
        }
      }
    }
    check_timers(Clock::now());
  }
  for (RankStream& s : streams_) s.close_now();
}

void Job::on_signalfd() {
  std::vector<JobSignal> sigs;
  std::vector<int> forward;
  bool child = false;
  read_job_signals(sigfd_, sigs, forward, child);
  for (int sig : forward)
    if (end_.running()) signal_all(sig);
  for (const JobSignal& s : sigs)
    if (!reinit_signal_from_rank(s)) signal_all(end_.on_signal(s.sig, Clock::now()));
  if (child) reap_children();
}

void Job::reap_children() {
  for (;;) {
    int st = 0;
    pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid <= 0) return;
    if (auto e = std::find(ended_early_.begin(), ended_early_.end(), pid); e != ended_early_.end()) {
      ended_early_.erase(e);  // handled when its life lock told (Job::on_life_readable)
      continue;
    }
    int r = find_rank_by_pid(pid);
    if (r >= 0) on_rank_exit(r, st);
    else if (template_.reaped(pid)) log::debug("mpiexec: the respawn template (pid %d) ended (status 0x%x)", static_cast<int>(pid), st);
    else reap_spare(pid, st);
  }
}

void Job::on_rank_exit(int r, int wait_status) {
  // The rank is gone: whatever it sent before dying is already buffered. Read it first, so that a
  // finalize or abort it sent is known and its last output appears before our verdict.
  if (pmi_[static_cast<std::size_t>(r)].fd >= 0) on_pmi_readable(r);
  if (ft_ && ctrl_[static_cast<std::size_t>(r)].fd >= 0) on_ctrl_readable(r);
  streams_[2 * static_cast<std::size_t>(r)].pump();
  streams_[2 * static_cast<std::size_t>(r) + 1].pump();
  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];  // after the reads: a spawn may have grown ranks_

  rec.ended_at = Clock::now();
  if (WIFSIGNALED(wait_status)) {
    rec.state = RankRecord::State::signaled;
    rec.term_signal = WTERMSIG(wait_status);
  } else {
    rec.state = RankRecord::State::exited;
    rec.exit_code = WEXITSTATUS(wait_status);
  }
  // A verdict (hung, suspected) stands only if our SIGKILL is what ended the rank: a rank that exited or
  // died of another signal ended by itself before the kill landed, and waitpid's account wins.
  if (rec.verdict != RankRecord::Verdict::none && !(WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == SIGKILL))
    rec.verdict = RankRecord::Verdict::none;
  close_pmi(r);
  if (ft_) ctrl_[static_cast<std::size_t>(r)].close();
  if (r == 0) close_stdin_forwarding();
  send_dpm_replies(broker_->gone(r));
  log::debug("mpiexec: rank %d (pid %d) %s", r, static_cast<int>(rec.pid), rec.cause().c_str());
  if (!end_.running() || rec.aborted) return;
  if (ft_) {
    on_rank_exit_ft(r);
    return;
  }
  if (!rec.failed()) return;
  char line[256];
  snprintf(line, sizeof line, "rank %d (pid %d) %s; terminating the job", r, static_cast<int>(rec.pid),
           rec.cause().c_str());
  fail_job(rec.job_exit_status(), line);
}

void Job::on_pmi_readable(int r) {
  // By index, not by reference: a spawn handled here grows pmi_ and ranks_.
  auto conn = [this, r]() -> PmiConn& { return pmi_[static_cast<std::size_t>(r)]; };
  auto record = [this, r]() -> RankRecord& { return ranks_[static_cast<std::size_t>(r)]; };
  char buf[4096];
  for (;;) {
    if (conn().fd < 0) return;
    ssize_t n = ::read(conn().fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {  // EOF or error: the rank closed its PMI socket (or died)
      close_pmi(r);
      return;
    }
    conn().in.append(buf, static_cast<std::size_t>(n));
    while (auto line = conn().in.next()) {
      record().last_pmi = Clock::now();
      if (line->rfind("cmd=dpm_", 0) == 0) {
        auto m = boot::pmi::parse(*line);
        if (m.ok()) on_dpm_request(r, m.value());
        else send_line(r, boot::pmi::encode("error", {{"rc", "-1"}, {"msg", "malformed_request"}}));
        continue;
      }
      Part& part = part_of(r);
      boot::PmiServer::Outcome o = part.server->handle(r - part.base, *line);
      send_pmi_replies(o, part.base);
      auto now = Clock::now();
      switch (o.event) {
        case boot::PmiServer::Event::none: break;
        case boot::PmiServer::Event::initialized:
          record().pmi_initialized = true;
          record().initialized_at = now;
          break;
        case boot::PmiServer::Event::finalized:
          record().pmi_finalized = true;
          record().finalized_at = now;
          break;
        case boot::PmiServer::Event::aborted:
          if (!record().aborted) {
            record().aborted = true;
            record().abort_code = o.abort_code;
            if (end_.running()) {
              char msg[256];
              snprintf(msg, sizeof msg, "rank %d (pid %d) called MPI_Abort with code %d; terminating the job", r,
                       static_cast<int>(record().pid), o.abort_code);
              fail_job(o.abort_code & 0xff, msg);
            }
          }
          break;
        case boot::PmiServer::Event::protocol_error:
          say("warning: rank %d sent a bad PMI request: %s", r, o.error.c_str());
          break;
      }
    }
    if (conn().in.overflowed()) {
      say("warning: rank %d sent an over-long PMI line; closing its PMI connection", r);
      close_pmi(r);
      return;
    }
  }
}

void Job::send_pmi_replies(const boot::PmiServer::Outcome& o, int base) {
  for (const auto& rep : o.replies) send_line(base + rep.rank, rep.line);
}

void Job::send_line(int gid, const std::string& line) {
  if (gid < 0 || gid >= static_cast<int>(pmi_.size())) return;
  ranks_[static_cast<std::size_t>(gid)].last_pmi = Clock::now();
  PmiConn& c = pmi_[static_cast<std::size_t>(gid)];
  if (c.fd < 0) return;  // the rank is gone
  c.out += line;
  flush_pmi(gid);
}

void Job::send_dpm_replies(const std::vector<DpmBroker::Reply>& replies) {
  for (const DpmBroker::Reply& r : replies) send_line(r.gid, r.line);
}

Job::Part& Job::part_of(int gid) {
  for (Part& p : parts_)
    if (gid >= p.base && gid < p.base + p.size) return p;
  return parts_.front();
}

void Job::flush_pmi(int r) {
  PmiConn& c = pmi_[static_cast<std::size_t>(r)];
  while (c.fd >= 0 && !c.out.empty()) {
    ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return;  // poll for POLLOUT
      c.out.clear();                // the rank is gone
      return;
    }
    c.out.erase(0, static_cast<std::size_t>(n));
  }
}

void Job::close_pmi(int r) {
  PmiConn& c = pmi_[static_cast<std::size_t>(r)];
  if (c.fd >= 0) ::close(c.fd);
  c.fd = -1;
  c.out.clear();
}

void Job::on_stdin_readable() {
  char buf[16384];
  ssize_t n = ::read(0, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    stdin_eof_ = true;
    if (stdin_buf_.empty()) close_stdin_forwarding();
    return;
  }
  stdin_buf_.append(buf, static_cast<std::size_t>(n));
  on_stdin_writable();
}

void Job::on_stdin_writable() {
  if (stdin_pipe_ < 0) {
    stdin_buf_.clear();
    return;
  }
  while (!stdin_buf_.empty()) {
    ssize_t n = ::write(stdin_pipe_, stdin_buf_.data(), stdin_buf_.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return;
      close_stdin_forwarding();  // rank 0 closed its stdin
      return;
    }
    stdin_buf_.erase(0, static_cast<std::size_t>(n));
  }
  if (stdin_eof_) close_stdin_forwarding();
}

void Job::close_stdin_forwarding() {
  if (stdin_pipe_ >= 0) ::close(stdin_pipe_);
  stdin_pipe_ = -1;
  stdin_buf_.clear();
  forward_stdin_ = false;
}

void Job::check_timers(Clock::time_point now) {
  if (end_.timeout_due(now)) fail_job(kExitTimeout, end_.timeout_message());
  if (end_.running())
    for (Timer& t : timers_) {
      if (t.done || now < t.when) continue;
      t.done = true;
      if (t.rank >= static_cast<int>(ranks_.size())) continue;
      const RankRecord& rec = ranks_[static_cast<std::size_t>(t.rank)];
      if (!rec.alive()) continue;
      log::debug("mpiexec: injecting signal %d into rank %d (pid %d)", t.signal, t.rank, static_cast<int>(rec.pid));
      kill(rec.pid, t.signal);
    }
  if (end_.running() && ft_) check_heartbeats(now);
  if (end_.kill_due(now)) signal_all(SIGKILL);
}

void Job::fail_job(int status, const std::string& message) {
  if (end_.terminate(status, message, Clock::now())) signal_all(SIGTERM);
}

void Job::signal_all(int sig) {
  for (const RankRecord& r : ranks_)
    if (r.alive() && r.pid > 0) {
      if (is_adopted(r.rank)) {
        // The singleton alone (its process group is not ours). After MPI_Abort it ends itself with its code,
        // which is what its user sees: only the grace period's SIGKILL, should it not have.
        if (!r.aborted || sig == SIGKILL) adopted_.signal(sig == SIGKILL ? SIGKILL : SIGTERM);
        continue;
      }
      if (kill(-r.pid, sig) != 0) kill(r.pid, sig);
      if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT) kill(-r.pid, SIGCONT);  // a stopped rank must see it
    }
}

bool Job::all_reaped() const {
  return std::none_of(ranks_.begin(), ranks_.end(), [](const RankRecord& r) { return r.alive() && r.pid > 0; });
}

int Job::find_rank_by_pid(pid_t pid) const {
  for (const RankRecord& r : ranks_)
    if (r.pid == pid && !is_adopted(r.rank)) return r.rank;  // the adopted singleton is not our child
  return -1;
}

}  // namespace ftmpi::mpiexec
