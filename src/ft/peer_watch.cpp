// The rank-level detector's thread: UDP heartbeats and pidfds around ft/ring_detector.h.
#include "ft/peer_watch.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "boot/process_mapping.h"
#include "ft/detector_datagram.h"
#include "ft/rank_guardian.h"
#include "ft/ring_detector.h"
#include "transport/tcp/tcp_interfaces.h"
#include "transport/tcp/tcp_transport.h"
#include "util/log.h"
#include "util/mono_clock.h"

namespace ftmpi::ft {
namespace {

using Datagram = DetectorDatagram;
constexpr std::uint32_t kMagic = kDetectorMagic;

double real_s() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

long env_long(const char* name, long dflt, long lo, long hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (!end || *end || x < lo || x > hi) {
    log::warn("%s='%s' is not a number in [%ld, %ld]; using %ld", name, v, lo, hi, dflt);
    return dflt;
  }
  return x;
}

// Field 22 of /proc/<pid>/stat (start time in clock ticks since boot): with the pid, names one process.
std::string start_time(long pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE* f = std::fopen(path, "r");
  if (!f) return {};
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');  // the command name may hold spaces
  if (!p) return {};
  int field = 2;
  for (++p; *p && field < 22; ++p)
    if (*p == ' ') ++field;
  std::string s;
  while (*p && *p != ' ') s += *p++;
  return s;
}

// State T or t in /proc/<pid>/stat: stopped by a signal, or by a tracer.
bool process_stopped(long pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE* f = std::fopen(path, "r");
  if (!f) return false;
  char buf[512];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');
  return p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't');
}

int pidfd_open(long pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

std::uint32_t fnv1a(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  return h;
}

class PeerWatchImpl final : public PeerWatch {
 public:
  PeerWatchImpl(int fd, int me, int n, std::unique_ptr<RankGuardian> guardian)
      : fd_(fd), me_(me), n_(n), pidfd_(static_cast<size_t>(n), -1), pid_(static_cast<size_t>(n), 0),
        guard_port_(static_cast<size_t>(n), 0), guardian_(std::move(guardian)) {}
  ~PeerWatchImpl() override {
    stop();
    for (int p : pidfd_)
      if (p >= 0) ::close(p);
    if (fd_ >= 0) ::close(fd_);
  }

  Status start(boot::Bootstrap& boot, FailureState& failures, std::function<void()> wake) override;
  void stop() override {
    if (!thread_.joinable() || stopping_.exchange(true)) return;
    char c = 1;
    ssize_t w = ::write(stop_pipe_[1], &c, 1);
    (void)w;
    thread_.join();
    ::close(stop_pipe_[0]);
    ::close(stop_pipe_[1]);
    if (guardian_) guardian_->stop();
    // A failed rank of this host may be stopped (SIGSTOP): it runs nothing, and the launcher (Hydra, srun)
    // would wait for it forever. Now that this rank is done, it is made to run again: SIGCONT through its
    // pidfd (a stopped process acts on no other signal but SIGKILL, and a death by a signal would make
    // Hydra kill the rest of the host). It then reads its fence notice and ends itself with _exit(1). Not
    // at the suspicion: a suspect that runs again before every rank here has fenced it could still reach
    // them through shared memory. Every same-host rank this one counts as failed, however it learned it:
    // a host-mate often learns the suspicion from the flood, a revoke or the agreement before its own
    // detector's copy arrives (seen under load: the stopped rank was then left stopped). A rank alone on
    // its host has its guardian instead (ft/rank_guardian.h).
    for (int r = 0; r < n_; ++r) {
      const int pfd = pidfd_[static_cast<size_t>(r)];
      if (pfd < 0 || !failures_ || !failures_->failed(r)) continue;
      pollfd ended{pfd, POLLIN, 0};
      if (::poll(&ended, 1, 0) > 0) continue;  // already gone
      const bool stopped = process_stopped(pid_[static_cast<size_t>(r)]);
      if (syscall(SYS_pidfd_send_signal, pfd, SIGCONT, nullptr, 0) == 0 && stopped)
        log::warn("rank %d: continued rank %d (same host, fenced) so that it ends itself", me_, r);
    }
  }

 private:
  void run();
  void send(int dest, DetectorMsg kind, int about);
  void act(DetectorActions& a);
  bool drain_socket(double now, DetectorActions& a);  // false on a fatal socket error
  void sync_failures(double now, DetectorActions& a);
  [[noreturn]] void end_rank(const char* why);

  int fd_;
  int me_, n_;
  std::uint32_t tag_ = 0;
  std::unique_ptr<RingDetector> det_;
  std::vector<sockaddr_in> addr_;  // per rank (sin_family 0: none)
  std::vector<int> pidfd_;         // per rank on this host (-1 elsewhere, or not verifiable)
  std::vector<long> pid_;          // per rank on this host with a pidfd
  std::vector<std::uint16_t> guard_port_;  // per rank alone on its host: its guardian's port (same address)
  std::unique_ptr<RankGuardian> guardian_;  // this rank's, when alone on its host
  FailureState* failures_ = nullptr;
  std::uint64_t seen_epoch_ = ~std::uint64_t{0};
  std::function<void()> wake_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  int stop_pipe_[2] = {-1, -1};
};

void PeerWatchImpl::send(int dest, DetectorMsg kind, int about) {
  if (dest < 0 || dest >= n_ || addr_[static_cast<size_t>(dest)].sin_family != AF_INET) return;
  Datagram d{kMagic, tag_, static_cast<std::uint8_t>(kind), {0, 0, 0}, me_, about};
  const sockaddr_in& a = addr_[static_cast<size_t>(dest)];
  // Best effort: a full socket buffer or an unreachable host loses a datagram, as a cut link would.
  (void)::sendto(fd_, &d, sizeof d, MSG_DONTWAIT | MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&a), sizeof a);
  // A fence goes to the rank's guardian too (ft/rank_guardian.h): the rank may be stopped.
  if (kind == DetectorMsg::fence && guard_port_[static_cast<size_t>(dest)] != 0) {
    sockaddr_in g = a;
    g.sin_port = htons(guard_port_[static_cast<size_t>(dest)]);
    (void)::sendto(fd_, &d, sizeof d, MSG_DONTWAIT | MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&g), sizeof g);
  }
}

