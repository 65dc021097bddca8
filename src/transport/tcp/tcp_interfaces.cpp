#include "transport/tcp/tcp_interfaces.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ftmpi::transport::tcp {
namespace {

// The address bytes of an endpoint (4 or 16), or empty.
std::string_view addr_bytes(const Endpoint& ep) {
  if (ep.addr.ss_family == AF_INET)
    return {reinterpret_cast<const char*>(&reinterpret_cast<const sockaddr_in*>(&ep.addr)->sin_addr), 4};
  if (ep.addr.ss_family == AF_INET6)
    return {reinterpret_cast<const char*>(&reinterpret_cast<const sockaddr_in6*>(&ep.addr)->sin6_addr), 16};
  return {};
}

int mask_len(const sockaddr* mask) {
  if (!mask) return 0;
  std::string_view b;
  if (mask->sa_family == AF_INET)
    b = {reinterpret_cast<const char*>(&reinterpret_cast<const sockaddr_in*>(mask)->sin_addr), 4};
  else if (mask->sa_family == AF_INET6)
    b = {reinterpret_cast<const char*>(&reinterpret_cast<const sockaddr_in6*>(mask)->sin6_addr), 16};
  int n = 0;
  for (char c : b) n += __builtin_popcount(static_cast<unsigned char>(c));
  return n;
}

std::string describe(const std::vector<LocalAddress>& have) {
  std::string s;
  for (const auto& a : have) s += (s.empty() ? "" : ", ") + a.ifname + " " + a.ip;
  return s.empty() ? "none" : s;
}

}  // namespace

bool same_subnet(const Endpoint& a, const Endpoint& b, int prefix_len) {
  std::string_view x = addr_bytes(a), y = addr_bytes(b);
  if (x.empty() || x.size() != y.size() || prefix_len < 0 || static_cast<size_t>(prefix_len) > x.size() * 8) return false;
  int full = prefix_len / 8, rest = prefix_len % 8;
  if (x.substr(0, static_cast<size_t>(full)) != y.substr(0, static_cast<size_t>(full))) return false;
  if (rest == 0) return true;
  auto m = static_cast<unsigned char>(0xff << (8 - rest));
  return (static_cast<unsigned char>(x[static_cast<size_t>(full)]) & m) ==
         (static_cast<unsigned char>(y[static_cast<size_t>(full)]) & m);
}

bool is_loopback(const Endpoint& ep) {
  std::string_view b = addr_bytes(ep);
  if (b.size() == 4) return static_cast<unsigned char>(b[0]) == 127;
  if (b.size() == 16) return IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(&ep.addr)->sin6_addr);
  return false;
}

bool same_address(const Endpoint& a, const Endpoint& b) {
  std::string_view x = addr_bytes(a), y = addr_bytes(b);
  return !x.empty() && x == y;
}

Result<std::vector<LocalAddress>> local_addresses() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return Status(Errc::other, std::string("tcp: getifaddrs: ") + std::strerror(errno));
  std::vector<LocalAddress> out;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || !(i->ifa_flags & IFF_UP)) continue;
    int fam = i->ifa_addr->sa_family;
    if (fam != AF_INET && fam != AF_INET6) continue;
    LocalAddress a;
    a.ifname = i->ifa_name;
    a.ep.len = fam == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    std::memcpy(&a.ep.addr, i->ifa_addr, a.ep.len);
    if (fam == AF_INET6) {
      auto* v6 = reinterpret_cast<sockaddr_in6*>(&a.ep.addr);
      if (IN6_IS_ADDR_LINKLOCAL(&v6->sin6_addr)) continue;  // needs a scope id: not publishable
      v6->sin6_port = 0;
    } else {
      reinterpret_cast<sockaddr_in*>(&a.ep.addr)->sin_port = 0;
    }
    char ip[INET6_ADDRSTRLEN] = {};
    inet_ntop(fam, addr_bytes(a.ep).data(), ip, sizeof ip);
    a.ip = ip;
    a.prefix_len = mask_len(i->ifa_netmask);
    a.loopback = (i->ifa_flags & IFF_LOOPBACK) || is_loopback(a.ep);
    out.push_back(std::move(a));
  }
  ::freeifaddrs(list);
  return out;
}

