#include "origin.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "control_channel.h"
#include "daemon_launch.h"
#include "failure_judge.h"
#include "job.h"
#include "job_control.h"
#include "net_addr.h"
#include "output_forwarder.h"
#include "say.h"
#include "template_process.h"
#include "util/log.h"

namespace ftmpi::mpiexec {
namespace {

using SteadyClock = std::chrono::steady_clock;
constexpr auto kEndWait = std::chrono::milliseconds(2000);  // daemons leave after "end"

std::string random_hex(int words) {
  std::string s;
  for (int i = 0; i < words; ++i) {
    unsigned v = 0;
    if (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v))
      v = static_cast<unsigned>(SteadyClock::now().time_since_epoch().count()) * 2654435761u;
    char buf[16];
    snprintf(buf, sizeof buf, "%08x", v);
    s += buf;
  }
  return s;
}

int ms_until(SteadyClock::time_point now, SteadyClock::time_point t) {
  if (t <= now) return 0;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count() + 1;
  return static_cast<int>(std::min<long long>(ms, 1000));
}

// "04:05:06.789" (UTC) for the log of lost hosts.
std::string clock_text(double realtime) {
  time_t secs = static_cast<time_t>(realtime);
  tm t{};
  gmtime_r(&secs, &t);
  char buf[64];
  snprintf(buf, sizeof buf, "%02d:%02d:%02d.%03d UTC", t.tm_hour, t.tm_min, t.tm_sec,
           static_cast<int>((realtime - static_cast<double>(secs)) * 1000));
  return buf;
}

const char* why_text(TreeLiveness::Why w) {
  switch (w) {
    case TreeLiveness::Why::closed: return "its daemon's connection closed";
    case TreeLiveness::Why::silent: return "its daemon fell silent beyond the detector timeout";
    case TreeLiveness::Why::never_connected: return "its daemon did not connect within the start-up timeout";
    case TreeLiveness::Why::none: break;
  }
  return "lost";
}

TreeLiveness::Why why_from(std::string_view w) {
  if (w == "silent") return TreeLiveness::Why::silent;
  if (w == "never_connected") return TreeLiveness::Why::never_connected;
  return TreeLiveness::Why::closed;
}

}  // namespace

Origin::Origin(Options options, HostLayout layout)
    : opt_(std::move(options)), layout_(std::move(layout)),
      ft_(opt_.ft.enabled()) {
  shape_.fanout = opt_.tree_fanout;
  if (opt_.output_files) outfiles_ = std::make_unique<OutputFiles>(*opt_.output_files, opt_.np);
  shape_.nodes = static_cast<int>(layout_.hosts.size()) + 1;
  key_ = random_hex(4);
  kvsname_ = "ftmpi-" + std::to_string(getpid()) + "-" + random_hex(1);
  parts_.push_back({0, opt_.np, std::make_unique<boot::PmiServer>(opt_.np, kvsname_)});
  boot::PmiServer* first = parts_.front().server.get();
  first->preset("secret", random_hex(4));
  first->preset("PMI_process_mapping", process_mapping(layout_));
  next_gid_ = opt_.np;
  broker_ = std::make_unique<DpmBroker>("ftmpi-port-" + std::to_string(getpid()) + "-");
  if (ft_ && opt_.universe_slot > 0) remote_ = std::make_unique<RemoteFailures>(opt_);
  broker_->set_id_limit(next_gid_);
  ranks_.resize(static_cast<std::size_t>(opt_.np));
  for (int r = 0; r < opt_.np; ++r) {
    RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
    rec.rank = r;
    rec.host = layout_.host_of(r);
    rec.state = RankRecord::State::running;  // "not ended"; pid stays -1 (it is not our child)
  }
  hosts_.resize(layout_.hosts.size());
  launch_.ftmpid = beside_self("ftmpid");
  launch_.agent = opt_.rsh_agent;
  launch_.key = key_;
  launch_.shape = shape_;
  launch_.period_ms = opt_.ft.period_ms();
  launch_.timeout_ms = opt_.ft.timeout_ms();
  launch_.startup_ms = static_cast<int>(opt_.ft.startup_seconds * 1000);
}

Origin::~Origin() {
  for (TreeLink& l : links_) l.close();
  for (TreeLink& l : pending_) l.close();
  for (Control& c : controls_)
    if (c.fd >= 0) ::close(c.fd);
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (sigfd_ >= 0) ::close(sigfd_);
  if (control_fd_ >= 0) ::close(control_fd_);
  if (!control_path_.empty()) unlink(control_path_.c_str());
}

int Origin::slot_of(int node) const {
  for (std::size_t i = 0; i < link_node_.size(); ++i)
    if (link_node_[i] == node) return static_cast<int>(i);
  return -1;
}

std::string Origin::ancestors_of(int node) const {
  std::string s;
  for (int p = shape_.parent(node); p > 0; p = shape_.parent(p))
    s += std::to_string(p) + "@" + hosts_[static_cast<std::size_t>(p - 1)].ep + "+";
  return s + "0@" + ep_;
}

void Origin::start_daemon(int node, const std::string& parent_ep) {
  Host& h = hosts_[static_cast<std::size_t>(node - 1)];
  const HostEntry& e = layout_.hosts[static_cast<std::size_t>(node - 1)];
  h.state = Host::State::starting;
  Result<pid_t> pid = spawn_agent(launch_.command(node, e.name, e.local, parent_ep, ancestors_of(node)));
  if (!pid.ok()) {
    say("cannot start the launch of host %s: %s", e.name.c_str(), pid.status().message().c_str());
    hosts_lost(node, TreeLiveness::Why::never_connected);
    return;
  }
  h.agent = pid.value();
  log::debug("mpiexec: starting the daemon of host %s (node %d) by pid %d", e.name.c_str(), node,
             static_cast<int>(pid.value()));
}

