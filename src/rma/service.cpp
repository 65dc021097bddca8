// Target half of a window: the Service executes the operations other processes (and this one) aim at the
// local window memory (model in rma/window.h).
//
// State machine, advanced on every engine progress pass:
//   listening  -- header complete --> execute it (puts, gets, accumulates, locks, flush, complete), repost
//              -- header with an extension --> extending (the listen is not reposted: later messages of
//                 every origin wait, so operations are applied strictly in arrival order)
//   extending  -- extension complete --> execute, repost --> listening
// A listen completed with an error (the window's communicators were revoked) or cancelled (Win_free)
// stops the Service. Replies are sent from buffers kept in `out_` until their send completes.
#include <algorithm>
#include <cstring>
#include <optional>

#include "datatype/builtin_types.h"
#include "ft/failure_state.h"
#include "rma/acc_apply.h"
#include "rma/region_cover.h"
#include "rma/window.h"

namespace ftmpi::rma {

namespace {
const dt::Datatype* byte_type() { return dt::builtin(dt::Basic::byte); }
constexpr std::size_t kInbox = kInlineMax + 256;

void gather(const std::byte* base, const OpHdr& h, const WireBlock* blocks, std::byte* out) {
  if (h.target_blocks == 0) {
    std::memcpy(out, base, h.count * h.type_size);
    return;
  }
  for (std::uint64_t i = 0; i < h.count; ++i) {
    const std::byte* e = base + static_cast<std::int64_t>(i) * h.type_extent;
    for (std::uint32_t b = 0; b < h.target_blocks; ++b) {
      std::memcpy(out, e + blocks[b].offset, blocks[b].length);
      out += blocks[b].length;
    }
  }
}

void scatter(std::byte* base, const OpHdr& h, const WireBlock* blocks, const std::byte* in) {
  if (h.target_blocks == 0) {
    std::memcpy(base, in, h.count * h.type_size);
    return;
  }
  for (std::uint64_t i = 0; i < h.count; ++i) {
    std::byte* e = base + static_cast<std::int64_t>(i) * h.type_extent;
    for (std::uint32_t b = 0; b < h.target_blocks; ++b) {
      std::memcpy(e + blocks[b].offset, in, blocks[b].length);
      in += blocks[b].length;
    }
  }
}
}  // namespace

bool Service::post_listen() {
  inbox_.resize(kInbox);
  p2p::RecvArgs a{inbox_.data(), kInbox, byte_type(), -1 /* MPI_ANY_SOURCE */, kRequestTag, w_->req_};
  Status st = w_->engine_.irecv(a, &listen_);
  if (!st.ok()) {
    listen_ = nullptr;
    return false;
  }
  return true;
}

bool Service::progress() {
  if (stopped_) return true;
  if (!out_.empty())
    out_.erase(std::remove_if(out_.begin(), out_.end(), [](auto& p) { return p->poll(); }), out_.end());
  if (w_->failures_ && w_->failures_->epoch() != seen_epoch_) {
    seen_epoch_ = w_->failures_->epoch();
    release_dead_holders();
  }
  for (int round = 0; round < 64; ++round) {
    if (ext_) {
      if (!ext_->complete) return false;
      const bool ok = ext_->error.ok();
      w_->engine_.release(ext_);
      ext_ = nullptr;
      if (ok && !ext_direct_) {
        auto* blocks = reinterpret_cast<const WireBlock*>(ext_buf_.data());
        execute(ext_src_, ext_hdr_, blocks, ext_buf_.data() + ext_hdr_.target_blocks * sizeof(WireBlock));
      } else if (!ok && w_->origin_error_[static_cast<std::size_t>(ext_src_)].ok()) {
        w_->origin_error_[static_cast<std::size_t>(ext_src_)] = Status(Errc::other, "RMA data transfer failed");
      }
      ext_buf_.clear();
      ext_buf_.shrink_to_fit();
      if (!post_listen()) return stopped_ = true;
    }
    if (!listen_) return stopped_ = true;
    if (!listen_->complete) return false;
    const bool ok = listen_->error.ok() && !listen_->status.cancelled;
    const int src = listen_->status.source;
    const std::size_t len = listen_->status.bytes;
    w_->engine_.release(listen_);
    listen_ = nullptr;
    if (!ok) return stopped_ = true;  // revoked or cancelled: the window is closing
    handle(src, inbox_.data(), len);
    if (!ext_ && !post_listen()) return stopped_ = true;
  }
  return false;
}

void Service::handle(int src, const std::byte* msg, std::size_t len) {
  if (len < sizeof(OpHdr) || src < 0 || src >= w_->size()) return;  // not ours: ignore
  OpHdr h;
  std::memcpy(&h, msg, sizeof h);
  if (h.ext_tag == 0) {
    const auto* blocks = reinterpret_cast<const WireBlock*>(msg + sizeof(OpHdr));
    execute(src, h, blocks, msg + sizeof(OpHdr) + h.target_blocks * sizeof(WireBlock));
    return;
  }
  // The inline part travels separately (rep, tag ext_tag).
  ext_src_ = src;
  ext_hdr_ = h;
  ext_direct_ = false;
  void* into = nullptr;
  std::size_t n = h.target_blocks * sizeof(WireBlock) + h.data_bytes;
  if (h.op == OpCode::put && h.target_blocks == 0) {
    std::byte* base = nullptr;
    if (locate(src, h, nullptr, &base).ok()) {
      into = base;
      ext_direct_ = true;
    }
  }
  if (!into) {
    ext_buf_.resize(n);
    into = ext_buf_.data();
  }
  p2p::RecvArgs a{into, n, byte_type(), src, h.ext_tag, w_->rep_};
  if (!w_->engine_.irecv(a, &ext_).ok()) {
    ext_ = nullptr;
    ext_buf_.clear();
  }
}

// Where the target region starts in local memory, after checking that every byte it touches lies in the
// window (static windows) or in attached regions (dynamic windows; several if adjacent in memory).
Status Service::locate(int src, const OpHdr& h, const WireBlock* blocks, std::byte** base) {
  (void)src;
  std::int64_t lo = 0, hi = static_cast<std::int64_t>(h.type_size);
  if (h.target_blocks > 0) {
    lo = INT64_MAX;
    hi = INT64_MIN;
    for (std::uint32_t b = 0; b < h.target_blocks; ++b) {
      lo = std::min<std::int64_t>(lo, blocks[b].offset);
      hi = std::max<std::int64_t>(hi, blocks[b].offset + static_cast<std::int64_t>(blocks[b].length));
    }
  }
  if (h.count > 0) {
    const std::int64_t last = static_cast<std::int64_t>(h.count - 1) * h.type_extent;
    lo += std::min<std::int64_t>(0, last);
    hi += std::max<std::int64_t>(0, last);
  } else {
    lo = hi = 0;
  }
  if (w_->flavor == Flavor::dynamic) {
    const auto a = static_cast<std::int64_t>(h.disp);
    // Several attached regions adjacent in memory hold a range together (rma/region_cover.h).
    if (a + lo >= 0 && regions_hold(w_->attached.data(), w_->attached.size(), static_cast<std::uint64_t>(a + lo),
                                    static_cast<std::uint64_t>(a + hi))) {
      *base = reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(a));
      return Status::Ok();
    }
    if (h.count == 0) {
      *base = nullptr;
      return Status::Ok();
    }
    return Status(Errc::rma_range, "target address range is not attached to the dynamic window");
  }
  const auto off = static_cast<std::int64_t>(h.disp) * w_->disp_unit;
  if (static_cast<std::int64_t>(h.disp) < 0 || off + lo < 0 || off + hi > static_cast<std::int64_t>(w_->bytes))
    return Status(Errc::rma_range, "target range outside the window");
  *base = static_cast<std::byte*>(w_->base) + off;
  return Status::Ok();
}

