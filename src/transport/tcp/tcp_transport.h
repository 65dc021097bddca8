// TCP transport (non-blocking sockets, busy-polled). Every connection starts with a hello that carries the
// job's secret and the sender's rank; a connection without the right secret, or a malformed header, is
// dropped and logged, never believed.
//
// Set-up phases (see router.cpp):
//   listen()   — before fence 1: bind a listening socket on the addresses other hosts reach (all usable
//                interfaces, or those FTMPI_TCP_IF / --tcp-if selects: tcp_interfaces.h) and publish
//                "tcp.<rank>" = "ip:port,ip:port,..." in the KVS.
//   connect()  — after fence 1: connect to every peer with a lower rank (trying its addresses in the order
//                of tcp_interfaces.h), accept from every peer with a higher rank (all non-blocking in one
//                poll loop, so no ordering deadlock), handshake with `secret`; returns when all are up, or,
//                after connect_timeout_ms (default 5 s: every peer is listening once fence 1 is passed, so
//                a peer not reached by then is unreachable), an error naming both ranks and the address.
//                Never an endless retry. Strangers (wrong secret, unexpected or duplicate rank) are
//                logged and closed while waiting for the real peers. The listening socket is closed once
//                connect() succeeds.
//
// Wire format and frame checks: tcp_wire.h. Per-connection buffering: tcp_connection.h.
// Frames to a peer whose connection is lost are accepted and dropped (try_send returns true): the loss is
// reported once through FrameSink::on_peer_lost at the next poll(), and the FT layer takes it from there.
// EOF, reset, or a malformed frame (bad check word, header > kMaxHeader, payload > max_payload) is a loss.
// Destroying the transport first pushes out queued output (up to 10 s, discarding input meanwhile), then
// sends each peer a goodbye: the EOF that follows a goodbye is a clean departure, not a loss.
// All ranks must use the same max_payload (FTMPI_TCP_MAX_PAYLOAD): a larger frame is malformed input.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "boot/bootstrap.h"
#include "transport/transport.h"

namespace ftmpi::transport {

struct TcpOptions {
  // Interfaces to listen on and publish: "" = every non-loopback IPv4 interface that is up; else names,
  // CIDRs or addresses, comma-separated (env FTMPI_TCP_IF, set by mpiexec --tcp-if / --mca
  // btl_tcp_if_include; the older FTMPI_TCP_IF_ADDR is read too). See tcp_interfaces.h.
  std::string if_include;
  int connect_timeout_ms = 5'000;        // connect() gives up after this (env FTMPI_TCP_CONNECT_TIMEOUT, s)
  size_t max_payload = 512 * 1024;       // largest frame payload (env FTMPI_TCP_MAX_PAYLOAD, bytes)
  size_t queue_limit = 8u << 20;         // try_send() refuses once this much output is queued to a peer
  int socket_buffer = 4 << 20;           // SO_SNDBUF/SO_RCVBUF when the system allows it (FTMPI_TCP_SOCKBUF)
  static TcpOptions from_env();
};

class TcpTransport : public Transport {
 public:
  static Result<std::unique_ptr<TcpTransport>> listen(boot::Bootstrap& boot);
  static Result<std::unique_ptr<TcpTransport>> listen(boot::Bootstrap& boot, const TcpOptions& opts);
  // `peers`: world ranks, never including our own. Call once, after the fence that follows listen(); the
  // Bootstrap given to listen() must still be alive (connect() reads the peers' addresses from it).
  virtual Status connect(std::span<const int> peers, const std::string& secret) = 0;
  // Fault-tolerant start-up (call before connect()): connect() gives up on a missing peer for which
  // `gone` says it failed for good, instead of waiting for it until the timeout; peers_gone() lists them.
  // Peers still missing at the connect timeout are given up too (reported by peers_gone(), the reason
  // logged) instead of failing connect(): fault-tolerant mode treats them as failed.
  virtual void tolerate_gone_peers(std::function<bool(int rank)> gone) = 0;
  // Which peers run on this host (from the launcher's process mapping): they are dialed at any address
  // they published; others first in a shared subnet, never first at loopback. Unset: none.
  virtual void set_same_host(std::function<bool(int rank)> same_host) = 0;
  virtual const std::vector<int>& peers_gone() const = 0;
  // Makes a concurrent or the next wait() return promptly. The only call that may be made from another
  // thread of the process (the ULFM service thread uses it); async-signal-safe.
  virtual void wake_self() = 0;
  // The addresses published for this rank ("ip:port,ip:port,...").
  virtual const std::string& address() const = 0;
};

}  // namespace ftmpi::transport