bool Origin::start() {
  sigfd_ = open_job_signalfd();
  if (sigfd_ < 0) return false;
  int port = 0;
  auto lfd = listen_any(port);
  if (!lfd.ok()) {
    say("%s", lfd.status().message().c_str());
    return false;
  }
  listen_fd_ = lfd.value();
  ep_ = format_endpoint(local_addresses(), port);
  forward_stdin_ = !isatty(0) || tcgetpgrp(0) == getpgrp();
  control_fd_ = open_job_socket(control_path_);
  if (control_fd_ < 0) log::debug("mpiexec: no job-control socket (--status/--halt will not find this job)");
  auto now = SteadyClock::now();
  live_ = std::make_unique<TreeLiveness>(std::chrono::milliseconds(opt_.ft.period_ms()),
                                         std::chrono::milliseconds(opt_.ft.timeout_ms()),
                                         std::chrono::milliseconds(static_cast<int>(opt_.ft.startup_seconds * 1000)),
                                         false, now);
  std::vector<int> kids = shape_.children(0);
  links_.resize(kids.size());
  link_node_ = kids;
  route_.assign(static_cast<std::size_t>(shape_.nodes), -1);
  orphan_why_.assign(static_cast<std::size_t>(shape_.nodes), TreeLiveness::Why::closed);
  members_ = std::make_unique<TreeMembership>(shape_.nodes, adopt_window(std::chrono::milliseconds(opt_.ft.period_ms())));
  for (std::size_t i = 0; i < kids.size(); ++i) {
    live_->expect_child(static_cast<int>(i), now);
    start_daemon(kids[i], ep_);
  }
  return true;
}

int Origin::run() {
  auto now = SteadyClock::now();
  start_realtime_ = realtime_seconds();
  if (ft_) reinit_setup();
  if (opt_.timeout_seconds > 0) {
    end_.set_timeout(opt_.timeout_seconds, now);
  }
  for (const InjectSpec& s : opt_.ft.injections)
    if (s.kind == InjectSpec::Kind::after)
      timers_.push_back({now + std::chrono::duration_cast<SteadyClock::duration>(
                                   std::chrono::duration<double>(s.after_seconds)),
                         s});
  if (!start()) {
    say("cannot start the job: %s", strerror(errno));
    return kExitUsage;
  }
  supervise();
  if (reinit_ && !reinit_->summary().empty())  // the rank table holds the restarted processes now
    say("%s%s", reinit_->summary().c_str(), end_.status_set() ? "; the job was terminated" : "; every rank completed");
  if (ft_ && !halted_ && !reinit_) {
    std::vector<std::string> names;
    for (const HostEntry& h : layout_.hosts) names.push_back(h.name);
    say_ft_summary({.ranks = &ranks_, .failed_order = &failed_order_, .terminated = end_.status_set(),
                    .first_survivor_error = first_survivor_error_, .start_realtime = start_realtime_,
                    .host_names = &names, .lost_hosts = &lost_hosts_});
    end_.set_final_status(ft_exit_status(ranks_, failed_order_, first_survivor_error_));
  }
  return end_.exit_status();
}

std::string Origin::tag_prefix(int rank, int fd) const { return mpiexec::tag_prefix(opt_.tag_output, rank, fd); }

void Origin::send_to(int node, const Frame& f0) {
  Frame f = f0;
  f.set("to", node);
  log_down(node, f);
  int slot = node > 0 && node < shape_.nodes ? route_[static_cast<std::size_t>(node)] : -1;
  if (slot < 0) {
    int hop = node;
    while (hop > 0 && shape_.parent(hop) != 0) hop = shape_.parent(hop);
    slot = slot_of(hop);
  }
  if (slot < 0) return;
  TreeLink& l = links_[static_cast<std::size_t>(slot)];
  if (l.fd < 0) return;
  l.send(f);
  l.flush();  // a failure marks it broken: its read path reports it closed (tree_wire.h)
}

void Origin::log_down(int to, Frame& f) {
  f.set("seq", ++down_seq_);
  auto now = SteadyClock::now();
  down_log_.push_back({now, to, f});
  // An orphan misses at most what was sent since its parent failed: T + R before its adoption.
  auto keep = std::max<SteadyClock::duration>(std::chrono::seconds(5),
                                              4 * std::chrono::milliseconds(opt_.ft.timeout_ms() + 10 * opt_.ft.period_ms()));
  while (!down_log_.empty() && down_log_.front().at + keep < now) down_log_.pop_front();
}

void Origin::replay_to(int node, long long seen) {
  for (const Sent& s : down_log_) {
    if (s.f.num("seq", 0) <= seen) continue;
    if (s.to >= 0 && !members_->below(s.to, node)) continue;
    Frame g = s.f;
    g.set("replay", 1);  // the adopter forwards only these to the orphan until "adopted" (daemon.h)
    int dest = s.to;
    if (dest < 0) {  // a broadcast: from the adopted node down
      g.set("flood", 1);
      dest = node;
    }
    g.set("to", dest);
    int slot = route_[static_cast<std::size_t>(dest)];
    if (slot < 0 || links_[static_cast<std::size_t>(slot)].fd < 0) continue;
    TreeLink& l = links_[static_cast<std::size_t>(slot)];
    l.send(g);
    l.flush();
  }
}

void Origin::broadcast(const Frame& f0) {
  Frame f = f0;
  f.set("to", "*");
  log_down(-1, f);
  for (TreeLink& l : links_)
    if (l.fd >= 0) {
      l.send(f);
      l.flush();
    }
}

void Origin::send_pmi_replies(const boot::PmiServer::Outcome& o, int base) {
  for (const auto& rep : o.replies) send_line(base + rep.rank, rep.line);
}

