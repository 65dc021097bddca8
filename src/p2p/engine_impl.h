// Engine internals shared by engine*.cpp. Not included outside src/p2p.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <memory>
#include <utility>
#include <vector>

#include "ft/failure_state.h"
#include "p2p/rndv_gate.h"
#include "p2p/rndv_split.h"
#include "p2p/engine.h"
#include "p2p/envelope.h"
#include "p2p/matcher.h"
#include "p2p/request_pool.h"
#include "p2p/rndv_path.h"
#include "p2p/stale_filter.h"
#include "transport/router.h"

namespace ftmpi::p2p {

// A frame the transport did not accept yet. `payload` points into a buffer that stays valid until
// `req` completes (user buffer, staging) or into `owned`.
// One attached buffered-send buffer (see Engine::Impl::bsend_pools).
struct BsendPool {
  void* buf = nullptr;
  std::size_t size = 0;
  bool automatic = false;
  std::size_t used = 0;          // bytes of the messages in flight, with their overhead
  std::vector<Request*> active;  // buffered sends not yet completed
};

struct PendingFrame {
  Envelope env{};
  const std::byte* payload = nullptr;
  std::size_t len = 0;
  Request* complete_on_accept = nullptr;  // completed when this frame is accepted
  std::vector<std::byte> owned;           // payload storage for frames that own their bytes (ft frames)
  // A data frame of a large non-contiguous send (pack_type != nullptr): its payload is the packed bytes
  // [pack_offset, pack_offset + len) of the send's elements at pack_buf, packed into `owned` only when the
  // frame reaches the front of the backlog, so a send never holds more than one packed frame (chunked
  // staging). Like `payload`, pack_buf stays valid until the send completes.
  const void* pack_buf = nullptr;
  const ftmpi_datatype_s* pack_type = nullptr;
  std::size_t pack_offset = 0;
};

// Non-contiguous messages above kStagingLimit bytes (Impl::staging_limit: env FTMPI_STAGING_LIMIT) are
// packed and unpacked in pieces (data frames on the send side, kStagingChunk-byte pieces of a single-copy
// read on the receive side) instead of through one staging copy of the whole message. Smaller ones keep
// the single staging copy (one pack, one transfer).
// What every buffered message takes from its buffer beyond its packed bytes (MPI_BSEND_OVERHEAD, mpi.h).
inline constexpr std::size_t kBsendOverhead = 96;
inline constexpr std::size_t kStagingLimit = std::size_t{8} << 20;
inline constexpr std::size_t kStagingChunk = std::size_t{4} << 20;
// Largest rendezvous the receiver may pipeline through the ring instead of reading it (Impl::rndv_ring_max).
inline constexpr std::size_t kRndvRingMax = std::size_t{4} << 20;
// Smallest rendezvous the split way may take (p2p/rndv_split.h): below it the second system call and frame
// cost more than half a copy saves.
inline constexpr std::size_t kSplitMin = std::size_t{32} << 10;
// ... in the automatic choice, while single copies are read in batches (flush_reads): a batch of 32 KiB
// reads moves 1.2-1.5x what a split moves at that size in slow placement (docs/performance.md, "Streaming
// bandwidth", 2026-11-27 bw13j), the split way wins from 64 KiB. FTMPI_RNDV_SPLIT_MIN overrides.
inline constexpr std::size_t kSplitAutoMin = std::size_t{64} << 10;

// States of ftmpi_request_s::proto_state.
enum ProtoState : std::uint8_t {
  kIdle = 0,
  kSendQueued,     // eager frame waiting in the backlog
  kSendWaitAck,    // sync eager sent, waiting for sync_ack
  kSendWaitRndv,   // rts sent, waiting for cts or fin
  kSendStreaming,  // data chunks queued after cts
  kRecvPosted,     // in the posted queue
  kRecvData,       // cts sent, receiving data chunks
  kRecvSplit,      // split cts sent: reading the head, the sender writes the rest (p2p/rndv_split.h)
};

struct Engine::Impl {
  Impl(transport::Router& r, int me, int n);

  transport::Router& router;
  int me;
  int nworld;
  Matcher matcher;
  RequestPool pool;

