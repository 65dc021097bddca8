#include "control_channel.h"

#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <optional>

namespace ftmpi::mpiexec {
namespace {

// Value of `key=` among space-separated key=value fields, or nullopt.
std::optional<std::string_view> field(std::string_view line, std::string_view key) {
  std::size_t pos = 0;
  while (pos <= line.size()) {
    std::size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    std::string_view f = line.substr(pos, end - pos);
    if (f.size() > key.size() && f.substr(0, key.size()) == key && f[key.size()] == '=')
      return f.substr(key.size() + 1);
    pos = end + 1;
  }
  return std::nullopt;
}

}  // namespace

const char* cause_name(FailureCause c) {
  switch (c) {
    case FailureCause::exited: return "exited";
    case FailureCause::signaled: return "signaled";
    case FailureCause::hung: return "hung";
    case FailureCause::disappeared: return "disappeared";
    case FailureCause::node_lost: return "node_lost";
  }
  return "disappeared";
}

ControlMessage parse_control_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ControlMessage m;
  auto cmd = field(line, "cmd");
  if (!cmd) return m;
  if (*cmd == "hb") {
    m.kind = ControlMessage::Kind::hb;
  } else if (*cmd == "bye") {
    m.kind = ControlMessage::Kind::bye;
  } else if (*cmd == "suspect") {
    auto r = field(line, "rank");
    int v = -1;
    if (!r || r->empty()) return m;
    auto [p, ec] = std::from_chars(r->data(), r->data() + r->size(), v);
    // A negative id (or one beyond this universe) names a process of another job (src/dpm/universe.h).
    if (ec != std::errc() || p != r->data() + r->size()) return m;
    m.kind = ControlMessage::Kind::suspect;
    m.rank = v;
  }
  return m;
}

std::string format_failed_notice(int rank, FailureCause cause, int code, double t) {
  char line[160];
  int n = std::snprintf(line, sizeof line, "cmd=failed rank=%d cause=%s code=%d time=%.6f\n", rank, cause_name(cause),
                        code, t);
  return std::string(line, n > 0 ? static_cast<std::size_t>(n) : 0);
}

double realtime_seconds() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec / 1000) * 1e-6;
}

bool ControlConn::flush() {
  while (fd >= 0 && !out.empty()) {
    ssize_t n = ::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return true;  // poll for POLLOUT
      out.clear();
      return false;
    }
    out.erase(0, static_cast<std::size_t>(n));
  }
  return true;
}

void ControlConn::close() {
  if (fd >= 0) ::close(fd);
  fd = -1;
  out.clear();
}

}  // namespace ftmpi::mpiexec
