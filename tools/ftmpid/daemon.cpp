#include "daemon.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "net_addr.h"
#include "rank_env.h"
#include "tree_membership.h"
#include "rank_stdout.h"
#include "say.h"
#include "spawn.h"
#include "util/log.h"

namespace ftmpi::mpiexec {
namespace {

using Clock = std::chrono::steady_clock;

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

int pidfd_open(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

int ms_until(Clock::time_point now, Clock::time_point t) {
  if (t <= now) return 0;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count() + 1;
  return static_cast<int>(std::min<long long>(ms, 1000));
}

const char* why_name(TreeLiveness::Why w) {
  switch (w) {
    case TreeLiveness::Why::closed: return "closed";
    case TreeLiveness::Why::silent: return "silent";
    case TreeLiveness::Why::never_connected: return "never_connected";
    case TreeLiveness::Why::none: break;
  }
  return "none";
}

}  // namespace

Daemon::Daemon(DaemonOptions o) : o_(std::move(o)) {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  host_ = name;
}

Daemon::~Daemon() {
  spares_.release();
  template_.release();
  for (Rank& r : ranks_) {
    if (r.pidfd >= 0) ::close(r.pidfd);
    if (r.pmi_fd >= 0) ::close(r.pmi_fd);
    if (r.stdin_fd >= 0) ::close(r.stdin_fd);
    r.ctrl.close();
  }
  end_agents();
  for (Child& c : children_) c.link.close();
  parent_.close();
  stale_parent_.close();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

int Daemon::run() {
  signal(SIGPIPE, SIG_IGN);
  std::vector<std::string> addrs;
  int port = 0;
  for (std::size_t p = 0; p < o_.ancestors.size();) {  // "NODE@EP+NODE@EP..."
    std::size_t e = o_.ancestors.find('+', p);
    if (e == std::string::npos) e = o_.ancestors.size();
    std::string item = o_.ancestors.substr(p, e - p);
    std::size_t at = item.find('@');
    if (at != std::string::npos) ancestors_.emplace_back(atoi(item.substr(0, at).c_str()), item.substr(at + 1));
    p = e + 1;
  }
  if (ancestors_.empty()) ancestors_.emplace_back(o_.shape.parent(o_.node), o_.parent);
  route_.assign(static_cast<std::size_t>(std::max(1, o_.shape.nodes)), -1);
  if (!parse_endpoint(o_.parent, addrs, port)) {
    say("bad --parent '%s' (expected addr[,addr...]:port)", o_.parent.c_str());
    return 1;
  }
  auto fd = connect_any(addrs, port, std::chrono::milliseconds(std::max(o_.timeout_ms, 10000)));
  if (!fd.ok()) {
    say("cannot reach the launcher: %s", fd.status().message().c_str());
    return 1;
  }
  parent_.fd = fd.value();
  int my_port = 0;
  auto lfd = listen_any(my_port);
  if (!lfd.ok()) {
    say("%s", lfd.status().message().c_str());
    return 1;
  }
  listen_fd_ = lfd.value();
  Frame hello("hello");
  hello.set("node", o_.node).set("key", o_.key).set("host", host_).set("pid", getpid());
  ep_ = format_endpoint(local_addresses(), my_port);
  hello.set("ep", ep_);
  parent_.send(hello);
  auto now = Clock::now();
  live_ = std::make_unique<TreeLiveness>(std::chrono::milliseconds(o_.period_ms),
                                         std::chrono::milliseconds(o_.timeout_ms),
                                         std::chrono::milliseconds(o_.startup_ms), true, now);
  set_reattach_budget();
  std::vector<int> kids = o_.shape.children(o_.node);
  children_.resize(kids.size());
  for (std::size_t i = 0; i < kids.size(); ++i) live_->expect_child(static_cast<int>(i), now);
  loop();
  if (ending_) return 0;
  return 3;
}

int Daemon::child_slot(int node) const {
  std::vector<int> kids = o_.shape.children(o_.node);
  for (std::size_t i = 0; i < kids.size(); ++i)
    if (kids[i] == node) return static_cast<int>(i);
  return -1;
}

Daemon::Rank* Daemon::find_rank(int rank) {
  for (Rank& r : ranks_)
    if (r.rank == rank) return &r;
  return nullptr;
}

void Daemon::send_up(const Frame& f) {
  if (parent_.fd < 0) {
    if (live_ && live_->reattaching() && f.type != "hb") reattach_buf_ += encode_frame(f);
    return;
  }
  parent_.send(f);
  parent_.flush();  // a failure marks it broken: read_parent() reports it closed (tree_wire.h)
}

void Daemon::launch(const Frame& f) {
  if (launched_) return;
  launched_ = true;
  int first = static_cast<int>(f.num("first", 0)), n = static_cast<int>(f.num("n", 0));
  ft_ = f.num("ft", 0) == 1;
  reinit_ = ft_ && f.num("reinit", 0) == 1;
  spec_.pty = f.num("pty", 1) == 1;
  bool forward_stdin = f.num("stdin", 0) == 1;
  std::string cwd, agent;
  std::vector<std::string> kids;
  for (std::string& item : split_nul(f.payload)) {
    std::size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    std::string k = item.substr(0, eq), v = item.substr(eq + 1);
    if (k == "path") spec_.path = v;
    else if (k == "app") {  // "first:n", then that program's apath/aarg/acwd/aenv items
      AppSpec a;
      a.first = std::atoi(v.c_str());
      a.n = std::atoi(v.c_str() + std::min(v.size(), v.find(':') + 1));
      spec_.apps.push_back(std::move(a));
    } else if (!spec_.apps.empty() && k == "apath") spec_.apps.back().path = v;
    else if (!spec_.apps.empty() && k == "aarg") spec_.apps.back().argv.push_back(v);
    else if (!spec_.apps.empty() && k == "acwd") spec_.apps.back().cwd = v;
    else if (!spec_.apps.empty() && k == "aenv") spec_.apps.back().env.push_back(v);
    else if (k == "cwd") cwd = v;
    else if (k == "arg") spec_.argv.push_back(v);
    else if (k == "env") spec_.env.push_back(v);
    else if (k == "inject_at") spec_.inject.push_back(v);
    else if (k == "agent") agent = v;
    else if (k == "child") kids.push_back(v);
  }
  start_children(agent, kids);
  if (!cwd.empty() && chdir(cwd.c_str()) != 0) say("cannot enter '%s': %s", cwd.c_str(), strerror(errno));
  ranks_.resize(static_cast<std::size_t>(std::max(0, n)));
  for (int i = 0; i < n; ++i) {
    Rank& r = ranks_[static_cast<std::size_t>(i)];
    r.rank = first + i;
    const std::string no_cwd;
    const AppSpec* app = spec_.app_of(r.rank);
    RankStart how{app ? app->path : spec_.path, app ? app->argv : spec_.argv, spec_.env, spec_.inject,
                  app ? app->cwd : no_cwd, spec_.pty, forward_stdin, r.rank, i, n};
    if (app) how.extra = app->env;
    start_rank(r, how);
  }
  // Reinit --spares N: N warm processes on this host, started after its ranks (daemon_reinit.cpp).
  spares_.set_target(reinit_ ? static_cast<int>(f.num("spares", 0)) : 0);
  fill_spares();
  if (reinit_ && f.num("template", 0) == 1) start_template();
}

Result<WarmProcess> Daemon::spawn_process(const RankStart& how, int rank) {
  const bool pty = how.pty, forward_stdin = how.forward_stdin && rank == 0;
  int sv[2] = {-1, -1}, err[2] = {-1, -1}, cv[2] = {-1, -1}, in[2] = {-1, -1};
  OutputChannel oc;
  bool ok = open_output_channel(pty, oc) && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0 &&
            pipe2(err, O_CLOEXEC) == 0 && (!ft_ || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cv) == 0) &&
            (!forward_stdin || pipe2(in, O_CLOEXEC) == 0);
  SpawnRequest req;
  req.path = how.path;
  req.argv = how.argv;
  req.env = how.env;
  req.cwd = how.cwd;
  auto set = [&](const std::string& name, const std::string& value) {
    std::string prefix = name + "=";
    std::erase_if(req.env, [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
    req.env.push_back(prefix + value);
  };
  set("PMI_FD", std::to_string(sv[1]));
  if (how.pmi_rank >= 0) {  // a spare (pmi_rank -1) learns its rank when adopted (spare_pool.h)
    set("PMI_RANK", std::to_string(how.pmi_rank));
    set("FTMPI_LOCAL_RANK", std::to_string(how.local_rank));
    int size = 0;  // its MPI_COMM_WORLD's (the job's, or a spawned part's)
    for (const std::string& e : req.env)
      if (e.rfind("PMI_SIZE=", 0) == 0) size = std::atoi(e.c_str() + 9);
    set_foreign_rank_env(req.env, how.pmi_rank, size, how.local_rank, how.local_size);
  }
  set("FTMPI_LOCAL_SIZE", std::to_string(how.local_size));
  set("FTMPI_NUM_CORES", std::to_string(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))));
  if (ft_) set("FTMPI_CTRL_FD", std::to_string(cv[1]));
  for (const std::string& s : how.inject) {  // "R:MPI_Func:N"
    std::size_t c = s.find(':');
    if (c != std::string::npos && s.substr(0, c) == std::to_string(rank)) set("FTMPI_INJECT_AT", s.substr(c + 1));
  }
  for (const std::string& e : how.extra) {  // NAME=VALUE
    std::size_t eq = e.find('=');
    set(e.substr(0, eq), e.substr(eq + 1));
  }
  req.pmi_fd = sv[1];
  req.ctrl_fd = cv[1];
  req.stdin_fd = in[0];
  req.stdout_fd = oc.write_end;
  req.stderr_fd = err[1];
  Result<pid_t> pid = Status(Errc::other, strerror(errno));
  if (ok && how.from_template && template_.running()) {
    pid = template_.fork_rank(req);
    if (!pid.ok()) log::debug("ftmpid: respawn template not used (%s): fork+exec", pid.status().message().c_str());
  }
  if (ok && !pid.ok()) pid = spawn_rank(req);
  for (int fd : {sv[1], oc.write_end, err[1], cv[1], in[0]})
    if (fd >= 0) ::close(fd);
  int pidfd = pid.ok() ? pidfd_open(pid.value()) : -1;
  if (!pid.ok() || pidfd < 0) {
    std::string why = pid.ok() ? strerror(errno) : pid.status().message();
    for (int fd : {sv[0], oc.read_end, err[0], cv[0], in[1]})
      if (fd >= 0) ::close(fd);
    if (pid.ok()) {
      kill(pid.value(), SIGKILL);
      waitpid(pid.value(), nullptr, 0);
    }
    return Status(Errc::other, why);
  }
  WarmProcess p;
  p.pid = pid.value();
  p.pidfd = pidfd;
  p.pmi_fd = sv[0];
  p.ctrl_fd = cv[0];
  p.out_fd = oc.read_end;
  p.err_fd = err[0];
  p.stdin_fd = in[1];
  return p;
}

void Daemon::attach(Rank& r, WarmProcess p) {
  r.pid = p.pid;
  r.pidfd = p.pidfd;
  r.alive = true;
  r.pmi_fd = p.pmi_fd;
  r.stdin_fd = p.stdin_fd;
  if (p.stdin_fd >= 0) set_nonblocking(p.stdin_fd);
  set_nonblocking(p.pmi_fd);
  set_nonblocking(p.out_fd);
  set_nonblocking(p.err_fd);
  if (p.ctrl_fd >= 0) {
    set_nonblocking(p.ctrl_fd);
    r.ctrl.fd = p.ctrl_fd;
  }
  int rank = r.rank;
  auto sink = [this, rank](int stream) {
    return [this, rank, stream](const char* d, std::size_t len) {
      Frame o("out");
      o.set("rank", rank).set("fd", stream);
      o.payload.assign(d, len);
      send_up(o);
    };
  };
  r.out = std::make_unique<RankStream>(rank, p.out_fd, sink(1));
  r.err = std::make_unique<RankStream>(rank, p.err_fd, sink(2));
}

bool Daemon::start_rank(Rank& r, const RankStart& how) {
  Result<WarmProcess> p = spawn_process(how, r.rank);
  if (!p.ok()) {
    say("cannot start rank %d: %s", r.rank, p.status().message().c_str());
    Frame e("exit");
    e.set("rank", r.rank).set("status", 127 << 8).set("verdict", "none");
    send_up(e);
    return false;
  }
  attach(r, p.value());
  return true;
}

void Daemon::start_children(const std::string& agent, const std::vector<std::string>& kids) {
  agent_ = agent;
  DaemonLaunch dl;
  dl.ftmpid = beside_self("ftmpid");
  dl.agent = agent;
  dl.key = o_.key;
  dl.shape = o_.shape;
  dl.period_ms = o_.period_ms;
  dl.timeout_ms = o_.timeout_ms;
  dl.startup_ms = o_.startup_ms;
  for (const std::string& k : kids) {  // "NODE:HOST"
    std::size_t colon = k.find(':');
    int node = colon == std::string::npos ? -1 : atoi(k.substr(0, colon).c_str());
    int slot = child_slot(node);
    if (slot < 0) continue;
    Child& c = children_[static_cast<std::size_t>(slot)];
    c.host = k.substr(colon + 1);
    Result<pid_t> pid =
        spawn_agent(dl.command(node, c.host, false, ep_, std::to_string(o_.node) + "@" + ep_ + "+" + ancestors_text(attach_idx_)));
    if (!pid.ok()) {
      Frame l("lost");
      l.set("node", node).set("why", "never_connected");
      l.payload = "cannot start '" + agent + " " + c.host + " ...': " + pid.status().message();
      live_->child_done(slot);
      send_up(l);
      continue;
    }
    c.agent = pid.value();
    c.agent_pidfd = pidfd_open(c.agent);
  }
}

void Daemon::on_agent_ended(std::size_t ci) {
  Child& c = children_[ci];
  int st = 0;
  if (waitpid(c.agent, &st, WNOHANG) <= 0) return;
  ::close(c.agent_pidfd);
  c.agent_pidfd = -1;
  c.agent = -1;
  if (c.node >= 0 || live_->child_lost(static_cast<int>(ci))) return;  // it said hello: its link judges it
  // The agent ended before its daemon said hello: that host cannot be started.
  std::string how = WIFSIGNALED(st) ? "was killed by signal " + std::to_string(WTERMSIG(st))
                                    : "exited with status " + std::to_string(WEXITSTATUS(st));
  std::vector<int> kids = o_.shape.children(o_.node);
  live_->child_done(static_cast<int>(ci));
  Frame l("lost");
  l.set("node", kids[ci]).set("why", "never_connected");
  l.payload = "'" + agent_ + " " + c.host + " ...' " + how;
  send_up(l);
}

std::string Daemon::ancestors_text(std::size_t from) const {
  std::string s;
  for (std::size_t k = from; k < ancestors_.size(); ++k)
    s += (s.empty() ? "" : "+") + std::to_string(ancestors_[k].first) + "@" + ancestors_[k].second;
  return s;
}

std::string Daemon::subtree_nodes() const {
  std::string s;
  for (std::size_t n = 0; n < route_.size(); ++n)
    if (route_[n] >= 0) s += (s.empty() ? "" : ",") + std::to_string(n);
  return s.empty() ? "-" : s;
}

void Daemon::learn_routes(const Frame& hello, std::size_t ci) {
  for (int n : hello_nodes(hello))
    if (n > 0 && n < static_cast<int>(route_.size()) && n != o_.node) route_[static_cast<std::size_t>(n)] = static_cast<int>(ci);
}

void Daemon::try_reattach(std::size_t from, bool keep_old) {
  if (keep_old && stale_parent_.fd < 0 && parent_.fd >= 0 && !parent_.in.bad()) {
    stale_parent_.fd = parent_.fd;  // kept open, unread, until the adoption is granted (tree_membership.h)
    parent_.fd = -1;
  }
  parent_.close();
  parent_.in = FrameDecoder();
  parent_.out.clear();
  auto per = std::max(std::chrono::milliseconds(20), reattach_budget(std::chrono::milliseconds(o_.period_ms)) / 2);
  for (std::size_t k = from; k < ancestors_.size(); ++k) {
    std::vector<std::string> addrs;
    int port = 0;
    if (!parse_endpoint(ancestors_[k].second, addrs, port)) continue;
    auto fd = connect_any(addrs, port, per, true);  // a dead ancestor is skipped at once
    if (!fd.ok()) continue;
    parent_.fd = fd.value();
    attach_idx_ = k;
    Frame hello("hello");
    hello.set("node", o_.node).set("key", o_.key).set("host", host_).set("pid", getpid()).set("ep", ep_);
    hello.set("adopt", 1).set("nodes", subtree_nodes()).set("seen", last_seq_);
    parent_.send(hello);
    parent_.out += reattach_buf_;  // what our ranks said meanwhile, after the hello
    reattach_buf_.clear();
    if (!parent_.flush()) {
      parent_.close();
      continue;
    }
    log::debug("ftmpid: host %s asks node %d to adopt it", host_.c_str(), ancestors_[k].first);
    return;
  }
}

void Daemon::set_reattach_budget() {
  // With no ancestor left above the parent (the origin's children) there is nowhere to go: fence at once.
  bool more = attach_idx_ + 1 < ancestors_.size();
  live_->set_reattach(more ? reattach_budget(std::chrono::milliseconds(o_.period_ms)) : std::chrono::milliseconds(0));
}

void Daemon::on_adopted() {
  live_->adopted(Clock::now());
  set_reattach_budget();
  stale_parent_.close();
  log::debug("ftmpid: host %s adopted by node %d", host_.c_str(), ancestors_[attach_idx_].first);
}

void Daemon::end_agents() {
  for (Child& c : children_) {
    if (c.agent > 0 && c.node < 0) {  // never connected: nothing of it may stay
      kill(-c.agent, SIGKILL);
      kill(c.agent, SIGKILL);
      waitpid(c.agent, nullptr, 0);
      c.agent = -1;
    }
    if (c.agent_pidfd >= 0) ::close(c.agent_pidfd);
    c.agent_pidfd = -1;
  }
}

void Daemon::read_pmi(Rank& r) {
  char buf[4096];
  for (;;) {
    if (r.pmi_fd < 0) return;
    ssize_t n = ::read(r.pmi_fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      ::close(r.pmi_fd);
      r.pmi_fd = -1;
      return;
    }
    r.pmi_in.append(buf, static_cast<std::size_t>(n));
    while (auto line = r.pmi_in.next()) {
      if (line->find("cmd=finalize") != std::string::npos) r.finalized = true;
      r.last_pmi = Clock::now();
      if (auto m = boot::pmi::parse(*line); m.ok()) {
        if (m.value().cmd == "init") r.pmi_init = true;
        else if (m.value().cmd == "barrier_in") r.in_barrier = true;
      }
      Frame f("pmi");
      f.set("rank", r.rank);
      f.payload = *line;
      send_up(f);
    }
    if (r.pmi_in.overflowed()) {
      say("rank %d sent an over-long PMI line; closing its PMI connection", r.rank);
      ::close(r.pmi_fd);
      r.pmi_fd = -1;
      return;
    }
  }
}

void Daemon::flush_rank_pmi(Rank& r) {
  while (r.pmi_fd >= 0 && !r.pmi_out.empty()) {
    ssize_t n = ::send(r.pmi_fd, r.pmi_out.data(), r.pmi_out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN) r.pmi_out.clear();
      return;
    }
    r.pmi_out.erase(0, static_cast<std::size_t>(n));
  }
}

void Daemon::flush_stdin(Rank& r) {
  std::size_t taken = 0;
  while (r.stdin_fd >= 0 && !r.stdin_buf.empty()) {
    ssize_t n = ::write(r.stdin_fd, r.stdin_buf.data(), r.stdin_buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    if (n < 0) {  // rank 0 closed its stdin: what waits is dropped (and acknowledged)
      close_stdin(r);
      return;
    }
    r.stdin_buf.erase(0, static_cast<std::size_t>(n));
    taken += static_cast<std::size_t>(n);
  }
  if (taken > 0) {
    Frame a("stdin_ack");
    a.set("n", static_cast<long long>(taken));
    send_up(a);
  }
  if (r.stdin_eof && r.stdin_buf.empty()) close_stdin(r);
}

void Daemon::close_stdin(Rank& r) {
  if (r.stdin_fd >= 0) ::close(r.stdin_fd);
  r.stdin_fd = -1;
  if (!r.stdin_buf.empty()) {
    Frame a("stdin_ack");
    a.set("n", static_cast<long long>(r.stdin_buf.size()));
    send_up(a);
  }
  r.stdin_buf.clear();
}

void Daemon::read_ctrl(Rank& r) {
  char buf[4096];
  for (;;) {
    if (r.ctrl.fd < 0) return;
    ssize_t n = ::read(r.ctrl.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {
      r.ctrl.close();
      return;
    }
    r.ctrl.in.append(buf, static_cast<std::size_t>(n));
    while (auto line = r.ctrl.in.next()) {
      ControlMessage m = parse_control_line(*line);
      if (m.kind == ControlMessage::Kind::hb) {
        r.heartbeating = true;
        r.last_hb = Clock::now();
        r.silence.on_heartbeat();
        r.stop.reset();
      } else if (m.kind == ControlMessage::Kind::bye) {
        r.said_bye = true;
      } else if (m.kind == ControlMessage::Kind::suspect) {
        Frame f("suspect");
        f.set("rank", m.rank).set("by", r.rank);
        send_up(f);
      } else if (reinit_) {  // fences and rollback-location lines: the origin's epoch coordinator
        Frame f("ctrl");
        f.set("rank", r.rank);
        f.payload = *line;
        send_up(f);
      }
    }
    if (r.ctrl.in.overflowed()) {
      r.ctrl.close();
      return;
    }
  }
}

void Daemon::on_rank_ended(Rank& r) {
  int st = 0;
  if (waitpid(r.pid, &st, WNOHANG) <= 0) return;
  // Whatever it sent before dying goes first: its finalize, its suspicions, its last lines.
  read_pmi(r);
  read_ctrl(r);
  r.out->pump();
  r.err->pump();
  r.out->close_now();
  r.err->close_now();
  r.alive = false;
  ::close(r.pidfd);
  r.pidfd = -1;
  if (r.pmi_fd >= 0) ::close(r.pmi_fd);
  r.pmi_fd = -1;
  r.ctrl.close();
  close_stdin(r);
  kill(-r.pid, SIGKILL);  // nothing of the rank outlives it
  bool ours = r.hung && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
  Frame e("exit");
  e.set("rank", r.rank).set("status", st).set("verdict", ours ? "hung" : "none");
  send_up(e);
}

void Daemon::kill_ranks(int sig) {
  for (Rank& r : ranks_)
    if (r.alive) {
      if (kill(-r.pid, sig) != 0) kill(r.pid, sig);
      if (sig != SIGKILL) kill(-r.pid, SIGCONT);
    }
}

void Daemon::fence(const char* why) {
  int n = 0;
  for (const Rank& r : ranks_) n += r.alive ? 1 : 0;
  say("host %s: %s; killing its %d rank%s and exiting", host_.c_str(), why, n, n == 1 ? "" : "s");
  kill_ranks(SIGKILL);
  spares_.release();
  template_.release();
  for (Rank& r : ranks_)
    if (r.alive) {
      waitpid(r.pid, nullptr, 0);
      r.alive = false;
    }
  // Abort the link (RST, no lingering orphan socket retrying towards an unreachable parent).
  if (parent_.fd >= 0) {
    linger lg{1, 0};
    setsockopt(parent_.fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  }
}

void Daemon::check_heartbeats(Clock::time_point now) {
  if (!ft_) return;
  auto limit = std::chrono::milliseconds(o_.timeout_ms);
  for (Rank& r : ranks_) {
    if (!r.alive || r.hung) continue;
    if (!r.heartbeating || r.said_bye || r.finalized) {
      // Before the first heartbeat or after the goodbye only a stop held for the timeout is a hang
      // (stop_judge.h): a rank SIGSTOPped there would otherwise hold the job until its time limit.
      if (r.stop.sample(r.pid, now, limit)) {
        r.hung = true;
        kill(-r.pid, SIGKILL);
        kill(r.pid, SIGKILL);
        continue;
      }
      // Inside MPI_Init (PMI init sent) with no heartbeat within the start-up timeout of its last PMI
      // exchange, not counting time waiting in a PMI barrier for the others: hung (as mpiexec judges its
      // own ranks, job_ft.cpp). Without this a rank stuck there held the whole job.
      const auto startup = std::chrono::milliseconds(o_.startup_ms);
      if (!r.heartbeating && !r.said_bye && !r.finalized && r.pmi_init && !r.in_barrier && now >= r.last_pmi + startup) {
        read_ctrl(r);  // a first heartbeat may be waiting
        if (r.heartbeating || !r.alive) continue;
        say("host %s: rank %d sent PMI init but no heartbeat within the start-up timeout (%.1f s); killing it",
            host_.c_str(), r.rank, o_.startup_ms / 1000.0);
        r.hung = true;
        kill(-r.pid, SIGKILL);
        kill(r.pid, SIGKILL);
      }
      continue;
    }
    if (now < r.last_hb + limit) continue;
    SilenceCheck check(r.silence, r.pid);  // before the drain (silence_judge.h)
    read_ctrl(r);
    const auto t = Clock::now();
    if (r.said_bye || r.finalized || t < r.last_hb + limit) continue;
    if (check.verdict(std::chrono::duration_cast<std::chrono::milliseconds>(t - r.last_hb), limit) ==
        Silence::starved)
      continue;  // runnable, waiting for a CPU: the machine is busy, not the rank
    r.hung = true;
    kill(-r.pid, SIGKILL);
    kill(r.pid, SIGKILL);
  }
}

void Daemon::handle_own(Frame& f) {
  const std::string& t = f.type;
  if (t == "launch") {
    launch(f);
  } else if (t == "spawn") {
    spawn_part(f);
  } else if (t == "pmi") {
    if (Rank* r = find_rank(static_cast<int>(f.num("rank")))) {
      r->last_pmi = Clock::now();
      if (f.payload.find("cmd=barrier_out") != std::string::npos) r->in_barrier = false;
      r->pmi_out += f.payload;
      flush_rank_pmi(*r);
    }
  } else if (t == "stdin") {
    Rank* r = find_rank(static_cast<int>(f.num("rank")));
    if (!r || r->stdin_fd < 0) {  // not here, or its stdin is closed: acknowledge, drop
      Frame a("stdin_ack");
      a.set("n", static_cast<long long>(f.payload.size()));
      if (!f.payload.empty()) send_up(a);
      return;
    }
    r->stdin_buf += f.payload;
    if (f.num("eof", 0) == 1) r->stdin_eof = true;
    flush_stdin(*r);
  } else if (t == "notice") {
    int failed = static_cast<int>(f.num("rank"));
    for (Rank& r : ranks_) {
      if (!r.alive || r.rank == failed || r.finalized || r.said_bye || r.ctrl.fd < 0) continue;
      r.ctrl.out += f.payload;
      if (!r.ctrl.flush()) r.ctrl.close();
    }
  } else if (t == "signal") {
    int rank = static_cast<int>(f.num("rank"));
    int sig = static_cast<int>(f.num("sig", SIGKILL));
    if (sig <= 0 || sig >= 65) return;
    if (rank < 0) {
      if (f.get("halt")) halting_ = true;
      kill_ranks(sig);
    } else if (Rank* r = find_rank(rank); r && r->alive) {
      if (kill(-r->pid, sig) != 0) kill(r->pid, sig);
    }
  } else if (t == "restart") {
    restart_rank(f);
  } else if (t == "replenish") {  // Reinit: an epoch change committed; the spares used are replaced now,
    fill_spares();                 // and a respawn template lost meanwhile
    renew_template();
  } else if (t == "tell") {  // Reinit: one control line for a rank
    Rank* r = find_rank(static_cast<int>(f.num("rank")));
    if (r && r->alive && r->ctrl.fd >= 0) {
      r->ctrl.out += f.payload;
      if (!r->ctrl.flush()) r->ctrl.close();
    }
  } else if (t == "die") {
    // --inject host=H: a power loss, on purpose. Nothing is said; the sockets close with the process.
    kill_ranks(SIGKILL);
    kill(getpid(), SIGKILL);
  } else if (t == "adopted") {
    on_adopted();
  } else if (t == "refuse") {  // the origin refused a daemon that asked us to adopt it
    int node = static_cast<int>(f.num("node"));
    for (std::size_t i = 0; i < children_.size(); ++i)
      if (children_[i].node == node && children_[i].link.fd >= 0) {
        children_[i].link.close();
        live_->child_done(static_cast<int>(i));
      }
  } else if (t == "end") {
    ending_ = true;
    spares_.release();  // unused spares go with the job (their output, if any, is discarded)
    template_.release();
  }
}

void Daemon::on_parent_frame(Frame& f) {
  if (f.type == "hb") {  // the parent's echo of our heartbeat: only echoes keep us alive
    live_->heard_parent(Clock::now());
    return;
  }
  long long seq = f.num("seq", 0);
  std::string_view to = f.get("to").value_or("*");
  // Frames numbered by the origin reach a daemon in that order, except the origin's re-sending to an
  // adopted orphan (replay=1, tree_membership.h): older frames that the daemons on the way pass on
  // untouched (they had them already); their recipients drop what they had.
  if (seq > 0 && (to == "*" || f.num("to") == o_.node || f.num("replay", 0) != 1)) {
    if (seq <= last_seq_) return;
    last_seq_ = seq;
  }
  if (to == "*" || (f.num("flood", 0) == 1 && f.num("to") == o_.node)) {
    f.set("to", "*");
    for (Child& c : children_)
      if (c.node >= 0 && c.link.fd >= 0 && !c.adopting) {
        c.link.send(f);
        c.link.flush();
      }
    handle_own(f);
    return;
  }
  int dest = static_cast<int>(f.num("to"));
  if (dest == o_.node) {
    handle_own(f);
    return;
  }
  int slot = dest > 0 && dest < static_cast<int>(route_.size()) ? route_[static_cast<std::size_t>(dest)] : -1;
  if (slot < 0) slot = child_slot(o_.shape.next_hop(o_.node, dest));
  if (slot >= 0 && children_[static_cast<std::size_t>(slot)].link.fd >= 0) {
    Child& c = children_[static_cast<std::size_t>(slot)];
    if (c.adopting) {
      if (f.type == "adopted" && dest == c.node) c.adopting = false;  // in order after the replay
      else if (f.num("replay", 0) != 1) return;  // sent before the adoption: the replay brings it
    }
    TreeLink& l = c.link;
    l.send(f);
    l.flush();
  }
}

void Daemon::on_child_frame(std::size_t ci, Frame& f) {
  bool echo = live_->heard_child(static_cast<int>(ci), Clock::now());
  if (f.type == "hb") {
    if (echo) {
      children_[ci].link.send(Frame("hb"));
      children_[ci].link.flush();
    }
    return;
  }
  if (f.type == "hello") learn_routes(f, ci);
  send_up(f);  // everything else is for the origin
}

void Daemon::lose_child(std::size_t ci, TreeLiveness::Why why) {
  Child& c = children_[ci];
  std::vector<int> kids = o_.shape.children(o_.node);
  c.link.close();
  Frame l("lost");
  l.set("node", c.node >= 0 ? c.node : kids[ci]).set("why", why_name(why)).set("by", o_.node);
  send_up(l);
}

void Daemon::accept_children() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    // Its hello must come within a period or two; a blocking read here is bounded by a short poll.
    TreeLink l;
    l.fd = fd;
    std::optional<Frame> hello;
    auto until = Clock::now() + std::chrono::milliseconds(std::max(o_.timeout_ms, 1000));
    while (!hello && Clock::now() < until) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 100) > 0 && !l.fill()) break;
      hello = l.in.next();
      if (l.in.bad()) break;
    }
    int node = hello && hello->type == "hello" && hello->get("key") == o_.key ? static_cast<int>(hello->num("node")) : -1;
    bool adopt = node > 0 && node < o_.shape.nodes && node != o_.node && hello->num("adopt", 0) == 1;
    int slot = child_slot(node);
    if (adopt) {  // an orphan below us asks to be adopted: the origin decides (tree_membership.h)
      children_.emplace_back();
      slot = static_cast<int>(children_.size()) - 1;
    } else if (slot < 0 || children_[static_cast<std::size_t>(slot)].link.fd >= 0 || live_->child_lost(slot)) {
      l.close();
      continue;
    }
    Child& c = children_[static_cast<std::size_t>(slot)];
    c.node = node;
    c.adopting = adopt;
    c.link.fd = fd;
    c.link.in = std::move(l.in);
    live_->child_connected(slot, Clock::now());
    learn_routes(*hello, static_cast<std::size_t>(slot));
    hello->set("by", o_.node);
    send_up(*hello);
  }
}