  // Per world peer: frames waiting for the transport, in order.
  // Frames waiting for the transport, per peer (process id: WORLD ranks, or ids of other job parts with
  // dynamic processes, so it grows on demand). A deque of deques: growing keeps references to the
  // existing queues valid (a completion callback may send to a new peer while a queue is being walked).
  std::deque<std::deque<PendingFrame>> backlog;
  std::deque<PendingFrame>& queue_of(int peer) {
    const auto i = static_cast<size_t>(peer);
    if (i >= backlog.size()) backlog.resize(i + 1);
    return backlog[i];
  }
  std::vector<int> backlog_peers;   // peers whose backlog is non-empty
  std::size_t eager_limit_default;  // FTMPI_EAGER_LIMIT, else 16 KiB (each transport's max_payload() caps it)
  std::size_t staging_limit = kStagingLimit;  // FTMPI_STAGING_LIMIT (chunked staging above it)
  // Shared-memory rendezvous: single copy or pipelined through the ring, per peer by measurement
  // (p2p/rndv_path.h). FTMPI_RNDV_PATH=auto (default) | cma | ring; messages above FTMPI_RNDV_RING_MAX
  // bytes (default kRndvRingMax) always take the single copy, which needs nothing from the sender.
  // FTMPI_RNDV_PATH=split forces the split way (p2p/rndv_split.h) where the transport can write remotely.
  // The automatic choice may take the split way unless FTMPI_RNDV_SPLIT=0 (RndvPath::record_split times it;
  // kSplitOverRing keeps a winning ring, whose bytes end in the receiver's cache).
  enum class RndvMode : std::uint8_t { automatic, cma, ring, split } rndv_mode = RndvMode::automatic;
  std::size_t rndv_ring_max = kRndvRingMax;
  bool split_allowed = true;      // Engine::set_split_allowed
  // Single-copy reads of consecutive requests-to-send from one sender within one poll of the transports,
  // made in one remote_readv (one process_vm_readv) by flush_reads: the call's fixed cost (~0.9 us of a
  // 32 KiB read's 3.6 us here) is paid once per batch, not per message. Only inside poll_transports
  // (in_poll), which flushes before it returns; Engine::on_frame flushes before any frame that is not a
  // request-to-send. So between a receive's match and its read only other matches happen: no other code
  // sees the receive (it is in no queue, as before, when the read came at once), and a revoke or failure
  // handled after it finds it complete, or tracked when its read failed (the pipelined fallback).
  // FTMPI_RNDV_BATCH=0: one read per message.
  struct PendingRead {
    Request* r;
    Envelope env;     // the request-to-send (fin and the pipelined fallback need it)
    std::byte* dst;
    std::size_t n;
    bool timed;       // a sample for the way chooser (rndv_path.h), as the unbatched read ...
    bool warm;        // ... if the batch's first began behind an earlier single copy (RndvPath::cma_run)
  };
  std::vector<PendingRead> reads, reads_spare;  // reads: of sender reads_src
  int reads_src = -1;
  std::size_t reads_bytes = 0;
  bool read_batch = true;  // FTMPI_RNDV_BATCH
  bool flushing_reads = false;  // inside flush_reads (not re-entered)
  std::size_t split_auto_min = kSplitAutoMin;  // FTMPI_RNDV_SPLIT_MIN (kSplitMin without read_batch)
  static constexpr std::size_t kReadBatchMax = 16;            // reads per batch ...
  static constexpr std::size_t kReadBatchBytes = 512u << 10;  // ... and bytes: the first completes no later
  void flush_reads();
  // The single copy of a matched rendezvous: read, fin, complete. false (nothing sent, r untouched but for
  // its bytes) when the read failed: the caller starts the pipelined transfer instead.
  bool single_copy(Request* r, const Envelope& env, int src_world, std::byte* dst, std::size_t n, RndvPath* path);
  // fin for a single copy read whole, and the receive's completion.
  void single_copy_done(Request* r, const Envelope& env, int src_world, std::size_t n);
  // A control frame of `kind` answering the sender's request `to` (this epoch, its context and sreq; the
  // caller fills in what else the kind carries): cts, fin, sync_ack, cancel_ack.
  Envelope reply_to(const Envelope& to, FrameKind kind) const {
    Envelope e{};
    e.epoch = job_epoch;
    e.kind = kind;
    e.context = to.context;
    e.sreq = to.sreq;
    return e;
  }
  // The pipelined rendezvous (cts, then data frames through the ring).
  void start_pipelined(Request* r, const Envelope& env, int src_world, std::size_t n, RndvPath* path);
  bool split_auto = true;         // FTMPI_RNDV_SPLIT (default 1; 0: the automatic choice never splits)
  std::vector<gate::GateSlots> gate_slots;  // by world rank of the sender: our gate slots (rndv_gate.h)
  std::vector<Request*> split_closing;      // doomed split receives whose sender is writing (poll_split_closing)
  unsigned rndv_split_share = 8;  // FTMPI_RNDV_SPLIT_SHARE: the receiver's part of a split, in 16ths (1..15)
  std::vector<RndvPath> rndv_paths;  // by world rank / process id, grown on demand
  RndvPath& rndv_path_of(int peer) {
    const auto i = static_cast<std::size_t>(peer);
    if (i >= rndv_paths.size()) rndv_paths.resize(i + 1);
    return rndv_paths[i];
  }

