// Receive side of the p2p protocols: posting, matching against unexpected messages, eager delivery,
// rendezvous (single copy through Transport::remote_read, or cts + data chunks), probes.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "p2p/engine_impl.h"
#include "util/copy_small.h"
#include "util/log.h"

namespace ftmpi::p2p {

namespace {
[[gnu::cold, gnu::noinline]] Status bad_recv_args(const RecvArgs& a) {
  if (a.source != kAnySource && a.source != -2 && (a.source < 0 || a.source >= a.comm->peer_size()))
    return Status(Errc::rank, "invalid source rank");
  return Status(Errc::tag, "invalid tag (must be >= 0 or MPI_ANY_TAG)");
}

[[gnu::always_inline]] inline Status check_recv_args(const RecvArgs& a) {
  if ((a.source != kAnySource && a.source != -2 && (a.source < 0 || a.source >= a.comm->peer_size())) ||
      (a.tag < 0 && a.tag != kAnyTag)) [[unlikely]]
    return bad_recv_args(a);
  return Status::Ok();
}

// On a request fresh from the pool (RequestPool::get: everything else at its default).
[[gnu::always_inline]] inline void fill_recv(Request* r, const RecvArgs& a) {
  r->kind = ReqKind::recv;
  r->rbuf = a.buf;
  r->count = a.count;
  r->type = a.type;
  set_comm(r, a.comm);
  r->peer = a.source;
  r->tag = a.tag;
  r->is_coll_ctx = a.coll;
  r->coll_precise = a.coll && a.precise;
  r->peer_rules = a.coll && a.peer_rules;
}

// irecv's common case: a receive posted ahead of its message, allowed when nothing unexpected is queued and
// nothing is known failed or revoked (otherwise start_recv does the general work).
[[gnu::always_inline]] inline bool may_post_ahead(const Engine::Impl& m, bool coll_precise) {
  return m.matcher.unexpected_count() == 0 && m.fault_free() && (!coll_precise || m.given_up.empty());
}
[[gnu::always_inline]] inline void post_ahead(Engine::Impl& m, Request* r, const RecvArgs& a) {
  r->ctx = a.coll ? a.comm->ctx_coll : a.comm->ctx_pt2pt;
  r->bytes_total = dt::packed_size(a.type, a.count);  // capacity
  r->proto_state = kRecvPosted;
  m.matcher.add_posted(r);
}

// Where received bytes land: the user buffer (contiguous type) or a staging buffer unpacked at the end
// (nullptr when that cannot be allocated).
std::byte* landing(Request* r, std::size_t bytes) {
  if (r->type->contiguous) return static_cast<std::byte*>(r->rbuf);
  if (!r->staging) {
    r->staging = static_cast<std::byte*>(std::malloc(bytes ? bytes : 1));
    r->staging_owned = r->staging != nullptr;
  }
  return r->staging;
}
}  // namespace

// Expects r fresh from the pool or rearm()ed.
Status Engine::Impl::start_recv(Request* r) {
  if (r->peer == -2) [[unlikely]] {  // MPI_PROC_NULL: completes at once with source PROC_NULL, tag ANY_TAG, count 0
    r->status.source = -2;
    r->status.tag = kAnyTag;
    complete(r);
    return Status::Ok();
  }
  r->ctx = r->is_coll_ctx ? r->comm->ctx_coll : r->comm->ctx_pt2pt;
  r->bytes_total = dt::packed_size(r->type, r->count);  // capacity
  // Fast path: nothing known failed or revoked (start_check is Ok) and no collective given up.
  if (fault_free() && (!r->coll_precise || given_up.empty())) [[likely]] {
    if (Unexpected* u = matcher.match_unexpected(r->ctx, r->peer, r->tag)) {
      deliver(r, u);
      return Status::Ok();
    }
    r->proto_state = kRecvPosted;
    matcher.add_posted(r);
    return Status::Ok();
  }
  const int peer_world = r->peer >= 0 ? r->comm->peer_world_rank(r->peer) : -1;
  Status why = start_check(r, -1);  // revoked / collective on a communicator with a failure
  if (why.ok()) {
    // A message that fully arrived before its sender died is still delivered (docs/fault-tolerance.md),
    // also when it still waits in a transport's queue (shm rings are not drained past a satisfied
    // receive): drain them before failing the receive.
    Unexpected* u = matcher.match_unexpected(r->ctx, r->peer, r->tag);
    if (u == nullptr) {
      why = start_check(r, peer_world);
      if (!why.ok() && drain_all() && (u = matcher.match_unexpected(r->ctx, r->peer, r->tag)) != nullptr)
        why = Status::Ok();
      // The sender gave this collective up after sending what precedes (its frame follows its data).
      if (why.ok() && u == nullptr && r->coll_precise && !given_up.empty() &&
          coll_given_up(r->ctx, r->tag, peer_world))
        why = Status(Errc::proc_failed, "a process this collective needs data from lost data of a failed process");
    }
    if (u != nullptr) {
      deliver(r, u);
      return Status::Ok();
    }
  }
  if (!why.ok()) {
    fail(r, why);
    return Status::Ok();
  }
  r->proto_state = kRecvPosted;
  matcher.add_posted(r);
  return Status::Ok();
}

void Engine::Impl::on_cancel(int src, const Envelope& env) {
  // The message is the unexpected synchronous eager or rts frame from `src` carrying the same send request
  // id (a standard eager frame carries none, and is never cancelled). Not found: matched already (or
  // taken by Mprobe), and the sender hears of that transfer before this answer.
  Unexpected* u = matcher.find_unexpected(env.context, [&](const Unexpected& x) {
    return x.src_world == src && x.env.sreq == env.sreq && x.env.src == env.src &&
           (x.env.kind == FrameKind::rts || (x.env.flags & kFlagSync) != 0);
  });
  if (u != nullptr) matcher.recycle(u);
  Envelope a = reply_to(env, FrameKind::cancel_ack);
  a.flags = u != nullptr ? 0 : kFlagDeclined;
  send_frame(src, a, nullptr, 0, nullptr);
}

void Engine::Impl::deliver(Request* r, Unexpected* u) {
  if (u->env.kind == FrameKind::eager)
    deliver_eager(r, u->env, u->src_world, u->data);
  else
    start_rndv_recv(r, u->env, u->src_world);
  matcher.recycle(u);
}

void Engine::Impl::deliver_eager(Request* r, const Envelope& env, int src_world,
                                 std::span<const std::byte> data) {
  r->status.source = env.src;
  r->status.tag = env.tag;
  r->peer_world = src_world;
  std::size_t n = std::min<std::size_t>(data.size(), r->bytes_total);
  if (n && r->type->contiguous)
    util::copy_small(r->rbuf, data.data(), n);
  else if (n)
    dt::unpack(data.data(), n, r->type, r->rbuf);  // straight from the frame: no staging copy
  r->status.bytes = n;
  if (data.size() > r->bytes_total)
    r->error = Status(Errc::truncate, "message truncated: receive buffer too small");
  if (env.flags & kFlagSync) {
    Envelope ack = reply_to(env, FrameKind::sync_ack);
    send_frame(src_world, ack, nullptr, 0, nullptr);
  }
  finish_recv(r);
}

void Engine::Impl::start_rndv_recv(Request* r, const Envelope& env, int src_world) {
  r->status.source = env.src;
  r->status.tag = env.tag;
  r->peer_world = src_world;
  if (peer_failed(src_world)) {  // the sender died: its buffer is gone
    fail(r, Status(Errc::proc_failed, "the sending process failed before the message was transferred"));
    return;
  }
  std::size_t n = std::min<std::size_t>(env.len, r->bytes_total);
  if (env.len > r->bytes_total)
    r->error = Status(Errc::truncate, "message truncated: receive buffer too small");
  // Chunked staging (engine_impl.h): a large non-contiguous receive unpacks each data frame, or each piece
  // of the single-copy read, straight into the user's buffer.
  const bool chunked = !r->type->contiguous && n > staging_limit;
  transport::Transport& t = router.for_peer(src_world);
  bool read_remote = t.supports_remote_read() && (env.flags & kFlagNoRemoteRead) == 0;
  // A contiguous shared-memory rendezvous: single copy or pipelined through the ring (p2p/rndv_path.h).
  RndvPath* path = nullptr;
  if (read_remote && !chunked && n > 0 && n <= rndv_ring_max && rndv_mode != RndvMode::cma) {
    path = &rndv_path_of(src_world);
    // The split way (rndv_split.h): contiguous receives the transport can also write into remotely.
    const bool split_ok = split_allowed && t.supports_remote_write() && r->type->contiguous && n >= kSplitMin;
    const Way w = rndv_mode == RndvMode::ring    ? Way::ring
                  : rndv_mode == RndvMode::split ? (split_ok ? Way::split : Way::cma)
                                                 : path->choose(n, split_ok && split_auto && n >= split_auto_min);
    if (w == Way::ring) read_remote = false;
    if (w == Way::split) {
      if (start_split_recv(r, env, src_world, n, *path)) return;
      path->note_split_fallback(n);
    }
  }
  if (chunked && read_remote) {
    std::vector<std::byte> piece(kStagingChunk);
    Status st = Status::Ok();
    for (std::size_t off = 0; off < n && st.ok(); off += kStagingChunk) {
      const std::size_t len = std::min(kStagingChunk, n - off);
      st = t.remote_read(src_world, piece.data(), env.addr + off, len);
      if (st.ok()) dt::unpack_range(piece.data(), r->type, off, len, r->rbuf);
    }
    if (st.ok()) {
      single_copy_done(r, env, src_world, n);
      return;
    }
    // Data frames rewrite every byte from the start: the pieces already unpacked do no harm.
    log::debug("remote read from rank %d failed (%s); falling back to chunked transfer", src_world,
               st.message().c_str());
  }
  std::byte* dst = n && !chunked ? landing(r, n) : nullptr;
  if (n && !chunked && !dst) {
    // No memory for the staging copy of a non-contiguous receive (a message of gigabytes): a clear-to-send
    // for 0 bytes completes the sender, and this receive fails instead of waiting forever.
    Envelope cts = reply_to(env, FrameKind::cts);
    send_frame(src_world, cts, nullptr, 0, nullptr);
    fail(r, Status(Errc::no_mem, "out of memory for the receive staging buffer"));
    return;
  }
  if (n == 0 || (read_remote && !chunked)) {
    if (n > 0 && in_poll && read_batch && !flushing_reads) {  // read with the others of this poll (flush_reads)
      if (!reads.empty() && reads_src != src_world) flush_reads();
      reads_src = src_world;
      const bool warm = path != nullptr && path->cma_run() > static_cast<int>(reads.size()) + 1;
      reads.push_back(PendingRead{r, env, dst, n, path != nullptr, warm});
      reads_bytes += n;
      if (reads.size() >= kReadBatchMax || reads_bytes >= kReadBatchBytes) flush_reads();
      return;
    }
    if (single_copy(r, env, src_world, dst, n, path)) return;
  }
  start_pipelined(r, env, src_world, n, path);
}

bool Engine::Impl::single_copy(Request* r, const Envelope& env, int src_world, std::byte* dst, std::size_t n,
                               RndvPath* path) {
  transport::Transport& t = router.for_peer(src_world);
  const std::uint64_t t0 = path ? rndv_ticks() : 0;
  Status st = n ? t.remote_read(src_world, dst, env.addr, n) : Status::Ok();
  if (!st.ok()) {
    log::debug("remote read from rank %d failed (%s); falling back to chunked transfer", src_world,
               st.message().c_str());
    return false;
  }
  if (path) path->record_cma(n, rndv_ticks() - t0);
  single_copy_done(r, env, src_world, n);
  return true;
}

void Engine::Impl::single_copy_done(Request* r, const Envelope& env, int src_world, std::size_t n) {
  Envelope fin = reply_to(env, FrameKind::fin);
  send_frame(src_world, fin, nullptr, 0, nullptr);
  r->status.bytes = n;
  finish_recv(r);
}

void Engine::Impl::flush_reads() {
  std::vector<PendingRead>& batch = reads_spare;
  batch.swap(reads);
  flushing_reads = true;  // a receive started by what the completions below do reads at once
  const int src = reads_src;
  reads_bytes = 0;
  transport::Transport& t = router.for_peer(src);
  transport::Transport::ReadSeg segs[kReadBatchMax];
  std::size_t total = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    segs[i] = {batch[i].dst, batch[i].env.addr, batch[i].n};
    total += batch[i].n;
  }
  const std::uint64_t t0 = rndv_ticks();
  const std::size_t ok = t.remote_readv(src, std::span(segs, batch.size()));
  const std::uint64_t ticks = rndv_ticks() - t0;
  if (ok > 0) rndv_path_of(src).note_read_batch(ok);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    PendingRead& p = batch[i];
    RndvPath* path = p.timed ? &rndv_path_of(src) : nullptr;
    if (i < ok) {  // read: its share of the call's time
      if (path && ok == batch.size() && batch[0].warm) path->record_cma(p.n, ticks * p.n / total);
      single_copy_done(p.r, p.env, src, p.n);
    } else if (!single_copy(p.r, p.env, src, p.dst, p.n, path)) {  // the error, one by one
      start_pipelined(p.r, p.env, src, p.n, path);
    }
  }
  batch.clear();
  flushing_reads = false;
}