void Daemon::read_parent() {
  if (parent_.fd < 0) return;
  bool alive = parent_.fill();
  while (parent_.fd >= 0) {
    auto f = parent_.in.next();
    if (!f) break;
    on_parent_frame(*f);
  }
  if (parent_.fd >= 0 && (!alive || parent_.in.bad() || parent_.broken)) {
    parent_.close();
    if (live_->reattaching()) try_reattach(attach_idx_ + 1, false);  // refused or gone: next one
    else live_->parent_closed();
  }
}

void Daemon::read_child(std::size_t ci) {
  TreeLink& l = children_[ci].link;
  if (l.fd < 0) return;
  bool alive = l.fill();
  while (l.fd >= 0) {
    auto f = l.in.next();
    if (!f) break;
    on_child_frame(ci, *f);
  }
  if (l.fd >= 0 && (!alive || l.in.bad() || l.broken)) {
    l.close();
    live_->child_closed(static_cast<int>(ci));
  }
}

void Daemon::drain_links() {
  std::vector<pollfd> pf;
  std::vector<int> who;  // -1: the parent, else the child's index
  if (parent_.fd >= 0) {
    pf.push_back({parent_.fd, POLLIN, 0});
    who.push_back(-1);
  }
  for (std::size_t i = 0; i < children_.size(); ++i)
    if (children_[i].link.fd >= 0) {
      pf.push_back({children_[i].link.fd, POLLIN, 0});
      who.push_back(static_cast<int>(i));
    }
  if (pf.empty()) return;
  ::poll(pf.data(), pf.size(), 0);
  for (std::size_t k = 0; k < pf.size(); ++k) {
    const TreeLink& l = who[k] < 0 ? parent_ : children_[static_cast<std::size_t>(who[k])].link;
    if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR)) && !l.broken) continue;
    if (who[k] < 0 && parent_.fd == pf[k].fd) read_parent();
    else if (who[k] >= 0 && children_[static_cast<std::size_t>(who[k])].link.fd == pf[k].fd)
      read_child(static_cast<std::size_t>(who[k]));
  }
}