  std::vector<Request*> generic_active;

  // Requests waiting on a peer outside the matcher: sends waiting for sync_ack/cts/fin or streaming,
  // receives waiting for rendezvous data. Linked through Request::next/prev (a request is never in the
  // matcher and here at once). The failure sweep walks this list.
  IntrusiveList<Request> inflight;

  // Fault tolerance.
  FtHandler* ft = nullptr;
  const ft::FailureState* failures = nullptr;
  std::uint64_t seen_epoch = 0;
  // The job epoch (Reinit, models/reinit/epoch_change.h): stamped on every frame sent, and a frame of any
  // other epoch is dropped on receipt (a connection kept across a rollback may still carry the old one's).
  std::uint32_t job_epoch = 0;
  bool peer_failed(int world) const;
  // True while no failure and no revoke is known (FT off, or FT on before the first failure): the one
  // relaxed load that the fault-free fast path pays for fault tolerance (failures and revokes both move
  // the epoch).
  bool fault_free() const { return failures == nullptr || failures->epoch() == 0; }
  // Error for starting an operation with world peer `peer_world` (or -1) on r's communicator now:
  // revoked, failed peer, failed member for collective traffic. Ok when it may proceed.
  Status start_check(const Request* r, int peer_world) const {
    if (fault_free()) [[likely]] return Status::Ok();
    return start_check_slow(r, peer_world);
  }
  Status start_check_slow(const Request* r, int peer_world) const;
  void sweep_failures();
  // Collectives given up by peers (Engine::give_up_coll): (collective context, tag, peer world rank).
  struct GivenUp {
    std::uint32_t ctx;
    int tag;
    int src_world;
    bool from_here_on;  // every collective from `tag` on (a communicator's own tags, below 2^29)
  };
  std::vector<GivenUp> given_up;
  bool coll_given_up(std::uint32_t ctx, int tag, int src_world) const;
  // (collective context, peer world rank) pairs this process sent a from_here_on give-up to.
  std::vector<std::pair<std::uint32_t, int>> gave_up_from;
  void fail(Request* r, const Status& why);  // complete with an error, leaving any queue it is in

  // Set when an incoming frame matched the last posted receive (Engine::pause_requested). Never set once
  // a failure is known: from then on every poll drains its rings.
  bool pause = false;
  // The engine as the transports' FrameSink, for drain_all().
  transport::FrameSink* sink = nullptr;
  bool in_poll = false;       // inside a transport's poll(): draining again would re-enter a ring
  bool draining_all = false;  // inside drain_all(): no pausing

  // Poll every transport until nothing more arrives (bounded), with pausing off: frames that already
  // arrived become matchable (unexpected queue or posted receives). Used before anything is failed
  // because a peer died, so that a message that fully arrived before its sender died is still delivered.
  // No effect (returns false) when called from inside a poll.
  bool drain_all();
  // One poll of every transport; returns the frames delivered.
  int poll_transports();

