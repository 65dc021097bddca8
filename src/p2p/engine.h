// The point-to-point engine: envelopes, matching (posted / unexpected queues per context, wildcards,
// non-overtaking per sender and context), eager and rendezvous protocols.
//
// Contracts:
//  * Single-threaded: every call comes from the application thread holding the runtime lock (if any).
//  * Non-blocking calls never report peer failures at initiation; errors appear at completion.
//  * All buffers follow MPI rules: a send buffer must not change until the request completes.
//  * Ranks in the arguments are communicator ranks; the engine translates to world ranks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "comm/communicator.h"
#include "datatype/datatype.h"
#include "p2p/request.h"
#include "transport/transport.h"
#include "util/status.h"

namespace ftmpi::transport {
class Router;
}
namespace ftmpi::ft {
class FailureState;
}

namespace ftmpi::p2p {

struct SendArgs {
  const void* buf;
  std::size_t count;
  const ftmpi_datatype_s* type;
  int dest;                      // communicator rank or MPI_PROC_NULL
  int tag;
  ftmpi_comm_s* comm;
  SendMode mode = SendMode::standard;
  bool coll = false;             // true: use the communicator's collective context
  bool precise = false;          // coll: a Schedule step (failure rule: see "Collective failures" below)
  bool peer_rules = false;       // coll, not precise: point-to-point failure rules (only the peer's failure
                                 // fails it): partitioned communication's traffic (p2p/partitioned.h)
};

struct RecvArgs {
  void* buf;
  std::size_t count;
  const ftmpi_datatype_s* type;
  int source;                    // communicator rank, MPI_ANY_SOURCE or MPI_PROC_NULL
  int tag;                       // or MPI_ANY_TAG
  ftmpi_comm_s* comm;
  bool coll = false;
  bool precise = false;          // as SendArgs::precise
  bool peer_rules = false;       // as SendArgs::peer_rules
};

struct Unexpected;
// A message removed from the unexpected queue by Mprobe/Improbe, waiting for Mrecv/Imrecv.
struct Message {
  Unexpected* msg = nullptr;
  ftmpi_comm_s* comm = nullptr;
};

// FT frame sub-kind of give_up_coll (the FtHandler hands it back through on_coll_given_up); 1 and 2 are
// the FtHandler's own (revoke, agreement, ft/ft_manager.h).
inline constexpr int kFtFrameCollGiveUp = 3;

// The fault-tolerance layer's hooks into the engine (implemented by ft::FtManager).
class FtHandler {
 public:
  virtual ~FtHandler() = default;
  // A protocol frame (revoke, agreement) for communicator context `context`. `kind` is the frame's
  // sub-kind (Envelope::tag). Called from the progress loop.
  virtual void on_ft_frame(int src_world, std::uint32_t context, int kind, std::span<const std::byte> payload) = 0;
  // A protocol frame on the slot of a communicator retired here, from a member that has not retired it yet
  // (p2p/stale_filter.h): it belongs to the retired communicator, never to a new one on the slot.
  virtual void on_stale_ft_frame(int src_world, std::uint32_t context, int kind, std::span<const std::byte> payload) = 0;
  // The failure epoch moved; the engine has already failed the p2p requests it affects.
  virtual void on_failures() = 0;
  // True when `comm` has a member known to have failed (collectives on it fail).
  virtual bool comm_has_failure(const ftmpi_comm_s* comm) = 0;
  // A transport lost its connection to `world` (TCP EOF/reset): a suspicion to report to the launcher.
  virtual void on_peer_lost(int world) = 0;
  // `world`'s retire notice for the communicator on `context` here now, or for the next one on its slot
  // (p2p/stale_filter.h): that member sends nothing more on it (the revoke broadcast routes around it).
  virtual void on_retire_notice(int world, std::uint32_t context) {}
};

class Engine final : public transport::FrameSink {
 public:
  Engine(transport::Router& router, int my_world_rank, int world_size);
  ~Engine() override;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  // Reinit: the job epoch this engine belongs to (0 without Reinit). Stamped on every frame it sends;
  // frames of any other epoch are dropped on receipt. Set before the first frame.
  void set_job_epoch(std::uint32_t epoch);
  // Whether the split rendezvous (p2p/rndv_split.h) may be used: its safety needs failure notices that
  // follow the reaping of the process, which only ftmpi's launcher gives (default: allowed).
  void set_split_allowed(bool allowed);

