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
  };
  auto final_refusal = [&](const Try& t) { return refusal_is_final && t.refused && t.addr.rfind("127.", 0) != 0; };
  std::vector<Try> tries;
  for (const std::string& a : addrs) {
    Try t;
    t.addr = a;
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, a.c_str(), &sa.sin_addr) != 1) {
      t.error = "bad address";
    } else {
      t.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (t.fd >= 0 && ::connect(t.fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 && errno != EINPROGRESS) {
        t.refused = errno == ECONNREFUSED;
        t.error = strerror(errno);
        ::close(t.fd);
        t.fd = -1;
      }
    }
    tries.push_back(std::move(t));
  }
  auto deadline = std::chrono::steady_clock::now() + limit;
  int winner = -1;
  bool gone = std::any_of(tries.begin(), tries.end(), final_refusal);
  while (!gone) {
    std::vector<pollfd> pf;
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < tries.size(); ++i)
      if (tries[i].fd >= 0) {
        pf.push_back({tries[i].fd, POLLOUT, 0});
        idx.push_back(i);
      }
    if (pf.empty()) break;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      for (std::size_t i : idx) tries[i].error = "no answer";
      break;
    }
    int n = ::poll(pf.data(), pf.size(), static_cast<int>(left.count()) + 1);
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
    if (tries[i].error.empty()) tries[i].error = "not waited for (refused at another address)";
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