void Origin::on_pmi(int r, const std::string& line) {
  if (r < 0 || r >= static_cast<int>(ranks_.size())) return;
  if (line.rfind("cmd=dpm_", 0) == 0) {  // dynamic processes (origin_dpm.cpp)
    on_dpm_line(r, line);
    return;
  }
  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  rec.last_pmi = SteadyClock::now();
  Part& part = part_of(r);
  boot::PmiServer::Outcome o = part.server->handle(r - part.base, line);
  send_pmi_replies(o, part.base);
  switch (o.event) {
    case boot::PmiServer::Event::none: break;
    case boot::PmiServer::Event::initialized: rec.pmi_initialized = true; break;
    case boot::PmiServer::Event::finalized: rec.pmi_finalized = true; break;
    case boot::PmiServer::Event::aborted:
      if (!rec.aborted) {
        rec.aborted = true;
        rec.abort_code = o.abort_code;
        char msg[256];
        snprintf(msg, sizeof msg, "rank %d on %s called MPI_Abort with code %d; terminating the job", r,
                 host_name(rec.host).c_str(), o.abort_code);
        fail_job(o.abort_code & 0xff, msg);
      }
      break;
    case boot::PmiServer::Event::protocol_error:
      say("warning: rank %d sent a bad PMI request: %s", r, o.error.c_str());
      break;
  }
}

void Origin::announce_failure(int r) {
  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  FailureCause cause;
  int code;
  failure_cause(rec, cause, code);
  Frame f("notice");
  f.set("rank", r);
  f.payload = format_failed_notice(r, cause, code, rec.failed_realtime);
  broadcast(f);
  rec.failure_announced = true;
  if (remote_) remote_->post_local(r);
  Part& part = part_of(r);
  send_pmi_replies(part.server->rank_gone(r - part.base, std::string(cause_name(cause)) + ":" + std::to_string(code)),
                   part.base);
}

void Origin::on_rank_exit(int r, int st, bool hung) {
  if (r < 0 || r >= static_cast<int>(ranks_.size())) return;
  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  if (!rec.alive()) return;
  if (r == 0) stdin_done_ = true;
  rec.ended_at = SteadyClock::now();
  if (WIFSIGNALED(st)) {
    rec.state = RankRecord::State::signaled;
    rec.term_signal = WTERMSIG(st);
  } else {
    rec.state = RankRecord::State::exited;
    rec.exit_code = WEXITSTATUS(st);
  }
  send_dpm_replies(broker_->gone(r));
  if (hung) rec.verdict = RankRecord::Verdict::hung;
  else if (rec.verdict != RankRecord::Verdict::none && !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL))
    rec.verdict = RankRecord::Verdict::none;
  if (!end_.running() || rec.aborted) return;
  if (ft_) {
    if (is_ft_failure(rec)) {
      if (rec.failed_realtime == 0) rec.failed_realtime = realtime_seconds();
      failed_order_.push_back(r);
      announce_failure(r);
      reinit_on_exit(r, true);
    } else {
      if (first_survivor_error_ < 0 && (rec.state == RankRecord::State::signaled || rec.exit_code != 0))
        first_survivor_error_ = r;
      FailureCause cause;
      int code;
      failure_cause(rec, cause, code);
      Part& part = part_of(r);
      send_pmi_replies(part.server->rank_gone(r - part.base, std::string(cause_name(cause)) + ":" + std::to_string(code)),
                       part.base);
      reinit_on_exit(r, false);
    }
    return;
  }
  if (!rec.failed()) return;
  char line[256];
  snprintf(line, sizeof line, "rank %d on %s %s; terminating the job", r, host_name(rec.host).c_str(),
           rec.cause().c_str());
  fail_job(rec.job_exit_status(), line);
}

void Origin::announce_remote(const std::string& line) {
  Frame f("notice");
  f.set("rank", -1);
  f.payload = line;
  broadcast(f);
}

void Origin::on_suspect(int r, int by) {
  if (ft_ && end_.running() && !reinit_ && remote_ && remote_->is_remote(r)) {
    if (auto line = remote_->on_reported(r)) announce_remote(*line);
    return;
  }
  if (!ft_ || !end_.running() || r < 0 || r >= static_cast<int>(ranks_.size()) || r == by) return;
  // Reinit: ranks close the transports of an epoch they leave, which a peer still in it may take for a
  // lost process; every real death is seen by a daemon (pidfd) or as a lost host.
  if (reinit_) return;
  RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
  if (!rec.alive() || rec.pmi_finalized || rec.verdict != RankRecord::Verdict::none) return;
  rec.verdict = RankRecord::Verdict::disappeared;
  rec.failed_realtime = realtime_seconds();
  Frame f("signal");
  f.set("rank", r).set("sig", SIGKILL);
  send_to(rec.host + 1, f);  // announced once its daemon reports it dead (fail-stop)
}

