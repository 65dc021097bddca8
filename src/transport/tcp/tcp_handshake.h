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
  std::vector<Endpoint> endpoints;  // the peer's addresses in the order to try them (tcp_interfaces.h)
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
  // One connect attempt to one address that has had no answer for this long (a cut link is silence, not a
  // refusal) is abandoned for the peer's next address.
  std::chrono::milliseconds attempt_timeout{1000};
  // For error messages: the address card rank r published ("" if unknown).
  std::function<std::string(int rank)> address_of;
  // Fault-tolerant start-up: asked about peers still missing (every 200 ms of waiting) whether they have
  // failed for good; a failed one is given up (its sockets closed) and appended to *gone_out. Empty: wait
  // for everybody until the deadline.
  std::function<bool(int rank)> gone;
  std::vector<int>* gone_out = nullptr;
  // Fault-tolerant start-up: at the deadline, peers still missing are given up (appended to *gone_out, the
  // reason logged as a warning) instead of failing the whole set-up. Needs gone_out.
  bool give_up_at_deadline = false;
};

// Runs until every peer of the plan is connected and greeted (or given up as gone), or the deadline passes:
// then Errc::other "tcp: timed out after N s: rank A cannot reach rank B at ADDR (last error); ..." naming
// both ranks and the address of each missing peer (every socket opened here is closed), or, with
// give_up_at_deadline, the missing peers are given up. Never blocks past the deadline.
Result<std::vector<PeerSocket>> run_handshake(const HandshakePlan& plan);

}  // namespace ftmpi::transport::tcp
