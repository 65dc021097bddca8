// Small socket helpers for the TCP transport: addresses as "host:port" strings, a non-blocking listener,
// a non-blocking connect, and the options every data socket gets (TCP_NODELAY, large buffers).
// Every descriptor returned here is non-blocking and close-on-exec; the caller owns it.
#pragma once
#include <sys/socket.h>

#include <string>
#include <string_view>

#include "util/status.h"

namespace ftmpi::transport::tcp {

struct Endpoint {
  sockaddr_storage addr{};
  socklen_t len = 0;
};

// "1.2.3.4:567" or "[::1]:567" → Endpoint. Errc::arg if it is not a numeric address with a port.
Result<Endpoint> parse_endpoint(std::string_view text);
// The inverse of parse_endpoint.
std::string format_endpoint(const Endpoint& ep);

// A listening socket bound to `ip` (numeric IPv4 or IPv6) on a port chosen by the kernel; returns the fd
// and, in `bound`, the address to publish. The listener is tuned with `buffer_bytes`, which the sockets
// accepted from it inherit.
Result<int> open_listener(std::string_view ip, int buffer_bytes, Endpoint& bound);

// Starts a non-blocking connect to `ep` (after tune_socket(fd, buffer_bytes)). The fd is returned with the
// connection in progress (or already established): wait for POLLOUT, then read the outcome with
// connect_result().
Result<int> start_connect(const Endpoint& ep, int buffer_bytes);
// 0 when the connect started by start_connect() succeeded, else the errno value (SO_ERROR).
int connect_result(int fd);

// TCP_NODELAY, and SO_SNDBUF/SO_RCVBUF of `buffer_bytes` when the system allows that much (otherwise the
// kernel's auto-tuning is left alone, since a clamped fixed size would be worse).
void tune_socket(int fd, int buffer_bytes);

// A numeric address as is; otherwise the name of a network interface ("eth0"), resolved to its first IPv4
// address (or IPv6 when it has none). Errc::arg if there is no such interface or it has no address.
Result<std::string> resolve_interface_address(std::string_view name_or_ip);

// Integer from the environment, or `fallback` when unset or not a number.
long env_long(const char* name, long fallback);

}  // namespace ftmpi::transport::tcp