void Origin::hosts_lost(int node, TreeLiveness::Why why, const std::string& detail) {
  double now = realtime_seconds();
  for (int n : shape_.subtree(node)) {
    Host& h = hosts_[static_cast<std::size_t>(n - 1)];
    if (h.state == Host::State::lost || h.state == Host::State::done) continue;
    // Hosts below that are up stay: their daemons re-attach elsewhere or are lost on their own
    // (tree_membership.h); only those not started yet go with it (their starter is gone).
    if (n != node && h.state == Host::State::up) continue;
    bool started = h.state == Host::State::up;
    h.state = Host::State::lost;
    h.lost_at = now;
    h.cut_off = why == TreeLiveness::Why::silent;
    h.spares = 0;  // its daemon's warm spares went with it
    h.why = n == node ? (detail.empty() ? why_text(why) : detail) : "the host above it in the launcher tree was lost";
    int s = slot_of(n);
    if (s >= 0) links_[static_cast<std::size_t>(s)].close();
    const HostEntry& e = layout_.hosts[static_cast<std::size_t>(n - 1)];
    std::vector<int> failed;
    for (int r : ranks_on_host(n - 1)) {
      RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
      if (!rec.alive() || rec.host != n - 1) continue;
      rec.state = RankRecord::State::signaled;
      rec.term_signal = SIGKILL;
      rec.ended_at = SteadyClock::now();
      if (!end_.running()) continue;
      rec.verdict = RankRecord::Verdict::host_lost;
      rec.cut_off = h.cut_off;
      rec.failed_realtime = now;
      failed.push_back(r);
      send_dpm_replies(broker_->gone(r));
    }
    if (!end_.running() && (all_ranks_ended() || !started)) continue;  // an orderly end: no notices
    if (!started) {  // never came up: the job cannot run as asked, whatever the mode
      if (!detail.empty()) h.why = detail;
      fail_job(kExitUsage, "cannot start the daemon on host " + e.name + ": " + h.why + "; terminating the job");
      continue;
    }
    lost_hosts_.push_back(n - 1);
    std::string ranks_text = failed.empty() ? "no rank running there"
                             : "rank" + std::string(failed.size() > 1 ? "s " : " ") + std::to_string(failed.front()) +
                                   (failed.size() > 1 ? "-" + std::to_string(failed.back()) : "") + " failed";
    say("host %s lost at %s (%s); %s", e.name.c_str(), clock_text(now).c_str(), h.why.c_str(), ranks_text.c_str());
    if (!end_.running()) continue;
    if (!ft_) {
      fail_job(1, "host " + e.name + " lost; terminating the job");
      continue;
    }
    for (int r : failed) {
      failed_order_.push_back(r);
      announce_failure(r);
    }
    reinit_host_lost(e.name, failed);
  }
  retry_spawns();
}

void Origin::link_lost(int node, int by, TreeLiveness::Why why, const std::string& detail) {
  if (node < 1 || node >= shape_.nodes) return;
  if (why == TreeLiveness::Why::never_connected) {
    hosts_lost(node, why, detail);
    return;
  }
  bool closed = why == TreeLiveness::Why::closed;
  std::vector<int> lost = members_->link_lost(node, by, closed, SteadyClock::now());
  if (!closed && members_->state(node) == TreeMembership::State::orphan)
    orphan_why_[static_cast<std::size_t>(node)] = TreeLiveness::Why::silent;
  for (int n : lost) hosts_lost(n, why, detail);
}

void Origin::orphans_expired(SteadyClock::time_point now) {
  for (int n : members_->tick(now)) {
    if (orphan_why_[static_cast<std::size_t>(n)] == TreeLiveness::Why::silent) hosts_lost(n, TreeLiveness::Why::silent);
    else hosts_lost(n, TreeLiveness::Why::closed, "the host above it in the launcher tree was lost and it did not re-attach");
  }
}

void Origin::learn_routes(const Frame& hello, int via_slot) {
  for (int n : hello_nodes(hello))
    if (n > 0 && n < shape_.nodes) route_[static_cast<std::size_t>(n)] = via_slot;
}

void Origin::on_adopt(const Frame& f, int via_slot) {
  int node = static_cast<int>(f.num("node"));
  int by = static_cast<int>(f.num("by", 0));
  if (node < 1 || node >= shape_.nodes || f.get("key") != std::string_view(key_)) return;
  const std::string& name = layout_.hosts[static_cast<std::size_t>(node - 1)].name;
  std::string under = by == 0 ? std::string("mpiexec") : host_name(by - 1);
  if (end_.running() && members_->adopt(node, by, SteadyClock::now())) {
    learn_routes(f, via_slot);
    say("host %s re-attached under %s at %s (its parent in the launcher tree was lost)", name.c_str(),
        under.c_str(), clock_text(realtime_seconds()).c_str());
    replay_to(node, f.num("seen", 0));
    send_to(node, Frame("adopted"));
    return;
  }
  log::debug("mpiexec: refused to re-attach host %s under %s", name.c_str(), under.c_str());
  if (by == 0) {
    int s = slot_of(node);
    if (s >= 0 && s == via_slot) {
      links_[static_cast<std::size_t>(s)].close();
      live_->child_done(s);
    }
  } else {
    Frame r("refuse");
    r.set("node", node);
    send_to(by, r);
  }
}

void Origin::fail_job(int status, const std::string& message) {
  if (end_.terminate(status, message, SteadyClock::now())) signal_ranks(SIGTERM, false);
}

void Origin::signal_ranks(int sig, bool halt) {
  Frame f("signal");
  f.set("rank", -1).set("sig", sig);
  if (halt) f.set("halt", 1);
  broadcast(f);
}

bool Origin::all_ranks_ended() const {
  return std::none_of(ranks_.begin(), ranks_.end(), [](const RankRecord& r) { return r.alive(); });
}

