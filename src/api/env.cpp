// Environment management: MPI_Init, Init_thread, Finalize, Initialized, Finalized, Query_thread,
// Is_thread_main, Abort.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "api/attr.h"
#include "api/common.h"
#include "api/errors.h"
#include "api/info_object.h"
#include "api/session.h"
#include "comm/errhandler.h"
#include "util/log.h"

using ftmpi::Errc;
using ftmpi::Status;
using ftmpi::api::g_api;
using ftmpi::api::ret;

extern "C" int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  if (g_api.initialized)
    return ret(nullptr, Status(Errc::other, g_api.finalized ? "MPI cannot be initialised again after MPI_Finalize"
                                                           : "MPI_Init called twice"),
               "MPI_Init");
  ftmpi::api::note_requested_thread_level(required);
  // The runtime may be up already for an MPI_Session (api/session.h): the world model joins it.
  // MPI-4.0 §9.3: an error in MPI_Init is raised on the initial error handler. MPI_ERRORS_ARE_FATAL (the
  // default) and MPI_ERRORS_ABORT end the job through the launcher, the message printed first (under Hydra
  // the abort waits for the line to be forwarded); MPI_ERRORS_RETURN returns the error class.
  ftmpi_errhandler_s* initial = ftmpi::Runtime::initial_errhandler();
  const bool fatal = initial->kind == ftmpi_errhandler_s::Kind::fatal || initial->kind == ftmpi_errhandler_s::Kind::abort;
  auto describe = [initial](const Status& st) {
    int code = ftmpi::api::error_class_of(st.code());
    return std::string("MPI_Init: ") + st.message() + " (" + ftmpi::api::error_class_sentence(code) + "); " +
           (initial->kind == ftmpi_errhandler_s::Kind::abort ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL") +
           ": aborting the job";
  };
  ftmpi::Runtime::InitFailureHook hook;
  if (fatal)
    hook = [&describe](ftmpi::boot::Bootstrap& boot, const Status& st) {
      boot.abort(ftmpi::api::error_class_of(st.code()), describe(st));  // does not return under a launcher
    };
  if (Status st = ftmpi::api::runtime_acquire(required, hook); !st.ok()) {
    if (fatal) {
      // No bootstrap (or its abort returned): this process alone ends, with the message.
      ftmpi::log::error("%s", describe(st).c_str());
      std::_Exit(ftmpi::api::error_class_of(st.code()));
    }
    ftmpi::log::error("MPI_Init failed: %s", st.message().c_str());
    return ftmpi::api::error_class_of(st.code());
  }
  g_api.initialized = true;
  ftmpi::api::arm_injection_from_env();
  if (provided) *provided = g_api.rt->thread_level();
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Init_thread)

extern "C" int PMPI_Init(int* argc, char*** argv) {
  int provided;
  return PMPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}
FTMPI_ALIAS(Init)

extern "C" int PMPI_Finalize(void) {
  if (!g_api.initialized || g_api.finalized)
    return ret(nullptr, ftmpi::api::not_initialized("MPI_Finalize"), "MPI_Finalize");
  // No ApiLock here: the lock lives in the Runtime we are about to destroy. MPI requires that no other
  // thread is inside MPI during MPI_Finalize.
  // MPI-3.1 §8.7.1: MPI_COMM_SELF's attributes are deleted first (libraries hook their cleanup there),
  // while MPI is still fully usable; then MPI_COMM_WORLD's.
  (void)ftmpi::api::delete_attributes(ftmpi::attr::ObjectKind::comm, &ftmpi_comm_self);
  (void)ftmpi::api::delete_attributes(ftmpi::attr::ObjectKind::comm, &ftmpi_comm_world);
  g_api.finalized = true;
  // Sessions still open keep the runtime up (MPI-4.0 §11.3); the last MPI_Session_finalize tears it down.
  Status st = ftmpi::api::runtime_release_if_unused();
  if (!st.ok()) {
    ftmpi::log::error("MPI_Finalize: %s", st.message().c_str());
    return ftmpi::api::error_class_of(st.code());
  }
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Finalize)

extern "C" int PMPI_Initialized(int* flag) {
  if (!flag) return MPI_ERR_ARG;
  *flag = g_api.initialized;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Initialized)

extern "C" int PMPI_Finalized(int* flag) {
  if (!flag) return MPI_ERR_ARG;
  *flag = g_api.finalized;
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Finalized)

extern "C" int PMPI_Query_thread(int* provided) {
  FTMPI_ENTER("MPI_Query_thread");
  if (!provided) return ret(nullptr, Status(Errc::arg, "provided is NULL"), "MPI_Query_thread");
  *provided = g_api.rt->thread_level();
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Query_thread)

extern "C" int PMPI_Is_thread_main(int* flag) {
  FTMPI_ENTER("MPI_Is_thread_main");
  if (!flag) return ret(nullptr, Status(Errc::arg, "flag is NULL"), "MPI_Is_thread_main");
  *flag = g_api.rt->is_main_thread();
  return MPI_SUCCESS;
}
FTMPI_ALIAS(Is_thread_main)

// MPI_Abort ends "the processes in the group of comm" (MPI-4.1 §11.6). Outside fault-tolerant mode, and for
// any group larger than the caller, that is the whole job (the launcher stops every rank). In a fault-tolerant
// job a communicator whose group is the caller alone (MPI_COMM_SELF, a shrunken communicator of one) ends this
// process only: the others are survivors and see an ordinary process failure, as after a crash. ULFM programs
// use MPI_Abort(MPI_COMM_SELF, ...) both to leave when they cannot continue and to inject a failure.
// Not under Reinit, whose recovery would restart the aborted process: there MPI_Abort still ends the job.
static bool aborts_only_me(MPI_Comm comm) {
  return g_api.rt && g_api.initialized && !g_api.finalized && g_api.rt->ft_mode() && !g_api.rt->reinit() &&
         ftmpi::api::valid_comm(comm) && !comm->is_inter() && comm->size == 1;
}

extern "C" int PMPI_Abort(MPI_Comm comm, int errorcode) {
  if (aborts_only_me(comm)) {
    ftmpi::log::error("MPI_Abort on a communicator of one process (code %d): this rank ends, the job goes on",
                      errorcode);
    std::fflush(nullptr);  // what the program printed before MPI_Abort reaches the launcher
    std::_Exit(errorcode);  // mpiexec counts the rank as failed (it never finalized) and tells the others
  }
  char why[128];
  std::snprintf(why, sizeof why, "MPI_Abort called with error code %d", errorcode);
  ftmpi::api::abort_job(errorcode, why);
}
FTMPI_ALIAS(Abort)