  // Start a send / receive. On success *out is a pending (or already complete) request owned by the
  // engine; the caller completes it with test()/the progress loop and then release()s it.
  // Argument errors (Errc::rank, tag, count, type) are returned immediately with *out untouched.
  Status isend(const SendArgs& a, Request** out);
  Status irecv(const RecvArgs& a, Request** out);
  // A blocking standard/ready send's fast path, with no request: true when the message went out at once
  // (eager, contiguous, nothing known failed or revoked, no backlog, the transport took the frame), which
  // completes the send. False: nothing was sent (this is no error: take isend, which reports errors).
  bool send_now(const SendArgs& a);
  // MPI_Isend / MPI_Irecv's common case in one step, with no Status: a standard/ready eager send the
  // transport took at once (the request returned is complete), or a receive posted ahead of its message
  // (nothing unexpected queued, nothing known failed). nullptr: nothing happened (this is no error: take
  // isend / irecv, which do the general work and report errors).
  Request* isend_now(const SendArgs& a);
  Request* irecv_now(const RecvArgs& a);

  // Persistent requests: build an inactive request; start() activates it (again).
  Status send_init(const SendArgs& a, Request** out);
  Status recv_init(const RecvArgs& a, Request** out);
  Status start(Request* r);

  // Probe without receiving. *flag true when a matching message is queued (status filled).
  Status iprobe(int source, int tag, ftmpi_comm_s* comm, bool coll, bool* flag, MsgStatus* st);
  // Matched probe: removes the message from matching; *msg is nullptr when none matched.
  Status improbe(int source, int tag, ftmpi_comm_s* comm, bool* flag, Message** msg, MsgStatus* st);
  // Receive a message obtained by improbe (msg is consumed).
  Status imrecv(void* buf, std::size_t count, const ftmpi_datatype_s* type, Message* msg, Request** out);

  // A request for a GenericOp (takes ownership of op).
  Request* start_generic(std::unique_ptr<GenericOp> op);
  // A persistent request for a restartable GenericOp (takes ownership): inactive until start(), which
  // calls op->restart() and then progresses it like start_generic's; reusable until release().
  Request* generic_init(std::unique_ptr<GenericOp> op);

  // Cancel: an unmatched receive is removed and completes as cancelled; anything else is left to complete
  // normally (MPI allows a cancel to fail).
  Status cancel(Request* r);

  // Reinit rollback (models/reinit): every request of this engine becomes invalid; the engine is not used
  // again.
  void invalidate_all_requests();
  // Return a completed request to the pool (or mark it to be released at completion if still pending).
  void release(Request* r);

  // One pass of progress: poll every transport, deliver frames, retry queued frames, advance generic ops.
  // Returns the amount of work done (0 = nothing happened).
  int progress();

  // True while frames wait in the engine's send backlog (the progress loop must not sleep long then).
  bool has_backlog() const;
  // True while something waits for progress: a posted receive, a send or receive in flight, an active
  // GenericOp (schedule, window service), or backlog (the asynchronous progress thread parks otherwise).
  bool has_pending() const;

  // Tool figures (MPI_T performance and control variables, api/mpit_vars.cpp): the matching queues' lengths
  // now, and the eager limit in effect before a transport caps it. Under the caller's API lock.
  std::size_t unexpected_count() const;
  std::size_t posted_count() const;
  std::size_t eager_limit() const;

  // Buffered-send buffers (MPI-4.1 §3.6). `owner` is nullptr for the process's buffer (MPI_Buffer_attach),
  // else the communicator or session (ftmpi_comm_s::session) it is attached to. A buffered send uses its
  // communicator's buffer, else its session's, else the process's; one that does not fit (its packed size
  // + MPI_BSEND_OVERHEAD beyond what is free) fails with Errc::buffer. `automatic` (MPI_BUFFER_AUTOMATIC):
  // no size limit. The data is always staged in the engine's own copy, so the buffer's memory is not used.
  Status buffer_attach(const void* owner, void* buf, std::size_t size, bool automatic);  // Errc::buffer: taken
  // Errc::buffer when `owner` has no buffer. Call once bsend_pending(owner) is false (detach waits for that).
  Status buffer_detach(const void* owner, void** buf, std::size_t* size, bool* automatic);
  // The owner is gone (communicator freed, session finalized): drop its buffer; messages in flight go on.
  void buffer_forget(const void* owner);
  bool bsend_pending(const void* owner) const;  // buffered sends of that buffer not yet completed
  bool bsend_pending() const;                   // of any buffer

