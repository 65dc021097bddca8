// The library's lifetime under the two MPI-4 models (MPI-4.0 §11.2, §11.3): the runtime (transports,
// engine, MPI_COMM_WORLD's machinery) is started by whichever comes first of MPI_Init and the first
// MPI_Session_init, and torn down when the world model is finalized (or never started) and no session is
// open. MPI_COMM_WORLD / MPI_COMM_SELF are valid handles only between MPI_Init and MPI_Finalize.
#pragma once
#include "runtime/runtime.h"
#include "util/status.h"

namespace ftmpi::api {

// Start the runtime if it is not up (collective over the job, like MPI_Init, the first time only).
// Errc::other when it was up once and has been torn down already (it cannot be restarted).
// `on_failure`: see Runtime::init (MPI_Init's initial error handler).
Status runtime_acquire(int required_thread_level, const Runtime::InitFailureHook& on_failure = {});
// Tear the runtime down if neither the world model nor any session uses it any more.
Status runtime_release_if_unused();
// Number of open sessions.
int open_sessions();

}  // namespace ftmpi::api