void PeerWatchImpl::end_rank(const char* why) {
  char line[512];
  int len = std::snprintf(line, sizeof line,
                          "ftmpi: rank %d: %s; ending this rank (rank-level failure detector, no ftmpi daemon)\n", me_, why);
  if (len < 0) len = 0;
  ssize_t w = ::write(2, line, std::min(static_cast<size_t>(len), sizeof line - 1));
  (void)w;
  if (guardian_) guardian_->stop();
  _exit(1);
}

void PeerWatchImpl::act(DetectorActions& a) {
  for (const DetectorSend& s : a.sends) send(s.dest, s.kind, s.about);
  bool woke = false;
  // A suspect is not killed, even on this host where its pidfd could: MPICH's Hydra answers a rank killed by
  // a signal by killing every other rank of that host (with -disable-auto-cleanup too), the observer included.
  // It is fenced by its closed connections and by the fence notice it reads first when it runs again. On
  // this host it is made to run again in stop() (see there).
  for (int r : a.suspected)
    if (failures_->mark_failed({r, Cause::hung, 0, real_s()})) {
      log::warn("rank %d: rank %d suspected by the rank-level detector (silent beyond the timeout); counted as "
                "failed and fenced", me_, r);
      if (guardian_) guardian_->mark_out(r);
      woke = true;
    }
  if (a.fenced) end_rank("a live rank declared this rank failed (silent beyond the detector timeout)");
  if (a.quorum_lost) {
    char why[200];
    std::snprintf(why, sizeof why,
                  "%d of %d ranks failed or unreachable: no majority of the job here (the minority side of a "
                  "cut, or fenced)", det_->failed_count(), n_);
    end_rank(why);
  }
  if (woke) wake_();
  a.clear();
}