void Service::reply(int dst, int tag, const void* buf, std::size_t len, bool copy) {
  auto p = std::make_unique<Pending>();
  p->engine = &w_->engine_;
  const void* from = buf;
  if (copy) {
    p->buf.assign(static_cast<const std::byte*>(buf), static_cast<const std::byte*>(buf) + len);
    from = p->buf.data();
  }
  p2p::SendArgs a{from, len, byte_type(), dst, tag, w_->rep_};
  if (!w_->engine_.isend(a, &p->send).ok()) return;
  out_.push_back(std::move(p));
}

void Service::ack(int dst, int tag) {
  Status& e = w_->origin_error_[static_cast<std::size_t>(dst)];
  AckBody b{static_cast<std::int32_t>(e.code()), 0};
  e = Status::Ok();
  reply(dst, tag, &b, sizeof b, true);
}

void Service::execute(int src, const OpHdr& h, const WireBlock* blocks, const std::byte* data) {
  Status& err = w_->origin_error_[static_cast<std::size_t>(src)];
  auto note = [&](Status st) {
    if (!st.ok() && err.ok()) err = std::move(st);
  };
  const std::size_t bytes = h.count * h.type_size;
  // Accumulates follow rma/acc_apply.h: element-wise, lock-free on atomic elements, otherwise under this
  // member's AccLock, which direct origins take too.
  const TargetShape shape{h.count, h.type_size, h.type_extent, h.target_blocks ? blocks : nullptr, h.target_blocks};
  std::optional<AccGuard> acc_guard;
  auto guard_for = [&](const std::byte* base, const dt::Datatype* unit) {
    if (w_->own_lock && !(w_->atomic_elems && lock_free(base, shape, unit))) acc_guard.emplace(w_->own_lock);
  };
  switch (h.op) {
    case OpCode::put: {
      std::byte* base = nullptr;
      Status st = locate(src, h, blocks, &base);
      if (!st.ok()) return note(std::move(st));
      if (h.data_bytes != bytes) return note(Status(Errc::type, "origin and target data sizes differ"));
      return scatter(base, h, blocks, data);
    }
    case OpCode::acc:
    case OpCode::get_acc: {
      const bool fetch = h.op == OpCode::get_acc;
      std::byte* base = nullptr;
      Status st = locate(src, h, blocks, &base);
      if (!st.ok()) {
        note(std::move(st));
        if (fetch) reply(src, h.reply_tag, nullptr, 0, false);
        return;
      }
      const auto kind = static_cast<dt::OpKind>(h.op_kind);
      const dt::Datatype* t = dt::builtin(static_cast<dt::Basic>(h.basic));
      const bool has_in = kind != dt::OpKind::no_op;
      Status bad;
      if (!t || t->size == 0) bad = Status(Errc::type, "accumulate needs a target type of one basic type");
      else if (has_in && h.data_bytes != bytes) bad = Status(Errc::type, "origin and target data sizes differ");
      if (!bad.ok()) {
        note(std::move(bad));
        if (fetch) reply(src, h.reply_tag, nullptr, 0, false);
        return;
      }
      std::vector<std::byte> old(fetch ? bytes : 0);
      if (bytes > 0) {
        guard_for(base, t);
        acc_apply(base, shape, t, kind, has_in ? data : nullptr, fetch ? old.data() : nullptr, w_->atomic_elems);
        acc_guard.reset();
      }
      if (fetch) reply(src, h.reply_tag, old.data(), bytes, true);
      return;
    }
    case OpCode::get: {
      std::byte* base = nullptr;
      Status st = locate(src, h, blocks, &base);
      if (!st.ok()) {
        note(std::move(st));
        return reply(src, h.reply_tag, nullptr, 0, false);
      }
      if (h.target_blocks == 0)  // large: straight from the window (kept until Win_free)
        return reply(src, h.reply_tag, base, bytes, bytes <= kInlineMax);
      std::vector<std::byte> tmp(bytes);
      gather(base, h, blocks, tmp.data());
      return reply(src, h.reply_tag, tmp.data(), bytes, true);
    }
    case OpCode::cas: {
      std::byte* base = nullptr;
      Status st = locate(src, h, blocks, &base);
      const dt::Datatype* t = dt::builtin(static_cast<dt::Basic>(h.basic));
      if (st.ok() && (!t || t->size != h.type_size || h.target_blocks != 0))
        st = Status(Errc::type, "compare-and-swap needs one predefined element");
      if (!st.ok()) {
        note(std::move(st));
        return reply(src, h.reply_tag, nullptr, 0, false);
      }
      std::vector<std::byte> old(h.type_size);
      guard_for(base, t);
      cas_apply(base, t, data, data + h.type_size, old.data(), w_->atomic_elems);
      acc_guard.reset();
      reply(src, h.reply_tag, old.data(), old.size(), true);
      return;
    }
    case OpCode::lock: {
      LockTable& L = w_->locks_;
      const bool ex = h.lock_exclusive != 0;
      if (L.waiting.empty() && L.can_grant(ex)) {
        if (ex) L.exclusive = src; else ++L.shared[src];
        ack(src, h.reply_tag);
      } else {
        L.waiting.push_back({src, ex, h.reply_tag});
      }
      return;
    }
    case OpCode::unlock: {
      LockTable& L = w_->locks_;
      if (L.exclusive == src) {
        L.exclusive = -1;
      } else if (auto it = L.shared.find(src); it != L.shared.end()) {
        if (--it->second == 0) L.shared.erase(it);
      } else {
        note(Status(Errc::rma_sync, "unlock of a lock this origin does not hold"));
      }
      ack(src, h.reply_tag);
      grant_waiters();
      return;
    }
    case OpCode::flush: return ack(src, h.reply_tag);
    case OpCode::complete: ++w_->completes_from_[static_cast<std::size_t>(src)]; return;
  }
}

void Service::grant_waiters() {
  LockTable& L = w_->locks_;
  while (!L.waiting.empty() && L.can_grant(L.waiting.front().exclusive)) {
    LockTable::Waiter q = L.waiting.front();
    L.waiting.pop_front();
    if (q.exclusive) L.exclusive = q.rank; else ++L.shared[q.rank];
    ack(q.rank, q.reply_tag);
  }
}

// A lock held by (or requested by) a process that failed is released (seed 000 §1.2.3).
void Service::release_dead_holders() {
  LockTable& L = w_->locks_;
  auto dead = [&](int r) { return w_->failures_->failed(w_->req_->world_rank(r)); };
  if (L.exclusive >= 0 && dead(L.exclusive)) L.exclusive = -1;
  for (auto it = L.shared.begin(); it != L.shared.end();) it = dead(it->first) ? L.shared.erase(it) : std::next(it);
  L.waiting.erase(std::remove_if(L.waiting.begin(), L.waiting.end(), [&](auto& q) { return dead(q.rank); }),
                  L.waiting.end());
  grant_waiters();
}

}  // namespace ftmpi::rma
