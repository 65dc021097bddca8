// Error handlers on communicators: MPI_Comm_{set,get,create,call}_errhandler, MPI_Errhandler_free,
// MPI_Error_string, MPI_Error_class.
#include <cstring>

#include "api/common.h"
#include "api/error_class.h"
#include "api/errors.h"

namespace {
ftmpi_errhandler_s make_predefined(ftmpi_errhandler_s::Kind k) {
  ftmpi_errhandler_s e;
  e.kind = k;
  e.predefined = true;
  return e;
}
}  // namespace

FTMPI_API ftmpi_errhandler_s ftmpi_errors_are_fatal = make_predefined(ftmpi_errhandler_s::Kind::fatal);
FTMPI_API ftmpi_errhandler_s ftmpi_errors_return = make_predefined(ftmpi_errhandler_s::Kind::return_);
FTMPI_API ftmpi_errhandler_s ftmpi_errors_abort = make_predefined(ftmpi_errhandler_s::Kind::abort);

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::ret;
using ftmpi::api::g_api;

static bool valid_errhandler(const ftmpi_errhandler_s* e) { return e && e->magic == ftmpi::kMagicErrhandler; }

extern "C" int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  FTMPI_ENTER("MPI_Comm_set_errhandler");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_set_errhandler");
  if (!valid_errhandler(errhandler))
    return ret(comm, Status(Errc::arg, "invalid error handler"), "MPI_Comm_set_errhandler");
  if (Status st = ftmpi::api::check_reinit_errhandler(comm, errhandler); !st.ok())
    return ret(comm, st, "MPI_Comm_set_errhandler");
  if (!errhandler->predefined) ++errhandler->refs;
  ftmpi_errhandler_s* old = comm->errhandler;
  comm->errhandler = errhandler;
  if (old && !old->predefined && --old->refs == 0) old->magic = ftmpi::kMagicFreed;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_set_errhandler)

extern "C" int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  FTMPI_ENTER("MPI_Comm_get_errhandler");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_get_errhandler");
  if (!errhandler) return ret(comm, Status(Errc::arg, "errhandler is NULL"), "MPI_Comm_get_errhandler");
  *errhandler = comm->errhandler;
  if (!comm->errhandler->predefined) ++comm->errhandler->refs;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_get_errhandler)

extern "C" int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
  FTMPI_ENTER("MPI_Comm_create_errhandler");
  if (!fn || !errhandler)
    return ret(nullptr, Status(Errc::arg, "NULL function or handle"), "MPI_Comm_create_errhandler");
  auto* e = new ftmpi_errhandler_s;
  e->kind = ftmpi_errhandler_s::Kind::user;
  e->fn = reinterpret_cast<ftmpi_comm_errhandler_fn*>(fn);
  *errhandler = e;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_create_errhandler)

extern "C" int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  // At any time, like MPI_Session_create_errhandler: a session's handler may be freed after the last
  // MPI_Session_finalize (the sessions keep their own reference).
  FTMPI_ENTER_ANYTIME("MPI_Errhandler_free");
  if (!errhandler || !valid_errhandler(*errhandler)) {
    if (!g_api.initialized || g_api.finalized) return MPI_ERR_ARG;  // no handler applies outside MPI
    return ret(nullptr, Status(Errc::arg, "invalid error handler"), "MPI_Errhandler_free");
  }
  ftmpi_errhandler_s* e = *errhandler;
  // Freed objects stay allocated (stale handles must be detectable); communicators keep their reference.
  if (!e->predefined && --e->refs == 0) e->magic = ftmpi::kMagicFreed;
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Errhandler_free)

extern "C" int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  FTMPI_ENTER("MPI_Comm_call_errhandler");
  FTMPI_CHECK_COMM(comm, "MPI_Comm_call_errhandler");
  ftmpi::api::invoke_errhandler(comm, errorcode, "error raised by MPI_Comm_call_errhandler",
                                "MPI_Comm_call_errhandler");
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Comm_call_errhandler)

extern "C" int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (!string || !resultlen) return MPI_ERR_ARG;
  const char* s = ftmpi::api::error_class_sentence(errorcode);
  if (!s) {
    *resultlen = 0;
    string[0] = '\0';
    return MPI_ERR_ARG;
  }
  size_t n = strnlen(s, MPI_MAX_ERROR_STRING - 1);
  std::memcpy(string, s, n);
  string[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Error_string)

extern "C" int PMPI_Error_class(int errorcode, int* errorclass) {
  if (!errorclass) return MPI_ERR_ARG;
  if (int user = ftmpi::api::user_error_class(errorcode); user >= 0) {  // MPI_Add_error_class/code
    *errorclass = user;
    return MPI_SUCCESS;
  }
  if (!ftmpi::api::error_class_sentence(errorcode)) return MPI_ERR_ARG;
  *errorclass = errorcode;  // codes are classes in this implementation
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Error_class)
