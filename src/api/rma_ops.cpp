// One-sided communication, operations and synchronisation (MPI-3.1 §11.3-§11.5): Put, Get, Accumulate,
// Get_accumulate, Fetch_and_op, Compare_and_swap and their request-based forms; fence, PSCW, lock/unlock,
// lock_all, flush*, sync. Argument checks here; the protocol in src/rma/ (model: rma/window.h).
#include <atomic>

#include "api/rma_common.h"
#include "datatype/builtin_types.h"
#include "datatype/op.h"
#include "comm/group.h"
#include "rma/window_fast.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::rt;
using ftmpi::api::valid_type;
using ftmpi::api::win_ret;
using ftmpi::api::do_get;
using ftmpi::api::do_put;
using ftmpi::rma::Pending;
using ftmpi::rma::Window;

namespace {

// The user request of Rput/Rget/Raccumulate/Rget_accumulate: complete when the operation completed
// locally (its requests finished; an error toward a dead target is the request's error).
class RmaRequestOp final : public ftmpi::p2p::GenericOp {
 public:
  explicit RmaRequestOp(std::shared_ptr<Pending> p) : p_(std::move(p)) {}
  bool progress() override {
    if (!p_->poll()) return false;
    result = p_->error;
    return true;
  }

 private:
  std::shared_ptr<Pending> p_;
};

Status check_target(ftmpi_win_s* w, int rank, MPI_Aint disp, MPI_Count count, MPI_Datatype type) {
  if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size())) return Status(Errc::rank, "invalid target rank");
  if (count < 0) return Status(Errc::count, "negative target count");
  if (!valid_type(type)) return Status(Errc::type, "invalid target datatype");
  if (disp < 0 && w->flavor != ftmpi::rma::Flavor::dynamic)
    return Status(Errc::rma_range, "negative target displacement");
  return Status::Ok();
}

Status check_origin(const void* buf, MPI_Count count, MPI_Datatype type, bool needed) {
  (void)buf;
  if (!needed) return Status::Ok();
  if (count < 0) return Status(Errc::count, "negative origin count");
  if (!valid_type(type)) return Status(Errc::type, "invalid origin datatype");
  return Status::Ok();
}

Status check_sizes(MPI_Count ocount, MPI_Datatype otype, MPI_Count tcount, MPI_Datatype ttype) {
  if (ftmpi::dt::packed_size(otype, static_cast<std::size_t>(ocount)) !=
      ftmpi::dt::packed_size(ttype, static_cast<std::size_t>(tcount)))
    return Status(Errc::type, "origin and target type signatures differ in size");
  return Status::Ok();
}

Status check_acc_op(MPI_Op op, MPI_Datatype ttype, bool allow_no_op) {
  if (!ftmpi::dt::live(op)) return Status(Errc::op, "invalid operation");
  if (!op->predefined) return Status(Errc::op, "accumulate operations take predefined operations only");
  if (op->kind == ftmpi::dt::OpKind::no_op && !allow_no_op)
    return Status(Errc::op, "MPI_NO_OP is for MPI_Get_accumulate / MPI_Fetch_and_op");
  if (ttype->basic == ftmpi::dt::Basic::none)
    return Status(Errc::type, "accumulate target type must be built of one predefined type");
  if (op->kind == ftmpi::dt::OpKind::replace || op->kind == ftmpi::dt::OpKind::no_op) return Status::Ok();
  return ftmpi::dt::check_op(op, ftmpi::dt::builtin(ttype->basic));
}

// Passive-target only (MPI-3.1 §11.3.5).
Status check_request_epoch(ftmpi_win_s* w, int target) {
  if (target == MPI_PROC_NULL) return Status::Ok();
  if (!w->passive_epoch(target))
    return Status(Errc::rma_sync, "request-based RMA operations need a passive-target epoch (lock/lock_all)");
  return Status::Ok();
}

int with_request(ftmpi_win_s* w, Status st, std::shared_ptr<Pending> p, MPI_Request* request, const char* fn) {
  if (!st.ok()) return win_ret(w, st, fn);
  if (!p) {
    *request = rt().engine().completed_request();
    return MPI_SUCCESS;
  }
  *request = rt().engine().start_generic(std::make_unique<RmaRequestOp>(std::move(p)));
  return MPI_SUCCESS;
}

}  // namespace