void Daemon::loop() {
  enum class Src { parent, listen, child, agent, pidfd, pmi, ctrl, out, err, stdin_write, spare };
  struct Tag {
    Src src;
    std::size_t i;
  };
  std::vector<pollfd> fds;
  std::vector<Tag> tags;
  for (;;) {
    // Read what already waits in the links before judging silence: after a stall of this daemon (a
    // starved machine) the parent's echoes and the children's frames are there; we did not run, they
    // were not silent.
    drain_links();
    // Nor were they silent while this daemon waited for a CPU (it sent no heartbeat, so nothing was echoed):
    // that time is taken off the silence judged (tree_liveness.h, "Starvation").
    live_->stalled(stall_.take());
    auto now = Clock::now();
    TreeLiveness::Actions a = live_->tick(now);
    if (a.fence) {
      if (ending_) return;  // the origin said end and closed: an orderly exit
      fence(a.fence_why == TreeLiveness::Why::closed ? "the link to the launcher closed"
                                                     : "the launcher fell silent beyond the detector timeout");
      return;
    }
    if (a.reattach) try_reattach(attach_idx_ + 1, true);
    for (std::size_t k = 0; k < a.lost.size(); ++k) lose_child(static_cast<std::size_t>(a.lost[k]), a.lost_why[k]);
    if (a.send_heartbeats) send_up(Frame("hb"));
    check_heartbeats(now);
    if (ending_) {
      bool any = std::any_of(ranks_.begin(), ranks_.end(), [](const Rank& r) { return r.alive; });
      if (!any && parent_.out.empty()) {
        for (Child& c : children_) c.link.flush();
        return;
      }
    }

    fds.clear();
    tags.clear();
    auto add = [&](int fd, short ev, Src s, std::size_t i) {
      fds.push_back({fd, ev, 0});
      tags.push_back({s, i});
    };
    if (parent_.fd >= 0) add(parent_.fd, static_cast<short>(POLLIN | (parent_.out.empty() ? 0 : POLLOUT)), Src::parent, 0);
    add(listen_fd_, POLLIN, Src::listen, 0);
    for (std::size_t i = 0; i < children_.size(); ++i)
      if (children_[i].link.fd >= 0)
        add(children_[i].link.fd, static_cast<short>(POLLIN | (children_[i].link.out.empty() ? 0 : POLLOUT)), Src::child, i);
    for (std::size_t i = 0; i < children_.size(); ++i)
      if (children_[i].agent_pidfd >= 0) add(children_[i].agent_pidfd, POLLIN, Src::agent, i);
    for (std::size_t i = 0; i < ranks_.size(); ++i) {
      Rank& r = ranks_[i];
      if (r.pidfd >= 0) add(r.pidfd, POLLIN, Src::pidfd, i);
      if (r.pmi_fd >= 0) add(r.pmi_fd, static_cast<short>(POLLIN | (r.pmi_out.empty() ? 0 : POLLOUT)), Src::pmi, i);
      if (r.ctrl.fd >= 0) add(r.ctrl.fd, static_cast<short>(POLLIN | (r.ctrl.out.empty() ? 0 : POLLOUT)), Src::ctrl, i);
      if (r.out && r.out->open()) add(r.out->fd(), POLLIN, Src::out, i);
      if (r.stdin_fd >= 0 && !r.stdin_buf.empty()) add(r.stdin_fd, POLLOUT, Src::stdin_write, i);
      if (r.err && r.err->open()) add(r.err->fd(), POLLIN, Src::err, i);
    }
    for (const WarmProcess& p : spares_.spares()) add(p.pidfd, POLLIN, Src::spare, static_cast<std::size_t>(p.pid));
    int timeout = ms_until(now, live_->next_deadline());
    if (ft_) timeout = std::min(timeout, o_.period_ms);
    int n = ::poll(fds.data(), fds.size(), timeout);
    if (n < 0 && errno != EINTR) {
      say("poll failed: %s", strerror(errno));
      fence("internal error");
      return;
    }
    for (std::size_t k = 0; n > 0 && k < fds.size(); ++k) {
      short re = fds[k].revents;
      if (!re) continue;
      const Tag& t = tags[k];
      switch (t.src) {
        case Src::parent: {
          if (re & POLLOUT) parent_.flush();
          if ((re & (POLLIN | POLLHUP | POLLERR)) || parent_.broken) read_parent();
          break;
        }
        case Src::listen: accept_children(); break;
        case Src::child: {
          TreeLink& l = children_[t.i].link;
          if (re & POLLOUT) l.flush();
          if ((re & (POLLIN | POLLHUP | POLLERR)) || l.broken) read_child(t.i);
          break;
        }
        case Src::agent: on_agent_ended(t.i); break;
        case Src::pidfd: on_rank_ended(ranks_[t.i]); break;
        case Src::pmi:
          if (re & POLLOUT) flush_rank_pmi(ranks_[t.i]);
          if (re & (POLLIN | POLLHUP | POLLERR)) read_pmi(ranks_[t.i]);
          break;
        case Src::ctrl:
          if ((re & POLLOUT) && !ranks_[t.i].ctrl.flush()) ranks_[t.i].ctrl.close();
          if (re & (POLLIN | POLLHUP | POLLERR)) read_ctrl(ranks_[t.i]);
          break;
        case Src::out: ranks_[t.i].out->pump(); break;
        case Src::err: ranks_[t.i].err->pump(); break;
        case Src::stdin_write: flush_stdin(ranks_[t.i]); break;
        case Src::spare: on_spare_ended(static_cast<pid_t>(t.i)); break;
      }
    }
    if (parent_.broken) read_parent();  // a write to it failed during this round: it reports the end
    if (parent_.fd < 0 && !ending_) live_->parent_closed();
  }
}

}  // namespace ftmpi::mpiexec