void Engine::Impl::start_pipelined(Request* r, const Envelope& env, int src_world, std::size_t n, RndvPath* path) {
  r->proto_state = kRecvData;
  r->remote_id = env.sreq;  // data frames must carry the sender request this receive matched
  r->bytes_done = 0;
  track(r);
  if (path) path->ring_begin(rndv_ticks());  // ended in complete_slow (ring_end)
  r->status.bytes = n;
  Envelope cts = reply_to(env, FrameKind::cts);
  cts.rreq = RequestPool::id_of(r);
  cts.len = n;
  send_frame(src_world, cts, nullptr, 0, nullptr);
}

bool Engine::Impl::start_split_recv(Request* r, const Envelope& env, int src_world, std::size_t n, RndvPath& path) {
  transport::Transport& t = router.for_peer(src_world);
  std::uint64_t* gates = t.split_gates(src_world, true);
  if (gates == nullptr) return false;
  if (static_cast<std::size_t>(src_world) >= gate_slots.size()) gate_slots.resize(static_cast<std::size_t>(src_world) + 1);
  gate::GateSlots& slots = gate_slots[static_cast<std::size_t>(src_world)];
  std::uint32_t tok = slots.take();
  if (tok == 0) {  // kGates split receives from that sender in flight: take back the words already written
    reclaim_split_gates(src_world, gates);
    tok = slots.take();
  }
  if (tok == 0) return false;  // all still open or being written: this message takes the single copy
  gate::open(gates, tok);       // published with the cts below (the ring's release)
  auto* dst = static_cast<std::byte*>(r->rbuf);
  const std::uint64_t h = split::head_of(n, rndv_split_share);
  r->proto_state = kRecvSplit;
  r->split = split::kAsked;
  r->split_gate = tok;
  r->remote_id = env.sreq;
  r->status.bytes = n;
  track(r);
  Envelope cts = reply_to(env, FrameKind::cts);
  cts.flags = kFlagSplit;
  cts.tag = static_cast<std::int32_t>(h);
  cts.reserved2 = tok;
  cts.rreq = RequestPool::id_of(r);
  cts.len = n;
  cts.addr = reinterpret_cast<std::uint64_t>(dst);
  send_frame(src_world, cts, nullptr, 0, nullptr);
  // Our part while the sender writes its own. fin either way: we are done with the sender's buffer.
  const std::uint64_t t0 = rndv_ticks();
  const Status st = t.remote_read(src_world, dst, env.addr, h);
  r->bytes_done = rndv_ticks() - t0;  // (a split receive's bytes_done: its read's ticks, for record_split)
  if (!st.ok()) {
    r->split |= split::kOwnFailed;
    log::debug("split rendezvous: reading from rank %d failed (%s)", src_world, st.message().c_str());
  }
  Envelope fin = reply_to(env, FrameKind::fin);
  send_frame(src_world, fin, nullptr, 0, nullptr);
  return true;
}

