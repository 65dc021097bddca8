// Engine plumbing: frame dispatch, the send backlog, completion and request life cycle.
// Protocols live in engine_send.cpp and engine_recv.cpp.
#include "p2p/engine.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "p2p/engine_impl.h"
#include "util/log.h"

namespace ftmpi::p2p {

Engine::Impl::Impl(transport::Router& r, int me_, int n)
    : router(r), me(me_), nworld(n), backlog(static_cast<size_t>(n)) {
  const char* e = std::getenv("FTMPI_EAGER_LIMIT");
  eager_limit_default = e ? std::strtoull(e, nullptr, 10) : 0;
}

std::size_t Engine::Impl::eager_limit(transport::Transport& t) const {
  std::size_t limit = eager_limit_default ? eager_limit_default : 16384;
  return std::min(limit, t.max_payload());
}

bool Engine::Impl::send_frame(int peer, const Envelope& env, const std::byte* payload, std::size_t len,
                              Request* complete_on_accept) {
  auto& q = backlog[static_cast<size_t>(peer)];
  if (q.empty() && router.for_peer(peer).try_send(peer, as_bytes(env), {payload, len})) {
    if (complete_on_accept) complete(complete_on_accept);
    return true;
  }
  if (q.empty()) backlog_peers.push_back(peer);
  q.push_back(PendingFrame{env, payload, len, complete_on_accept});
  return false;
}

int Engine::Impl::flush_backlog() {
  int work = 0;
  for (std::size_t i = 0; i < backlog_peers.size();) {
    int peer = backlog_peers[i];
    auto& q = backlog[static_cast<size_t>(peer)];
    auto& t = router.for_peer(peer);
    while (!q.empty()) {
      PendingFrame& f = q.front();
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

void Engine::Impl::complete(Request* r) {
  r->complete = true;
  r->proto_state = kIdle;
  if (r->staging_owned && r->kind == ReqKind::send) {
    if (r->mode == SendMode::buffered) {
      bsend_used -= r->bytes_total;
      bsend_active.erase(std::remove(bsend_active.begin(), bsend_active.end(), r), bsend_active.end());
    }
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
  pool.put(r);
}

// --- public surface -------------------------------------------------------------------------------

Engine::Engine(transport::Router& router, int my_world_rank, int world_size)
    : impl_(std::make_unique<Impl>(router, my_world_rank, world_size)) {}

Engine::~Engine() = default;

int Engine::progress() {
  Impl& m = *impl_;
  int work = 0;
  for (transport::Transport* t : m.router.transports()) work += t->poll(*this);
  if (!m.backlog_peers.empty()) work += m.flush_backlog();
  for (std::size_t i = 0; i < m.generic_active.size();) {
    Request* r = m.generic_active[i];
    if (r->generic->progress()) {
      r->error = r->generic->result;
      m.generic_active[i] = m.generic_active.back();
      m.generic_active.pop_back();
      m.complete(r);
      ++work;
    } else {
      ++i;
    }
  }
  return work;
}

bool Engine::has_backlog() const { return !impl_->backlog_peers.empty(); }

void Engine::release(Request* r) { impl_->release(r); }

Request* Engine::start_generic(std::unique_ptr<GenericOp> op) {
  Request* r = impl_->pool.get();
  r->kind = ReqKind::generic;
  r->generic = op.release();
  impl_->generic_active.push_back(r);
  return r;
}

Status Engine::cancel(Request* r) {
  if (r->kind == ReqKind::recv && !r->complete && r->proto_state == kRecvPosted) {
    if (impl_->matcher.remove_posted(r)) {
      r->status.cancelled = true;
      impl_->complete(r);
    }
  }
  return Status::Ok();  // sends and matched receives complete normally (cancel "fails")
}

Status Engine::buffer_attach(void* buf, std::size_t size) {
  Impl& m = *impl_;
  if (m.bsend_buf) return Status(Errc::buffer, "a buffer is already attached");
  m.bsend_buf = buf;
  m.bsend_size = size;
  return Status::Ok();
}

Status Engine::buffer_detach(void** buf, std::size_t* size) {
  Impl& m = *impl_;
  // The caller (api) drives progress until no buffered send is pending before calling this.
  *buf = m.bsend_buf;
  *size = m.bsend_size;
  m.bsend_buf = nullptr;
  m.bsend_size = 0;
  return Status::Ok();
}

bool Engine::bsend_pending() const { return !impl_->bsend_active.empty(); }

void Engine::on_frame(int src, std::span<const std::byte> hdr, std::span<const std::byte> payload) {
  Impl& m = *impl_;
  Envelope env;
  if (!decode(hdr, &env)) {
    log::warn("dropping malformed frame from rank %d (header of %zu bytes)", src, hdr.size());
    return;
  }
  switch (env.kind) {
    case FrameKind::eager:
    case FrameKind::rts: {
      if (env.kind == FrameKind::eager && env.len != payload.size()) {
        log::warn("dropping malformed eager frame from rank %d", src);
        return;
      }
      if (Request* r = m.matcher.match_posted(env.context, env.src, env.tag)) {
        if (env.kind == FrameKind::eager)
          m.deliver_eager(r, env, src, payload);
        else
          m.start_rndv_recv(r, env, src);
      } else {
        auto* u = new Unexpected;
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
      m.on_sender_done(env);
      return;
  }
  log::warn("dropping frame of unknown kind %u from rank %d", static_cast<unsigned>(env.kind), src);
}

void Engine::on_peer_lost(int peer) {
  // Failure handling arrives with the ULFM issue; without FT mode the launcher ends the job.
  log::debug("transport lost peer %d", peer);
}

}  // namespace ftmpi::p2p

namespace ftmpi::p2p {
Request* Engine::completed_request() {
  Request* r = impl_->pool.get();
  r->kind = ReqKind::send;
  r->complete = true;
  return r;
}
}  // namespace ftmpi::p2p