void Origin::on_hello(const Frame& f, int via_slot) {
  int node = static_cast<int>(f.num("node"));
  if (node < 1 || node >= shape_.nodes || f.get("key") != std::string_view(key_)) return;
  Host& h = hosts_[static_cast<std::size_t>(node - 1)];
  if (h.state != Host::State::starting) return;
  if (shape_.parent(node) == 0 && via_slot != slot_of(node)) return;
  h.state = Host::State::up;
  h.daemon_pid = static_cast<int>(f.num("pid", 0));
  h.ep = std::string(f.get("ep").value_or(""));
  const HostEntry& e = layout_.hosts[static_cast<std::size_t>(node - 1)];
  log::debug("mpiexec: host %s up (daemon pid %d, %s)", e.name.c_str(), h.daemon_pid, h.ep.c_str());
  // Launch its ranks (none once the job is ending: they are recorded as never started).
  if (!end_.running())
    for (int r = e.first_rank; r < e.first_rank + e.nranks; ++r)
      if (ranks_[static_cast<std::size_t>(r)].alive()) ranks_[static_cast<std::size_t>(r)].state = RankRecord::State::exited;
  for (int r = e.first_rank; r < e.first_rank + e.nranks; ++r) {
    ranks_[static_cast<std::size_t>(r)].started = SteadyClock::now();
    if (opt_.report_bindings && end_.running())  // a host's daemon starts its ranks unbound (docs/hosts.md)
      say("rank %d (%s) on host %s not bound", r, opt_.app(r).argv[0].c_str(), e.name.c_str());
  }
  Frame l("launch");
  l.set("first", e.first_rank).set("n", end_.running() ? e.nranks : 0).set("ft", ft_ ? 1 : 0);
  l.set("pty", opt_.output_pipe ? 0 : 1);
  if (reinit_) l.set("reinit", 1);
  if (reinit_ && opt_.ft.spares > 0) l.set("spares", opt_.ft.spares);  // per host (origin_reinit.cpp)
  if (reinit_ && template_enabled() && opt_.single_program()) l.set("template", 1);  // a respawn template per host (template_process.h)
  if (forward_stdin_ && e.first_rank == 0 && e.nranks > 0) l.set("stdin", 1);
  std::vector<std::string> items;
  items.push_back("path=" + opt_.apps.front().path);
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd)) items.push_back(std::string("cwd=") + cwd);
  for (const std::string& a : opt_.apps.front().argv) items.push_back("arg=" + a);
  for (const std::string& e2 : job_environment(opt_)) items.push_back("env=" + e2);
  {  // each program's ranks and what is its own (its -env settings, MPI_APPNUM; a job of several programs)
    int first = 0;
    for (const AppContext& app : opt_.apps) {
      items.push_back("app=" + std::to_string(first) + ":" + std::to_string(app.np));
      items.push_back("apath=" + app.path);
      if (!app.wdir.empty()) items.push_back("acwd=" + app.wdir);
      for (const std::string& a : app.argv) items.push_back("aarg=" + a);
      std::vector<std::string> own;
      apply_app_environment(opt_, first, own);
      for (const std::string& e2 : own) items.push_back("aenv=" + e2);
      first += app.np;
    }
  }
  for (const InjectSpec& s : opt_.ft.injections)
    if (s.kind == InjectSpec::Kind::at)
      items.push_back("inject_at=" + std::to_string(s.rank) + ":" + s.function + ":" + std::to_string(s.call));
  // The daemons below it: it starts them itself through the agent, from its own host; only those of this
  // machine (no agent) are started here, and connect to it.
  items.push_back("agent=" + opt_.rsh_agent);
  for (int c : shape_.children(node))
    if (!layout_.hosts[static_cast<std::size_t>(c - 1)].local) {
      items.push_back("child=" + std::to_string(c) + ":" + layout_.hosts[static_cast<std::size_t>(c - 1)].name);
      hosts_[static_cast<std::size_t>(c - 1)].state = Host::State::starting;
    }
  l.payload = join_nul(items);
  send_to(node, l);
  for (int c : shape_.children(node))
    if (layout_.hosts[static_cast<std::size_t>(c - 1)].local) start_daemon(c, h.ep);
  retry_spawns();
}

void Origin::on_frame(Frame& f, int via_slot) {
  const std::string& t = f.type;
  if (t == "hb") return;
  if (t == "hello" && f.num("adopt", 0) == 1) on_adopt(f, via_slot);
  else if (t == "hello") {
    learn_routes(f, via_slot);
    members_->joined(static_cast<int>(f.num("node")), static_cast<int>(f.num("by", 0)));
    on_hello(f, via_slot);
  }
  else if (t == "pmi") on_pmi(static_cast<int>(f.num("rank")), f.payload);
  else if (t == "spawn_failed") on_spawn_failed(f);
  else if (t == "ctrl") {  // a rank's Reinit control line, relayed by its daemon
    int r = static_cast<int>(f.num("rank"));
    if (reinit_ && end_.running() && r >= 0 && r < opt_.np && ranks_[static_cast<std::size_t>(r)].alive())
      reinit_->on_control_line(r, f.payload);
  }
  else if (t == "spare") on_spare_frame(f);        // Reinit --spares (origin_reinit.cpp)
  else if (t == "restarted") on_restarted(f);
  else if (t == "out") {
    int r = static_cast<int>(f.num("rank"));
    int fd = f.num("fd") == 2 ? 2 : 1;
    if (outfiles_ && r >= 0 && r < opt_.np) outfiles_->write(r, fd, f.payload.data(), f.payload.size());
    if (!outfiles_ || outfiles_->copy()) write_lines(fd, tag_prefix(r, fd), f.payload.data(), f.payload.size());
  } else if (t == "exit") {
    on_rank_exit(static_cast<int>(f.num("rank")), static_cast<int>(f.num("status", 0)), f.get("verdict") == "hung");
  } else if (t == "stdin_ack") {
    stdin_in_flight_ -= std::min<std::size_t>(stdin_in_flight_, static_cast<std::size_t>(std::max(0LL, f.num("n", 0))));
  } else if (t == "suspect") {
    on_suspect(static_cast<int>(f.num("rank")), static_cast<int>(f.num("by")));
  } else if (t == "lost") {
    int node = static_cast<int>(f.num("node"));
    link_lost(node, static_cast<int>(f.num("by", 0)), why_from(f.get("why").value_or("closed")), f.payload);
  }
}

void Origin::accept_links() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    TreeLink l;
    l.fd = fd;
    pending_.push_back(std::move(l));
    pending_since_.push_back(SteadyClock::now());
  }
}

