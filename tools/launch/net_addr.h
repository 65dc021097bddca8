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

// Connect to any of `addrs` at `port`, all tried at once, the first to complete wins; fails after
// `limit` ("cannot reach ... within N ms: <each address's error>"). The socket returned is blocking
// off (non-blocking), close-on-exec, TCP_NODELAY.
Result<int> connect_any(const std::vector<std::string>& addrs, int port, std::chrono::milliseconds limit);

}  // namespace ftmpi::mpiexec
