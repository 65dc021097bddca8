#include "transport/tcp/tcp_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ftmpi::transport::tcp {
namespace {

Status errno_status(const char* what) {
  return Status(Errc::other, std::string("tcp: ") + what + ": " + std::strerror(errno));
}

// The largest buffer size an unprivileged process may set, from /proc (0 when unknown).
long proc_limit(const char* path) {
  FILE* f = std::fopen(path, "r");
  if (!f) return 0;
  long v = 0;
  if (std::fscanf(f, "%ld", &v) != 1) v = 0;
  std::fclose(f);
  return v;
}

bool parse_ip(std::string_view ip, Endpoint& ep) {
  std::string s(ip);
  auto* v4 = reinterpret_cast<sockaddr_in*>(&ep.addr);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&ep.addr);
  if (inet_pton(AF_INET, s.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    ep.len = sizeof(sockaddr_in);
    return true;
  }
  if (inet_pton(AF_INET6, s.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    ep.len = sizeof(sockaddr_in6);
    return true;
  }
  return false;
}

void set_port(Endpoint& ep, unsigned port) {
  if (ep.addr.ss_family == AF_INET)
    reinterpret_cast<sockaddr_in*>(&ep.addr)->sin_port = htons(static_cast<uint16_t>(port));
  else
    reinterpret_cast<sockaddr_in6*>(&ep.addr)->sin6_port = htons(static_cast<uint16_t>(port));
}

}  // namespace

Result<Endpoint> parse_endpoint(std::string_view text) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= text.size())
    return Status(Errc::arg, "tcp: bad address '" + std::string(text) + "'");
  std::string_view host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  unsigned port = 0;
  for (char c : text.substr(colon + 1)) {
    if (c < '0' || c > '9' || port > 65535) return Status(Errc::arg, "tcp: bad port in '" + std::string(text) + "'");
    port = port * 10 + static_cast<unsigned>(c - '0');
  }
  Endpoint ep;
  if (port == 0 || port > 65535 || !parse_ip(host, ep))
    return Status(Errc::arg, "tcp: bad address '" + std::string(text) + "'");
  set_port(ep, port);
  return ep;
}

std::string format_endpoint(const Endpoint& ep) {
  char ip[INET6_ADDRSTRLEN] = {};
  if (ep.addr.ss_family == AF_INET) {
    auto* a = reinterpret_cast<const sockaddr_in*>(&ep.addr);
    inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
    return std::string(ip) + ":" + std::to_string(ntohs(a->sin_port));
  }
  auto* a = reinterpret_cast<const sockaddr_in6*>(&ep.addr);
  inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
  return "[" + std::string(ip) + "]:" + std::to_string(ntohs(a->sin6_port));
}

void tune_socket(int fd, int buffer_bytes) {
  int one = 1;
  (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (buffer_bytes <= 0) return;
  if (proc_limit("/proc/sys/net/core/wmem_max") >= buffer_bytes)
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer_bytes, sizeof buffer_bytes);
  if (proc_limit("/proc/sys/net/core/rmem_max") >= buffer_bytes)
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer_bytes, sizeof buffer_bytes);
}

Result<int> open_listener(std::string_view ip, int buffer_bytes, Endpoint& bound) {
  Endpoint ep;
  if (!parse_ip(ip, ep)) return Status(Errc::arg, "tcp: bad interface address '" + std::string(ip) + "'");
  int fd = ::socket(ep.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno_status("socket");
  tune_socket(fd, buffer_bytes);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&ep.addr), ep.len) != 0 || ::listen(fd, SOMAXCONN) != 0) {
    Status st = errno_status("bind/listen");
    ::close(fd);
    return st;
  }
  bound = Endpoint{};
  bound.len = sizeof bound.addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&bound.addr), &bound.len) != 0) {
    Status st = errno_status("getsockname");
    ::close(fd);
    return st;
  }
  return fd;
}

Result<int> start_connect(const Endpoint& ep, int buffer_bytes) {
  int fd = ::socket(ep.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno_status("socket");
  // Buffer sizes must be set before connect() so the window scale is negotiated for them.
  tune_socket(fd, buffer_bytes);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&ep.addr), ep.len) != 0 && errno != EINPROGRESS) {
    Status st = errno_status("connect");
    ::close(fd);
    return st;
  }
  return fd;
}

int connect_result(int fd) {
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
  return err;
}

Result<std::string> resolve_interface_address(std::string_view name_or_ip) {
  Endpoint probe;
  if (parse_ip(name_or_ip, probe)) return std::string(name_or_ip);
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return errno_status("getifaddrs");
  std::string v4, v6;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || name_or_ip != i->ifa_name) continue;
    char ip[INET6_ADDRSTRLEN] = {};
    if (i->ifa_addr->sa_family == AF_INET && v4.empty()) {
      inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, ip, sizeof ip);
      v4 = ip;
    } else if (i->ifa_addr->sa_family == AF_INET6 && v6.empty()) {
      inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr, ip, sizeof ip);
      v6 = ip;
    }
  }
  ::freeifaddrs(list);
  if (!v4.empty()) return v4;
  if (!v6.empty()) return v6;
  return Status(Errc::arg, "tcp: '" + std::string(name_or_ip) + "' is neither an address nor an interface with one");
}

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  return (end && *end == '\0') ? x : fallback;
}

}  // namespace ftmpi::transport::tcp