void Engine::Impl::reclaim_split_gates(int src_world, std::uint64_t* gates) {
  const auto peer = static_cast<std::size_t>(src_world);
  std::uint64_t n = 0;
  for (Request* r = inflight.front(); r; r = r->next) {
    if (r->proto_state != kRecvSplit || r->peer_world != src_world || r->split_gate == 0) continue;
    if (!gate::returned(gates, r->split_gate)) continue;
    gate_slots[peer].give_back(r->split_gate);  // no claim with its token can succeed any more
    r->split_gate = 0;
    r->split |= split::kGateReturned;  // still waits for the answer (did the write succeed?)
    ++n;
  }
  rndv_path_of(src_world).note_gates_returned(n);
}

bool Engine::Impl::close_split_gate(Request* r) {
  if (r->split_gate == 0) {
    // The slot was given back after the sender's write returned: no write can come any more.
    if ((r->split & split::kGateReturned) == 0) return false;
    r->split |= split::kGateClosed;
    return true;
  }
  std::uint64_t* gates = router.for_peer(r->peer_world).split_gates(r->peer_world, true);
  if (gates == nullptr) return false;
  if (gate::close(gates, r->split_gate) == gate::Closed::busy) return false;
  r->split |= split::kGateClosed;
  return true;
}

void Engine::Impl::poll_split_closing() {
  std::vector<Request*> still;
  std::vector<Request*> now;
  now.swap(split_closing);
  for (Request* r : now) {
    if (r->complete || r->proto_state != kRecvSplit) continue;
    if (peer_failed(r->peer_world)) r->split |= split::kSenderDead;
    if (split::may_complete(r->split) || close_split_gate(r))
      end_split(r);
    else
      still.push_back(r);
  }
  // (end_split removes nothing from `now`; what a callback added meanwhile stays)
  split_closing.insert(split_closing.end(), still.begin(), still.end());
}