bool PeerWatchImpl::drain_socket(double now, DetectorActions& a) {
  for (;;) {
    Datagram d;
    ssize_t got = ::recv(fd_, &d, sizeof d, MSG_DONTWAIT);
    if (got < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNREFUSED;
    if (got != sizeof d || d.magic != kMagic || d.tag != tag_ || d.from < 0 || d.from >= n_ || d.kind < 1 || d.kind > 4)
      continue;  // not ours (another job, garbage): ignored
    det_->on_message(d.from, static_cast<DetectorMsg>(d.kind), d.about, now, a);
    if (guardian_ && (det_->failed(d.from) || det_->departed(d.from))) guardian_->mark_out(d.from);
    act(a);
  }
}

// Failures recorded by others (lost connections, revoke, agreement) reach the ring.
void PeerWatchImpl::sync_failures(double now, DetectorActions& a) {
  std::uint64_t e = failures_->epoch_acquire();
  if (e == seen_epoch_) return;
  seen_epoch_ = e;
  for (int r = 0; r < n_; ++r)
    if (r != me_ && failures_->failed(r) && !det_->failed(r)) {
      if (guardian_) guardian_->mark_out(r);
      det_->on_failed(r, now, a);
      act(a);
    }
}

void PeerWatchImpl::run() {
  DetectorActions a;
  std::vector<pollfd> fds;
  std::vector<int> fd_rank;
  for (;;) {
    double now = util::mono_ms();
    if (!drain_socket(now, a)) {
      log::warn("rank %d: rank-level detector: socket error (%s); detector stopped", me_, std::strerror(errno));
      return;
    }
    sync_failures(now, a);
    det_->tick(now, a);
    act(a);
    fds.clear();
    fd_rank.clear();
    fds.push_back({stop_pipe_[0], POLLIN, 0});
    fds.push_back({fd_, POLLIN, 0});
    for (int r = 0; r < n_; ++r)
      if (pidfd_[static_cast<size_t>(r)] >= 0 && !det_->failed(r) && !det_->departed(r)) {
        fds.push_back({pidfd_[static_cast<size_t>(r)], POLLIN, 0});
        fd_rank.push_back(r);
      }
    // Wake at the detector's next deadline, and at least every period (to see failures recorded by others).
    double wait = std::min(det_->next_deadline() - util::mono_ms(), 100.0);
    int timeout = wait < 0 ? 0 : static_cast<int>(wait) + 1;
    int n = ::poll(fds.data(), fds.size(), timeout);
    if (stopping_.load() || (n > 0 && fds[0].revents)) {
      // MPI_Finalize: goodbyes (twice: a datagram may be lost) so the observers do not take the silence
      // that follows for a failure.
      det_->leave(a);
      for (int i = 0; i < 2; ++i)
        for (const DetectorSend& s : a.sends) send(s.dest, s.kind, s.about);
      return;
    }
    if (n <= 0) continue;
    now = util::mono_ms();
    if (!drain_socket(now, a)) continue;  // reported on the next pass
    for (size_t i = 2; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      const int r = fd_rank[i - 2];
      if (det_->departed(r) || det_->failed(r)) continue;  // its goodbye came first (drained just above)
      // A process of this host ended without a goodbye: failed (shared memory gives no EOF).
      if (failures_->mark_failed({r, Cause::disappeared, 0, real_s()})) {
        log::warn("rank %d: rank %d (same host) ended without MPI_Finalize: counted as failed", me_, r);
        wake_();
      }
      if (guardian_) guardian_->mark_out(r);
      det_->on_failed(r, now, a);
      act(a);
    }
  }
}

Status PeerWatchImpl::start(boot::Bootstrap& boot, FailureState& failures, std::function<void()> wake) {
  failures_ = &failures;
  wake_ = std::move(wake);
  auto secret = boot.get("secret");
  tag_ = fnv1a((secret.ok() ? secret.value() : std::string()) + "/" + boot.job_id());
  // Same host: what the launcher says (PMI_process_mapping), as the router.
  std::vector<int> node(static_cast<size_t>(n_));
  for (int r = 0; r < n_; ++r) node[static_cast<size_t>(r)] = r;
  if (auto text = boot.job_attribute("PMI_process_mapping"))
    if (auto m = boot::parse_process_mapping(*text, n_); m.ok()) node = m.value();
  auto all = transport::tcp::local_addresses();
  std::vector<transport::tcp::LocalAddress> mine_all = all.ok() ? all.value() : std::vector<transport::tcp::LocalAddress>{};
  auto sel = transport::tcp::select_addresses(transport::TcpOptions::from_env().if_include, mine_all);
  std::vector<transport::tcp::LocalAddress> mine_sel = sel.ok() ? sel.value() : mine_all;
  addr_.assign(static_cast<size_t>(n_), sockaddr_in{});
  int unreachable = 0;
  for (int r = 0; r < n_; ++r) {
    if (r == me_ || failures.failed(r)) continue;
    const bool here = node[static_cast<size_t>(r)] == node[static_cast<size_t>(me_)];
    auto card = boot.get("hb." + std::to_string(r));
    std::string text = card.ok() ? card.value() : std::string();
    // "CARD" or "CARD|gPORT" (a rank alone on its host: its guardian's port, same addresses). Not ';' or
    // '=': PMI-2 values cannot hold them.
    if (size_t semi = text.find("|g"); semi != std::string::npos) {
      long gp = std::strtol(text.c_str() + semi + 2, nullptr, 10);
      if (gp > 0 && gp < 65536) guard_port_[static_cast<size_t>(r)] = static_cast<std::uint16_t>(gp);
      text.resize(semi);
    }
    if (card.ok())
      if (auto eps = transport::tcp::parse_card(text); eps.ok()) {
        auto order = transport::tcp::order_for_peer(eps.value(), here, mine_sel, mine_all);
        for (const auto& ep : order)
          if (ep.addr.ss_family == AF_INET) {
            std::memcpy(&addr_[static_cast<size_t>(r)], &ep.addr, sizeof(sockaddr_in));
            break;
          }
      }
    if (addr_[static_cast<size_t>(r)].sin_family != AF_INET) ++unreachable;
    if (!here) continue;
    auto pid = boot.get("pid." + std::to_string(r));
    if (!pid.ok()) continue;
    std::string_view v = pid.value();
    size_t dot = v.find('.');
    if (dot == std::string_view::npos) continue;
    long p = std::strtol(std::string(v.substr(0, dot)).c_str(), nullptr, 10);
    int pfd = p > 0 ? pidfd_open(p) : -1;
    // The pidfd names the peer only if that pid's start time is the one it published (same pid namespace,
    // pid not reused).
    if (pfd >= 0 && start_time(p) != v.substr(dot + 1)) {
      ::close(pfd);
      pfd = -1;
    }
    pidfd_[static_cast<size_t>(r)] = pfd;
    pid_[static_cast<size_t>(r)] = p;
    log::debug("rank-level detector: rank %d is on this host (pid %ld): %s", r, p,
               pfd >= 0 ? "watched through a pidfd" : "no pidfd (other pid namespace, or gone)");
  }
  if (unreachable)
    log::warn("rank %d: rank-level detector: %d rank(s) published no IPv4 heartbeat address; they are watched "
              "through their connections only", me_, unreachable);
  DetectorConfig cfg;
  cfg.me = me_;
  cfg.size = n_;
  cfg.period_ms = static_cast<double>(env_long("FTMPI_DETECTOR_PERIOD_MS", 100, 1, 3'600'000));
  cfg.timeout_ms = static_cast<double>(env_long("FTMPI_DETECTOR_TIMEOUT_MS", 1000, 2, 86'400'000));
  if (cfg.timeout_ms <= cfg.period_ms) {
    log::warn("FTMPI_DETECTOR_TIMEOUT_MS (%.0f) must exceed FTMPI_DETECTOR_PERIOD_MS (%.0f); using %.0f", cfg.timeout_ms,
              cfg.period_ms, 10 * cfg.period_ms);
    cfg.timeout_ms = 10 * cfg.period_ms;
  }
  cfg.observers = static_cast<int>(env_long("FTMPI_DETECTOR_OBSERVERS", 2, 1, 64));
  cfg.quorum = env_long("FTMPI_DETECTOR_QUORUM", 1, 0, 1) != 0;
  det_ = std::make_unique<RingDetector>(cfg, util::mono_ms());
  if (guardian_) {
    for (int r = 0; r < n_; ++r)
      if (r != me_ && failures.failed(r)) guardian_->mark_out(r);
    if (Status gs = guardian_->start(tag_, me_, n_, cfg.timeout_ms); !gs.ok()) {
      log::warn("rank %d: rank-level detector: no guardian (%s); if this rank is stopped and declared failed, the "
                "launcher waits for it", me_, gs.message().c_str());
      guardian_.reset();
    }
  }
  if (pipe2(stop_pipe_, O_CLOEXEC) != 0) return Status(Errc::other, std::string("detector: pipe: ") + std::strerror(errno));
  thread_ = std::thread([this] { run(); });
  log::debug("rank-level detector: period %.0f ms, timeout %.0f ms, k=%d, quorum %s", cfg.period_ms, cfg.timeout_ms,
             cfg.observers, cfg.quorum ? "on" : "off");
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<PeerWatch>> prepare_peer_watch(boot::Bootstrap& boot) {
  if (const char* d = std::getenv("FTMPI_DETECTOR"); d && (std::strcmp(d, "off") == 0 || std::strcmp(d, "0") == 0))
    return std::unique_ptr<PeerWatch>();
  if (boot.size() < 2) return std::unique_ptr<PeerWatch>();
  auto all = transport::tcp::local_addresses();
  if (!all.ok()) return all.status();
  auto sel = transport::tcp::select_addresses(transport::TcpOptions::from_env().if_include, all.value());
  if (!sel.ok()) return sel.status();
  auto udp = bind_any_udp("detector");
  if (!udp.ok()) return udp.status();
  const int fd = udp.value().fd;
  std::vector<transport::tcp::Endpoint> eps;
  for (const auto& a : sel.value()) {
    if (a.ep.addr.ss_family != AF_INET) continue;
    transport::tcp::Endpoint e = a.ep;
    reinterpret_cast<sockaddr_in*>(&e.addr)->sin_port = htons(udp.value().port);
    eps.push_back(e);
  }
  const int me = boot.rank();
  // Alone on its host (what the launcher says; no mapping: every rank is its own host): a guardian
  // (ft/rank_guardian.h) ends this rank if it is declared failed while stopped. FTMPI_DETECTOR_GUARDIAN=0: none.
  std::unique_ptr<RankGuardian> guardian;
  const char* g = std::getenv("FTMPI_DETECTOR_GUARDIAN");
  if (!eps.empty() && !(g && std::strcmp(g, "0") == 0)) {
    std::vector<int> node(static_cast<size_t>(boot.size()));
    for (int r = 0; r < boot.size(); ++r) node[static_cast<size_t>(r)] = r;
    if (auto text = boot.job_attribute("PMI_process_mapping"))
      if (auto m = boot::parse_process_mapping(*text, boot.size()); m.ok()) node = m.value();
    if (std::count(node.begin(), node.end(), node[static_cast<size_t>(me)]) == 1) {
      auto made = RankGuardian::create();
      if (made.ok())
        guardian = std::move(made.value());
      else
        log::warn("rank %d: rank-level detector: %s", me, made.status().message().c_str());
    }
  }
  if (!eps.empty()) {
    std::string card = transport::tcp::format_card(eps);
    if (guardian) card += "|g" + std::to_string(guardian->port());
    Status st = boot.put("hb." + std::to_string(me), card);
    if (!st.ok()) {
      ::close(fd);
      return st;
    }
  }
  const long pid = static_cast<long>(getpid());
  Status st = boot.put("pid." + std::to_string(me), std::to_string(pid) + "." + start_time(pid));
  if (!st.ok()) {
    ::close(fd);
    return st;
  }
  return std::unique_ptr<PeerWatch>(std::make_unique<PeerWatchImpl>(fd, me, boot.size(), std::move(guardian)));
}

}  // namespace ftmpi::ft
