// Shared helpers of the C API layer (the only layer that knows MPI error codes).
//
// Every MPI function is written once as PMPI_X and aliased to MPI_X with FTMPI_ALIAS(X) (weak, so a
// profiling library can interpose MPI_X and call PMPI_X).
//
// Shape of an API function:
//   extern "C" int PMPI_Foo(MPI_Comm comm, ...) {
//     FTMPI_ENTER("MPI_Foo");                 // fails with MPI_ERR_OTHER before MPI_Init/after Finalize
//     FTMPI_CHECK_COMM(comm);                  // invalid/freed handle -> error through MPI_COMM_WORLD's handler
//     ftmpi::Status st = ...core call...;
//     return ftmpi::api::ret(comm, st, "MPI_Foo");  // MPI_SUCCESS or the error handler's outcome
//   }
#pragma once
#include <atomic>
#include <mutex>

#include "mpi.h"
#include "comm/communicator.h"
#include "api/inject.h"
#include "models/reinit/reinit_control.h"
#include "runtime/runtime.h"
#include "util/status.h"

namespace ftmpi::api {

// Process-wide API state. The one pointer through which the C API reaches the Runtime.
struct ApiState {
  Runtime* rt = nullptr;
  bool initialized = false;
  bool finalized = false;
};
extern ApiState g_api;

inline Runtime& rt() { return *g_api.rt; }

// Map an internal error kind to its MPI error class.
int error_class_of(Errc e);

// Turn `st` into the value an MPI function returns: MPI_SUCCESS if ok; otherwise remember the message
// (for MPI_Error_string), and apply `comm`'s error handler (MPI_COMM_WORLD's when comm is null or
// invalid): fatal → print and abort the job; return → return the code; user → call it, return the code.
// (inline: the success case, every call's, is one compare; the error path is ret_error.)
int ret_error(ftmpi_comm_s* comm, const Status& st, const char* fn);
inline int ret(ftmpi_comm_s* comm, const Status& st, const char* fn) {
  if (st.ok()) [[likely]] return MPI_SUCCESS;
  return ret_error(comm, st, fn);
}

// Handle checks: true when the handle is a live object of its kind.
// (inline: checked on every send and receive)
inline bool valid_comm(const ftmpi_comm_s* c) {
  return c && c->magic == kMagicComm && (!c->predefined || (g_api.initialized && !g_api.finalized));
}
inline bool valid_type(const ftmpi_datatype_s* t) { return t && dt::usable(t); }  // live, committed, usable
bool valid_group(const ftmpi_group_s* g);

// MPI_T event callbacks that need the application's own context (api/mpit.cpp): non-zero while some wait
// for the exit of an outermost MPI call; run_deferred_mpit_events() runs them there (no lock held).
extern std::atomic<int> g_mpit_deferred;
void run_deferred_mpit_events();
// MPI_THREAD_MULTIPLE: this thread's nesting of MPI calls (the Reinit gate below counts for one thread only).
extern thread_local int t_api_depth;

// RAII: the big lock for MPI_THREAD_MULTIPLE and asynchronous progress (no lock taken otherwise), and the Reinit gate: the
// nesting of MPI calls (an asynchronous rollback never jumps out of the library) and, at the exit of the
// outermost call, the jump that was deferred meanwhile (models/reinit/reinit_control.h), then the MPI_T
// callbacks that wait for the application's context. Cost when nothing is due: two loads.
class ApiLock {
 public:
  ApiLock() {
    reinit::gate_enter();
    if (g_api.rt && g_api.rt->locking()) {  // MPI_THREAD_MULTIPLE or asynchronous progress
      lock_ = &g_api.rt->lock();
      lock_->lock();
      ++t_api_depth;
    }
  }
  ~ApiLock() {
    int depth;
    if (lock_) {
      depth = --t_api_depth;
      lock_->unlock();
      reinit::gate_leave();
    } else {
      depth = reinit::gate_leave();
    }
    if (depth == 0 && __builtin_expect(reinit::g_gate.jump_due != 0, 0)) reinit::ReinitControl::jump_if_due();
    if (depth == 0 && __builtin_expect(g_mpit_deferred.load(std::memory_order_relaxed) != 0, 0))
      run_deferred_mpit_events();
  }
  ApiLock(const ApiLock&) = delete;
  ApiLock& operator=(const ApiLock&) = delete;

 private:
  BigLock* lock_ = nullptr;
};

Status not_initialized(const char* fn);

// The error of an invalid communicator handle: says so clearly when the handle belongs to an epoch
// before a Reinit rollback.
Status invalid_comm_status(const ftmpi_comm_s* c);

// Holds a communicator for the scope of an API call (comm_hold/comm_unhold, comm/communicator.h): when
// the call releases the last request of a freed communicator, the error is still raised on that
// communicator's handler before it is retired.
class CommHold {
 public:
  CommHold() = default;
  explicit CommHold(ftmpi_comm_s* c) { set(c); }
  ~CommHold() { drop(); }
  CommHold(const CommHold&) = delete;
  CommHold& operator=(const CommHold&) = delete;
  void set(ftmpi_comm_s* c) {
    drop();
    c_ = c;
    comm::comm_hold(c_);
  }

 private:
  void drop();
  ftmpi_comm_s* c_ = nullptr;
};

}  // namespace ftmpi::api

#define FTMPI_ALIAS(name) \
  extern "C" __attribute__((weak, alias("PMPI_" #name), visibility("default"))) decltype(PMPI_##name) MPI_##name;

// Fails unless the library is up (between MPI_Init and MPI_Finalize, or while an MPI_Session is open:
// api/session.h); takes the THREAD_MULTIPLE lock. MPI_COMM_WORLD/SELF are valid handles only between
// MPI_Init and MPI_Finalize (valid_comm).
#define FTMPI_ENTER(fn)                                                                   \
  if (!::ftmpi::api::g_api.rt)                                                            \
    return ::ftmpi::api::ret(nullptr, ::ftmpi::api::not_initialized(fn), fn);             \
  if (__builtin_expect(::ftmpi::api::g_inject.armed, 0)) ::ftmpi::api::injection_check(fn); \
  ::ftmpi::api::ApiLock ftmpi_api_lock_

// For the functions MPI-4 allows at any time (Info, MPI-4.0 §9 / §11.2.1): no initialisation check; the
// THREAD_MULTIPLE lock when the library is up.
#define FTMPI_ENTER_ANYTIME(fn) ::ftmpi::api::ApiLock ftmpi_api_lock_

#define FTMPI_CHECK_COMM(c_, fn)                                                          \
  if (!::ftmpi::api::valid_comm(c_))                                                       \
  return ::ftmpi::api::ret(nullptr, ::ftmpi::api::invalid_comm_status(c_), fn)
