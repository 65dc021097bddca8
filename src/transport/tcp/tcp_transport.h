// TCP transport (non-blocking sockets, busy-polled). Every connection starts with a hello that carries the
// job's secret and the sender's rank; a connection without the right secret, or a malformed header, is
// dropped and logged, never believed.
//
// Set-up phases (see router.cpp):
//   listen()   — before fence 1: bind a listening socket, publish "host:port" in the KVS.
//   connect()  — after fence 1: connect to / accept from every peer in `peers` (all-to-all, lower rank
//                accepts from higher), handshake with `secret`; returns when all are up or on timeout.
#pragma once
#include <memory>
#include <span>
#include <string>

#include "boot/bootstrap.h"
#include "transport/transport.h"

namespace ftmpi::transport {

class TcpTransport : public Transport {
 public:
  static Result<std::unique_ptr<TcpTransport>> listen(boot::Bootstrap& boot);
  virtual Status connect(std::span<const int> peers, const std::string& secret) = 0;
};

}  // namespace ftmpi::transport