  // Context-id recycling: frames of retired communicators, and communicators freed by the user whose last
  // request was released (retired by `on_idle_comm` outside the engine's loops).
  StaleFilter stale;
  std::vector<ftmpi_comm_s*> idle_comms;
  std::function<void(ftmpi_comm_s*)> on_idle_comm;
  int progress_depth = 0;
  void retire_idle_comms();

  // Buffered sends (MPI-4.1 §3.6): one pool per attached buffer, keyed by its owner (nullptr: the process's
  // MPI_Buffer_attach buffer; else the communicator or session it is attached to). Messages are staged in
  // malloc'd copies; a pool accounts their bytes (+ MPI_BSEND_OVERHEAD each) against the buffer's size, which
  // is MPI's rule for what fits, unless it is automatic (MPI_BUFFER_AUTOMATIC: no limit). A pool whose owner
  // went away with messages in flight is kept in bsend_orphans until they complete.
  std::unordered_map<const void*, std::unique_ptr<BsendPool>> bsend_pools;
  std::vector<std::unique_ptr<BsendPool>> bsend_orphans;
  // The pool a buffered send on `comm` uses: its own, else its session's, else the process's; null if none.
  BsendPool* bsend_pool_for(const ftmpi_comm_s* comm);
  void bsend_done(Request* r);  // a buffered send completed: give its bytes back

  // --- helpers ---
  std::size_t eager_limit(transport::Transport& t) const {
    const std::size_t m = t.max_payload();
    return eager_limit_default < m ? eager_limit_default : m;
  }
  // eager_limit() of the transport last asked, kept (a transport's max_payload() never changes): the fast
  // path pays two loads for it instead of a virtual call.
  transport::Transport* eager_cache_t = nullptr;
  std::size_t eager_cache_limit = 0;
  std::size_t eager_limit_cached(transport::Transport& t) {
    if (&t != eager_cache_t) [[unlikely]] {
      eager_cache_limit = eager_limit(t);
      eager_cache_t = &t;
    }
    return eager_cache_limit;
  }
  // The eager fast path of a send (Engine::isend, Engine::send_now): a standard or ready send of contiguous
  // data within the eager limit, to a rank (not MPI_PROC_NULL), with nothing known failed or revoked, no
  // frame waiting in any backlog, and the transport taking the frame at once. Then the frame is sent
  // (sender request id `sreq`, 0 for a send without a request) and, with a request `r` (fresh from the pool,
  // filled from `a`), r is complete; returns true. Otherwise nothing was sent and r is untouched but for
  // its protocol fields, which start_send sets again: returns false, and start_send decides (backlog,
  // rendezvous, failure, buffered or synchronous mode...). Arguments checked (check_send_args) by the caller.
  [[gnu::always_inline]] bool eager_now(const SendArgs& a, std::uint64_t sreq, Request* r) {
    const std::size_t bytes = a.type->size * a.count;  // dt::packed_size
    if (!((a.mode == SendMode::standard || a.mode == SendMode::ready) && a.type->contiguous && a.dest >= 0 &&
          fault_free() && backlog_peers.empty() && (!a.coll || !a.precise || given_up.empty()))) [[unlikely]]
      return false;
    ftmpi_comm_s* comm = a.comm;
    const int world = comm->peer_world_rank(a.dest);
    transport::Transport& t = router.for_peer(world);
    if (bytes > eager_limit_cached(t)) [[unlikely]]
      return false;
    Envelope env{};
    env.kind = FrameKind::eager;
    env.epoch = job_epoch;  // Reinit: a frame of another epoch is dropped on receipt
    env.context = a.coll ? comm->ctx_coll : comm->ctx_pt2pt;
    env.src = comm->rank;
    env.tag = a.tag;
    env.len = bytes;
    env.sreq = sreq;
    if (!t.try_send(world, as_bytes(env), {static_cast<const std::byte*>(a.buf), bytes})) [[unlikely]]
      return false;
    if (r != nullptr) {  // fresh from the pool: complete() has nothing else to do
      r->ctx = env.context;
      r->peer_world = world;
      r->bytes_total = bytes;
      r->complete = true;
    }
    return true;
  }
  // Send a frame to world rank `peer` behind any backlog; when not accepted now it is queued.
  // Returns true if accepted immediately.
  bool send_frame(int peer, const Envelope& env, const std::byte* payload, std::size_t len,
                  Request* complete_on_accept) {
    return send_frame(router.for_peer(peer), peer, env, payload, len, complete_on_accept);
  }
  // The same with the peer's transport (router.for_peer(peer)) already at hand. Fast path: no backlog
  // anywhere (backlog_peers empty: a non-empty queue always has its peer listed) and the transport takes it.
  bool send_frame(transport::Transport& t, int peer, const Envelope& env, const std::byte* payload,
                  std::size_t len, Request* complete_on_accept) {
    if ((backlog_peers.empty() || queue_of(peer).empty()) && t.try_send(peer, as_bytes(env), {payload, len})) {
      if (complete_on_accept) complete(complete_on_accept);
      return true;
    }
    queue_frame(peer, env, payload, len, complete_on_accept);
    return false;
  }
  // Behind the backlog (send_frame's slow path).
  void queue_frame(int peer, const Envelope& env, const std::byte* payload, std::size_t len,
                   Request* complete_on_accept);
  int flush_backlog();
  // send_frame for a data frame whose payload is packed from a non-contiguous send's user buffer (see
  // PendingFrame::pack_from).
  void send_packed_frame(int peer, const Envelope& env, const Request* from, std::size_t offset, std::size_t len,
                         Request* complete_on_accept);
  std::vector<std::byte> pack_scratch;  // one packed frame (send_packed_frame)
  // Complete `r` (leaving the in-flight list, freeing a send's staging, releasing a request the user freed).
  void complete(Request* r) {
    const std::uint8_t s = r->proto_state;
    const bool tracked =
        s == kSendWaitAck || s == kSendWaitRndv || s == kSendStreaming || s == kRecvData || s == kRecvSplit;
    if (tracked || r->staging_owned || r->user_freed) [[unlikely]] {
      complete_slow(r);
      return;
    }
    r->complete = true;
    r->proto_state = kIdle;
  }
  void complete_slow(Request* r);
  void track(Request* r) { inflight.push_back(r); }
  void untrack(Request* r) { inflight.erase(r); }
  void release(Request* r);

