// TCP plumbing of the launcher tree: a listening socket, this host's IPv4 addresses (what a child is told
// to try), and a bounded connect that tries several addresses at once and keeps the first that answers.
#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "util/status.h"

namespace ftmpi::mpiexec {

// Listen on every IPv4 address, an ephemeral port; close-on-exec, non-blocking. Returns the fd, `port` set.
Result<int> listen_any(int& port);

// This host's IPv4 addresses as dotted quads: the up, non-loopback ones first, then 127.0.0.1.
std::vector<std::string> local_addresses();

// "a,b,c:port" <-> addresses + port.
std::string format_endpoint(const std::vector<std::string>& addrs, int port);
bool parse_endpoint(const std::string& text, std::vector<std::string>& addrs, int& port);

// Connect to any of `addrs` at `port`, the first to complete wins: those on a subnet of one of our
// interfaces at once, the others when those failed or 300 ms later (see net_addr.cpp); fails after
// `limit` ("cannot reach port P within N ms (ADDR: <its last error> after K attempts, ...)"). The socket
// returned is non-blocking, close-on-exec, TCP_NODELAY.
//
// Retries: an attempt that hears nothing (a SYN lost: the kernel's own retransmission comes only after
// 1 s, then 3 s) is abandoned after kAttemptWait (200 ms, doubling up to 1.6 s) and the address is tried
// again on a fresh socket; an attempt that fails with a transient error (EHOSTUNREACH/ENETUNREACH: a stale
// or failed ARP entry, a route being set up; ETIMEDOUT, ENOBUFS, ...) is retried after a backoff of 20 ms,
// doubling up to 500 ms. All within `limit`. A refusal (RST: the peer's kernel says nobody listens) and
// an unparsable address are final for that address.
// `refusal_is_final`: a refusal (RST) from a non-loopback address ends the attempt at once. For an endpoint
// listening on every address of one host (listen_any), it says that the process is gone; without it the
// attempt would wait out `limit` on an address that no longer answers at all (an interface since
// removed). Loopback refusals never count (127.0.0.1 seen from another host is that host's own).
struct ConnectReport {
  std::vector<int> attempts;  // by address index: connect attempts made (fresh sockets)
};
Result<int> connect_any(const std::vector<std::string>& addrs, int port, std::chrono::milliseconds limit,
                        bool refusal_is_final = false, ConnectReport* report = nullptr);

}  // namespace ftmpi::mpiexec
