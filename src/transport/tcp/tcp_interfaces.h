// Which local addresses a rank listens on and publishes, and which of a peer's published addresses to try
// first. Open MPI's btl_tcp_if_include, as ftmpi's `--tcp-if` / FTMPI_TCP_IF.
//
// Selection (select_addresses):
//   ""             every interface that is up and not loopback, IPv4 only (the usual cluster case); when
//                  there is none (a machine with loopback only), 127.0.0.1.
//   "a,b,..."      each item is an interface name ("eth0"), a CIDR ("198.18.0.0/15", "fd00::/8") or one
//                  address ("10.1.2.3"); the union of the local addresses they match, loopback included if
//                  named. An item that matches nothing is an error naming the addresses this host has.
// Dialing order (order_for_peer) for a peer on another host: addresses in a subnet of one of our selected
// interfaces first, then the others, then an address this host also has (a docker0 172.17.0.1 on every
// node most likely reaches ourselves), loopback last. A wrong process answering is caught by the hello.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "transport/tcp/tcp_socket.h"
#include "util/status.h"

namespace ftmpi::transport::tcp {

struct LocalAddress {
  std::string ifname;
  std::string ip;       // numeric
  Endpoint ep;          // the address (port 0)
  int prefix_len = 0;   // netmask length
  bool loopback = false;
};

// Every address of every interface that is up.
Result<std::vector<LocalAddress>> local_addresses();
// The addresses chosen by `include` (see above) among `have`.
Result<std::vector<LocalAddress>> select_addresses(std::string_view include, const std::vector<LocalAddress>& have);

// True when `a` and `b` are the same family and agree on the first `prefix_len` bits.
bool same_subnet(const Endpoint& a, const Endpoint& b, int prefix_len);
bool is_loopback(const Endpoint& ep);
bool same_address(const Endpoint& a, const Endpoint& b);  // ports ignored

// A business card: "ip:port,ip:port,...". parse_card: Errc::arg on a malformed or empty card.
std::string format_card(const std::vector<Endpoint>& eps);
Result<std::vector<Endpoint>> parse_card(std::string_view card);

// The peer's endpoints in the order to try them (see above). `same_host`: the launcher says the peer runs on
// this host (then every address works, in the order published).
std::vector<Endpoint> order_for_peer(const std::vector<Endpoint>& card, bool same_host,
                                     const std::vector<LocalAddress>& mine_selected,
                                     const std::vector<LocalAddress>& mine_all);

}  // namespace ftmpi::transport::tcp
