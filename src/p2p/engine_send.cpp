// Send side of the p2p protocols.
//   eager:      len <= eager limit → one frame; complete when the transport takes it (sync mode: when
//               the receiver's sync_ack arrives).
//   rendezvous: rts {len, sreq, addr}; the receiver either reads the data itself (single copy) and answers
//               fin, or answers cts {rreq, wanted} and we stream data frames; complete after the last one.
#include <cstdlib>
#include <cstring>

#include "p2p/engine_impl.h"
#include "util/log.h"

namespace ftmpi::p2p {

namespace {
[[gnu::cold, gnu::noinline]] Status bad_send_args(const SendArgs& a) {
  if (a.dest != -2 /*PROC_NULL*/ && (a.dest < 0 || a.dest >= a.comm->peer_size()))
    return Status(Errc::rank, "invalid destination rank");
  return Status(Errc::tag, "invalid tag (must be >= 0)");
}

[[gnu::always_inline]] inline Status check_send_args(const SendArgs& a) {
  if ((a.dest != -2 /*PROC_NULL*/ && (a.dest < 0 || a.dest >= a.comm->peer_size())) || a.tag < 0) [[unlikely]]
    return bad_send_args(a);
  return Status::Ok();
}

// On a request fresh from the pool (RequestPool::get: everything else at its default).
[[gnu::always_inline]] inline void fill_send(Request* r, const SendArgs& a) {
  r->kind = ReqKind::send;
  r->mode = a.mode;
  r->sbuf = a.buf;
  r->count = a.count;
  r->type = a.type;
  set_comm(r, a.comm);
  r->peer = a.dest;
  r->tag = a.tag;
  r->is_coll_ctx = a.coll;
  r->coll_precise = a.coll && a.precise;
  r->peer_rules = a.coll && a.peer_rules;
}
}  // namespace

// A persistent request's (re)start: a new incarnation and a fresh outcome (a request from the pool has them).
void Engine::Impl::rearm(Request* r) {
  RequestPool::new_incarnation(r);
  r->complete = false;
  r->error = Status::Ok();
  r->status = MsgStatus{};
  r->bytes_done = 0;
  r->cancel_asked = false;
}

// Expects r fresh from the pool or rearm()ed.
Status Engine::Impl::start_send(Request* r) {
  ftmpi_comm_s* comm = r->comm;
  if (r->peer == -2) [[unlikely]] {  // MPI_PROC_NULL
    r->status.source = -2;
    r->status.tag = -1;
    complete(r);
    return Status::Ok();
  }
  r->ctx = r->is_coll_ctx ? comm->ctx_coll : comm->ctx_pt2pt;
  r->peer_world = comm->peer_world_rank(r->peer);
  const std::size_t bytes = dt::packed_size(r->type, r->count);
  r->bytes_total = bytes;
  transport::Transport& t = router.for_peer(r->peer_world);
  const std::size_t eager = eager_limit(t);

  // Fast path: a standard or ready eager send of contiguous data, nothing known failed or revoked.
  if ((r->mode == SendMode::standard || r->mode == SendMode::ready) && bytes <= eager && r->type->contiguous &&
      fault_free() && (!r->coll_precise || given_up.empty())) [[likely]] {
    Envelope env{};
    env.epoch = job_epoch;
    env.kind = FrameKind::eager;
    env.context = r->ctx;
    env.src = comm->rank;
    env.tag = r->tag;
    env.len = bytes;
    env.sreq = RequestPool::id_of(r);
    r->proto_state = kSendQueued;
    send_frame(t, r->peer_world, env, static_cast<const std::byte*>(r->sbuf), bytes, r);
    return Status::Ok();
  }

  if (Status why = start_check(r, r->peer_world); !why.ok()) {  // reported at completion (seed 000 §1.2)
    // A collective's message for a dead member is not needed by anyone: the step is done (engine.h).
    if (r->coll_precise && why.code() == Errc::proc_failed) why = Status::Ok();
    fail(r, why);
    return Status::Ok();
  }
  if (r->coll_precise && !given_up.empty() && coll_given_up(r->ctx, r->tag, r->peer_world)) {
    complete(r);  // the receiver gave this collective up: it will not take the message
    return Status::Ok();
  }

  // Data source: the user buffer when contiguous, else a packed staging copy. Buffered mode always copies
  // (into space accounted against the attached buffer) so the user's buffer is free at once.
  const std::byte* data = static_cast<const std::byte*>(r->sbuf);
  if (r->mode == SendMode::buffered) {
    BsendPool* pool = bsend_pool_for(comm);
    if (!pool)
      return Status(Errc::buffer, "buffered send without an attached buffer (MPI_Buffer_attach, "
                                  "MPI_Comm_attach_buffer or MPI_Session_attach_buffer)");
    const std::size_t need = bytes + kBsendOverhead;
    if (!pool->automatic && pool->used + need > pool->size)
      return Status(Errc::buffer, "buffered send does not fit in the attached buffer");
    pool->used += need;
    pool->active.push_back(r);
    r->bsend_pool = pool;
  }
  // A large non-contiguous (non-buffered) send streams data frames packed one at a time (chunked staging,
  // engine_impl.h): no packed copy of the whole message.
  const bool chunked = r->mode != SendMode::buffered && !r->type->contiguous && bytes > staging_limit &&
                       bytes > eager;
  if (r->mode == SendMode::buffered || (!r->type->contiguous && bytes > 0 && !chunked)) {
    r->staging = static_cast<std::byte*>(std::malloc(bytes ? bytes : 1));
    if (!r->staging) return Status(Errc::no_mem, "out of memory for send staging");
    r->staging_owned = true;
    dt::pack(r->sbuf, r->count, r->type, r->staging);
    data = r->staging;
  }

  Envelope env{};
  env.epoch = job_epoch;
  env.context = r->ctx;
  env.src = comm->rank;
  env.tag = r->tag;
  env.len = bytes;
  env.sreq = RequestPool::id_of(r);

  if (bytes <= eager) {
    env.kind = FrameKind::eager;
    if (r->mode == SendMode::sync) {
      env.flags = kFlagSync;
      r->proto_state = kSendWaitAck;
      track(r);
      send_frame(t, r->peer_world, env, data, bytes, nullptr);
    } else {
      r->proto_state = kSendQueued;
      send_frame(t, r->peer_world, env, data, bytes, r);
    }
  } else {
    env.kind = FrameKind::rts;
    env.addr = chunked ? 0 : reinterpret_cast<std::uint64_t>(data);
    if (chunked) env.flags = kFlagNoRemoteRead;
    r->proto_state = kSendWaitRndv;
    track(r);
    send_frame(t, r->peer_world, env, nullptr, 0, nullptr);
  }
  return Status::Ok();
}

void Engine::Impl::on_cts(int src, const Envelope& env) {
  Request* r = pool.lookup(env.sreq);
  if (env.flags & kFlagSplit) {
    // Split rendezvous (rndv_split.h): write our part now, in this call, then answer — always answer, the
    // receive may not complete before it hears from us. The send completes on the receiver's fin.
    // The write happens only with the gate claimed (rndv_gate.h): a receive that ended early closed it.
    const bool live = r && r->kind == ReqKind::send && r->proto_state == kSendWaitRndv && r->peer_world == src;
    bool wrote = false;
    std::uint64_t write_ticks = 0;
    if (live) {
      const std::byte* data = r->staging ? r->staging : static_cast<const std::byte*>(r->sbuf);
      const std::uint64_t wanted = std::min<std::uint64_t>(env.len, r->bytes_total);
      const auto h = static_cast<std::uint64_t>(static_cast<std::uint32_t>(env.tag));
      transport::Transport& t = router.for_peer(src);
      std::uint64_t* gates = t.split_gates(src, false);
      if (h <= wanted && gates != nullptr && env.reserved2 != 0 && gate::claim(gates, env.reserved2)) {
        const std::uint64_t t0 = rndv_ticks();
        const Status st = t.remote_write(src, env.addr + h, data + h, wanted - h);
        write_ticks = rndv_ticks() - t0;
        gate::written(gates, env.reserved2);
        wrote = st.ok();
        if (!st.ok()) log::debug("split rendezvous: writing to rank %d failed (%s)", src, st.message().c_str());
      }
    }
    Envelope a{};
    a.epoch = job_epoch;
    a.kind = FrameKind::split_done;
    a.len = write_ticks;  // for the receiver's way chooser (RndvPath::record_split)
    a.flags = wrote ? 0 : kFlagDeclined;
    a.tag = live ? split::kWhyWriteFailed
            : (r && r->kind == ReqKind::send && r->error.code() == Errc::proc_failed) ? split::kWhyEndedFailed
                                                                                     : split::kWhyEnded;
    a.context = env.context;
    a.sreq = env.sreq;
    a.rreq = env.rreq;
    send_frame(src, a, nullptr, 0, nullptr);
    return;
  }
  if (!r || r->kind != ReqKind::send || r->proto_state != kSendWaitRndv || r->peer_world != src) {
    // A notice for a send that already ended (revoked, failed, released): expected after revokes and
    // failures, so not worth a warning (request ids carry an incarnation: it cannot hit a later send).
    log::debug("dropping clear-to-send for an unknown send request from rank %d", src);
    return;
  }
  const std::byte* data = r->staging ? r->staging : static_cast<const std::byte*>(r->sbuf);
  std::size_t wanted = std::min<std::size_t>(env.len, r->bytes_total);
  std::size_t chunk = router.for_peer(src).max_payload();
  r->proto_state = kSendStreaming;
  Envelope d{};
  d.epoch = job_epoch;
  d.kind = FrameKind::data;
  d.context = r->ctx;
  d.src = r->comm->rank;
  d.tag = r->tag;
  d.sreq = env.sreq;
  d.rreq = env.rreq;
  if (wanted == 0) {
    complete(r);
    return;
  }
  const bool chunked = r->staging == nullptr && !r->type->contiguous;  // pack each frame as it goes
  for (std::size_t off = 0; off < wanted; off += chunk) {
    std::size_t n = std::min(chunk, wanted - off);
    d.addr = off;
    d.len = n;
    if (chunked)
      send_packed_frame(src, d, r, off, n, off + n == wanted ? r : nullptr);
    else
      send_frame(src, d, data + off, n, off + n == wanted ? r : nullptr);
  }
}

void Engine::Impl::on_sender_done(int src, const Envelope& env) {
  Request* r = pool.lookup(env.sreq);
  if (!r || r->kind != ReqKind::send || (r->proto_state != kSendWaitRndv && r->proto_state != kSendWaitAck) ||
      r->peer_world != src) {
    // As for cts: the send ended before the receiver's notice came (e.g. purged by a revoke).
    log::debug("dropping completion notice for an unknown send request from rank %d", src);
    return;
  }
  complete(r);
}

void Engine::Impl::on_cancel_ack(int src, const Envelope& env) {
  Request* r = pool.lookup(env.sreq);
  if (!r || r->kind != ReqKind::send || !r->cancel_asked || r->peer_world != src ||
      (r->proto_state != kSendWaitRndv && r->proto_state != kSendWaitAck))
    return;  // completed meanwhile (the receiver matched it: its notice came first) or ended otherwise
  if (env.flags & kFlagDeclined) return;  // matched: the receiver's sync_ack / cts / fin completes it
  r->status.cancelled = true;
  complete(r);
}

Status Engine::isend(const SendArgs& a, Request** out) {
  FTMPI_TRY(check_send_args(a));
  Impl& m = *impl_;
  Request* r = m.pool.get();
  fill_send(r, a);
  if (m.eager_now(a, RequestPool::id_of(r), r)) [[likely]] {
    *out = r;
    return Status::Ok();
  }
  Status st = m.start_send(r);
  if (!st.ok()) {
    if (r->holds_comm) (void)comm::comm_unhold(r->comm);  // the caller's live communicator: never idle here
    r->comm = nullptr;
    impl_->pool.put(r);
    return st;
  }
  *out = r;
  return Status::Ok();
}

Request* Engine::isend_now(const SendArgs& a) {
  if ((a.dest < 0 || a.dest >= a.comm->peer_size()) || a.tag < 0) [[unlikely]]
    return nullptr;  // MPI_PROC_NULL or an argument error: isend's business
  Impl& m = *impl_;
  Request* r = m.pool.get();
  fill_send(r, a);
  if (m.eager_now(a, RequestPool::id_of(r), r)) [[likely]]
    return r;
  if (r->holds_comm) (void)comm::comm_unhold(r->comm);  // the caller's live communicator: never idle here
  r->comm = nullptr;
  m.pool.put(r);  // untouched: eager_now sent nothing
  return nullptr;
}

bool Engine::send_now(const SendArgs& a) {
  if ((a.dest < 0 || a.dest >= a.comm->peer_size()) || a.tag < 0) [[unlikely]]
    return false;  // MPI_PROC_NULL or an argument error: isend's business
  return impl_->eager_now(a, 0, nullptr);
}

Status Engine::send_init(const SendArgs& a, Request** out) {
  FTMPI_TRY(check_send_args(a));
  Request* r = impl_->pool.get();
  fill_send(r, a);
  r->persistent = true;
  r->complete = true;  // inactive persistent requests count as complete
  *out = r;
  return Status::Ok();
}

Status Engine::start(Request* r) {
  if (r->kind == ReqKind::generic) {  // a persistent collective: a fresh run of its operation
    FTMPI_TRY(r->generic->restart());
    r->active = true;
    r->user_freed = false;
    r->complete = false;
    r->error = Status::Ok();
    impl_->generic_active.push_back(r);
    return Status::Ok();
  }
  r->active = true;
  r->user_freed = false;
  impl_->rearm(r);
  if (r->kind == ReqKind::send) return impl_->start_send(r);
  return impl_->start_recv(r);
}

}  // namespace ftmpi::p2p