// The int forms and the large-count (_c) forms (api/rma_large_count.cpp) share these: counts are 64-bit all
// the way down (the Window and its wire format carry std::size_t / uint64 counts), so nothing is narrowed.
int ftmpi::api::do_put(const void* obuf, MPI_Count ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp,
                       MPI_Count tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request* request,
                       const char* fn) {
  FTMPI_CHECK_WIN(win, fn);
  // Fast path (rma/window_fast.h): same predefined type and count on both sides, no request.
  if (!request && otype == ttype && ocount == tcount && ocount > 0 && valid_type(otype)) {
    if (op == MPI_OP_NULL) {
      if (win->fast_put(obuf, static_cast<std::size_t>(ocount), otype, trank, tdisp)) return MPI_SUCCESS;
    } else if (ftmpi::dt::live(op) && op->kind != ftmpi::dt::OpKind::no_op &&
               win->fast_acc(obuf, nullptr, static_cast<std::size_t>(ocount), otype, trank, tdisp, op)) {
      return MPI_SUCCESS;
    }
  }
  Status st = check_origin(obuf, ocount, otype, true);
  if (st.ok()) st = check_target(win, trank, tdisp, tcount, ttype);
  if (st.ok()) st = check_sizes(ocount, otype, tcount, ttype);
  if (st.ok() && op != MPI_OP_NULL) st = check_acc_op(op, ttype, false);
  if (st.ok() && request) st = check_request_epoch(win, trank);
  if (!st.ok()) return win_ret(win, st, fn);
  std::shared_ptr<Pending> p;
  if (trank != MPI_PROC_NULL)
    st = win->put(obuf, static_cast<std::size_t>(ocount), otype,
                  Window::Target{trank, static_cast<std::uint64_t>(tdisp), static_cast<std::size_t>(tcount), ttype},
                  op == MPI_OP_NULL ? nullptr : op, request ? &p : nullptr);
  if (request) return with_request(win, std::move(st), std::move(p), request, fn);
  return win_ret(win, st, fn);
}

int ftmpi::api::do_get(const void* obuf, MPI_Count ocount, MPI_Datatype otype, void* rbuf, MPI_Count rcount,
                       MPI_Datatype rtype, int trank, MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op op,
                       MPI_Win win, MPI_Request* request, const char* fn) {
  FTMPI_CHECK_WIN(win, fn);
  const bool has_origin = op != MPI_OP_NULL && ftmpi::dt::live(op) && op->kind != ftmpi::dt::OpKind::no_op;
  // Fast path (rma/window_fast.h): same predefined type and count everywhere, no request.
  if (!request && rtype == ttype && rcount == tcount && rcount > 0 && valid_type(rtype)) {
    if (op == MPI_OP_NULL) {
      if (win->fast_get(rbuf, static_cast<std::size_t>(rcount), rtype, trank, tdisp)) return MPI_SUCCESS;
    } else if (ftmpi::dt::live(op) && (!has_origin || (otype == ttype && ocount == tcount)) &&
               win->fast_acc(has_origin ? obuf : nullptr, rbuf, static_cast<std::size_t>(rcount), rtype, trank, tdisp,
                             op)) {
      return MPI_SUCCESS;
    }
  }
  Status st = check_origin(rbuf, rcount, rtype, true);
  if (st.ok()) st = check_origin(obuf, ocount, otype, has_origin);
  if (st.ok()) st = check_target(win, trank, tdisp, tcount, ttype);
  if (st.ok()) st = check_sizes(rcount, rtype, tcount, ttype);
  if (st.ok() && has_origin) st = check_sizes(ocount, otype, tcount, ttype);
  if (st.ok() && op != MPI_OP_NULL) st = check_acc_op(op, ttype, true);
  if (st.ok() && request) st = check_request_epoch(win, trank);
  if (!st.ok()) return win_ret(win, st, fn);
  std::shared_ptr<Pending> p;
  if (trank != MPI_PROC_NULL)
    st = win->get(rbuf, static_cast<std::size_t>(rcount), rtype, obuf, has_origin ? static_cast<std::size_t>(ocount) : 0,
                  has_origin ? otype : nullptr,
                  Window::Target{trank, static_cast<std::uint64_t>(tdisp), static_cast<std::size_t>(tcount), ttype},
                  op == MPI_OP_NULL ? nullptr : op, request ? &p : nullptr);
  if (request) return with_request(win, std::move(st), std::move(p), request, fn);
  return win_ret(win, st, fn);
}

