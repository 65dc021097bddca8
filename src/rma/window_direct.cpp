// Origin half, direct path: operations toward a same-host target whose memory is mapped here (rma/direct.h)
// or reachable by process_vm_readv/writev (rma/cma.h). Accumulates follow rma/acc_apply.h's atomicity rule.
// A direct operation is complete when its call returns; its error (a dead target, an unattached range) is
// recorded for the synchronisation that completes it, as a message operation's would be.
#include <algorithm>
#include <cstring>
#include <vector>

#include "datatype/builtin_types.h"
#include "ft/failure_state.h"
#include "progress/progress.h"
#include "rma/acc_apply.h"
#include "rma/window.h"

namespace ftmpi::rma {

namespace {

// Waiting for a busy accumulate lock keeps the engine turning (our own Service may need the same lock).
void idle_progress(void* ctx) { static_cast<progress::Progress*>(ctx)->poll(); }

struct AliveCtx {
  const Window* w;
  int target;
  bool (*failed)(const Window*, int);
};

// The shape of `count` x `type` (blocks filled for a non-contiguous type).
TargetShape shape_of(std::size_t count, const dt::Datatype* type, std::vector<WireBlock>* blocks) {
  TargetShape s;
  s.count = count;
  s.type_size = type->size;
  s.extent = type->extent;
  if (!type->contiguous) {
    for (const dt::Block& b : dt::flatten(type))
      blocks->push_back(WireBlock{static_cast<std::int64_t>(b.offset), static_cast<std::uint64_t>(b.length)});
    s.blocks = blocks->data();
    s.nblocks = static_cast<std::uint32_t>(blocks->size());
  }
  return s;
}

}  // namespace

int Window::direct_begin(const Target& t, std::uintptr_t* at, std::shared_ptr<Pending>* out) {
  if (direct.empty()) return -1;
  const DirectPeer& d = direct[static_cast<std::size_t>(t.rank)];
  if (d.how == Access::msg) return -1;
  const std::int64_t off = static_cast<std::int64_t>(t.disp) * peer_disp_unit[static_cast<std::size_t>(t.rank)];
  *at = d.base + static_cast<std::uintptr_t>(off);
  int ok = 1;
  if (d.regions && t.count > 0) {  // dynamic window: the range must be attached at the target
    const std::int64_t last = static_cast<std::int64_t>(t.count - 1) * t.type->extent;
    const std::uint64_t lo = *at + static_cast<std::uint64_t>(t.type->true_lb + std::min<std::int64_t>(0, last));
    const std::uint64_t hi =
        *at + static_cast<std::uint64_t>(t.type->true_lb + t.type->true_extent + std::max<std::int64_t>(0, last));
    AliveCtx ctx{this, t.rank, [](const Window* w, int r) { return w->target_failed(r); }};
    ok = regions_cover(
        d.regions, lo, hi, [](void* c) { auto* a = static_cast<AliveCtx*>(c); return !a->failed(a->w, a->target); },
        &ctx);
    if (ok < 0) return -1;  // the target attached more regions than its table holds: messages
  }
  PeerState& p = peers_[static_cast<std::size_t>(t.rank)];
  p.direct_done = true;
  if (out) {
    *out = std::make_shared<Pending>();
    (*out)->engine = &engine_;
  }
  if (target_failed(t.rank)) {
    direct_note(t.rank, Status(Errc::proc_failed, "the target of a one-sided operation failed"), out);
    return 0;
  }
  if (!ok) {
    direct_note(t.rank, Status(Errc::rma_range, "target address range is not attached to the dynamic window"), out);
    return 0;
  }
  return 1;
}

void Window::direct_note(int target, Status st, std::shared_ptr<Pending>* out) {
  if (st.ok()) return;
  if (out && *out && (*out)->error.ok()) (*out)->error = st;
  PeerState& p = peers_[static_cast<std::size_t>(target)];
  if (p.error.ok()) p.error = std::move(st);
}

Status Window::direct_put(const DirectPeer& d, std::uintptr_t at, const void* obuf, std::size_t ocount,
                          const dt::Datatype* otype, const Target& t) {
  if (d.how == Access::mapped) {
    rma::direct_put(reinterpret_cast<std::byte*>(at), t.count, t.type, obuf, ocount, otype);
    return Status::Ok();
  }
  const std::size_t bytes = dt::packed_size(t.type, t.count);
  if (bytes == 0) return Status::Ok();
  std::vector<Run> runs;
  cma::runs_of(at, t.count, t.type, &runs);
  if (otype->contiguous) return cma::write(d.pid, obuf, bytes, runs.data(), runs.size());
  std::vector<std::byte> tmp(bytes);
  dt::pack(obuf, ocount, otype, tmp.data());
  return cma::write(d.pid, tmp.data(), bytes, runs.data(), runs.size());
}

Status Window::direct_get(const DirectPeer& d, std::uintptr_t at, void* rbuf, std::size_t rcount,
                          const dt::Datatype* rtype, const Target& t) {
  if (d.how == Access::mapped) {
    rma::direct_get(reinterpret_cast<const std::byte*>(at), t.count, t.type, rbuf, rcount, rtype);
    return Status::Ok();
  }
  const std::size_t bytes = dt::packed_size(t.type, t.count);
  if (bytes == 0) return Status::Ok();
  std::vector<Run> runs;
  cma::runs_of(at, t.count, t.type, &runs);
  if (rtype->contiguous) return cma::read(d.pid, rbuf, bytes, runs.data(), runs.size());
  std::vector<std::byte> tmp(bytes);
  FTMPI_TRY(cma::read(d.pid, tmp.data(), bytes, runs.data(), runs.size()));
  dt::unpack(tmp.data(), bytes, rtype, rbuf);
  return Status::Ok();
}

Status Window::direct_acc(const DirectPeer& d, std::uintptr_t at, const void* obuf, std::size_t ocount,
                          const dt::Datatype* otype, const Target& t, const dt::Op* op, void* rbuf, std::size_t rcount,
                          const dt::Datatype* rtype) {
  const std::size_t bytes = dt::packed_size(t.type, t.count);
  if (bytes == 0) return Status::Ok();
  const dt::Datatype* unit = t.type->predefined ? t.type : dt::builtin(t.type->basic);
  if (!unit || unit->size == 0) return Status(Errc::type, "accumulate needs a target type of one basic type");
  // Fast path (rma/acc_apply.h acc_fast): contiguous everything, hardware atomics, no copies, no lock.
  if (d.how == Access::mapped && d.atomics && t.type->contiguous && (!obuf || otype->contiguous) &&
      (!rbuf || rtype->contiguous) &&
      acc_fast(reinterpret_cast<std::byte*>(at), bytes / unit->size, unit, op->kind,
               static_cast<const std::byte*>(obuf), static_cast<std::byte*>(rbuf)))
    return Status::Ok();
  const bool fetch = rbuf != nullptr;
  const bool has_in = op->kind != dt::OpKind::no_op && obuf != nullptr;
  // Packed operands: straight from / into the user's buffers when contiguous.
  std::vector<std::byte> in_tmp, out_tmp;
  const std::byte* in = nullptr;
  if (has_in) {
    if (otype->contiguous) {
      in = static_cast<const std::byte*>(obuf);
    } else {
      in_tmp.resize(bytes);
      dt::pack(obuf, ocount, otype, in_tmp.data());
      in = in_tmp.data();
    }
  }
  std::byte* out = nullptr;
  if (fetch) {
    if (rtype->contiguous) {
      out = static_cast<std::byte*>(rbuf);
    } else {
      out_tmp.resize(bytes);
      out = out_tmp.data();
    }
  }
  Status st;
  if (d.how == Access::mapped) {
    std::vector<WireBlock> blocks;
    const TargetShape s = shape_of(t.count, t.type, &blocks);
    auto* base = reinterpret_cast<std::byte*>(at);
    if (d.atomics && lock_free(base, s, unit)) {
      acc_apply(base, s, unit, op->kind, in, out, true);
    } else {
      AccGuard g(d.lock, idle_progress, &progress_);
      acc_apply(base, s, unit, op->kind, in, out, d.atomics);
    }
  } else {  // cma: read, apply here, write back, all under the target's AccLock
    std::vector<Run> runs;
    cma::runs_of(at, t.count, t.type, &runs);
    AccGuard g(d.lock, idle_progress, &progress_);
    if (op->kind == dt::OpKind::replace && !fetch) {
      st = cma::write(d.pid, in, bytes, runs.data(), runs.size());
    } else {
      std::vector<std::byte> cur(bytes);
      st = cma::read(d.pid, cur.data(), bytes, runs.data(), runs.size());
      if (st.ok() && fetch) std::memcpy(out, cur.data(), bytes);
      if (st.ok() && has_in) {
        if (op->kind == dt::OpKind::replace)
          std::memcpy(cur.data(), in, bytes);
        else
          dt::apply_packed(op_of(op->kind), in, cur.data(), bytes / unit->size, unit);
        st = cma::write(d.pid, cur.data(), bytes, runs.data(), runs.size());
      }
    }
  }
  if (st.ok() && fetch && !out_tmp.empty()) dt::unpack(out_tmp.data(), bytes, rtype, rbuf);
  return st;
}

Status Window::direct_cas(const DirectPeer& d, std::uintptr_t at, const void* obuf, const void* cbuf, void* rbuf,
                          const dt::Datatype* type) {
  if (d.how == Access::mapped) {
    auto* e = reinterpret_cast<std::byte*>(at);
    TargetShape s;
    s.count = 1;
    s.type_size = type->size;
    s.extent = type->extent;
    if (d.atomics && lock_free(e, s, type)) {
      cas_apply(e, type, obuf, cbuf, rbuf, true);
    } else {
      AccGuard g(d.lock, idle_progress, &progress_);
      cas_apply(e, type, obuf, cbuf, rbuf, d.atomics);
    }
    return Status::Ok();
  }
  const Run run{at, type->size};
  AccGuard g(d.lock, idle_progress, &progress_);
  std::byte old[64];
  const std::size_t n = std::min<std::size_t>(type->size, sizeof old);
  FTMPI_TRY(cma::read(d.pid, old, n, &run, 1));
  if (std::memcmp(old, cbuf, n) == 0) FTMPI_TRY(cma::write(d.pid, obuf, n, &run, 1));
  std::memcpy(rbuf, old, n);
  return Status::Ok();
}

}  // namespace ftmpi::rma
