// The transport between processes of different job parts (dynamic processes, MPI-3.1 chapter 10: a spawned
// part, or two groups joined by MPI_Comm_accept/connect). Peers are named by process id (dpm/universe.h),
// never by WORLD rank.
//
// Model: every process that takes part in a dynamic-process operation opens one listening TCP socket and
// publishes its card ("ip:port,...") to the launcher. A connection is dialed lazily, the first time a frame
// goes to a peer: the card is asked of the launcher (`Resolver`, which blocks until the peer published it
// or the launcher knows it is gone), the hello (tcp_wire.h, with the universe's secret and our process id)
// is written, and frames follow at once (no answer is awaited). An accepted connection is believed only after
// its hello checks (a stranger is closed).
//
// FIFO per pair: a process sends to a peer only over the first connection it has with that peer (dialed
// or accepted, whichever came first here); it receives on every connection. Both directions are then each
// carried by one TCP stream. A lost connection (EOF without goodbye, reset, bad frame), or a peer that
// cannot be dialed, is reported once through FrameSink::on_peer_lost; frames to it are then dropped (the FT
// layer takes it from there, as for the TCP transport). Destruction says goodbye on every connection.
//
// Cost: nothing for a job that never uses dynamic processes (the transport does not exist). Dialing blocks
// the caller for at most the connect timeout per address.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "transport/transport.h"
#include "util/status.h"

namespace ftmpi::dpm {

class DpmTransport : public transport::Transport {
 public:
  // The card of process `gid`, or an error when it is gone / unknown (Errc::unsupported: it left normally,
  // which is no failure). May block.
  using Resolver = std::function<Result<std::string>(int gid)>;
  static Result<std::unique_ptr<DpmTransport>> open(int my_gid, std::string secret, Resolver resolve);
  // "ip:port,ip:port,...": where the others reach this process.
  virtual const std::string& card() const = 0;
  // Open the connection to `peer` now if there is none (may block like a first send). A process of
  // another job is watched only through this connection (its end is its failure): dpm.cpp dials every
  // member of another job at once when an intercommunicator joins them. Application thread.
  virtual void connect_now(int peer) = 0;
};

}  // namespace ftmpi::dpm
