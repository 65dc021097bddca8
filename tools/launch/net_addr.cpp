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
                        bool refusal_is_final) {
  struct Try {
    std::string addr;
    int fd = -1;
    std::string error;
    bool refused = false;
    bool near = false;     // on a subnet of one of our interfaces: tried first
    bool started = false;
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
    in_addr ia{};
    if (inet_pton(AF_INET, a.c_str(), &ia) == 1)
      for (const auto& [net, mask] : nets) t.near = t.near || (ia.s_addr & mask) == net;
    tries.push_back(std::move(t));
  }
  auto start = [&](Try& t) {
    t.started = true;
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, t.addr.c_str(), &sa.sin_addr) != 1) {
      t.error = "bad address";
      return;
    }
    t.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (t.fd >= 0 && ::connect(t.fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 && errno != EINPROGRESS) {
      t.refused = errno == ECONNREFUSED;
      t.error = strerror(errno);
      ::close(t.fd);
      t.fd = -1;
    }
  };
  // The addresses on our own subnets first; the others (an interface of the peer's machine that may not be
  // reachable from here, or no longer exist) only when those failed or after kFarDelay: a connection made
  // through an address of another network outlives that network's removal badly (no EOF, no heartbeat).
  constexpr auto kFarDelay = std::chrono::milliseconds(300);
  bool any_near = std::any_of(tries.begin(), tries.end(), [](const Try& t) { return t.near; });
  for (Try& t : tries)
    if (t.near || !any_near) start(t);
  auto far_at = std::chrono::steady_clock::now() + kFarDelay;
  auto deadline = std::chrono::steady_clock::now() + limit;
  int winner = -1;
  bool gone = std::any_of(tries.begin(), tries.end(), final_refusal);
  while (!gone) {
    bool unstarted = std::any_of(tries.begin(), tries.end(), [](const Try& t) { return !t.started; });
    bool pending = std::any_of(tries.begin(), tries.end(), [](const Try& t) { return t.fd >= 0; });
    if (unstarted && (!pending || std::chrono::steady_clock::now() >= far_at)) {
      for (Try& t : tries)
        if (!t.started) start(t);
      gone = std::any_of(tries.begin(), tries.end(), final_refusal);
      if (gone) break;
      unstarted = false;
    }
    std::vector<pollfd> pf;
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < tries.size(); ++i)
      if (tries[i].fd >= 0) {
        pf.push_back({tries[i].fd, POLLOUT, 0});
        idx.push_back(i);
      }
    if (pf.empty()) break;
    auto now = std::chrono::steady_clock::now();
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    if (left.count() <= 0) {
      for (std::size_t i : idx) tries[i].error = "no answer";
      break;
    }
    if (unstarted) left = std::min(left, std::chrono::duration_cast<std::chrono::milliseconds>(far_at - now));
    int n = ::poll(pf.data(), pf.size(), static_cast<int>(std::max<long long>(0, left.count())) + 1);
    if (n < 0 && errno == EINTR) continue;
    for (std::size_t j = 0; j < pf.size() && winner < 0; ++j) {
      if (!pf[j].revents) continue;
      Try& t = tries[idx[j]];
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(t.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err == 0) {
        winner = static_cast<int>(idx[j]);
      } else {
        t.refused = err == ECONNREFUSED;
        t.error = strerror(err);
        ::close(t.fd);
        t.fd = -1;
        gone = gone || final_refusal(t);
      }
    }
    if (winner >= 0) break;
  }
  int fd = -1;
  std::string why;
  for (std::size_t i = 0; i < tries.size(); ++i) {
    if (static_cast<int>(i) == winner) {
      fd = tries[i].fd;
      continue;
    }
    if (tries[i].fd >= 0) ::close(tries[i].fd);
    if (tries[i].error.empty()) tries[i].error = tries[i].started ? "not waited for (refused at another address)" : "not tried";
    why += (why.empty() ? "" : ", ") + tries[i].addr + ": " + tries[i].error;
  }
  if (fd < 0)
    return Status(Errc::other, "cannot reach port " + std::to_string(port) + " within " +
                                   std::to_string(limit.count()) + " ms (" + why + ")");
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace ftmpi::mpiexec