void Engine::Impl::on_split_done(int src, const Envelope& env) {
  Request* r = pool.lookup(env.rreq);
  if (!r || r->kind != ReqKind::recv || r->proto_state != kRecvSplit || r->remote_id != env.sreq ||
      r->peer_world != src) {
    log::debug("dropping split_done for an unknown receive request from rank %d", src);  // closed early
    return;
  }
  r->split |= split::kAnswered;
  if (env.flags & kFlagDeclined) r->split |= split::kDeclined;
  if ((env.flags & kFlagDeclined) && env.tag != split::kWhyWriteFailed)
    r->split |= split::kSenderEnded | (env.tag == split::kWhyEndedFailed ? split::kEndedFailed : 0);
  const auto peer = static_cast<std::size_t>(src);
  if ((r->split & (split::kDeclined | split::kOwnFailed | split::kDoomed)) == 0 && peer < rndv_paths.size())
    rndv_paths[peer].record_split(r->status.bytes, r->bytes_done, env.len);
  end_split(r);
}

void Engine::Impl::end_split(Request* r) {
  const auto peer = static_cast<std::size_t>(r->peer_world);
  // No claim of its gate can succeed any more (may_complete: answered, closed, or the sender is dead).
  if (r->split_gate != 0 && peer < gate_slots.size()) gate_slots[peer].give_back(r->split_gate);
  r->split_gate = 0;
  if (!split_closing.empty()) split_closing.erase(std::remove(split_closing.begin(), split_closing.end(), r), split_closing.end());
  switch (split::outcome(r->split)) {
    case split::Outcome::ok:
      finish_recv(r);  // (a truncation error set at the start stays)
      return;
    case split::Outcome::doomed:
      break;  // the error kept by fail()
    case split::Outcome::sender_failed:
      r->error = Status(Errc::proc_failed, "the sending process failed before the message was transferred");
      break;
    case split::Outcome::sender_ended:
      r->error = Status(Errc::revoked, "the communicator has been revoked (the sender's request ended)");
      break;
    case split::Outcome::incomplete:
      r->error = r->comm != nullptr && r->comm->revoked.load(std::memory_order_relaxed)
                     ? Status(Errc::revoked, "the communicator has been revoked")
                     : Status(Errc::other, "split rendezvous: the sender did not write its part of the message");
      break;
  }
  r->status.bytes = 0;
  complete(r);
}

