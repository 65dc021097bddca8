// Engine plumbing: frame dispatch, the send backlog, completion and request life cycle.
// Protocols live in engine_send.cpp and engine_recv.cpp.
#include "p2p/engine.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ft/failure_state.h"
#include "p2p/engine_impl.h"
#include "util/copy_small.h"
#include "util/log.h"

namespace ftmpi::p2p {

Engine::Impl::Impl(transport::Router& r, int me_, int n)
    : router(r), me(me_), nworld(n), backlog(static_cast<size_t>(n)) {
  const char* e = std::getenv("FTMPI_EAGER_LIMIT");
  eager_limit_default = e ? std::strtoull(e, nullptr, 10) : 0;
  if (eager_limit_default == 0) eager_limit_default = 16384;
  if (const char* l = std::getenv("FTMPI_STAGING_LIMIT")) staging_limit = std::strtoull(l, nullptr, 10);
  if (const char* m = std::getenv("FTMPI_RNDV_PATH")) {
    if (std::strcmp(m, "cma") == 0)
      rndv_mode = RndvMode::cma;
    else if (std::strcmp(m, "ring") == 0)
      rndv_mode = RndvMode::ring;
    else if (std::strcmp(m, "split") == 0)
      rndv_mode = RndvMode::split;
    else if (*m != '\0' && std::strcmp(m, "auto") != 0)
      log::warn("FTMPI_RNDV_PATH=%s: expected auto, cma, ring or split; using auto", m);
  }
  if (const char* l = std::getenv("FTMPI_RNDV_RING_MAX")) rndv_ring_max = std::strtoull(l, nullptr, 10);
  if (const char* a = std::getenv("FTMPI_RNDV_SPLIT")) split_auto = std::strcmp(a, "0") != 0;
  if (const char* b = std::getenv("FTMPI_RNDV_BATCH")) read_batch = std::strcmp(b, "0") != 0;
  if (!read_batch) split_auto_min = kSplitMin;
  if (const char* l = std::getenv("FTMPI_RNDV_SPLIT_MIN")) split_auto_min = std::strtoull(l, nullptr, 10);
  if (const char* s = std::getenv("FTMPI_RNDV_SPLIT_SHARE")) {
    const unsigned long v = std::strtoul(s, nullptr, 10);
    if (v >= 1 && v <= 15) rndv_split_share = static_cast<unsigned>(v);
  }
}

void Engine::Impl::queue_frame(int peer, const Envelope& env, const std::byte* payload, std::size_t len,
                               Request* complete_on_accept) {
  auto& q = queue_of(peer);
  if (q.empty()) backlog_peers.push_back(peer);
  q.push_back(PendingFrame{env, payload, len, complete_on_accept, {}});
}

void Engine::Impl::send_packed_frame(int peer, const Envelope& env, const Request* from, std::size_t offset,
                                     std::size_t len, Request* complete_on_accept) {
  auto& q = queue_of(peer);
  if (q.empty()) {
    if (pack_scratch.size() < len) pack_scratch.resize(len);
    dt::pack_range(from->sbuf, from->type, offset, len, pack_scratch.data());
    if (router.for_peer(peer).try_send(peer, as_bytes(env), {pack_scratch.data(), len})) {
      if (complete_on_accept) complete(complete_on_accept);
      return;
    }
    backlog_peers.push_back(peer);
    PendingFrame f{env, nullptr, len, complete_on_accept, {}, from->sbuf, from->type, offset};
    f.owned.assign(pack_scratch.begin(), pack_scratch.begin() + static_cast<std::ptrdiff_t>(len));
    f.payload = f.owned.data();
    q.push_back(std::move(f));
    return;
  }
  q.push_back(PendingFrame{env, nullptr, len, complete_on_accept, {}, from->sbuf, from->type, offset});
}

int Engine::Impl::flush_backlog() {
  int work = 0;
  for (std::size_t i = 0; i < backlog_peers.size();) {
    int peer = backlog_peers[i];
    auto& q = queue_of(peer);
    auto& t = router.for_peer(peer);
    while (!q.empty()) {
      PendingFrame& f = q.front();
      if (f.pack_type != nullptr && f.payload == nullptr) {  // pack it now that it is next
        f.owned.resize(f.len);
        dt::pack_range(f.pack_buf, f.pack_type, f.pack_offset, f.len, f.owned.data());
        f.payload = f.owned.data();
      }
      if (!t.try_send(peer, as_bytes(f.env), {f.payload, f.len})) break;
      Request* done = f.complete_on_accept;
      q.pop_front();
      ++work;
      if (done) complete(done);
    }
    if (q.empty()) {
      backlog_peers[i] = backlog_peers.back();
      backlog_peers.pop_back();
    } else {
      ++i;
    }
  }
  return work;
}

namespace {
bool tracked_state(std::uint8_t s) {
  return s == kSendWaitAck || s == kSendWaitRndv || s == kSendStreaming || s == kRecvData || s == kRecvSplit;
}
}  // namespace

void Engine::Impl::complete_slow(Request* r) {
  if (tracked_state(r->proto_state)) untrack(r);
  // A pipelined receive ended (rndv_path.h). Also counts a receive of the peer that took data frames for
  // another reason (a large non-contiguous send): ring_end() stops at zero, and the way chooser may then
  // time one message of a stream from its first frame, which is harmless.
  const auto peer = static_cast<std::size_t>(r->peer_world);
  if (r->proto_state == kRecvData && r->peer_world >= 0 && peer < rndv_paths.size()) rndv_paths[peer].ring_end();
  r->complete = true;
  r->proto_state = kIdle;
  if (r->staging_owned && r->kind == ReqKind::send) {
    if (r->mode == SendMode::buffered) bsend_done(r);
    std::free(r->staging);
    r->staging = nullptr;
    r->staging_owned = false;
  }
  if (r->user_freed) release(r);
}

void Engine::Impl::release(Request* r) {
  if (!r->complete) {
    r->user_freed = true;  // released when it completes
    return;
  }
  if (r->staging_owned) std::free(r->staging);
  delete r->generic;
  r->generic = nullptr;
  if (r->holds_comm && comm::comm_unhold(r->comm)) idle_comms.push_back(r->comm);
  r->comm = nullptr;
  pool.put(r);
}

void Engine::Impl::retire_idle_comms() {
  if (progress_depth > 0 || !on_idle_comm) return;
  while (!idle_comms.empty()) {
    ftmpi_comm_s* c = idle_comms.back();
    idle_comms.pop_back();
    on_idle_comm(c);
  }
}

// --- fault tolerance ---------------------------------------------------------------------------------

bool Engine::Impl::peer_failed(int world) const {
  return world >= 0 && failures && failures->epoch() != 0 && failures->failed(world);
}

Status Engine::Impl::start_check_slow(const Request* r, int peer_world) const {
  if (r->comm->revoked.load(std::memory_order_relaxed))
    return Status(Errc::revoked, "the communicator has been revoked");
  if (peer_failed(peer_world))
    return Status(Errc::proc_failed, "peer process " + std::to_string(r->peer) + " has failed");
  if (r->is_coll_ctx && !r->coll_precise && !r->peer_rules && ft && ft->comm_has_failure(r->comm))
    return Status(Errc::proc_failed, "a member of the communicator has failed");
  return Status::Ok();
}

namespace {
// A communicator's own collective tags are its sequence numbers, below 2^29 (create_group borrows the
// parent's context with tags from 2^29 on, which a from_here_on give-up must not cover).
bool covers(bool from_here_on, int given_tag, int tag) {
  return from_here_on ? (tag >= given_tag && tag < (1 << 29)) : tag == given_tag;
}
}  // namespace

bool Engine::Impl::coll_given_up(std::uint32_t ctx, int tag, int src_world) const {
  for (const GivenUp& g : given_up)
    if (g.ctx == ctx && g.src_world == src_world && covers(g.from_here_on, g.tag, tag)) return true;
  return false;
}

void Engine::Impl::fail(Request* r, const Status& why) {
  if (r->complete) return;
  if (r->proto_state == kRecvSplit) {
    // The sender may still write into this buffer (p2p/rndv_split.h): keep the first error, complete only
    // when its answer came or it is known failed (a reaped process writes nothing).
    if ((r->split & split::kDoomed) == 0 && (r->split & (split::kAnswered | split::kSenderDead)) == 0) {
      r->split |= split::kDoomed;
      if (r->error.ok()) r->error = why;
    }
    if (peer_failed(r->peer_world)) r->split |= split::kSenderDead;
    // Doomed: close the gate (rndv_gate.h); unless the sender is writing right now, it writes nothing more
    // and the receive completes at once, without waiting for its answer.
    if ((r->split & split::kDoomed) && !split::may_complete(r->split) && !close_split_gate(r) &&
        std::find(split_closing.begin(), split_closing.end(), r) == split_closing.end())
      split_closing.push_back(r);
    if (split::may_complete(r->split)) end_split(r);
    return;
  }
  if (r->proto_state == kRecvPosted) matcher.remove_posted(r);
  if (r->kind == ReqKind::send && r->peer_world >= 0 && r->proto_state != kIdle) {
    // Frames of this send still waiting for the transport point into the user's buffer: drop them.
    auto& q = queue_of(r->peer_world);
    const std::uint64_t id = RequestPool::id_of(r);
    for (auto it = q.begin(); it != q.end();) {
      // (a split_done answers a receiver that waits for it before it may complete: p2p/rndv_split.h)
      if (it->env.sreq == id && it->env.kind != FrameKind::fin && it->env.kind != FrameKind::sync_ack &&
          it->env.kind != FrameKind::split_done)
        it = q.erase(it);
      else
        ++it;
    }
  }
  r->error = why;
  if (r->kind == ReqKind::recv) r->status.bytes = 0;
  complete(r);
}

void Engine::Impl::sweep_failures() {
  // Frames waiting for a dead peer will never be taken: drop them (their sends fail below or here).
  for (std::size_t i = 0; i < backlog_peers.size();) {
    int peer = backlog_peers[i];
    if (!peer_failed(peer)) {
      ++i;
      continue;
    }
    auto& q = queue_of(peer);
    while (!q.empty()) {
      Request* r = q.front().complete_on_accept;
      q.pop_front();
      // A collective's message to a dead member: nobody needs it, the step is done (engine.h).
      if (r) fail(r, r->coll_precise ? Status::Ok() : Status(Errc::proc_failed, "the destination process has failed"));
    }
    backlog_peers[i] = backlog_peers.back();
    backlog_peers.pop_back();
  }
  // Operations in flight with a dead peer.
  // (A collective's step, coll_precise, only when its own peer died: engine.h.)
  auto blanket = [this](const Request* r) {
    return r->is_coll_ctx && !r->coll_precise && !r->peer_rules && ft && ft->comm_has_failure(r->comm);
  };
  std::vector<Request*> doomed;
  for (Request* r = inflight.front(); r; r = r->next)
    if (peer_failed(r->peer_world) || blanket(r)) doomed.push_back(r);
  // Posted receives naming a dead peer, and collective traffic on a communicator with a failure.
  matcher.for_each_posted([&](Request* r) {
    if (r->peer >= 0 && peer_failed(r->comm->peer_world_rank(r->peer))) doomed.push_back(r);
    else if (blanket(r)) doomed.push_back(r);
  });
  for (Request* r : doomed) {
    if (r->coll_precise && r->kind == ReqKind::send) {
      fail(r, Status::Ok());  // nobody needs the message of a dead member
      continue;
    }
    fail(r, Status(Errc::proc_failed, r->coll_precise ? "a process this collective needs data from has failed"
                                      : r->is_coll_ctx && !r->peer_rules ? "a member of the communicator has failed"
                                                       : "the peer process has failed"));
  }
}

void Engine::set_job_epoch(std::uint32_t epoch) { impl_->job_epoch = epoch; }
void Engine::set_split_allowed(bool allowed) { impl_->split_allowed = allowed; }

void Engine::set_ft(FtHandler* ft, const ft::FailureState* failures) {
  impl_->ft = ft;
  impl_->failures = failures;
}

void Engine::send_ft_frame(int peer_world, std::uint32_t context, int kind, std::span<const std::byte> payload) {
  Impl& m = *impl_;
  if (m.peer_failed(peer_world)) return;
  Envelope env{};
  env.epoch = m.job_epoch;
  env.kind = FrameKind::ft;
  env.context = context;
  env.tag = kind;
  env.len = payload.size();
  auto& q = m.queue_of(peer_world);
  if (q.empty() && m.router.for_peer(peer_world).try_send(peer_world, as_bytes(env), payload)) return;
  if (q.empty()) m.backlog_peers.push_back(peer_world);
  PendingFrame f;
  f.env = env;
  f.owned.assign(payload.begin(), payload.end());
  f.len = f.owned.size();
  q.push_back(std::move(f));
  q.back().payload = q.back().owned.data();
}

void Engine::set_idle_comm_hook(std::function<void(ftmpi_comm_s*)> hook) { impl_->on_idle_comm = std::move(hook); }

void Engine::retire_context(std::uint32_t ctx, std::span<const int> peers) {
  Impl& m = *impl_;
  Envelope env{};
  env.epoch = m.job_epoch;
  env.kind = FrameKind::retire;
  env.context = ctx;
  for (int q : peers)
    if (!m.peer_failed(q)) m.send_frame(q, env, nullptr, 0, nullptr);
  m.stale.retired_here(ctx, peers);
  m.matcher.drop_unexpected(ctx);
  m.matcher.drop_unexpected(ctx + 1);
}

void Engine::purge_contexts(std::uint32_t ctx_a, std::uint32_t ctx_b, const Status& why) {
  Impl& m = *impl_;
  std::vector<Request*> doomed;
  m.matcher.for_each_posted([&](Request* r) {
    if (r->ctx == ctx_a || r->ctx == ctx_b) doomed.push_back(r);
  });
  for (Request* r = m.inflight.front(); r; r = r->next)
    if (r->ctx == ctx_a || r->ctx == ctx_b) doomed.push_back(r);
  for (Request* r : doomed) m.fail(r, why);
  m.matcher.drop_unexpected(ctx_a);
  m.matcher.drop_unexpected(ctx_b);
}

void Engine::give_up_coll(ftmpi_comm_s* comm, int peer, int tag, bool from_here_on) {
  Impl& m = *impl_;
  const int world = comm->peer_world_rank(peer);
  if (world < 0 || world == m.me) return;
  if (tag >= (1 << 29)) from_here_on = false;  // a borrowed context (create_group): this collective only
  if (from_here_on) {
    const std::pair<std::uint32_t, int> key{comm->ctx_coll, world};
    if (std::find(m.gave_up_from.begin(), m.gave_up_from.end(), key) != m.gave_up_from.end()) return;
    m.gave_up_from.push_back(key);
  }
  // {tag, from_here_on, then every failure known here}: the peer's collective may fail because of this
  // frame before the launcher's notice reaches it, and MPIX_Comm_get_failed must then already name the
  // culprit (as a revoke frame does, ft/ft_manager.cpp).
  std::vector<std::int32_t> w = {tag, from_here_on ? 1 : 0};
  if (m.failures != nullptr)
    for (const ft::FailureRecord& rec : m.failures->records()) w.push_back(rec.world_rank);
  send_ft_frame(world, comm->ctx_coll, kFtFrameCollGiveUp,
                std::span<const std::byte>(reinterpret_cast<const std::byte*>(w.data()), w.size() * sizeof w[0]));
}

void Engine::on_coll_given_up(int src_world, std::uint32_t ctx_coll, int tag, bool from_here_on) {
  Impl& m = *impl_;
  if (m.coll_given_up(ctx_coll, tag, src_world) && !from_here_on) return;
  // Bounded: one record per (collective, peer) that gave up in the middle, only after failures; the oldest
  // go first (a collective that old has long finished here). from_here_on records (one per communicator
  // and peer) are kept.
  if (m.given_up.size() >= 4096) {
    std::size_t dropped = 0;
    std::erase_if(m.given_up, [&dropped](const Impl::GivenUp& g) { return !g.from_here_on && dropped++ < 2048; });
  }
  m.given_up.push_back(Impl::GivenUp{ctx_coll, tag, src_world, from_here_on});
  std::vector<Request*> failed, done;
  m.matcher.for_each_posted([&](Request* r) {
    if (r->coll_precise && r->ctx == ctx_coll && covers(from_here_on, tag, r->tag) && r->peer >= 0 &&
        r->comm->peer_world_rank(r->peer) == src_world)
      failed.push_back(r);
  });
  for (Request* r = m.inflight.front(); r; r = r->next)
    if (r->coll_precise && r->kind == ReqKind::send && r->ctx == ctx_coll && covers(from_here_on, tag, r->tag) &&
        r->peer_world == src_world)
      done.push_back(r);
  for (Request* r : failed)
    m.fail(r, Status(Errc::proc_failed, "a process this collective needs data from lost data of a failed process"));
  for (Request* r : done) m.fail(r, Status::Ok());
}

bool Engine::comm_known_failed(const ftmpi_comm_s* comm) const {
  const Impl& m = *impl_;
  return m.failures != nullptr && m.failures->epoch() != 0 && m.ft != nullptr && m.ft->comm_has_failure(comm);
}

void Engine::forget_given_up(std::uint32_t ctx_coll) {
  if (impl_->failures != nullptr && impl_->failures->epoch() != 0) impl_->matcher.drop_unexpected(ctx_coll);
  std::erase_if(impl_->given_up, [ctx_coll](const Impl::GivenUp& x) { return x.ctx == ctx_coll; });
  std::erase_if(impl_->gave_up_from, [ctx_coll](const std::pair<std::uint32_t, int>& x) { return x.first == ctx_coll; });
}

bool Engine::is_unmatched_recv(const Request* r) const {
  return r->kind == ReqKind::recv && !r->complete && r->proto_state == kRecvPosted;
}

void Engine::abort_recv(Request* r, const Status& why) {
  if (r->kind == ReqKind::recv && !r->complete) impl_->fail(r, why);
}

void Engine::abandon_recv(Request* r, const Status& why) {
  if (!r->complete && r->proto_state == kRecvPosted) impl_->fail(r, why);
}

// --- public surface -------------------------------------------------------------------------------

Engine::Engine(transport::Router& router, int my_world_rank, int world_size)
    : impl_(std::make_unique<Impl>(router, my_world_rank, world_size)) {
  impl_->sink = this;
}

Engine::~Engine() {
  // What the rendezvous way chooser learned and chose (p2p/rndv_path.h): FTMPI_RNDV_DEBUG=1 prints one line
  // per peer and size class that saw a rendezvous to stderr (estimates in ticks per byte, picks per way).
  const char* d = std::getenv("FTMPI_RNDV_DEBUG");
  if (d == nullptr || *d == '\0' || std::strcmp(d, "0") == 0) return;
  for (std::size_t p = 0; p < impl_->rndv_paths.size(); ++p) {
    const RndvPath& path = impl_->rndv_paths[p];
    if (path.gates_returned() != 0)
      std::fprintf(stderr, "ftmpi rndv: rank %d from %zu: %llu split gate words given back before the answer\n",
                   impl_->me, p, static_cast<unsigned long long>(path.gates_returned()));
    if (path.read_batches() != 0)
      std::fprintf(stderr, "ftmpi rndv: rank %d from %zu: %llu single copies in %llu batched reads\n", impl_->me, p,
                   static_cast<unsigned long long>(path.batched_reads()),
                   static_cast<unsigned long long>(path.read_batches()));
    for (int c = 0; c < RndvPath::kClasses; ++c) {
      const std::size_t b = std::size_t{16} << c;  // class c holds [16 KiB << c, 32 KiB << c) (class 0: < 32 KiB)
      const std::size_t bytes = b << 10;
      const std::uint64_t nc = path.picks(bytes, Way::cma), nr = path.picks(bytes, Way::ring),
                          ns = path.picks(bytes, Way::split);
      if (nc + nr + ns == 0) continue;
      std::fprintf(stderr,
                   "ftmpi rndv: rank %d from %zu, class %zu KiB: picks cma %llu ring %llu split %llu (no gate slot: %llu; "
                   "exploration restarts %llu); ticks/byte cma %.3f ring %.3f split %.3f\n",
                   impl_->me, p, b, static_cast<unsigned long long>(nc), static_cast<unsigned long long>(nr),
                   static_cast<unsigned long long>(ns),
                   static_cast<unsigned long long>(path.split_fallbacks(bytes)),
                   static_cast<unsigned long long>(path.resets(bytes)), path.cma_estimate(bytes), path.ring_estimate(),
                   path.split_estimate(bytes));
    }
  }
}

bool Engine::pause_requested() {
  const bool p = impl_->pause;
  impl_->pause = false;
  return p;
}

int Engine::Impl::poll_transports() {
  int n = 0;
  in_poll = true;
  for (transport::Transport* t : router.transports()) n += t->poll(*sink);
  in_poll = false;
  while (!reads.empty()) flush_reads();  // (a completion may start more: read at once, not in_poll)
  return n;
}

bool Engine::Impl::drain_all() {
  if (in_poll) return false;
  draining_all = true;
  // Bounded: a sender that keeps sending cannot hold us here; what arrived before the call is in the
  // rings already and comes out within the first passes.
  for (int pass = 0; pass < 64 && poll_transports() > 0; ++pass) {
  }
  draining_all = false;
  pause = false;  // no stale request for the next poll
  return true;
}

int Engine::progress() {
  Impl& m = *impl_;
  ++m.progress_depth;
  int work = m.poll_transports();
  if (m.failures && m.failures->epoch() != m.seen_epoch) {  // the one relaxed load of the fault-free path
    m.seen_epoch = m.failures->epoch_acquire();
    work += static_cast<int>(m.drain_all());  // frames of the dead that arrived before the news: deliver them
    m.sweep_failures();
    if (m.ft) m.ft->on_failures();
    ++work;
  }
  if (!m.backlog_peers.empty()) work += m.flush_backlog();
  if (!m.split_closing.empty()) m.poll_split_closing();
  for (std::size_t i = 0; i < m.generic_active.size();) {
    Request* r = m.generic_active[i];
    if (r->generic->progress()) {
      r->error = r->generic->result;
      r->status = r->generic->status;
      m.generic_active[i] = m.generic_active.back();
      m.generic_active.pop_back();
      m.complete(r);
      ++work;
    } else {
      ++i;
    }
  }
  --m.progress_depth;
  if (!m.idle_comms.empty()) m.retire_idle_comms();
  return work;
}

bool Engine::has_backlog() const { return !impl_->backlog_peers.empty(); }

bool Engine::has_pending() const {
  const Impl& m = *impl_;
  return !m.generic_active.empty() || !m.inflight.empty() || !m.backlog_peers.empty() ||
         m.matcher.posted_count() != 0;
}

std::size_t Engine::unexpected_count() const { return impl_->matcher.unexpected_count(); }
std::size_t Engine::posted_count() const { return impl_->matcher.posted_count(); }
std::size_t Engine::eager_limit() const { return impl_->eager_limit_default; }

void Engine::release(Request* r) {
  // The common case (MPI_Wait/Waitall of a send or receive): complete, no staging, not generic, and not the
  // last hold on a communicator freed meanwhile: straight back to the pool.
  if (r->complete && !r->staging_owned && r->generic == nullptr &&
      !(r->holds_comm && r->comm != nullptr && r->comm->counted && r->comm->holds == 1)) [[likely]] {
    if (r->holds_comm) (void)comm::comm_unhold(r->comm);  // not the last hold: never leaves it idle
    r->comm = nullptr;
    impl_->pool.put(r);
    return;
  }
  impl_->release(r);
  if (!impl_->idle_comms.empty()) impl_->retire_idle_comms();
}

Request* Engine::start_generic(std::unique_ptr<GenericOp> op) {
  Request* r = impl_->pool.get();
  r->kind = ReqKind::generic;
  r->generic = op.release();
  impl_->generic_active.push_back(r);
  return r;
}

Request* Engine::generic_init(std::unique_ptr<GenericOp> op) {
  Request* r = impl_->pool.get();
  r->kind = ReqKind::generic;
  r->generic = op.release();
  r->persistent = true;
  r->complete = true;  // inactive persistent requests count as complete
  return r;
}

// Beyond engine.h's contract: a send still waiting for its receiver (synchronous eager waiting for sync_ack,
// rendezvous waiting for cts/fin) asks the receiver to drop the message (cancel frame, envelope.h): it
// completes as cancelled when the receiver still had it unmatched, else normally once the receiver's
// transfer ends, so a Wait after Cancel never waits for the receiving application (MPI-3.1 §3.8.4). A send
// that completes locally anyway (standard/ready eager, buffered) is left to complete.
Status Engine::cancel(Request* r) {
  Impl& m = *impl_;
  if (r->kind == ReqKind::recv && !r->complete && r->proto_state == kRecvPosted) {
    if (m.matcher.remove_posted(r)) {
      r->status.cancelled = true;
      m.complete(r);
    }
  }
  if (r->kind == ReqKind::send && !r->complete && !r->cancel_asked &&
      (r->proto_state == kSendWaitAck || r->proto_state == kSendWaitRndv)) {
    // Behind the message's own frame (same peer queue): the receiver sees the message first.
    Envelope c{};
    c.epoch = m.job_epoch;
    c.kind = FrameKind::cancel;
    c.context = r->ctx;
    c.src = r->comm->rank;
    c.tag = r->tag;
    c.sreq = RequestPool::id_of(r);
    r->cancel_asked = true;
    m.send_frame(r->peer_world, c, nullptr, 0, nullptr);
  }
  return Status::Ok();  // other sends and matched receives complete normally (cancel "fails")
}

BsendPool* Engine::Impl::bsend_pool_for(const ftmpi_comm_s* comm) {
  // (without a session, the second lookup is the process's buffer already)
  for (const void* owner : {static_cast<const void*>(comm), comm->session, static_cast<const void*>(nullptr)}) {
    auto it = bsend_pools.find(owner);
    if (it != bsend_pools.end()) return it->second.get();
  }
  return nullptr;
}

void Engine::Impl::bsend_done(Request* r) {
  BsendPool* pool = r->bsend_pool;
  r->bsend_pool = nullptr;
  if (!pool) return;
  pool->used -= r->bytes_total + kBsendOverhead;
  pool->active.erase(std::remove(pool->active.begin(), pool->active.end(), r), pool->active.end());
  if (pool->active.empty()) {  // an orphan (its owner is gone) is done now
    std::erase_if(bsend_orphans, [pool](const std::unique_ptr<BsendPool>& p) { return p.get() == pool; });
  }
}

Status Engine::buffer_attach(const void* owner, void* buf, std::size_t size, bool automatic) {
  Impl& m = *impl_;
  auto& slot = m.bsend_pools[owner];
  if (slot) return Status(Errc::buffer, "a buffer is already attached");
  slot = std::make_unique<BsendPool>();
  slot->buf = buf;
  slot->size = size;
  slot->automatic = automatic;
  return Status::Ok();
}

Status Engine::buffer_detach(const void* owner, void** buf, std::size_t* size, bool* automatic) {
  Impl& m = *impl_;
  auto it = m.bsend_pools.find(owner);
  if (it == m.bsend_pools.end()) return Status(Errc::buffer, "no buffer is attached");
  // The caller (api) drives progress until bsend_pending(owner) is false before calling this.
  if (!it->second->active.empty()) return Status(Errc::intern, "buffer detached with buffered sends in flight");
  *buf = it->second->buf;
  *size = it->second->size;
  *automatic = it->second->automatic;
  m.bsend_pools.erase(it);
  return Status::Ok();
}

void Engine::buffer_forget(const void* owner) {
  Impl& m = *impl_;
  auto it = m.bsend_pools.find(owner);
  if (it == m.bsend_pools.end()) return;
  if (!it->second->active.empty()) m.bsend_orphans.push_back(std::move(it->second));
  m.bsend_pools.erase(it);
}

bool Engine::bsend_pending(const void* owner) const {
  auto it = impl_->bsend_pools.find(owner);
  return it != impl_->bsend_pools.end() && !it->second->active.empty();
}

bool Engine::bsend_pending() const {
  for (const auto& [owner, pool] : impl_->bsend_pools)
    if (!pool->active.empty()) return true;
  return !impl_->bsend_orphans.empty();
}

void Engine::on_frame(int src, std::span<const std::byte> hdr, std::span<const std::byte> payload) {
  Impl& m = *impl_;
  Envelope env;
  // The small-message fast path: an eager frame of this epoch, well formed, on a live context, for a posted
  // receive of contiguous data that it fits, without synchronous mode: the checks below in the same order,
  // then deliver_eager's work inline. Anything else takes the general path.
  if (hdr.size() == kShortEagerHeader) [[likely]] {
    if (decode_short_eager(hdr, payload.size(), &env) && env.epoch == m.job_epoch &&
        !m.stale.stale(env.context, src)) [[likely]] {
      Request* r = m.matcher.match_posted(env.context, env.src, env.tag);
      if (r == nullptr) {
        Unexpected* u = m.matcher.make_unexpected();
        u->env = env;
        u->src_world = src;
        u->data.assign(payload.begin(), payload.end());
        m.matcher.add_unexpected(env.context, u);
        return;
      }
      m.pause = !m.draining_all && m.matcher.posted_count() == 0 && (!m.failures || m.failures->epoch() == 0);
      if (r->type->contiguous && payload.size() <= r->bytes_total && !r->staging_owned) [[likely]] {
        r->status.source = env.src;
        r->status.tag = env.tag;
        r->peer_world = src;
        util::copy_small(r->rbuf, payload.data(), payload.size());
        r->status.bytes = payload.size();
        m.complete(r);
        return;
      }
      m.deliver_eager(r, env, src, payload);
      return;
    }
  }
  if (!decode(hdr, payload.size(), &env)) {
    log::warn("dropping malformed frame from rank %d (header of %zu bytes)", src, hdr.size());
    return;
  }
  // A frame of another job epoch (Reinit: sent before a rollback on a connection kept across it) is
  // never delivered: nothing of the old epoch completes after the rollback (models/reinit/kept_links.h).
  if (env.epoch != m.job_epoch) [[unlikely]]
    return;
  // Batched single copies (Impl::reads) span consecutive requests-to-send only: any other frame (a revoke,
  // a cts, a fin...) is handled after their reads, as it was when each read came at its match — so a
  // revoke's purge, for one, still finds a receive whose read failed already in the in-flight list.
  if (!m.reads.empty() && env.kind != FrameKind::rts) m.flush_reads();
  // Frames of a communicator retired here (its context slot may serve a new one already): drop them.
  if ((env.kind == FrameKind::eager || env.kind == FrameKind::rts || env.kind == FrameKind::ft) &&
      m.stale.stale(env.context, src)) {
    // a freed communicator's agreement may still need answers (ft/ft_manager.h, zombies)
    if (env.kind == FrameKind::ft && m.ft && env.len == payload.size())
      m.ft->on_stale_ft_frame(src, env.context, env.tag, payload);
    return;
  }
  switch (env.kind) {
    case FrameKind::retire: {
      const bool for_current = !m.stale.stale(env.context, src);  // else: for a communicator retired here
      m.stale.notice_from(env.context, src);
      if (for_current && m.ft) m.ft->on_retire_notice(src, env.context);
      return;
    }
    case FrameKind::eager:
    case FrameKind::rts: {
      if (env.kind == FrameKind::eager && env.len != payload.size()) {
        log::warn("dropping malformed eager frame from rank %d", src);
        return;
      }
      if (Request* r = m.matcher.match_posted(env.context, env.src, env.tag)) {
        m.pause = !m.draining_all && m.matcher.posted_count() == 0 && (!m.failures || m.failures->epoch() == 0);
        if (env.kind == FrameKind::eager)
          m.deliver_eager(r, env, src, payload);
        else
          m.start_rndv_recv(r, env, src);
      } else {
        Unexpected* u = m.matcher.make_unexpected();
        u->env = env;
        u->src_world = src;
        if (env.kind == FrameKind::eager) u->data.assign(payload.begin(), payload.end());
        m.matcher.add_unexpected(env.context, u);
      }
      return;
    }
    case FrameKind::cts:
      m.on_cts(src, env);
      return;
    case FrameKind::data:
      m.on_data(env, payload);
      return;
    case FrameKind::fin:
    case FrameKind::sync_ack:
      m.on_sender_done(src, env);
      return;
    case FrameKind::split_done:
      m.on_split_done(src, env);
      return;
    case FrameKind::cancel:
      m.on_cancel(src, env);
      return;
    case FrameKind::cancel_ack:
      m.on_cancel_ack(src, env);
      return;
    case FrameKind::ft:
      if (m.ft && env.len == payload.size()) m.ft->on_ft_frame(src, env.context, env.tag, payload);
      return;
  }
  log::warn("dropping frame of unknown kind %u from rank %d", static_cast<unsigned>(env.kind), src);
}

void Engine::on_peer_lost(int peer) {
  // Not a failure by itself: the launcher decides (fail-stop: it kills the peer, then tells everybody).
  // Without FT mode the launcher ends the job when a rank dies.
  log::debug("transport lost peer %d", peer);
  if (impl_->ft) impl_->ft->on_peer_lost(peer);
}

}  // namespace ftmpi::p2p

namespace ftmpi::p2p {
Request* Engine::completed_request() {
  Request* r = impl_->pool.get();
  r->kind = ReqKind::send;
  r->complete = true;
  return r;
}
void Engine::invalidate_all_requests() { impl_->pool.invalidate_all(); }

}  // namespace ftmpi::p2p