  // A request that is already complete (MPI_Ibsend's user-visible request, MPI_PROC_NULL cases).
  Request* completed_request();

  // Fault tolerance. `failures` outlives the engine; `ft` may be null (then FT frames are dropped).
  void set_ft(FtHandler* ft, const ft::FailureState* failures);
  // Send a protocol frame that bypasses matching (copied: the caller's buffer is free at return). Frames
  // to a failed peer are dropped.
  void send_ft_frame(int peer_world, std::uint32_t context, int kind, std::span<const std::byte> payload);
  // Revoke support: complete every pending operation on the two contexts with `why` and drop their
  // unexpected messages.
  void purge_contexts(std::uint32_t ctx_a, std::uint32_t ctx_b, const Status& why);
  // Communicator retirement (context-id recycling, p2p/stale_filter.h). `hook` is called with a communicator
  // freed by the user once its last request is released, at a point where no engine loop runs (the end of
  // progress(), or release() called from outside progress); it retires the communicator (comm::retire).
  void set_idle_comm_hook(std::function<void(ftmpi_comm_s*)> hook);
  // This process will send nothing more on the context pair (ctx, ctx+1) of a communicator whose other
  // members are `peers` (world ranks): tell them (retire frames, behind everything sent before), start
  // dropping their stale frames on that slot, and drop the unexpected messages left on both contexts.
  void retire_context(std::uint32_t ctx, std::span<const int> peers);
  // True for a receive still waiting in the posted queue (not matched yet).
  bool is_unmatched_recv(const Request* r) const;
  // Remove a posted receive that a failure interrupted (blocking ANY_SOURCE receive): it completes with
  // `why`. No effect if it was matched meanwhile.
  void abandon_recv(Request* r, const Status& why);
  // Fail a receive in any state with `why` (unmatched, or matched with rendezvous data still coming: later
  // data frames for it are dropped), so that nothing writes into its buffer any more. No effect on a
  // completed request. For owners that give the buffer back (a failed collective's scratch).
  void abort_recv(Request* r, const Status& why);

  // Collective failures (issue 12 item 2; seed 000 §1.2: an error where a failure *prevents* completion).
  // A collective started while this process knows that a member of its communicator failed fails at once
  // (coll::Schedule asks comm_known_failed() before its first step; it then gives up, see below). Once
  // started, a collective's steps (`precise` args, posted by coll::Schedule) fail only where data from a dead
  // process is still missing: a receive from a dead member fails unless its message fully arrived, a send
  // to a dead member completes successfully (nobody will use the data), and the other steps go on. A
  // process whose collective failed tells every peer it still owed a message to, or still expected one
  // from, that it gave up (give_up_coll, an FT frame behind its earlier data on the same link): there a
  // receive of that collective from it fails unless the message had been sent before, and a send of that
  // collective to it completes. So a collective fails exactly at the processes whose result depends on data
  // that no longer comes, and never hangs. Other collective-context traffic (the leaders' exchange of
  // intercommunicator construction) keeps the blanket rule: it fails once the communicator has a failed
  // member. Only on the failure path: nothing is checked while no failure is known.
  // `from_here_on`: the collective failed at its start because a member is known to have failed, so every
  // later collective on `comm` will too: one frame per (communicator, peer) covers all of them (tags from
  // `tag` on), so a program looping on failing collectives sends nothing more.
  void give_up_coll(ftmpi_comm_s* comm, int peer, int tag, bool from_here_on);
  // True when a member of `comm` is known to have failed (fault-free cost: one relaxed load).
  bool comm_known_failed(const ftmpi_comm_s* comm) const;
  // A peer's give_up_coll frame arrived (called by the FtHandler).
  void on_coll_given_up(int src_world, std::uint32_t ctx_coll, int tag, bool from_here_on);
  // The communicator of `ctx_coll` is freed: forget what its peers gave up (its id may be reused).
  // ... and drops the collective messages still unexpected on it: after failures, a collective that failed
  // at some members leaves messages nobody will receive, which a later communicator with the same context
  // id (and a tag sequence restarting at 0) would otherwise match.
  void forget_given_up(std::uint32_t ctx_coll);

  // FrameSink
  void on_frame(int src, std::span<const std::byte> hdr, std::span<const std::byte> payload) override;
  // True (once) after a frame matched the last posted receive: nobody waits for more frames now, so the
  // transport keeps the rest queued (FrameSink::pause_requested).
  bool pause_requested() override;
  void on_peer_lost(int peer) override;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ftmpi::p2p