void Engine::Impl::on_data(const Envelope& env, std::span<const std::byte> payload) {
  Request* r = pool.lookup(env.rreq);
  if (!r || r->kind != ReqKind::recv || r->proto_state != kRecvData || r->remote_id != env.sreq) {
    log::debug("dropping data for an unknown receive request");  // it ended (revoked, failed, aborted)
    return;
  }
  std::size_t wanted = r->status.bytes;
  if (env.addr > wanted || payload.size() > wanted - env.addr) {
    log::warn("dropping out-of-range data chunk (offset %llu, %zu bytes)",
              static_cast<unsigned long long>(env.addr), payload.size());
    return;
  }
  const auto peer = static_cast<std::size_t>(r->peer_world);
  if (env.addr == 0 && peer < rndv_paths.size() && rndv_paths[peer].ring_inflight() > 0)
    rndv_paths[peer].ring_first_data(rndv_ticks());  // the way chooser's timing (rndv_path.h)
  if (r->type->contiguous)
    std::memcpy(static_cast<std::byte*>(r->rbuf) + env.addr, payload.data(), payload.size());
  else if (r->staging == nullptr)  // chunked staging: unpack this frame in place
    dt::unpack_range(payload.data(), r->type, env.addr, payload.size(), r->rbuf);
  else
    std::memcpy(r->staging + env.addr, payload.data(), payload.size());
  r->bytes_done += payload.size();
  if (r->bytes_done >= wanted) {
    // The end of a pipelined message: a sample for the way chooser (rndv_path.h).
    if (peer < rndv_paths.size() && rndv_paths[peer].ring_inflight() > 0)
      rndv_paths[peer].ring_complete(wanted, rndv_ticks());
    finish_recv(r);
  }
}