void Origin::on_pending_readable(std::size_t i) {
  TreeLink& l = pending_[i];
  bool alive = l.fill();
  std::optional<Frame> hello = l.in.next();
  if (!hello) {
    if (!alive || l.in.bad()) l.close();
    return;
  }
  int node = static_cast<int>(hello->num("node"));
  int slot = slot_of(node);
  if (hello->type == "hello" && hello->get("key") == std::string_view(key_) && hello->num("adopt", 0) == 1 &&
      node >= 1 && node < shape_.nodes) {  // an orphan re-attaching to the origin: a new slot
    links_.emplace_back();
    link_node_.push_back(node);
    slot = static_cast<int>(links_.size()) - 1;
    TreeLink& dst = links_.back();
    dst.fd = pending_[i].fd;
    dst.in = std::move(pending_[i].in);
    pending_[i].fd = -1;
    live_->child_connected(slot, SteadyClock::now());
    on_frame(*hello, slot);
    while (dst.fd >= 0) {
      auto f = links_[static_cast<std::size_t>(slot)].in.next();
      if (!f) break;
      on_frame(*f, slot);
    }
    return;
  }
  if (hello->type != "hello" || hello->get("key") != std::string_view(key_) || slot < 0 ||
      links_[static_cast<std::size_t>(slot)].fd >= 0 || hosts_[static_cast<std::size_t>(node - 1)].state != Host::State::starting) {
    l.close();
    return;
  }
  TreeLink& dst = links_[static_cast<std::size_t>(slot)];
  dst.fd = l.fd;
  dst.in = std::move(l.in);
  l.fd = -1;
  live_->child_connected(slot, SteadyClock::now());
  on_frame(*hello, slot);
  while (auto f = dst.in.next()) on_frame(*f, slot);
}

void Origin::on_link_readable(std::size_t slot) {
  TreeLink& l = links_[slot];
  bool alive = l.fill();
  bool echo = live_->heard_child(static_cast<int>(slot), SteadyClock::now());
  while (l.fd >= 0) {
    auto f = l.in.next();
    if (!f) break;
    if (f->type == "hb" && echo) {  // answer each heartbeat at once (tree_liveness.h)
      l.send(Frame("hb"));
      l.flush();
    }
    on_frame(*f, static_cast<int>(slot));
  }
  if (l.fd >= 0 && (!alive || l.in.bad() || l.broken)) {
    int node = link_node_[slot];
    if (l.broken) log::debug("mpiexec: a write to host %s's daemon failed: its link closed", host_name(node - 1).c_str());
    l.close();
    if (hosts_[static_cast<std::size_t>(node - 1)].state == Host::State::done) live_->child_done(static_cast<int>(slot));
    else live_->child_closed(static_cast<int>(slot));
  }
}

void Origin::drain_links() {
  std::vector<pollfd> pf;
  std::vector<std::size_t> slot;
  for (std::size_t i = 0; i < links_.size(); ++i)
    if (links_[i].fd >= 0) {
      pf.push_back({links_[i].fd, POLLIN, 0});
      slot.push_back(i);
    }
  if (pf.empty()) return;
  ::poll(pf.data(), pf.size(), 0);
  for (std::size_t k = 0; k < pf.size(); ++k) {
    const TreeLink& l = links_[slot[k]];
    if (l.fd == pf[k].fd && ((pf[k].revents & (POLLIN | POLLHUP | POLLERR)) || l.broken)) on_link_readable(slot[k]);
  }
}

void Origin::on_signalfd() {
  std::vector<JobSignal> sigs;
  std::vector<int> forward;
  bool child = false;
  read_job_signals(sigfd_, sigs, forward, child);
  for (int sig : forward)
    if (end_.running()) signal_ranks(sig, false);  // every host's daemon passes it on to its ranks
  for (const JobSignal& s : sigs) signal_ranks(end_.on_signal(s.sig, SteadyClock::now()), false);
  if (child) reap_agents();
}

void Origin::reap_agents() {
  for (;;) {
    int st = 0;
    pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid <= 0) return;
    for (std::size_t i = 0; i < hosts_.size(); ++i) {
      Host& h = hosts_[i];
      if (h.agent != pid) continue;
      h.agent = -1;
      if (h.state == Host::State::starting) {
        // The agent ended before its daemon said hello: this host cannot be started.
        std::string how = WIFSIGNALED(st) ? "was killed by signal " + std::to_string(WTERMSIG(st))
                                          : "exited with status " + std::to_string(WEXITSTATUS(st));
        std::string cmd = layout_.hosts[i].local ? launch_.ftmpid : opt_.rsh_agent + " " + layout_.hosts[i].name;
        int node = static_cast<int>(i) + 1;
        int s = slot_of(node);
        if (s >= 0) live_->child_done(s);
        hosts_lost(node, TreeLiveness::Why::never_connected, "'" + cmd + " ...' " + how);
      }
    }
  }
}

void Origin::check_never_initialized(SteadyClock::time_point now) {
  if (!ft_ || reinit_ || !end_.running() || parts_.empty()) return;
  const auto limit = std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(opt_.ft.startup_seconds));
  const Part& job = parts_.front();
  auto in_barrier = [&job](int q) { return job.server->in_barrier(q - job.base); };
  for (int r : never_initialized(ranks_, job.base, job.size, in_barrier, now, limit)) {
    RankRecord& rec = ranks_[static_cast<std::size_t>(r)];
    if (hosts_[static_cast<std::size_t>(rec.host)].state != Host::State::up) continue;
    say("rank %d on %s did not call MPI_Init within the start-up timeout (%.1f s) while the other ranks waited for "
        "it there; killing it", r, host_name(rec.host).c_str(), opt_.ft.startup_seconds);
    rec.verdict = RankRecord::Verdict::hung;
    rec.failed_realtime = realtime_seconds();
    Frame f("signal");
    f.set("rank", r).set("sig", SIGKILL);
    send_to(rec.host + 1, f);  // announced once its daemon reports it dead (fail-stop)
  }
}