  // A persistent request's (re)start: new incarnation, fresh outcome.
  void rearm(Request* r);
  // send side
  Status start_send(Request* r);
  void on_cts(int src, const Envelope& env);
  void on_sender_done(int src, const Envelope& env);  // fin / sync_ack
  void on_cancel_ack(int src, const Envelope& env);
  // receive side of a cancelled send: drop the unexpected message if still there, answer cancel_ack
  void on_cancel(int src, const Envelope& env);
  // receive side
  Status start_recv(Request* r);
  void deliver(Request* r, Unexpected* u);  // matched: complete eager or start rendezvous
  void deliver_eager(Request* r, const Envelope& env, int src_world, std::span<const std::byte> data);
  void start_rndv_recv(Request* r, const Envelope& env, int src_world);
  void on_data(const Envelope& env, std::span<const std::byte> payload);
  // false: no gate slot free for that sender (nothing was done; take another way).
  bool start_split_recv(Request* r, const Envelope& env, int src_world, std::size_t n, RndvPath& path);
  // fail() of a split receive: close its gate (rndv_gate.h); true when no write can come any more.
  bool close_split_gate(Request* r);
  // Give back the gate slots (of sender `src_world`, words `gates`) whose sender's write has returned.
  void reclaim_split_gates(int src_world, std::uint64_t* gates);
  // The doomed split receives whose sender was writing: complete those whose write has returned.
  void poll_split_closing();

  void on_split_done(int src, const Envelope& env);
  // A split receive whose state allows it (rndv_split.h may_complete): complete it as its outcome says.
  void end_split(Request* r);
  void finish_recv(Request* r);
};

}  // namespace ftmpi::p2p
