// The service thread: heartbeats out, failure notices in (protocol: docs/ft-protocol.md).
#include "ft/service.h"

#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "util/kv_line.h"
#include "util/log.h"
#include "util/mono_clock.h"

namespace ftmpi::ft {
namespace {

bool parse_int(std::string_view s, long* out) {
  if (s.empty() || s.size() > 20) return false;
  char buf[24];
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(buf, &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

Cause parse_cause(std::string_view c) {
  if (c == "exited") return Cause::exited;
  if (c == "signaled") return Cause::signaled;
  if (c == "hung") return Cause::hung;
  if (c == "node_lost") return Cause::node_lost;
  return Cause::disappeared;
}

class ServiceThread final : public Service {
 public:
  ServiceThread(const ServiceConfig& cfg, FailureState& state, std::function<void()> wake)
      : cfg_(cfg), state_(state), wake_(std::move(wake)) {
    if (pipe(stop_pipe_) != 0) stop_pipe_[0] = stop_pipe_[1] = -1;
    thread_ = std::thread([this] { run(); });
  }
  ~ServiceThread() override { stop(); }

  void stop() override {
    if (stopped_.exchange(true)) return;
    send_line("cmd=bye\n");
    if (stop_pipe_[1] >= 0) {
      char c = 1;
      ssize_t w = write(stop_pipe_[1], &c, 1);
      (void)w;
    }
    if (thread_.joinable()) thread_.join();
    if (stop_pipe_[0] >= 0) close(stop_pipe_[0]);
    if (stop_pipe_[1] >= 0) close(stop_pipe_[1]);
  }

  void report_suspect(int world) override {
    char line[64];
    std::snprintf(line, sizeof line, "cmd=suspect rank=%d\n", world - cfg_.id_offset);
    send_line(line);
  }

  void send(const char* line) override { send_line(line); }

 private:
  void send_line(const char* line) {
    std::lock_guard<std::mutex> g(write_lock_);
    std::size_t len = std::strlen(line);
    while (len > 0) {
      ssize_t n = ::send(cfg_.ctrl_fd, line, len, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // mpiexec is gone; nothing to do
      line += n;
      len -= static_cast<std::size_t>(n);
    }
  }

  void handle(std::string_view line) {
    if (kv_field(line, "cmd") != "failed") {
      if (cfg_.on_line) cfg_.on_line(line);
      return;
    }
    long rank = -1, code = 0;
    if (!parse_int(kv_field(line, "rank"), &rank)) {
      log::warn("service: malformed notice '%.*s'", static_cast<int>(line.size()), line.data());
      return;
    }
    parse_int(kv_field(line, "code"), &code);
    FailureRecord rec{static_cast<int>(rank) + cfg_.id_offset, parse_cause(kv_field(line, "cause")), static_cast<int>(code),
                      std::atof(std::string(kv_field(line, "time")).c_str())};
    if (state_.mark_failed(rec)) {
      log::debug("service: rank %ld failed", rank);
      wake_();
    }
  }

  void run() {
    // The launcher finds this thread by its name and reads its state to tell a rank starved of CPU from a
    // hung one (tools/launch/silence_judge.h).
    pthread_setname_np(pthread_self(), "ftmpi-service");
    std::string buf;
    char chunk[4096];
    double next_hb = util::mono_ms();
    for (;;) {
      int timeout = -1;
      if (cfg_.heartbeat_period_ms > 0) {
        double now = util::mono_ms();
        if (now >= next_hb) {
          send_line("cmd=hb\n");
          next_hb = now + cfg_.heartbeat_period_ms;
        }
        timeout = static_cast<int>(next_hb - util::mono_ms()) + 1;
        if (timeout < 0) timeout = 0;
      }
      if (cfg_.on_tick) {
        int t = cfg_.on_tick();
        if (t >= 0 && (timeout < 0 || t < timeout)) timeout = t;
      }
      pollfd fds[2] = {{cfg_.ctrl_fd, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
      int n = poll(fds, 2, timeout);
      if (stopped_.load()) return;
      if (n < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents) return;
      if (!fds[0].revents) continue;
      ssize_t got = recv(cfg_.ctrl_fd, chunk, sizeof chunk, 0);
      if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (got <= 0) return;  // mpiexec closed the channel
      buf.append(chunk, static_cast<std::size_t>(got));
      if (buf.size() > (1u << 20)) buf.clear();  // garbage without newlines: drop it
      std::size_t nl;
      while ((nl = buf.find('\n')) != std::string::npos) {
        handle(std::string_view(buf).substr(0, nl));
        buf.erase(0, nl + 1);
      }
    }
  }

  ServiceConfig cfg_;
  FailureState& state_;
  std::function<void()> wake_;
  std::thread thread_;
  std::mutex write_lock_;
  std::atomic<bool> stopped_{false};
  int stop_pipe_[2] = {-1, -1};
};

}  // namespace

Result<std::unique_ptr<Service>> start_service(const ServiceConfig& cfg, FailureState& state,
                                               std::function<void()> wake) {
  if (cfg.ctrl_fd < 0) return Status(Errc::other, "fault-tolerant mode without a control channel (FTMPI_CTRL_FD)");
  return std::unique_ptr<Service>(std::make_unique<ServiceThread>(cfg, state, std::move(wake)));
}

}  // namespace ftmpi::ft