void Origin::check_timers(SteadyClock::time_point now) {
  check_never_initialized(now);
  if (end_.timeout_due(now)) fail_job(kExitTimeout, end_.timeout_message());
  if (end_.running())
    for (Timer& t : timers_) {
      if (t.done || now < t.when) continue;
      t.done = true;
      if (!t.spec.host.empty()) {
        for (std::size_t i = 0; i < layout_.hosts.size(); ++i)
          if (layout_.hosts[i].name == t.spec.host) {
            log::debug("mpiexec: injecting the loss of host %s", t.spec.host.c_str());
            send_to(static_cast<int>(i) + 1, Frame("die"));
          }
        continue;
      }
      if (t.spec.rank >= opt_.np || !ranks_[static_cast<std::size_t>(t.spec.rank)].alive()) continue;
      Frame f("signal");
      f.set("rank", t.spec.rank).set("sig", t.spec.signal);
      send_to(ranks_[static_cast<std::size_t>(t.spec.rank)].host + 1, f);
    }
  if (end_.kill_due(now)) signal_ranks(SIGKILL, halted_);
}

std::string Origin::status_text() const {
  std::string s;
  char line[512];
  double now = realtime_seconds();
  int up = 0;
  for (const Host& h : hosts_) up += h.state == Host::State::up ? 1 : 0;
  snprintf(line, sizeof line, "job %d: %s, %d ranks on %zu hosts (%d up), running for %.1f s\n",
           static_cast<int>(getpid()), end_.running() ? "running" : "terminating", opt_.np,
           hosts_.size(), up, now - start_realtime_);
  s += line;
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    const Host& h = hosts_[i];
    const HostEntry& e = layout_.hosts[i];
    std::string st;
    switch (h.state) {
      case Host::State::waiting: st = "waiting"; break;
      case Host::State::starting: st = "starting"; break;
      case Host::State::up: st = "up"; break;
      case Host::State::done: st = "done"; break;
      case Host::State::lost: {
        char b[64];
        snprintf(b, sizeof b, " at %.3f s", h.lost_at - start_realtime_);
        st = std::string(h.cut_off ? "cut off" : "lost") + b + " (" + h.why + ")";
        break;
      }
    }
    std::string ranks = e.nranks == 0 ? "no ranks"
                        : e.nranks == 1 ? "rank " + std::to_string(e.first_rank)
                                        : "ranks " + std::to_string(e.first_rank) + "-" +
                                              std::to_string(e.first_rank + e.nranks - 1);
    std::string spares = h.spares > 0 ? ", " + std::to_string(h.spares) + (h.spares == 1 ? " spare" : " spares") : "";
    snprintf(line, sizeof line, "host %s: %s, %s, daemon pid %d%s\n", e.name.c_str(), st.c_str(), ranks.c_str(),
             h.daemon_pid, spares.c_str());
    s += line;
  }
  for (const RankRecord& r : ranks_) {
    std::string st;
    if (r.alive()) st = r.pmi_finalized ? "up (finalized)" : "up";
    else if (r.verdict == RankRecord::Verdict::host_lost) st = r.cut_off ? "cut off" : "lost";
    else if (std::find(failed_order_.begin(), failed_order_.end(), r.rank) != failed_order_.end())
      st = "failed (" + r.cause() + ")";
    else st = "ended (" + r.cause() + ")";
    snprintf(line, sizeof line, "rank %d on %s: %s\n", r.rank, host_name(r.host).c_str(), st.c_str());
    s += line;
  }
  return s;
}

void Origin::on_control_readable(std::size_t i) {
  Control& c = controls_[i];
  char buf[256];
  ssize_t n = ::read(c.fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    ::close(c.fd);
    c.fd = -1;
    return;
  }
  c.in.append(buf, static_cast<std::size_t>(n));
  std::size_t nl = c.in.find('\n');
  if (nl == std::string::npos) {
    if (c.in.size() > 128) {
      ::close(c.fd);
      c.fd = -1;
    }
    return;
  }
  std::string cmd = c.in.substr(0, nl);
  c.in.clear();
  if (cmd == "status") {
    std::string text = status_text();
    (void)!::send(c.fd, text.data(), text.size(), MSG_NOSIGNAL);
    ::close(c.fd);
    c.fd = -1;
  } else if (cmd == "halt") {
    std::string text = "halting job " + std::to_string(getpid()) + "\n";
    (void)!::send(c.fd, text.data(), text.size(), MSG_NOSIGNAL);
    c.halt_waiter = true;  // closed when mpiexec exits: the client waits for the end
    if (end_.terminate(128 + SIGTERM, "halted by --halt; ending the job", SteadyClock::now())) {
      halted_ = true;
      signal_ranks(SIGTERM, true);
    }
  } else {
    ::close(c.fd);
    c.fd = -1;
  }
}

