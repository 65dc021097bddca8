#include "net_addr.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace ftmpi::mpiexec {

Result<int> listen_any(int& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Status(Errc::other, std::string("socket: ") + strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 128) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    std::string e = strerror(errno);
    ::close(fd);
    return Status(Errc::other, "cannot listen: " + e);
  }
  port = ntohs(a.sin_port);
  return fd;
}

std::vector<std::string> local_addresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (ifaddrs* i = list; i; i = i->ifa_next) {
      if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
      if (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)) continue;
      char buf[INET_ADDRSTRLEN];
      auto* sin = reinterpret_cast<sockaddr_in*>(i->ifa_addr);
      if (inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf)) out.emplace_back(buf);
    }
    freeifaddrs(list);
  }
  out.emplace_back("127.0.0.1");
  return out;
}

std::string format_endpoint(const std::vector<std::string>& addrs, int port) {
  std::string s;
  for (const std::string& a : addrs) s += (s.empty() ? "" : ",") + a;
  return s + ":" + std::to_string(port);
}

bool parse_endpoint(const std::string& text, std::vector<std::string>& addrs, int& port) {
  std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  std::string_view p(text.data() + colon + 1, text.size() - colon - 1);
  auto [q, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
  if (ec != std::errc() || q != p.data() + p.size() || port <= 0 || port > 65535) return false;
  addrs.clear();
  std::size_t s = 0;
  while (s < colon) {
    std::size_t e = text.find(',', s);
    if (e == std::string::npos || e > colon) e = colon;
    in_addr tmp{};
    std::string a = text.substr(s, e - s);
    if (inet_pton(AF_INET, a.c_str(), &tmp) != 1) return false;
    addrs.push_back(a);
    s = e + 1;
  }
  return !addrs.empty();
}

Result<int> connect_any(const std::vector<std::string>& addrs, int port, std::chrono::milliseconds limit,
                        bool refusal_is_final, ConnectReport* report) {
  using Clock = std::chrono::steady_clock;
  using ms = std::chrono::milliseconds;
  constexpr ms kAttemptWait{200}, kAttemptWaitMax{1600};  // an attempt that hears nothing is redone
  constexpr ms kBackoff{20}, kBackoffMax{500};            // after a transient error
  struct Try {
    std::string addr;
    sockaddr_in sa{};
    bool valid = false;
    int fd = -1;
    std::string error;
    bool refused = false;
    bool over = false;     // refused or unparsable: not tried again
    bool near = false;     // on a subnet of one of our interfaces: tried first
    bool started = false;  // its first attempt was made
    int attempts = 0;
    Clock::time_point give_up{};  // the current attempt is abandoned then
    Clock::time_point retry_at{};  // no attempt in flight: the next one then
  };
  auto final_refusal = [&](const Try& t) { return refusal_is_final && t.refused && t.addr.rfind("127.", 0) != 0; };
  // Our interfaces' subnets (address & mask), loopback included.
  std::vector<std::pair<in_addr_t, in_addr_t>> nets;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (ifaddrs* i = list; i; i = i->ifa_next)
      if (i->ifa_addr && i->ifa_netmask && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP)) {
        in_addr_t m = reinterpret_cast<sockaddr_in*>(i->ifa_netmask)->sin_addr.s_addr;
        nets.emplace_back(reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr & m, m);
      }
    freeifaddrs(list);
  }
  std::vector<Try> tries;
  for (const std::string& a : addrs) {
    Try t;
    t.addr = a;
    t.sa.sin_family = AF_INET;
    t.sa.sin_port = htons(static_cast<uint16_t>(port));
    t.valid = inet_pton(AF_INET, a.c_str(), &t.sa.sin_addr) == 1;
    if (t.valid)
      for (const auto& [net, mask] : nets) t.near = t.near || (t.sa.sin_addr.s_addr & mask) == net;
    tries.push_back(std::move(t));
  }
  // The outcome of a failed attempt (errno `err`): final, or retried after a backoff.
  auto failed = [&](Try& t, int err, Clock::time_point now) {
    t.refused = err == ECONNREFUSED;
    t.over = t.refused;
    t.error = strerror(err);
    if (t.fd >= 0) ::close(t.fd);
    t.fd = -1;
    ms wait = kBackoff * (1 << std::min(t.attempts - 1, 5));
    t.retry_at = now + std::min(wait, kBackoffMax);
  };
  auto attempt = [&](Try& t, Clock::time_point now) {
    t.started = true;
    if (!t.valid) {
      t.error = "bad address";
      t.over = true;
      return;
    }
    ++t.attempts;
    t.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (t.fd < 0) {
      failed(t, errno, now);
      return;
    }
    if (::connect(t.fd, reinterpret_cast<sockaddr*>(&t.sa), sizeof t.sa) != 0 && errno != EINPROGRESS) {
      failed(t, errno, now);
      return;
    }
    ms wait = kAttemptWait * (1 << std::min(t.attempts - 1, 3));
    t.give_up = now + std::min(wait, kAttemptWaitMax);
  };
  // The addresses on our own subnets first; the others (an interface of the peer's machine that may not be
  // reachable from here, or no longer exist) only when those failed or after kFarDelay: a connection made
  // through an address of another network outlives that network's removal badly (no EOF, no heartbeat).
  constexpr ms kFarDelay{300};
  auto t0 = Clock::now();
  bool any_near = std::any_of(tries.begin(), tries.end(), [](const Try& t) { return t.near; });
  for (Try& t : tries)
    if (t.near || !any_near) attempt(t, t0);
  auto far_at = t0 + kFarDelay;
  auto deadline = t0 + limit;
  int winner = -1;
  bool gone = std::any_of(tries.begin(), tries.end(), final_refusal);
  while (!gone && winner < 0) {
    auto now = Clock::now();
    if (now >= deadline) break;
    // The far addresses join when every near one is final or waits for a retry, or at far_at.
    bool near_busy = std::any_of(tries.begin(), tries.end(), [](const Try& t) { return t.fd >= 0; });
    if (now >= far_at || !near_busy)
      for (Try& t : tries)
        if (!t.started) attempt(t, now);
    // Abandoned attempts (no answer) are redone at once on a fresh socket; failed ones after their backoff.
    for (Try& t : tries) {
      if (t.fd >= 0 && now >= t.give_up) {
        ::close(t.fd);
        t.fd = -1;
        t.error = "no answer";
        t.retry_at = now;
      }
      if (t.started && !t.over && t.fd < 0 && now >= t.retry_at) attempt(t, now);
    }
    gone = std::any_of(tries.begin(), tries.end(), final_refusal);
    if (gone) break;
    if (std::all_of(tries.begin(), tries.end(), [](const Try& t) { return t.started && t.over; })) break;
    // Wait for an attempt to complete, or until the next give-up, retry, far start or the deadline.
    std::vector<pollfd> pf;
    std::vector<std::size_t> idx;
    Clock::time_point wake = deadline;
    for (std::size_t i = 0; i < tries.size(); ++i) {
      const Try& t = tries[i];
      if (t.fd >= 0) {
        pf.push_back({t.fd, POLLOUT, 0});
        idx.push_back(i);
        wake = std::min(wake, t.give_up);
      } else if (t.started && !t.over) {
        wake = std::min(wake, t.retry_at);
      } else if (!t.started) {
        wake = std::min(wake, far_at);
      }
    }
    auto left = std::chrono::duration_cast<ms>(wake - now).count();
    int n = ::poll(pf.data(), pf.size(), static_cast<int>(std::max<long long>(0, left)) + 1);
    if (n < 0 && errno == EINTR) continue;
    now = Clock::now();
    for (std::size_t j = 0; n > 0 && j < pf.size() && winner < 0; ++j) {
      if (!pf[j].revents) continue;
      Try& t = tries[idx[j]];
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(t.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err == 0) winner = static_cast<int>(idx[j]);
      else failed(t, err, now);
    }
  }
  int fd = -1;
  std::string why;
  for (std::size_t i = 0; i < tries.size(); ++i) {
    Try& t = tries[i];
    if (report) report->attempts.push_back(t.attempts);
    if (static_cast<int>(i) == winner) {
      fd = t.fd;
      continue;
    }
    if (t.fd >= 0) {
      ::close(t.fd);
      if (t.error.empty()) t.error = gone ? "not waited for (refused at another address)" : "no answer";
    }
    if (t.error.empty()) t.error = t.started ? "no answer" : "not tried";
    why += (why.empty() ? "" : ", ") + t.addr + ": " + t.error;
    if (t.attempts > 1) why += " (" + std::to_string(t.attempts) + " attempts)";
  }
  if (fd < 0)
    return Status(Errc::other, "cannot reach port " + std::to_string(port) + " within " +
                                   std::to_string(limit.count()) + " ms (" + why + ")");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace ftmpi::mpiexec
