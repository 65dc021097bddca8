// API state, error classes and the error-handler machinery (the only place that knows MPI error codes).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "api/common.h"
#include "comm/comm_ops.h"
#include "api/error_class.h"
#include "api/errors.h"
#include "datatype/datatype.h"
#include "util/log.h"
#include "models/lam/failure_notice.h"

namespace ftmpi::api {

ApiState g_api;

int error_class_of(Errc e) {
  switch (e) {
    case Errc::ok: return MPI_SUCCESS;
    case Errc::buffer: return MPI_ERR_BUFFER;
    case Errc::count: return MPI_ERR_COUNT;
    case Errc::type: return MPI_ERR_TYPE;
    case Errc::tag: return MPI_ERR_TAG;
    case Errc::comm: return MPI_ERR_COMM;
    case Errc::rank: return MPI_ERR_RANK;
    case Errc::root: return MPI_ERR_ROOT;
    case Errc::group: return MPI_ERR_GROUP;
    case Errc::op: return MPI_ERR_OP;
    case Errc::arg: return MPI_ERR_ARG;
    case Errc::truncate: return MPI_ERR_TRUNCATE;
    case Errc::other: return MPI_ERR_OTHER;
    case Errc::intern: return MPI_ERR_INTERN;
    case Errc::request: return MPI_ERR_REQUEST;
    case Errc::pending: return MPI_ERR_PENDING;
    case Errc::in_status: return MPI_ERR_IN_STATUS;
    case Errc::no_mem: return MPI_ERR_NO_MEM;
    case Errc::unsupported: return MPI_ERR_UNSUPPORTED_OPERATION;
    case Errc::errhandler: return MPI_ERR_ERRHANDLER;
    case Errc::info: return MPI_ERR_INFO;
    case Errc::keyval: return MPI_ERR_KEYVAL;
    case Errc::topology: return MPI_ERR_TOPOLOGY;
    case Errc::dims: return MPI_ERR_DIMS;
    case Errc::not_same: return MPI_ERR_NOT_SAME;
    case Errc::proc_failed: return MPI_ERR_PROC_FAILED;
    case Errc::proc_failed_pending: return MPI_ERR_PROC_FAILED_PENDING;
    case Errc::revoked: return MPI_ERR_REVOKED;
    case Errc::info_key: return MPI_ERR_INFO_KEY;
    case Errc::info_value: return MPI_ERR_INFO_VALUE;
    case Errc::info_nokey: return MPI_ERR_INFO_NOKEY;
    case Errc::conversion: return MPI_ERR_CONVERSION;
    case Errc::win: return MPI_ERR_WIN;
    case Errc::base: return MPI_ERR_BASE;
    case Errc::locktype: return MPI_ERR_LOCKTYPE;
    case Errc::rma_conflict: return MPI_ERR_RMA_CONFLICT;
    case Errc::rma_sync: return MPI_ERR_RMA_SYNC;
    case Errc::size: return MPI_ERR_SIZE;
    case Errc::disp: return MPI_ERR_DISP;
    case Errc::assert_: return MPI_ERR_ASSERT;
    case Errc::rma_range: return MPI_ERR_RMA_RANGE;
    case Errc::rma_attach: return MPI_ERR_RMA_ATTACH;
    case Errc::rma_shared: return MPI_ERR_RMA_SHARED;
    case Errc::rma_flavor: return MPI_ERR_RMA_FLAVOR;
    case Errc::timeout: return MPI_TIMEOUT;
    case Errc::local_error_injection: return MPI_LOCAL_ERROR_INJECTION;
    case Errc::task_fault: return MPI_TASK_FAULT;
    case Errc::communication_fault: return MPI_COMMUNICATION_FAULT;
    case Errc::unmodeled_fault: return MPI_UNMODELED_FAULT;
    case Errc::multiple_faults: return MPI_MULTIPLE_FAULTS;
    case Errc::group_shrunk: return MPI_GROUP_SHRUNK;
    case Errc::tryblock_found_errors: return MPI_ERR_TRYBLOCK_FOUND_ERRORS;
    case Errc::file: return MPI_ERR_FILE;
    case Errc::no_such_file: return MPI_ERR_NO_SUCH_FILE;
    case Errc::amode: return MPI_ERR_AMODE;
    case Errc::access: return MPI_ERR_ACCESS;
    case Errc::no_space: return MPI_ERR_NO_SPACE;
    case Errc::quota: return MPI_ERR_QUOTA;
    case Errc::file_exists: return MPI_ERR_FILE_EXISTS;
    case Errc::spawn: return MPI_ERR_SPAWN;
    case Errc::port: return MPI_ERR_PORT;
    case Errc::name: return MPI_ERR_NAME;
    case Errc::service: return MPI_ERR_SERVICE;
    case Errc::file_in_use: return MPI_ERR_FILE_IN_USE;
    case Errc::read_only: return MPI_ERR_READ_ONLY;
    case Errc::bad_file: return MPI_ERR_BAD_FILE;
    case Errc::io: return MPI_ERR_IO;
    case Errc::unsupported_datarep: return MPI_ERR_UNSUPPORTED_DATAREP;
    case Errc::dup_datarep: return MPI_ERR_DUP_DATAREP;
  }
  return MPI_ERR_UNKNOWN;
}

Status not_initialized(const char* fn) {
  if (g_api.finalized) return Status(Errc::other, "called after MPI_Finalize");
  return Status(Errc::other, "MPI_Init has not been called");
}

// MPI_COMM_WORLD and MPI_COMM_SELF exist between MPI_Init and MPI_Finalize only (the runtime may be up
// earlier or later for sessions, api/session.cpp).
bool valid_group(const ftmpi_group_s* g) { return g && g->magic == kMagicGroup; }

[[noreturn]] void abort_job(int code, const char* why) {
  if (g_api.rt) g_api.rt->boot().abort(code, why);
  std::_Exit(code);  // singleton, or the launcher did not end us
}

void CommHold::drop() {
  if (comm::comm_unhold(c_)) comm::retire(rt(), c_);
  c_ = nullptr;
}

int invoke_errhandler(ftmpi_comm_s* comm, int code, const std::string& detail, const char* fn) {
  // A communicator freed by the user while requests still hold it keeps its handler for them (MPI-3.1
  // §6.4.3: pending operations complete normally); anything else invalid falls back to MPI_COMM_WORLD.
  const bool freed_but_held = comm && comm->magic == kMagicFreed && comm->retire_on_idle && comm->errhandler;
  if (!valid_comm(comm) && !freed_but_held)
    comm = valid_comm(&ftmpi_comm_world) ? &ftmpi_comm_world : nullptr;
  ftmpi_errhandler_s* eh = comm ? comm->errhandler : nullptr;
  auto kind = eh ? eh->kind : ftmpi_errhandler_s::Kind::fatal;
  if (kind == ftmpi_errhandler_s::Kind::reinit_async || kind == ftmpi_errhandler_s::Kind::reinit_sync)
    kind = reinit_errhandler_outcome(kind == ftmpi_errhandler_s::Kind::reinit_async, code);
  if (kind == ftmpi_errhandler_s::Kind::return_) return code;
  if (kind == ftmpi_errhandler_s::Kind::user && eh->fn) {
    MPI_Comm handle = comm;
    int c = code;
    eh->fn(&handle, &c);
    return code;
  }
  char line[MPI_MAX_ERROR_STRING + 256];
  std::snprintf(line, sizeof line, "%s: %s (%s)", fn, detail.c_str(), error_class_sentence(code));
  log::error("%s; aborting the job (%s on %s)", line,
             kind == ftmpi_errhandler_s::Kind::abort ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL",
             comm ? comm->name.c_str() : "no communicator");
  abort_job(code, line);
}

Status invalid_comm_status(const ftmpi_comm_s* c) {
  if (c && c->magic == kMagicRolledBack)
    return Status(Errc::comm,
                  "communicator of an epoch before the last Reinit rollback (after a rollback only MPI_COMM_WORLD, "
                  "MPI_COMM_SELF and MPI_COMM_NULL are valid; seed 003 section 1.3)");
  return Status(Errc::comm, "invalid communicator");
}

int ret_error(ftmpi_comm_s* comm, const Status& st, const char* fn) {
  if (st.ok()) return MPI_SUCCESS;
  // A call failing because of a failure or a revoke may not have run progress at all (a collective on a
  // communicator with a dead member can fail at its first step): read what waits in the transports now,
  // so that a program looping on a failing call still receives the revoke (and agreement) frames of the
  // others instead of spinning on MPI_ERR_PROC_FAILED forever. Error path only.
  if ((st.code() == Errc::proc_failed || st.code() == Errc::proc_failed_pending || st.code() == Errc::revoked) &&
      g_api.rt != nullptr && g_api.initialized && !g_api.finalized)
    g_api.rt->progress().poll();
  // LAM mode: the failed ranks are known when a failed call returns (src/models/lam/failure_notice.h).
  if (st.code() == Errc::proc_failed && comm != nullptr && g_api.rt != nullptr && g_api.rt->lam_mode() &&
      g_api.initialized && !g_api.finalized)
    ftmpi::lam::await_failure_notice(*g_api.rt, comm);
  int code = error_class_of(st.code());
  const std::string& detail = st.message().empty() ? std::string(error_class_sentence(code)) : st.message();
  log::debug("%s: %s", fn, detail.c_str());  // the detail is lost under MPI_ERRORS_RETURN otherwise
  return invoke_errhandler(comm, code, detail, fn);
}

const char* error_class_sentence(int cls) {
  switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS: no error";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER: invalid buffer pointer";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT: invalid count argument";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE: invalid datatype";
    case MPI_ERR_TAG: return "MPI_ERR_TAG: invalid tag";
    case MPI_ERR_COMM: return "MPI_ERR_COMM: invalid communicator";
    case MPI_ERR_RANK: return "MPI_ERR_RANK: invalid rank";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT: invalid root";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP: invalid group";
    case MPI_ERR_OP: return "MPI_ERR_OP: invalid reduction operation";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY: invalid topology";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS: invalid dimension argument";
    case MPI_ERR_ARG: return "MPI_ERR_ARG: invalid argument";
    case MPI_ERR_UNKNOWN: return "MPI_ERR_UNKNOWN: unknown error";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE: message truncated on receive";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER: other error";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN: internal error in the MPI library";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS: error code is in the status";
    case MPI_ERR_PENDING: return "MPI_ERR_PENDING: pending request";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST: invalid request";
    case MPI_ERR_NO_MEM: return "MPI_ERR_NO_MEM: out of memory";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "MPI_ERR_UNSUPPORTED_OPERATION: operation not supported";
    case MPI_ERR_ERRHANDLER: return "MPI_ERR_ERRHANDLER: invalid error handler";
    case MPI_ERR_INFO: return "MPI_ERR_INFO: invalid info object";
    case MPI_ERR_INFO_KEY: return "MPI_ERR_INFO_KEY: invalid info key";
    case MPI_ERR_INFO_VALUE: return "MPI_ERR_INFO_VALUE: invalid info value";
    case MPI_ERR_INFO_NOKEY: return "MPI_ERR_INFO_NOKEY: info key not defined";
    case MPI_ERR_KEYVAL: return "MPI_ERR_KEYVAL: invalid attribute key";
    case MPI_ERR_NOT_SAME: return "MPI_ERR_NOT_SAME: arguments differ across processes";
    case MPI_ERR_PROC_FAILED:
      return "MPI_ERR_PROC_FAILED: a process involved in the operation has failed";
    case MPI_ERR_PROC_FAILED_PENDING:
      return "MPI_ERR_PROC_FAILED_PENDING: a potential sender of this ANY_SOURCE receive has failed; the "
             "request is still pending";
    case MPI_ERR_REVOKED: return "MPI_ERR_REVOKED: the communicator has been revoked";
    case MPI_ERR_SESSION: return "MPI_ERR_SESSION: invalid session";
    case MPI_ERR_WIN: return "MPI_ERR_WIN: invalid window";
    case MPI_ERR_BASE: return "MPI_ERR_BASE: invalid base address";
    case MPI_ERR_LOCKTYPE: return "MPI_ERR_LOCKTYPE: invalid lock type";
    case MPI_ERR_RMA_CONFLICT: return "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window";
    case MPI_ERR_RMA_SYNC: return "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls";
    case MPI_ERR_SIZE: return "MPI_ERR_SIZE: invalid size argument";
    case MPI_ERR_DISP: return "MPI_ERR_DISP: invalid displacement argument";
    case MPI_ERR_ASSERT: return "MPI_ERR_ASSERT: invalid assertion argument";
    case MPI_ERR_RMA_RANGE: return "MPI_ERR_RMA_RANGE: target memory is not part of the window";
    case MPI_ERR_RMA_ATTACH: return "MPI_ERR_RMA_ATTACH: memory cannot be attached";
    case MPI_ERR_RMA_SHARED: return "MPI_ERR_RMA_SHARED: memory cannot be shared";
    case MPI_ERR_RMA_FLAVOR: return "MPI_ERR_RMA_FLAVOR: wrong window flavor";
    case MPI_ERR_SPAWN: return "MPI_ERR_SPAWN: the processes could not be spawned";
    case MPI_ERR_PORT: return "MPI_ERR_PORT: invalid port name";
    case MPI_ERR_NAME: return "MPI_ERR_NAME: service name not published";
    case MPI_ERR_SERVICE: return "MPI_ERR_SERVICE: invalid service name (not published, or published twice)";
    /* FA-MPI (seed 001) */
    case MPI_LOCAL_ERROR_INJECTION:
      return "MPI_LOCAL_ERROR_INJECTION: a member of the TryBlock raised an error (error injection, "
             "MPI_Request_raise_error or a failed nested block)";
    case MPI_TIMEOUT: return "MPI_TIMEOUT: the timeout ran out before the operation completed";
    case MPI_TASK_FAULT: return "MPI_TASK_FAULT: a member of the TryBlock failed or was declared failed";
    case MPI_COMMUNICATION_FAULT: return "MPI_COMMUNICATION_FAULT: an operation of the TryBlock failed";
    case MPI_UNMODELED_FAULT: return "MPI_UNMODELED_FAULT: an unmodeled fault occurred";
    case MPI_MULTIPLE_FAULTS: return "MPI_MULTIPLE_FAULTS: the TryBlock found faults of several kinds";
    case MPI_GROUP_SHRUNK: return "MPI_GROUP_SHRUNK: the new communicator lacks members that failed";
    case MPI_USER_LOCAL_TIMEOUT: return "MPI_USER_LOCAL_TIMEOUT: a member raised a local timeout";
    case MPI_ERR_TRYBLOCK_FOUND_ERRORS: return "MPI_ERR_TRYBLOCK_FOUND_ERRORS: the TryBlock found errors";
    /* MPI-IO (§13.7) */
    case MPI_ERR_FILE: return "MPI_ERR_FILE: invalid file handle";
    case MPI_ERR_NO_SUCH_FILE: return "MPI_ERR_NO_SUCH_FILE: file does not exist";
    case MPI_ERR_AMODE: return "MPI_ERR_AMODE: invalid or conflicting access mode";
    case MPI_ERR_ACCESS: return "MPI_ERR_ACCESS: permission denied";
    case MPI_ERR_NO_SPACE: return "MPI_ERR_NO_SPACE: not enough space";
    case MPI_ERR_QUOTA: return "MPI_ERR_QUOTA: quota exceeded";
    case MPI_ERR_FILE_EXISTS: return "MPI_ERR_FILE_EXISTS: file exists";
    case MPI_ERR_FILE_IN_USE: return "MPI_ERR_FILE_IN_USE: file in use";
    case MPI_ERR_READ_ONLY: return "MPI_ERR_READ_ONLY: read-only file or file system";
    case MPI_ERR_BAD_FILE: return "MPI_ERR_BAD_FILE: invalid file name";
    case MPI_ERR_IO: return "MPI_ERR_IO: I/O error";
    case MPI_ERR_UNSUPPORTED_DATAREP: return "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation";
    case MPI_ERR_DUP_DATAREP: return "MPI_ERR_DUP_DATAREP: data representation already registered";
    case MPI_ERR_CONVERSION: return "MPI_ERR_CONVERSION: data conversion failed";
    /* return codes of the MPI_T functions (§14.3.9) */
    case MPI_T_ERR_MEMORY: return "MPI_T_ERR_MEMORY: out of memory";
    case MPI_T_ERR_NOT_INITIALIZED: return "MPI_T_ERR_NOT_INITIALIZED: the MPI_T interface is not initialized";
    case MPI_T_ERR_CANNOT_INIT: return "MPI_T_ERR_CANNOT_INIT: the MPI_T interface cannot be initialized";
    case MPI_T_ERR_INVALID_INDEX: return "MPI_T_ERR_INVALID_INDEX: index out of range";
    case MPI_T_ERR_INVALID_ITEM: return "MPI_T_ERR_INVALID_ITEM: enumeration item out of range";
    case MPI_T_ERR_INVALID_HANDLE: return "MPI_T_ERR_INVALID_HANDLE: invalid or freed handle";
    case MPI_T_ERR_OUT_OF_HANDLES: return "MPI_T_ERR_OUT_OF_HANDLES: no more handles";
    case MPI_T_ERR_INVALID_NAME: return "MPI_T_ERR_INVALID_NAME: no variable, category or event of that name";
    case MPI_T_ERR_INVALID: return "MPI_T_ERR_INVALID: invalid use of the MPI_T interface";
    case MPI_T_ERR_NOT_SUPPORTED: return "MPI_T_ERR_NOT_SUPPORTED: not supported";
    case MPI_T_ERR_CVAR_SET_NOT_NOW: return "MPI_T_ERR_CVAR_SET_NOT_NOW: the control variable cannot be set now";
    case MPI_T_ERR_CVAR_SET_NEVER: return "MPI_T_ERR_CVAR_SET_NEVER: the control variable cannot be set";
    case MPI_T_ERR_PVAR_NO_STARTSTOP: return "MPI_T_ERR_PVAR_NO_STARTSTOP: the variable cannot be started or stopped";
    case MPI_T_ERR_PVAR_NO_WRITE: return "MPI_T_ERR_PVAR_NO_WRITE: the variable cannot be written or reset";
    case MPI_T_ERR_PVAR_NO_ATOMIC: return "MPI_T_ERR_PVAR_NO_ATOMIC: the variable cannot be read and reset atomically";
    case MPI_T_ERR_INVALID_SESSION: return "MPI_T_ERR_INVALID_SESSION: invalid or freed performance session";
    case MPI_T_ERR_OUT_OF_SESSIONS: return "MPI_T_ERR_OUT_OF_SESSIONS: no more performance sessions";
    default: break;
  }
  if (const char* user = user_error_string(cls)) return user;  // MPI_Add_error_class/code/string
  if (cls > MPI_SUCCESS && cls <= MPI_ERR_ERRHANDLER) return "MPI error (no further description)";
  return nullptr;
}

}  // namespace ftmpi::api