void Origin::supervise() {
  enum class Src { signal, listen, link, pending, control_listen, control, stdin_read, board };
  struct Tag {
    Src src;
    std::size_t i;
  };
  std::vector<pollfd> fds;
  std::vector<Tag> tags;
  bool ending = false;
  SteadyClock::time_point end_deadline{};
  for (;;) {
    // What already waits in the links is read before silence is judged: after a stall of this process (a
    // starved machine) a killed daemon's EOF and a live one's frames are there, and a child is not silent
    // because we did not run (a host kill was reported as a cut under load).
    drain_links();
    live_->stalled(stall_.take());  // nor while we waited for a CPU, if it sent nothing then (starved too)
    auto now = SteadyClock::now();
    TreeLiveness::Actions a = live_->tick(now);
    for (std::size_t k = 0; k < a.lost.size(); ++k) {
      int node = link_node_[static_cast<std::size_t>(a.lost[k])];
      if (ending && a.lost_why[k] == TreeLiveness::Why::closed) continue;
      links_[static_cast<std::size_t>(a.lost[k])].close();
      link_lost(node, 0, a.lost_why[k]);
    }
    if (!ending) orphans_expired(now);
    if (!end_.running())  // hosts not up yet will run nothing: their ranks never start
      for (std::size_t i = 0; i < hosts_.size(); ++i) {
        if (hosts_[i].state != Host::State::starting && hosts_[i].state != Host::State::waiting) continue;
        const HostEntry& e = layout_.hosts[i];
        for (int r = e.first_rank; r < e.first_rank + e.nranks; ++r)
          if (ranks_[static_cast<std::size_t>(r)].alive()) ranks_[static_cast<std::size_t>(r)].state = RankRecord::State::exited;
      }
    if (!ending && all_ranks_ended()) {
      ending = true;
      end_deadline = now + kEndWait;
      broadcast(Frame("end"));
      for (std::size_t i = 0; i < hosts_.size(); ++i) {
        Host& h = hosts_[i];
        if (h.state == Host::State::up) h.state = Host::State::done;
        members_->done(static_cast<int>(i) + 1);
        int s = slot_of(static_cast<int>(i) + 1);
        if (s >= 0) live_->child_done(s);
      }
    }
    if (ending) {
      bool open = std::any_of(links_.begin(), links_.end(), [](const TreeLink& l) { return l.fd >= 0; });
      bool agents = std::any_of(hosts_.begin(), hosts_.end(), [](const Host& h) { return h.agent > 0; });
      if ((!open && !agents) || now >= end_deadline) break;
    }

    fds.clear();
    tags.clear();
    auto add = [&](int fd, short ev, Src s, std::size_t i) {
      fds.push_back({fd, ev, 0});
      tags.push_back({s, i});
    };
    add(sigfd_, POLLIN, Src::signal, 0);
    add(listen_fd_, POLLIN, Src::listen, 0);
    if (control_fd_ >= 0) add(control_fd_, POLLIN, Src::control_listen, 0);
    if (stdin_wanted()) add(0, POLLIN, Src::stdin_read, 0);
    if (remote_ && remote_->fd() >= 0 && end_.running()) add(remote_->fd(), POLLIN, Src::board, 0);
    for (std::size_t i = 0; i < links_.size(); ++i)
      if (links_[i].fd >= 0) add(links_[i].fd, static_cast<short>(POLLIN | (links_[i].out.empty() ? 0 : POLLOUT)), Src::link, i);
    for (std::size_t i = 0; i < pending_.size(); ++i)
      if (pending_[i].fd >= 0) add(pending_[i].fd, POLLIN, Src::pending, i);
    for (std::size_t i = 0; i < controls_.size(); ++i)
      if (controls_[i].fd >= 0 && !controls_[i].halt_waiter) add(controls_[i].fd, POLLIN, Src::control, i);
    int timeout = ms_until(now, std::min(live_->next_deadline(), members_->next_deadline()));
    if (ending) timeout = std::min(timeout, ms_until(now, end_deadline));
    if (auto t = end_.timeout_deadline()) timeout = std::min(timeout, ms_until(now, *t));
    if (auto k = end_.kill_deadline()) timeout = std::min(timeout, ms_until(now, *k));
    for (const Timer& t : timers_)
      if (!t.done) timeout = std::min(timeout, ms_until(now, t.when));
    int n = ::poll(fds.data(), fds.size(), timeout);
    if (n < 0 && errno != EINTR) {
      say("poll failed: %s", strerror(errno));
      break;
    }
    for (std::size_t k = 0; n > 0 && k < fds.size(); ++k) {
      short re = fds[k].revents;
      if (!re) continue;
      const Tag& t = tags[k];
      switch (t.src) {
        case Src::signal: on_signalfd(); break;
        case Src::listen: accept_links(); break;
        case Src::control_listen: {
          int fd = ::accept4(control_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
          if (fd >= 0) controls_.push_back({fd, {}, false});
          break;
        }
        case Src::control: on_control_readable(t.i); break;
        case Src::pending: on_pending_readable(t.i); break;
        case Src::stdin_read: on_stdin_readable(); break;
        case Src::board:
          for (const std::string& line : remote_->on_board_readable()) announce_remote(line);
          break;
        case Src::link:
          if (re & POLLOUT) links_[t.i].flush();
          if ((re & (POLLIN | POLLHUP | POLLERR)) || links_[t.i].broken) on_link_readable(t.i);
          break;
      }
    }
    // A connection that says no hello within the detector timeout is not one of ours.
    for (std::size_t i = 0; i < pending_.size(); ++i)
      if (pending_[i].fd >= 0 && SteadyClock::now() > pending_since_[i] + std::chrono::milliseconds(opt_.ft.timeout_ms()))
        pending_[i].close();
    for (std::size_t i = pending_.size(); i-- > 0;)
      if (pending_[i].fd < 0) {
        pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
        pending_since_.erase(pending_since_.begin() + static_cast<std::ptrdiff_t>(i));
      }
    std::erase_if(controls_, [](const Control& c) { return c.fd < 0; });
    check_timers(SteadyClock::now());
  }
  // Daemons that did not leave in time, and agents still running, go now.
  for (Host& h : hosts_)
    if (h.agent > 0) kill(-h.agent, SIGKILL), kill(h.agent, SIGKILL);
  auto until = SteadyClock::now() + std::chrono::milliseconds(1000);
  while (SteadyClock::now() < until &&
         std::any_of(hosts_.begin(), hosts_.end(), [](const Host& h) { return h.agent > 0; })) {
    reap_agents();
    usleep(5000);
  }
}

}  // namespace ftmpi::mpiexec