namespace {

std::vector<int> group_ranks(MPI_Group group, ftmpi_win_s* w, Status* st) {
  std::vector<int> out;
  MPI_Group wg = MPI_GROUP_NULL;
  PMPI_Comm_group(w->req_comm(), &wg);
  int n = 0;
  if (PMPI_Group_size(group, &n) != MPI_SUCCESS) {
    *st = Status(Errc::group, "invalid group");
    PMPI_Group_free(&wg);
    return out;
  }
  std::vector<int> in(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
  out.resize(static_cast<std::size_t>(n));
  if (n > 0) PMPI_Group_translate_ranks(group, n, in.data(), wg, out.data());
  PMPI_Group_free(&wg);
  for (int r : out)
    if (r == MPI_UNDEFINED) *st = Status(Errc::group, "group member not in the window's group");
  return out;
}

Status check_assert(int a) {
  const int all = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;
  if (a & ~all) return Status(Errc::assert_, "unknown assertion bits");
  return Status::Ok();
}

}  // namespace

static_assert(MPI_MODE_NOCHECK == ftmpi::rma::kModeNoCheck && MPI_MODE_NOSUCCEED == ftmpi::rma::kModeNoSucceed);

extern "C" int PMPI_Put(const void* obuf, int ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp, int tcount,
                        MPI_Datatype ttype, MPI_Win win) {
  FTMPI_ENTER("MPI_Put");
  return do_put(obuf, ocount, otype, trank, tdisp, tcount, ttype, MPI_OP_NULL, win, nullptr, "MPI_Put");
}
FTMPI_ALIAS(Put)

extern "C" int PMPI_Rput(const void* obuf, int ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp, int tcount,
                         MPI_Datatype ttype, MPI_Win win, MPI_Request* request) {
  FTMPI_ENTER("MPI_Rput");
  if (!request) return ret(nullptr, Status(Errc::arg, "request is NULL"), "MPI_Rput");
  return do_put(obuf, ocount, otype, trank, tdisp, tcount, ttype, MPI_OP_NULL, win, request, "MPI_Rput");
}
FTMPI_ALIAS(Rput)

extern "C" int PMPI_Accumulate(const void* obuf, int ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp,
                               int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win) {
  FTMPI_ENTER("MPI_Accumulate");
  if (op == MPI_OP_NULL) return ret(nullptr, Status(Errc::op, "MPI_OP_NULL"), "MPI_Accumulate");
  return do_put(obuf, ocount, otype, trank, tdisp, tcount, ttype, op, win, nullptr, "MPI_Accumulate");
}
FTMPI_ALIAS(Accumulate)

extern "C" int PMPI_Raccumulate(const void* obuf, int ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp,
                                int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request* request) {
  FTMPI_ENTER("MPI_Raccumulate");
  if (!request) return ret(nullptr, Status(Errc::arg, "request is NULL"), "MPI_Raccumulate");
  if (op == MPI_OP_NULL) return ret(nullptr, Status(Errc::op, "MPI_OP_NULL"), "MPI_Raccumulate");
  return do_put(obuf, ocount, otype, trank, tdisp, tcount, ttype, op, win, request, "MPI_Raccumulate");
}
FTMPI_ALIAS(Raccumulate)

extern "C" int PMPI_Get(void* obuf, int ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp, int tcount,
                        MPI_Datatype ttype, MPI_Win win) {
  FTMPI_ENTER("MPI_Get");
  return do_get(nullptr, 0, MPI_DATATYPE_NULL, obuf, ocount, otype, trank, tdisp, tcount, ttype, MPI_OP_NULL, win,
                nullptr, "MPI_Get");
}
FTMPI_ALIAS(Get)

extern "C" int PMPI_Rget(void* obuf, int ocount, MPI_Datatype otype, int trank, MPI_Aint tdisp, int tcount,
                         MPI_Datatype ttype, MPI_Win win, MPI_Request* request) {
  FTMPI_ENTER("MPI_Rget");
  if (!request) return ret(nullptr, Status(Errc::arg, "request is NULL"), "MPI_Rget");
  return do_get(nullptr, 0, MPI_DATATYPE_NULL, obuf, ocount, otype, trank, tdisp, tcount, ttype, MPI_OP_NULL, win,
                request, "MPI_Rget");
}
FTMPI_ALIAS(Rget)

extern "C" int PMPI_Get_accumulate(const void* obuf, int ocount, MPI_Datatype otype, void* rbuf, int rcount,
                                   MPI_Datatype rtype, int trank, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
                                   MPI_Op op, MPI_Win win) {
  FTMPI_ENTER("MPI_Get_accumulate");
  if (op == MPI_OP_NULL) return ret(nullptr, Status(Errc::op, "MPI_OP_NULL"), "MPI_Get_accumulate");
  return do_get(obuf, ocount, otype, rbuf, rcount, rtype, trank, tdisp, tcount, ttype, op, win, nullptr,
                "MPI_Get_accumulate");
}
FTMPI_ALIAS(Get_accumulate)

extern "C" int PMPI_Rget_accumulate(const void* obuf, int ocount, MPI_Datatype otype, void* rbuf, int rcount,
                                    MPI_Datatype rtype, int trank, MPI_Aint tdisp, int tcount, MPI_Datatype ttype,
                                    MPI_Op op, MPI_Win win, MPI_Request* request) {
  FTMPI_ENTER("MPI_Rget_accumulate");
  if (!request) return ret(nullptr, Status(Errc::arg, "request is NULL"), "MPI_Rget_accumulate");
  if (op == MPI_OP_NULL) return ret(nullptr, Status(Errc::op, "MPI_OP_NULL"), "MPI_Rget_accumulate");
  return do_get(obuf, ocount, otype, rbuf, rcount, rtype, trank, tdisp, tcount, ttype, op, win, request,
                "MPI_Rget_accumulate");
}
FTMPI_ALIAS(Rget_accumulate)

extern "C" int PMPI_Fetch_and_op(const void* obuf, void* rbuf, MPI_Datatype type, int trank, MPI_Aint tdisp, MPI_Op op,
                                 MPI_Win win) {
  FTMPI_ENTER("MPI_Fetch_and_op");
  if (op == MPI_OP_NULL) return ret(nullptr, Status(Errc::op, "MPI_OP_NULL"), "MPI_Fetch_and_op");
  return do_get(obuf, 1, type, rbuf, 1, type, trank, tdisp, 1, type, op, win, nullptr, "MPI_Fetch_and_op");
}
FTMPI_ALIAS(Fetch_and_op)

// MPI-4.0 §12.3.4: Compare_and_swap takes a predefined type of the categories C integer, Fortran integer,
// Logical, Multi-language types or Byte; MPI_CHAR is accepted too (as MPICH does). Floating point, complex,
// pair types and derived types are MPI_ERR_TYPE (MPICH's errors/rma/cas_type_check).
static bool cas_type(const ftmpi_datatype_s* t) {
  using ftmpi::dt::Basic;
  if (!t->predefined) return false;
  switch (t->basic) {
    case Basic::char_: case Basic::schar: case Basic::uchar: case Basic::byte: case Basic::short_:
    case Basic::ushort: case Basic::int_: case Basic::uint: case Basic::long_: case Basic::ulong:
    case Basic::llong: case Basic::ullong: case Basic::wchar: case Basic::bool_: case Basic::i8: case Basic::i16:
    case Basic::i32: case Basic::i64: case Basic::u8: case Basic::u16: case Basic::u32: case Basic::u64:
    case Basic::aint: case Basic::offset: case Basic::count: case Basic::flogical:
      return true;
    default:
      return false;
  }
}

extern "C" int PMPI_Compare_and_swap(const void* obuf, const void* cbuf, void* rbuf, MPI_Datatype type, int trank,
                                     MPI_Aint tdisp, MPI_Win win) {
  FTMPI_ENTER("MPI_Compare_and_swap");
  FTMPI_CHECK_WIN(win, "MPI_Compare_and_swap");
  const bool usable = valid_type(type);
  if (usable && cas_type(type) && win->fast_cas(obuf, cbuf, rbuf, type, trank, tdisp)) return MPI_SUCCESS;
  Status st = check_target(win, trank, tdisp, 1, type);
  if (st.ok() && !cas_type(type))
    st = Status(Errc::type, "MPI_Compare_and_swap takes a predefined integer, logical, byte or multi-language type");
  if (st.ok() && trank != MPI_PROC_NULL)
    st = win->compare_and_swap(obuf, cbuf, rbuf, type, trank, static_cast<std::uint64_t>(tdisp));
  return win_ret(win, st, "MPI_Compare_and_swap");
}
FTMPI_ALIAS(Compare_and_swap)

// ---- synchronisation ----

extern "C" int PMPI_Win_fence(int assert_flags, MPI_Win win) {
  FTMPI_ENTER("MPI_Win_fence");
  FTMPI_CHECK_WIN(win, "MPI_Win_fence");
  Status st = check_assert(assert_flags);
  if (st.ok()) st = win->fence_flush(assert_flags);
  if (!st.ok() && st.code() != Errc::proc_failed) return win_ret(win, st, "MPI_Win_fence");
  // The barrier: nobody leaves before every origin's operations toward it were applied. Run even after an
  // operation failed, so survivors stay in step.
  const int rc = PMPI_Barrier(win->req_comm());
  if (st.ok() && rc != MPI_SUCCESS)
    st = Status(rc == MPI_ERR_PROC_FAILED ? Errc::proc_failed : rc == MPI_ERR_REVOKED ? Errc::revoked : Errc::other,
                "MPI_Win_fence: a member of the window failed");
  win->fence_done(assert_flags);
  return win_ret(win, st, "MPI_Win_fence");
}
FTMPI_ALIAS(Win_fence)

extern "C" int PMPI_Win_start(MPI_Group group, int assert_flags, MPI_Win win) {
  FTMPI_ENTER("MPI_Win_start");
  FTMPI_CHECK_WIN(win, "MPI_Win_start");
  Status st = check_assert(assert_flags);
  std::vector<int> ranks;
  if (st.ok()) ranks = group_ranks(group, win, &st);
  if (st.ok()) st = win->start(ranks, assert_flags);
  return win_ret(win, st, "MPI_Win_start");
}
FTMPI_ALIAS(Win_start)

extern "C" int PMPI_Win_complete(MPI_Win win) {
  FTMPI_ENTER("MPI_Win_complete");
  FTMPI_CHECK_WIN(win, "MPI_Win_complete");
  return win_ret(win, win->complete(), "MPI_Win_complete");
}
FTMPI_ALIAS(Win_complete)

extern "C" int PMPI_Win_post(MPI_Group group, int assert_flags, MPI_Win win) {
  FTMPI_ENTER("MPI_Win_post");
  FTMPI_CHECK_WIN(win, "MPI_Win_post");
  Status st = check_assert(assert_flags);
  std::vector<int> ranks;
  if (st.ok()) ranks = group_ranks(group, win, &st);
  if (st.ok()) st = win->post(ranks, assert_flags);
  return win_ret(win, st, "MPI_Win_post");
}
FTMPI_ALIAS(Win_post)

extern "C" int PMPI_Win_wait(MPI_Win win) {
  FTMPI_ENTER("MPI_Win_wait");
  FTMPI_CHECK_WIN(win, "MPI_Win_wait");
  return win_ret(win, win->wait_exposure(false, nullptr), "MPI_Win_wait");
}
FTMPI_ALIAS(Win_wait)

extern "C" int PMPI_Win_test(MPI_Win win, int* flag) {
  FTMPI_ENTER("MPI_Win_test");
  FTMPI_CHECK_WIN(win, "MPI_Win_test");
  if (!flag) return win_ret(win, Status(Errc::arg, "flag is NULL"), "MPI_Win_test");
  bool done = false;
  Status st = win->wait_exposure(true, &done);
  *flag = done ? 1 : 0;
  return win_ret(win, st, "MPI_Win_test");
}
FTMPI_ALIAS(Win_test)

extern "C" int PMPI_Win_lock(int lock_type, int rank, int assert_flags, MPI_Win win) {
  FTMPI_ENTER("MPI_Win_lock");
  FTMPI_CHECK_WIN(win, "MPI_Win_lock");
  Status st = check_assert(assert_flags);
  if (st.ok() && lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
    st = Status(Errc::locktype, "lock type must be MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED");
  if (st.ok() && rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (st.ok()) st = win->lock(lock_type == MPI_LOCK_EXCLUSIVE, rank, assert_flags);
  return win_ret(win, st, "MPI_Win_lock");
}
FTMPI_ALIAS(Win_lock)

extern "C" int PMPI_Win_unlock(int rank, MPI_Win win) {
  FTMPI_ENTER("MPI_Win_unlock");
  FTMPI_CHECK_WIN(win, "MPI_Win_unlock");
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  return win_ret(win, win->unlock(rank), "MPI_Win_unlock");
}
FTMPI_ALIAS(Win_unlock)

extern "C" int PMPI_Win_lock_all(int assert_flags, MPI_Win win) {
  FTMPI_ENTER("MPI_Win_lock_all");
  FTMPI_CHECK_WIN(win, "MPI_Win_lock_all");
  Status st = check_assert(assert_flags);
  if (st.ok()) st = win->lock_all(assert_flags);
  return win_ret(win, st, "MPI_Win_lock_all");
}
FTMPI_ALIAS(Win_lock_all)

extern "C" int PMPI_Win_unlock_all(MPI_Win win) {
  FTMPI_ENTER("MPI_Win_unlock_all");
  FTMPI_CHECK_WIN(win, "MPI_Win_unlock_all");
  return win_ret(win, win->unlock_all(), "MPI_Win_unlock_all");
}
FTMPI_ALIAS(Win_unlock_all)

extern "C" int PMPI_Win_flush(int rank, MPI_Win win) {
  FTMPI_ENTER("MPI_Win_flush");
  FTMPI_CHECK_WIN(win, "MPI_Win_flush");
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  return win_ret(win, win->flush(rank, false), "MPI_Win_flush");
}
FTMPI_ALIAS(Win_flush)

extern "C" int PMPI_Win_flush_local(int rank, MPI_Win win) {
  FTMPI_ENTER("MPI_Win_flush_local");
  FTMPI_CHECK_WIN(win, "MPI_Win_flush_local");
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  return win_ret(win, win->flush(rank, true), "MPI_Win_flush_local");
}
FTMPI_ALIAS(Win_flush_local)

extern "C" int PMPI_Win_flush_all(MPI_Win win) {
  FTMPI_ENTER("MPI_Win_flush_all");
  FTMPI_CHECK_WIN(win, "MPI_Win_flush_all");
  return win_ret(win, win->flush_all(false), "MPI_Win_flush_all");
}
FTMPI_ALIAS(Win_flush_all)

extern "C" int PMPI_Win_flush_local_all(MPI_Win win) {
  FTMPI_ENTER("MPI_Win_flush_local_all");
  FTMPI_CHECK_WIN(win, "MPI_Win_flush_local_all");
  return win_ret(win, win->flush_all(true), "MPI_Win_flush_local_all");
}
FTMPI_ALIAS(Win_flush_local_all)

// The unified model: public and private copies are the same memory; a full barrier orders this process's
// loads and stores with those of other processes on shared windows. Runs progress too (lets the Service
// apply what arrived).
extern "C" int PMPI_Win_sync(MPI_Win win) {
  FTMPI_ENTER("MPI_Win_sync");
  FTMPI_CHECK_WIN(win, "MPI_Win_sync");
  std::atomic_thread_fence(std::memory_order_seq_cst);
  rt().progress().poll();
  return win_ret(win, win->check_live(), "MPI_Win_sync");
}
FTMPI_ALIAS(Win_sync)