void Engine::Impl::finish_recv(Request* r) {
  if (r->staging_owned) {
    dt::unpack(r->staging, r->status.bytes, r->type, r->rbuf);
    std::free(r->staging);
    r->staging = nullptr;
    r->staging_owned = false;
  }
  complete(r);
}

Status Engine::irecv(const RecvArgs& a, Request** out) {
  FTMPI_TRY(check_recv_args(a));
  Impl& m = *impl_;
  Request* r = m.pool.get();
  fill_recv(r, a);
  if (a.source != -2 && may_post_ahead(m, r->coll_precise)) [[likely]] {
    post_ahead(m, r, a);
    *out = r;
    return Status::Ok();
  }
  FTMPI_TRY(m.start_recv(r));
  *out = r;
  return Status::Ok();
}

Request* Engine::irecv_now(const RecvArgs& a) {
  Impl& m = *impl_;
  // irecv's inline case (and its argument checks; MPI_PROC_NULL and every error go to irecv).
  if ((a.source != kAnySource && (a.source < 0 || a.source >= a.comm->peer_size())) ||
      (a.tag < 0 && a.tag != kAnyTag) || !may_post_ahead(m, a.coll && a.precise)) [[unlikely]]
    return nullptr;
  Request* r = m.pool.get();
  fill_recv(r, a);
  post_ahead(m, r, a);
  return r;
}

Status Engine::recv_init(const RecvArgs& a, Request** out) {
  FTMPI_TRY(check_recv_args(a));
  Request* r = impl_->pool.get();
  fill_recv(r, a);
  r->persistent = true;
  r->complete = true;
  *out = r;
  return Status::Ok();
}

Status Engine::iprobe(int source, int tag, ftmpi_comm_s* comm, bool coll, bool* flag, MsgStatus* st) {
  if (source == -2) {
    *flag = true;
    *st = MsgStatus{-2, kAnyTag, 0, false};
    return Status::Ok();
  }
  progress();
  std::uint32_t ctx = coll ? comm->ctx_coll : comm->ctx_pt2pt;
  Unexpected* u = impl_->matcher.match_unexpected(ctx, source, tag, /*peek=*/true);
  *flag = u != nullptr;
  if (u) *st = MsgStatus{u->env.src, u->env.tag, static_cast<std::size_t>(u->env.len), false};
  return Status::Ok();
}

Status Engine::improbe(int source, int tag, ftmpi_comm_s* comm, bool* flag, Message** msg, MsgStatus* st) {
  *msg = nullptr;
  if (source == -2) {
    *flag = true;
    *st = MsgStatus{-2, kAnyTag, 0, false};
    return Status::Ok();
  }
  progress();
  Unexpected* u = impl_->matcher.match_unexpected(comm->ctx_pt2pt, source, tag);
  *flag = u != nullptr;
  if (u) {
    *st = MsgStatus{u->env.src, u->env.tag, static_cast<std::size_t>(u->env.len), false};
    *msg = new Message{u, comm};
  }
  return Status::Ok();
}

Status Engine::imrecv(void* buf, std::size_t count, const ftmpi_datatype_s* type, Message* msg, Request** out) {
  Request* r = impl_->pool.get();
  RecvArgs a{buf, count, type, msg ? msg->msg->env.src : -2, kAnyTag, msg ? msg->comm : nullptr, false};
  fill_recv(r, a);
  if (!msg) {  // MPI_MESSAGE_NO_PROC
    r->peer = -2;
    FTMPI_TRY(impl_->start_recv(r));
    *out = r;
    return Status::Ok();
  }
  r->ctx = msg->comm->ctx_pt2pt;
  r->bytes_total = dt::packed_size(type, count);
  impl_->deliver(r, msg->msg);
  delete msg;
  *out = r;
  return Status::Ok();
}

}  // namespace ftmpi::p2p
