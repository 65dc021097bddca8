// The origin's fast path (declared in rma/window.h): inline, so that the common one-sided call on a
// same-host mapped window — MPI_Put/MPI_Get of a predefined type, MPI_Accumulate/MPI_Get_accumulate/
// MPI_Fetch_and_op with MPI_SUM/REPLACE/NO_OP/BAND/BOR/BXOR on a 4/8-byte integer or floating type,
// MPI_Compare_and_swap of a 4/8-byte type — costs its checks plus one memcpy or one hardware atomic, with no
// Status objects and no calls. Everything else (and every error) goes the general way (window.cpp,
// window_direct.cpp), which gives the same results: the accumulates obey rma/acc_apply.h's rule whichever
// path applies them.
#pragma once
#include <cstring>

#include "ft/failure_state.h"
#include "rma/acc_apply.h"
#include "rma/window.h"

namespace ftmpi::rma {

inline std::byte* Window::fast_target(int rank, std::int64_t disp, std::size_t bytes, bool need_atomics) {
  if (rank < 0 || rank >= static_cast<int>(direct.size()) || disp < 0) return nullptr;
  const auto r = static_cast<std::size_t>(rank);
  const DirectPeer& d = direct[r];
  if (d.how != Access::mapped || d.regions || (need_atomics && !d.atomics)) return nullptr;
  PeerState& p = peers_[r];
  if (!(fence_epoch_ || lock_all_ || p.lock != LockMode::none)) return nullptr;  // PSCW, errors: general path
  if (invalidated_ || req_->revoked.load(std::memory_order_relaxed) || rep_->revoked.load(std::memory_order_relaxed))
    return nullptr;
  const std::uint64_t off = static_cast<std::uint64_t>(disp) * static_cast<std::uint64_t>(peer_disp_unit[r]);
  if (off + bytes > peer_bytes[r] || off + bytes < off) return nullptr;
  if (failures_ && failures_->epoch() != 0 && failures_->failed(req_->world_rank(rank))) return nullptr;
  p.direct_done = true;
  return reinterpret_cast<std::byte*>(d.base + off);
}

inline bool Window::fast_put(const void* obuf, std::size_t count, const dt::Datatype* type, int rank,
                             std::int64_t disp) {
  if (!type->predefined || !type->contiguous || count == 0) return false;
  const std::size_t bytes = count * type->size;
  std::byte* at = fast_target(rank, disp, bytes, false);
  if (!at) return false;
  std::memcpy(at, obuf, bytes);
  return true;
}

inline bool Window::fast_get(void* rbuf, std::size_t count, const dt::Datatype* type, int rank, std::int64_t disp) {
  if (!type->predefined || !type->contiguous || count == 0) return false;
  const std::size_t bytes = count * type->size;
  std::byte* at = fast_target(rank, disp, bytes, false);
  if (!at) return false;
  std::memcpy(rbuf, at, bytes);
  return true;
}

inline bool Window::fast_acc(const void* obuf, void* rbuf, std::size_t count, const dt::Datatype* type, int rank,
                             std::int64_t disp, const dt::Op* op) {
  if (!type->predefined || !type->contiguous || !op->predefined || (type->size != 4 && type->size != 8) || count == 0)
    return false;
  std::byte* at = fast_target(rank, disp, count * type->size, true);
  if (!at) return false;
  return acc_fast(at, count, type, op->kind, static_cast<const std::byte*>(obuf), static_cast<std::byte*>(rbuf));
}

inline bool Window::fast_cas(const void* obuf, const void* cbuf, void* rbuf, const dt::Datatype* type, int rank,
                             std::int64_t disp) {
  if (!type->predefined || (type->size != 4 && type->size != 8) || type->extent != static_cast<std::ptrdiff_t>(type->size))
    return false;
  std::byte* at = fast_target(rank, disp, type->size, true);
  if (!at || (reinterpret_cast<std::uintptr_t>(at) & (type->size - 1))) return false;
  cas_apply(at, type, obuf, cbuf, rbuf, true);
  return true;
}

}  // namespace ftmpi::rma