Result<std::vector<LocalAddress>> select_addresses(std::string_view include, const std::vector<LocalAddress>& have) {
  std::vector<LocalAddress> out;
  auto add = [&](const LocalAddress& a) {
    for (const auto& o : out)
      if (same_address(o.ep, a.ep)) return;
    out.push_back(a);
  };
  if (include.empty()) {
    for (const auto& a : have)
      if (!a.loopback && a.ep.addr.ss_family == AF_INET) add(a);
    if (out.empty())
      for (const auto& a : have)
        if (a.loopback && a.ep.addr.ss_family == AF_INET) add(a);
    if (out.empty()) return Status(Errc::other, "tcp: this host has no IPv4 address to listen on");
    return out;
  }
  size_t pos = 0;
  while (pos <= include.size()) {
    size_t end = include.find(',', pos);
    if (end == std::string_view::npos) end = include.size();
    std::string item(include.substr(pos, end - pos));
    pos = end + 1;
    if (item.empty()) continue;
    size_t slash = item.find('/');
    Endpoint net;
    bool is_addr = false;
    int bits = -1;
    if (auto ep = parse_endpoint((item.find(':') != std::string::npos ? "[" + item.substr(0, slash) + "]"
                                                                       : item.substr(0, slash)) + ":1");
        ep.ok()) {
      net = ep.value();
      is_addr = true;
      int maxbits = net.addr.ss_family == AF_INET ? 32 : 128;
      bits = maxbits;
      if (slash != std::string::npos) {
        std::string b = item.substr(slash + 1);
        char* e = nullptr;
        long v = std::strtol(b.c_str(), &e, 10);
        if (b.empty() || *e || v < 0 || v > maxbits)
          return Status(Errc::arg, "tcp: bad prefix length in '" + item + "' (FTMPI_TCP_IF / --tcp-if)");
        bits = static_cast<int>(v);
      }
    } else if (slash != std::string::npos) {
      return Status(Errc::arg, "tcp: '" + item + "' is not a CIDR like 198.18.0.0/15 (FTMPI_TCP_IF / --tcp-if)");
    }
    size_t matched = 0;
    for (const auto& a : have)
      if (is_addr ? same_subnet(a.ep, net, bits) : a.ifname == item) {
        add(a);
        ++matched;
      }
    if (matched == 0)
      return Status(Errc::arg, "tcp: '" + item + "' (FTMPI_TCP_IF / --tcp-if) matches no address of this host (it has: " +
                                   describe(have) + ")");
  }
  if (out.empty()) return Status(Errc::arg, "tcp: FTMPI_TCP_IF / --tcp-if names no interface");
  return out;
}

std::string format_card(const std::vector<Endpoint>& eps) {
  std::string s;
  for (const auto& e : eps) s += (s.empty() ? "" : ",") + format_endpoint(e);
  return s;
}

Result<std::vector<Endpoint>> parse_card(std::string_view card) {
  std::vector<Endpoint> out;
  size_t pos = 0;
  while (pos <= card.size()) {
    size_t end = card.find(',', pos);
    if (end == std::string_view::npos) end = card.size();
    auto ep = parse_endpoint(card.substr(pos, end - pos));
    if (!ep.ok()) return ep.status();
    out.push_back(ep.value());
    pos = end + 1;
    if (out.size() > 64) return Status(Errc::arg, "tcp: address card with more than 64 addresses");
  }
  return out;
}

std::vector<Endpoint> order_for_peer(const std::vector<Endpoint>& card, bool same_host,
                                     const std::vector<LocalAddress>& mine_selected,
                                     const std::vector<LocalAddress>& mine_all) {
  if (same_host) return card;
  std::vector<std::pair<int, Endpoint>> ranked;  // (preference, endpoint): lower first
  for (const auto& e : card) {
    int pref = 1;
    for (const auto& m : mine_selected)
      if (same_subnet(e, m.ep, m.prefix_len)) pref = 0;
    for (const auto& m : mine_all)
      if (same_address(e, m.ep)) pref = 2;
    // Loopback last: it reaches this host, where the hello check rejects whoever answers (wrong rank).
    if (is_loopback(e)) pref = 3;
    ranked.emplace_back(pref, e);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Endpoint> out;
  for (auto& r : ranked) out.push_back(r.second);
  return out;
}

}  // namespace ftmpi::transport::tcp
