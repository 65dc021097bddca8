// Origin half of a window: operations and synchronisation (model in rma/window.h).
#include "rma/window.h"

#include <algorithm>
#include <cstring>

#include "datatype/builtin_types.h"
#include "ft/failure_state.h"
#include "progress/progress.h"

namespace ftmpi::rma {

namespace {
const dt::Datatype* byte_type() { return dt::builtin(dt::Basic::byte); }
}  // namespace

bool Pending::poll() {
  for (p2p::Request** r : {&send, &ext, &reply}) {
    if (*r && (*r)->complete) {
      if (!(*r)->error.ok() && error.ok()) error = (*r)->error;
      engine->release(*r);
      *r = nullptr;
    }
  }
  return !send && !ext && !reply;
}

Pending::~Pending() {
  for (p2p::Request* r : {send, ext, reply})
    if (r) engine->release(r);
}

Window::Window(p2p::Engine& engine, const ft::FailureState* failures, ftmpi_comm_s* req, ftmpi_comm_s* rep,
               progress::Progress& progress)
    : engine_(engine), progress_(progress), failures_(failures), req_(req), rep_(rep) {
  peers_.resize(static_cast<std::size_t>(req->size));
  origin_error_.resize(static_cast<std::size_t>(req->size));
  completes_from_.assign(static_cast<std::size_t>(req->size), 0);
}

Window::~Window() = default;

void Window::start_service() {
  auto svc = std::make_unique<Service>(this);
  service_ = svc.get();
  service_->post_listen();
  service_req_ = engine_.start_generic(std::move(svc));
}

void Window::stop_service() {
  if (!service_req_) return;
  // Replies still in flight first (their buffers belong to the Service).
  progress_.wait_until([&] {
    auto& out = service_->out_;
    out.erase(std::remove_if(out.begin(), out.end(), [](auto& p) { return p->poll(); }), out.end());
    return out.empty() && service_->ext_ == nullptr;
  });
  if (service_->listen_) {
    (void)engine_.cancel(service_->listen_);
    progress_.wait_until([&] { return service_->listen_ == nullptr || service_->listen_->complete; });
  }
  service_->stopped_ = true;
  progress_.wait_until([&] { return service_req_->complete; });
  if (service_->listen_) engine_.release(service_->listen_);
  service_->listen_ = nullptr;
  engine_.release(service_req_);  // deletes the Service
  service_req_ = nullptr;
  service_ = nullptr;
}

void Window::wait_for(p2p::Request* r) {
  progress_.wait_until([&] { return r->complete; });
}

int Window::next_tag() {
  tag_counter_ = tag_counter_ >= (1 << 24) ? 1 : tag_counter_ + 1;
  return 2 * tag_counter_;
}

bool Window::epoch_open() const {
  if (lock_all_ || access_open_ || exposure_open_) return true;
  for (const PeerState& p : peers_)
    if (p.lock != LockMode::none) return true;
  return false;
}

Status Window::check_live() const {
  if (invalidated_ || req_->revoked.load(std::memory_order_relaxed) || rep_->revoked.load(std::memory_order_relaxed))
    return Status(Errc::revoked, "the window has been invalidated (MPI_Win_invalidate / MPIX_Win_revoke)");
  return Status::Ok();
}

Status Window::check_access(int target) {
  FTMPI_TRY(check_live());
  if (target < 0 || target >= size()) return Status(Errc::rank, "target rank out of range");
  const PeerState& p = peers_[static_cast<std::size_t>(target)];
  if (fence_epoch_ || lock_all_ || p.lock != LockMode::none) return Status::Ok();
  if (access_open_ && std::find(access_group_.begin(), access_group_.end(), target) != access_group_.end())
    return Status::Ok();
  return Status(Errc::rma_sync, "RMA operation outside an access epoch to this target "
                                "(no fence, lock or start covers it)");
}

Status Window::range_check(const Target& t) const {
  if (flavor == Flavor::dynamic || t.count == 0) return Status::Ok();
  const auto r = static_cast<std::size_t>(t.rank);
  const std::int64_t off = static_cast<std::int64_t>(t.disp) * peer_disp_unit[r];
  if (static_cast<std::int64_t>(t.disp) < 0) return Status(Errc::rma_range, "negative target displacement");
  const std::int64_t ext = t.type->extent;
  const std::int64_t last = static_cast<std::int64_t>(t.count - 1) * ext;
  const std::int64_t lo = off + t.type->true_lb + std::min<std::int64_t>(0, last);
  const std::int64_t hi = off + t.type->true_lb + t.type->true_extent + std::max<std::int64_t>(0, last);
  if (lo < 0 || hi > static_cast<std::int64_t>(peer_bytes[r]))
    return Status(Errc::rma_range, "target displacement/count fall outside the target's window (bytes " +
                                       std::to_string(lo) + ".." + std::to_string(hi) + " of " +
                                       std::to_string(peer_bytes[r]) + ")");
  return Status::Ok();
}

Status Window::send_op(OpHdr h, const Target& t, const void* obuf, std::size_t ocount, const dt::Datatype* otype,
                       bool data, int tag, std::shared_ptr<Pending>& pend) {
  std::vector<dt::Block> blocks;
  if (t.type && !t.type->contiguous && t.type->size > 0) blocks = dt::flatten(t.type);
  h.target_blocks = static_cast<std::uint32_t>(blocks.size());
  h.disp = t.disp;
  h.count = t.count;
  h.type_size = t.type ? t.type->size : 0;
  h.type_extent = t.type ? t.type->extent : 0;
  h.data_bytes = data ? dt::packed_size(otype, ocount) : 0;
  const std::size_t blk_bytes = blocks.size() * sizeof(WireBlock);
  const std::size_t inline_len = blk_bytes + h.data_bytes;
  const bool ext = sizeof(OpHdr) + inline_len > kInlineMax;
  if (ext) h.ext_tag = tag + 1;
  pend->buf.resize(sizeof(OpHdr) + (ext ? 0 : inline_len));
  std::memcpy(pend->buf.data(), &h, sizeof h);
  auto fill = [&](std::byte* p) {
    for (const dt::Block& b : blocks) {
      WireBlock w{b.offset, b.length};
      std::memcpy(p, &w, sizeof w);
      p += sizeof w;
    }
    if (h.data_bytes) dt::pack(obuf, ocount, otype, p);
  };
  if (!ext) fill(pend->buf.data() + sizeof(OpHdr));
  p2p::SendArgs a{pend->buf.data(), pend->buf.size(), byte_type(), t.rank, kRequestTag, req_};
  FTMPI_TRY(engine_.isend(a, &pend->send));
  if (ext) {
    if (blocks.empty()) {  // data only: straight from the origin buffer (the engine packs if it must)
      p2p::SendArgs e{obuf, ocount, otype, t.rank, h.ext_tag, rep_};
      FTMPI_TRY(engine_.isend(e, &pend->ext));
    } else {
      pend->scratch.resize(inline_len);
      fill(pend->scratch.data());
      p2p::SendArgs e{pend->scratch.data(), inline_len, byte_type(), t.rank, h.ext_tag, rep_};
      FTMPI_TRY(engine_.isend(e, &pend->ext));
    }
  }
  PeerState& p = peers_[static_cast<std::size_t>(t.rank)];
  p.dirty = true;
  p.pending.push_back(pend);
  return Status::Ok();
}

// A zero-size operation (count 0 or a type of size 0) moves no byte (§11.3): over messages it is not sent, so
// the next flush/unlock/fence does not wait for the target to answer it (Open MPI's osc and MPICH skip them too;
// IMB-RMA's 0-byte rows). The epoch and range checks above still apply. A target already known failed takes the
// normal path, which reports MPI_ERR_PROC_FAILED as for any operation toward it.
bool Window::moves_nothing(const Target& t) const {
  return (t.count == 0 || (t.type && t.type->size == 0)) && !target_failed(t.rank);
}

Status Window::nothing_to_send(std::shared_ptr<Pending>* out) {
  if (out) {  // a request-based operation: a request already complete
    *out = std::make_shared<Pending>();
    (*out)->engine = &engine_;
  }
  return Status::Ok();
}

Status Window::put(const void* obuf, std::size_t ocount, const dt::Datatype* otype, const Target& t, const dt::Op* op,
                   std::shared_ptr<Pending>* out) {
  FTMPI_TRY(check_access(t.rank));
  FTMPI_TRY(range_check(t));
  std::uintptr_t at = 0;
  if (const int how = direct_begin(t, &at, out); how >= 0) {
    if (how == 1) {
      const DirectPeer& d = direct[static_cast<std::size_t>(t.rank)];
      direct_note(t.rank, op ? direct_acc(d, at, obuf, ocount, otype, t, op, nullptr, 0, nullptr)
                             : direct_put(d, at, obuf, ocount, otype, t), out);
    }
    return Status::Ok();
  }
  if (moves_nothing(t)) return nothing_to_send(out);
  auto pend = std::make_shared<Pending>();
  pend->engine = &engine_;
  if (out) *out = pend;
  OpHdr h{};
  h.op = op ? OpCode::acc : OpCode::put;
  if (op) {
    h.basic = static_cast<std::uint8_t>(t.type->basic);
    h.op_kind = static_cast<std::uint8_t>(op->kind);
  }
  return send_op(h, t, obuf, ocount, otype, true, next_tag(), pend);
}

Status Window::get(void* rbuf, std::size_t rcount, const dt::Datatype* rtype, const void* obuf, std::size_t ocount,
                   const dt::Datatype* otype, const Target& t, const dt::Op* op, std::shared_ptr<Pending>* out) {
  FTMPI_TRY(check_access(t.rank));
  FTMPI_TRY(range_check(t));
  std::uintptr_t at = 0;
  if (const int how = direct_begin(t, &at, out); how >= 0) {
    if (how == 1) {
      const DirectPeer& d = direct[static_cast<std::size_t>(t.rank)];
      direct_note(t.rank, op ? direct_acc(d, at, obuf, ocount, otype, t, op, rbuf, rcount, rtype)
                             : direct_get(d, at, rbuf, rcount, rtype, t), out);
    }
    return Status::Ok();
  }
  if (moves_nothing(t)) return nothing_to_send(out);
  auto pend = std::make_shared<Pending>();
  pend->engine = &engine_;
  if (out) *out = pend;
  const int tag = next_tag();
  OpHdr h{};
  h.op = op ? OpCode::get_acc : OpCode::get;
  h.reply_tag = tag;
  if (op) {
    h.basic = static_cast<std::uint8_t>(t.type->basic);
    h.op_kind = static_cast<std::uint8_t>(op->kind);
  }
  p2p::RecvArgs ra{rbuf, rcount, rtype, t.rank, tag, rep_};
  FTMPI_TRY(engine_.irecv(ra, &pend->reply));
  const bool data = op && op->kind != dt::OpKind::no_op;
  return send_op(h, t, obuf, data ? ocount : 0, otype, data, tag, pend);
}

Status Window::compare_and_swap(const void* obuf, const void* cbuf, void* rbuf, const dt::Datatype* type, int target,
                                std::uint64_t disp) {
  Target t{target, disp, 1, type};
  FTMPI_TRY(check_access(target));
  FTMPI_TRY(range_check(t));
  std::uintptr_t at = 0;
  if (const int how = direct_begin(t, &at, nullptr); how >= 0) {
    if (how == 1) direct_note(target, direct_cas(direct[static_cast<std::size_t>(target)], at, obuf, cbuf, rbuf, type), nullptr);
    return Status::Ok();
  }
  auto pend = std::make_shared<Pending>();
  pend->engine = &engine_;
  const int tag = next_tag();
  OpHdr h{};
  h.op = OpCode::cas;
  h.reply_tag = tag;
  h.basic = static_cast<std::uint8_t>(type->basic);
  p2p::RecvArgs ra{rbuf, 1, type, target, tag, rep_};
  FTMPI_TRY(engine_.irecv(ra, &pend->reply));
  // Inline part: origin value then compare value (both packed; one basic element each).
  std::vector<std::byte> two(2 * type->size);
  dt::pack(obuf, 1, type, two.data());
  dt::pack(cbuf, 1, type, two.data() + type->size);
  return send_op(h, t, two.data(), two.size(), byte_type(), true, tag, pend);
}

bool Window::target_failed(int target) const {
  return failures_ && failures_->epoch() != 0 && failures_->failed(req_->world_rank(target));
}

// ---- synchronisation ----

Status Window::wait_pending(int target) {
  PeerState& p = peers_[static_cast<std::size_t>(target)];
  // Requests to one target complete about in issue order: each pass releases the completed prefix and stops
  // at the first operation still in flight, so a pass costs O(1) rather than O(pending) (an epoch of 1024 puts
  // used to re-poll all of them on every pass: MPICH's rma/manyrma2 with every mode, 3x slower).
  std::size_t done = 0;
  if (!p.pending.empty()) progress_.wait_until([&] {
    while (done < p.pending.size() && p.pending[done]->poll()) ++done;
    return done == p.pending.size();
  });
  for (auto& op : p.pending)
    if (!op->error.ok() && p.error.ok()) p.error = op->error;
  p.pending.clear();
  if (p.direct_done) {  // direct operations are complete; the target must still be alive to count them done
    p.direct_done = false;
    if (target_failed(target) && p.error.ok())
      p.error = Status(Errc::proc_failed, "the target of one-sided operations failed before their synchronisation");
  }
  return Status::Ok();
}

Status Window::take_error(int target) {
  PeerState& p = peers_[static_cast<std::size_t>(target)];
  Status st = std::move(p.error);
  p.error = Status::Ok();
  return st;
}

std::shared_ptr<Pending> Window::issue_ctrl(int target, OpCode op, bool exclusive) {
  auto pend = std::make_shared<Pending>();
  pend->engine = &engine_;
  const int tag = op == OpCode::complete ? 0 : next_tag();
  OpHdr h{};
  h.op = op;
  h.lock_exclusive = exclusive ? 1 : 0;
  h.reply_tag = tag;
  pend->scratch.resize(sizeof(AckBody));
  Status st;
  if (tag) {
    p2p::RecvArgs ra{pend->scratch.data(), sizeof(AckBody), byte_type(), target, tag, rep_};
    st = engine_.irecv(ra, &pend->reply);
  }
  if (st.ok()) {
    pend->buf.resize(sizeof h);
    std::memcpy(pend->buf.data(), &h, sizeof h);
    p2p::SendArgs a{pend->buf.data(), sizeof h, byte_type(), target, kRequestTag, req_};
    st = engine_.isend(a, &pend->send);
  }
  if (!st.ok()) pend->error = st;
  return pend;
}

Status Window::finish_ctrl(int target, Pending& p) {
  progress_.wait_until([&] { return p.poll(); });
  PeerState& ps = peers_[static_cast<std::size_t>(target)];
  if (!p.error.ok()) {
    if (ps.error.ok()) ps.error = p.error;
  } else if (p.reply_expected) {
    AckBody body{};
    std::memcpy(&body, p.scratch.data(), sizeof body);
    if (body.errc != 0 && ps.error.ok())
      ps.error = Status(static_cast<Errc>(body.errc), "error reported by the target of an RMA operation");
  }
  return Status::Ok();
}

Status Window::round_trip(int target, OpCode op, bool exclusive) {
  auto p = issue_ctrl(target, op, exclusive);
  p->reply_expected = op != OpCode::complete;
  (void)finish_ctrl(target, *p);
  return take_error(target);
}

Status Window::flush(int target, bool local_only) {
  FTMPI_TRY(check_live());
  if (target < 0 || target >= size()) return Status(Errc::rank, "target rank out of range");
  PeerState& p = peers_[static_cast<std::size_t>(target)];
  if (!lock_all_ && p.lock == LockMode::none)
    return Status(Errc::rma_sync, "flush without a passive-target epoch (lock/lock_all) on this target");
  // Nothing to wait for (direct operations are complete): still one progress pass, so that a process
  // spinning on direct operations and flushes serves the messages others aim at it.
  if (p.pending.empty()) progress_.poll();
  (void)wait_pending(target);
  if (!local_only && p.dirty) {
    p.dirty = false;
    return round_trip(target, OpCode::flush);
  }
  return take_error(target);
}

Status Window::flush_all(bool local_only) {
  FTMPI_TRY(check_live());
  bool any = lock_all_;
  for (const PeerState& p : peers_) any = any || p.lock != LockMode::none;
  if (!any) return Status(Errc::rma_sync, "flush_all without a passive-target epoch");
  return sync_all(local_only);
}

Status Window::sync_all(bool local_only) {
  // All targets in parallel: wait the local requests, then one flush round trip per dirty target.
  std::vector<std::pair<int, std::shared_ptr<Pending>>> trips;
  progress_.poll();  // at least one pass (see flush)
  for (int r = 0; r < size(); ++r) {
    PeerState& p = peers_[static_cast<std::size_t>(r)];
    if (!p.pending.empty() || p.direct_done) (void)wait_pending(r);
    if (!local_only && p.dirty) {
      p.dirty = false;
      auto c = issue_ctrl(r, OpCode::flush, false);
      c->reply_expected = true;
      trips.emplace_back(r, std::move(c));
    }
  }
  for (auto& [r, c] : trips) (void)finish_ctrl(r, *c);
  Status first;
  for (int r = 0; r < size(); ++r) {
    Status st = take_error(r);
    if (!st.ok() && first.ok()) first = std::move(st);
  }
  return first;
}

Status Window::fence_flush(int assert_flags) {
  FTMPI_TRY(check_live());
  if (lock_all_ || access_open_ || exposure_open_)
    return Status(Errc::rma_sync, "MPI_Win_fence inside a lock or PSCW epoch");
  for (const PeerState& p : peers_)
    if (p.lock != LockMode::none) return Status(Errc::rma_sync, "MPI_Win_fence inside a lock epoch");
  (void)assert_flags;  // NOPRECEDE promises nothing to flush; flushing nothing costs nothing
  return sync_all(false);
}

void Window::fence_done(int assert_flags) { fence_epoch_ = (assert_flags & kModeNoSucceed) == 0; }

Status Window::lock(bool exclusive, int target, int assert_flags) {
  FTMPI_TRY(check_live());
  if (target < 0 || target >= size()) return Status(Errc::rank, "target rank out of range");
  PeerState& p = peers_[static_cast<std::size_t>(target)];
  if (p.lock != LockMode::none || lock_all_)
    return Status(Errc::rma_sync, "this window is already locked at this target by this process");
  if (access_open_) return Status(Errc::rma_sync, "MPI_Win_lock inside a PSCW access epoch");
  fence_epoch_ = false;
  if (!(assert_flags & kModeNoCheck)) {
    Status st = round_trip(target, OpCode::lock, exclusive);
    if (!st.ok()) return st;
  }
  p.lock = exclusive ? LockMode::exclusive : LockMode::shared;
  p.nocheck = (assert_flags & kModeNoCheck) != 0;
  return Status::Ok();
}

Status Window::unlock(int target) {
  FTMPI_TRY(check_live());
  if (target < 0 || target >= size()) return Status(Errc::rank, "target rank out of range");
  PeerState& p = peers_[static_cast<std::size_t>(target)];
  if (p.lock == LockMode::none) return Status(Errc::rma_sync, "MPI_Win_unlock without a matching MPI_Win_lock");
  (void)wait_pending(target);
  p.lock = LockMode::none;
  p.dirty = false;
  if (p.nocheck) return round_trip(target, OpCode::flush);
  return round_trip(target, OpCode::unlock);
}

Status Window::lock_all(int assert_flags) {
  FTMPI_TRY(check_live());
  if (lock_all_) return Status(Errc::rma_sync, "MPI_Win_lock_all twice");
  if (access_open_) return Status(Errc::rma_sync, "MPI_Win_lock_all inside a PSCW access epoch");
  for (const PeerState& p : peers_)
    if (p.lock != LockMode::none) return Status(Errc::rma_sync, "MPI_Win_lock_all while holding a lock");
  fence_epoch_ = false;
  lock_all_nocheck_ = (assert_flags & kModeNoCheck) != 0;
  lock_all_ = true;
  if (lock_all_nocheck_) return Status::Ok();
  std::vector<std::shared_ptr<Pending>> trips;
  for (int r = 0; r < size(); ++r) {
    trips.push_back(issue_ctrl(r, OpCode::lock, false));
    trips.back()->reply_expected = true;
  }
  for (int r = 0; r < size(); ++r) (void)finish_ctrl(r, *trips[static_cast<std::size_t>(r)]);
  Status first;
  for (int r = 0; r < size(); ++r) {
    Status st = take_error(r);
    if (!st.ok() && first.ok()) first = std::move(st);
  }
  return first;
}

Status Window::unlock_all() {
  FTMPI_TRY(check_live());
  if (!lock_all_) return Status(Errc::rma_sync, "MPI_Win_unlock_all without MPI_Win_lock_all");
  lock_all_ = false;
  std::vector<std::shared_ptr<Pending>> trips;
  for (int r = 0; r < size(); ++r) {
    PeerState& p = peers_[static_cast<std::size_t>(r)];
    (void)wait_pending(r);
    if (lock_all_nocheck_ && !p.dirty) {
      trips.push_back(nullptr);
      continue;
    }
    p.dirty = false;
    trips.push_back(issue_ctrl(r, lock_all_nocheck_ ? OpCode::flush : OpCode::unlock, false));
    trips.back()->reply_expected = true;
  }
  for (int r = 0; r < size(); ++r)
    if (trips[static_cast<std::size_t>(r)]) (void)finish_ctrl(r, *trips[static_cast<std::size_t>(r)]);
  Status first;
  for (int r = 0; r < size(); ++r) {
    Status st = take_error(r);
    if (!st.ok() && first.ok()) first = std::move(st);
  }
  return first;
}

Status Window::post(const std::vector<int>& ranks, int assert_flags) {
  FTMPI_TRY(check_live());
  if (exposure_open_) return Status(Errc::rma_sync, "MPI_Win_post while an exposure epoch is open");
  exposure_open_ = true;
  exposure_group_ = ranks;
  fence_epoch_ = false;
  if (assert_flags & kModeNoCheck) return Status::Ok();
  static const char kNothing = 0;
  for (int r : ranks) {
    p2p::Request* s = nullptr;
    p2p::SendArgs a{&kNothing, 0, byte_type(), r, kPostTag, rep_};
    Status st = engine_.isend(a, &s);
    if (!st.ok()) return st;
    engine_.release(s);  // zero bytes: nothing to keep alive; a failure shows at the origin's start
  }
  return Status::Ok();
}

Status Window::start(const std::vector<int>& ranks, int assert_flags) {
  FTMPI_TRY(check_live());
  if (access_open_) return Status(Errc::rma_sync, "MPI_Win_start while an access epoch is open");
  if (lock_all_) return Status(Errc::rma_sync, "MPI_Win_start inside a lock_all epoch");
  fence_epoch_ = false;
  Status first;
  if (!(assert_flags & kModeNoCheck)) {
    std::vector<p2p::Request*> rs;
    for (int r : ranks) {
      p2p::Request* q = nullptr;
      p2p::RecvArgs a{nullptr, 0, byte_type(), r, kPostTag, rep_};
      Status st = engine_.irecv(a, &q);
      if (!st.ok()) return st;
      rs.push_back(q);
    }
    progress_.wait_until([&] { return std::all_of(rs.begin(), rs.end(), [](auto* q) { return q->complete; }); });
    for (p2p::Request* q : rs) {
      if (!q->error.ok() && first.ok()) first = q->error;
      engine_.release(q);
    }
  }
  if (!first.ok()) return first;
  access_group_ = ranks;
  access_open_ = true;
  return Status::Ok();
}

Status Window::complete() {
  FTMPI_TRY(check_live());
  if (!access_open_) return Status(Errc::rma_sync, "MPI_Win_complete without MPI_Win_start");
  access_open_ = false;
  std::vector<std::shared_ptr<Pending>> sends;
  for (int r : access_group_) {
    (void)wait_pending(r);
    peers_[static_cast<std::size_t>(r)].dirty = false;
    sends.push_back(issue_ctrl(r, OpCode::complete, false));
  }
  for (std::size_t i = 0; i < sends.size(); ++i) (void)finish_ctrl(access_group_[i], *sends[i]);
  Status first;
  for (int r : access_group_) {
    Status st = take_error(r);
    if (!st.ok() && first.ok()) first = std::move(st);
  }
  access_group_.clear();
  return first;
}

Status Window::wait_exposure(bool test_only, bool* done) {
  FTMPI_TRY(check_live());
  if (!exposure_open_) return Status(Errc::rma_sync, "MPI_Win_wait/test without MPI_Win_post");
  bool dead = false;
  auto ready = [&] {
    dead = false;
    for (int r : exposure_group_) {
      if (completes_from_[static_cast<std::size_t>(r)] > 0) continue;
      if (failures_ && failures_->epoch() != 0 && failures_->failed(req_->world_rank(r))) {
        dead = true;
        continue;
      }
      return false;
    }
    return true;
  };
  if (test_only) {
    progress_.poll();
    if (!ready()) {
      *done = false;
      return check_live();
    }
  } else {
    progress_.wait_until([&] { return ready() || !check_live().ok(); });
    FTMPI_TRY(check_live());
  }
  if (done) *done = true;
  for (int r : exposure_group_)
    if (completes_from_[static_cast<std::size_t>(r)] > 0) --completes_from_[static_cast<std::size_t>(r)];
  exposure_open_ = false;
  exposure_group_.clear();
  if (dead) return Status(Errc::proc_failed, "an origin of this exposure epoch failed before MPI_Win_complete");
  return Status::Ok();
}

}  // namespace ftmpi::rma
