// The connect phase of the TCP transport: one poll loop that connects to the lower ranks, accepts the
// higher ranks, and exchanges hellos (tcp_wire.h) with each. Strangers are logged and closed.
#pragma once
#include <chrono>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "transport/tcp/tcp_socket.h"
#include "util/status.h"

namespace ftmpi::transport::tcp {

struct DialTarget {
  int rank;
  Endpoint endpoint;
};

struct PeerSocket {
  int rank;
  int fd;  // non-blocking, TCP_NODELAY, handshake done; owned by the caller
};

struct HandshakePlan {
  int my_rank = -1;
  int listen_fd = -1;                // accepting socket (still owned by the caller)
  std::vector<DialTarget> dial;      // peers with a lower rank: we connect to them
  std::vector<int> accept;           // peers with a higher rank: they connect to us
  std::string secret;                // <= kMaxSecret bytes
  int socket_buffer = 0;             // for tune_socket()
  std::chrono::steady_clock::time_point deadline;
  // Fault-tolerant start-up: asked about peers still missing (every 200 ms of waiting) whether they have
  // failed for good; a failed one is given up (its sockets closed) and appended to *gone_out. Empty: wait
  // for everybody until the deadline.
  std::function<bool(int rank)> gone;
  std::vector<int>* gone_out = nullptr;
};

// Runs until every peer of the plan is connected and greeted (or given up as gone), or the deadline passes (Errc::other naming
// the missing ranks; every socket opened here is closed). Never blocks past the deadline.
Result<std::vector<PeerSocket>> run_handshake(const HandshakePlan& plan);

}  // namespace ftmpi::transport::tcp
