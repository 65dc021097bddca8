// Requests: one object per pending operation, owned by the p2p engine's pool. MPI_Request handles point
// at these. Completion is observed by the owner thread only (the service thread never touches requests).
#pragma once
#include <cstddef>
#include <cstdint>

#include "comm/communicator.h"
#include "datatype/datatype.h"
#include "util/magic.h"
#include "util/status.h"

namespace ftmpi::p2p {
enum class SendMode : std::uint8_t { standard, sync, ready, buffered };
enum class ReqKind : std::uint8_t { send, recv, generic };

// What a completed receive (or probe) reports: MPI_Status minus the error.
struct MsgStatus {
  int source = -1;   // communicator rank of the sender (MPI_ANY_SOURCE=-1 never appears once matched)
  int tag = -1;
  std::size_t bytes = 0;  // bytes received (after truncation)
  bool cancelled = false;
};

// A non-blocking operation that is not a plain send/receive (collectives in issue 4, agreement in
// issue 3) implements this; the engine calls progress() from the progress loop until it returns true.
class GenericOp {
 public:
  virtual ~GenericOp() = default;
  // Advance; return true when finished (then `result` holds the outcome).
  virtual bool progress() = 0;
  // Persistent generic operations (persistent collectives, Engine::generic_init): prepare a fresh run of
  // the operation; Engine::start() calls it, then progress() as for a started one. An error leaves the
  // request inactive and is what MPI_Start reports. The default refuses (one-shot operations).
  virtual Status restart() { return Status(Errc::request, "this operation cannot be restarted"); }
  Status result;
  MsgStatus status;  // copied to the request at completion (MPI_Isendrecv reports its receive's status)
};
struct BsendPool;  // engine_impl.h
}  // namespace ftmpi::p2p

struct ftmpi_request_s {
  std::uint32_t magic = ftmpi::kMagicRequest;
  ftmpi::p2p::ReqKind kind = ftmpi::p2p::ReqKind::send;
  ftmpi::p2p::SendMode mode = ftmpi::p2p::SendMode::standard;
  bool complete = false;
  bool persistent = false;     // created by *_init; survives completion until Request_free
  bool active = false;         // persistent: started and not yet completed by Wait/Test
  bool user_freed = false;     // MPI_Request_free called while pending: release on completion
  bool is_coll_ctx = false;    // uses the communicator's collective context
  bool holds_comm = false;     // set_comm() took a hold on `comm` (released with the request)
  bool coll_precise = false;   // a Schedule's step: fails only where a dead process's data is missing (engine.h)
  bool peer_rules = false;     // collective context, point-to-point failure rules (SendArgs::peer_rules)

  // Arguments.
  const void* sbuf = nullptr;
  void* rbuf = nullptr;
  std::size_t count = 0;
  const ftmpi_datatype_s* type = nullptr;
  ftmpi_comm_s* comm = nullptr;
  int peer = -1;               // communicator rank, MPI_ANY_SOURCE (-1) or MPI_PROC_NULL (-2)
  int tag = 0;

  // Outcome.
  ftmpi::Status error;
  ftmpi::p2p::MsgStatus status;

  // Protocol state (owned by p2p/engine.cpp).
  std::uint32_t ctx = 0;
  int peer_world = -1;
  std::size_t bytes_total = 0;   // message length (send) / receive capacity (recv)
  std::size_t bytes_done = 0;
  std::uint64_t remote_id = 0;   // peer's request id in rendezvous
  std::byte* staging = nullptr;  // packed copy for non-contiguous types / buffered sends
  bool staging_owned = false;
  bool cancel_asked = false;     // send: MPI_Cancel sent the receiver a cancel frame (Engine::cancel, envelope.h)
  std::uint8_t proto_state = 0;
  std::uint16_t incarnation = 0; // bumped by every (re)start: part of the request id in frames (request_pool.h)
  std::uint16_t split = 0;       // kRecvSplit: p2p/rndv_split.h's bits
  std::uint32_t split_gate = 0;  // kRecvSplit: its gate token (p2p/rndv_gate.h), 0 once given back
  ftmpi::p2p::GenericOp* generic = nullptr;  // ReqKind::generic
  ftmpi::p2p::BsendPool* bsend_pool = nullptr;  // buffered send: the buffer its bytes are accounted to

  // Intrusive links for the engine's queues.
  ftmpi_request_s* next = nullptr;
  ftmpi_request_s* prev = nullptr;
};

namespace ftmpi::p2p {
using Request = ftmpi_request_s;

// Point `r` (fresh from the pool, comm null) at `c`: the request holds the communicator until the engine
// releases it, so a communicator freed with operations pending keeps its context ids, group and error
// handler for them (MPI-3.1 §6.4.3: pending operations complete normally).
// (Code that assigns `comm` directly takes no hold and the release gives none back.)
inline void set_comm(Request* r, ftmpi_comm_s* c) {
  r->comm = c;
  r->holds_comm = true;
  comm::comm_hold(c);
}
}
