// Error-handler invocation and the sentences behind MPI_Error_string.
#pragma once
#include <string>

#include "comm/errhandler.h"
#include "util/status.h"

struct ftmpi_comm_s;

namespace ftmpi::api {
// "MPI_ERR_RANK: invalid rank" for an error class, nullptr for an unknown code.
const char* error_class_sentence(int cls);
// Apply comm's handler to `code` (see ret() in common.h).
int invoke_errhandler(ftmpi_comm_s* comm, int code, const std::string& detail, const char* fn);

// Reinit (api/reinit.cpp). What MPI_ERRORS_REINIT_ASYNC (async) / _SYNC does with error class `code`:
// returns the kind to apply (return_ or fatal). An asynchronous handler inside MPI_Reinit facing a process
// failure waits until the rollback is announced; the exit of the MPI call then jumps (seed 003 §1.4).
ftmpi_errhandler_s::Kind reinit_errhandler_outcome(bool async, int code);
// MPI_Comm_set_errhandler: the Reinit handlers go on MPI_COMM_WORLD only, and never switch kind (§1.4.1).
// Records the chosen mode.
Status check_reinit_errhandler(ftmpi_comm_s* comm, ftmpi_errhandler_s* eh);
[[noreturn]] void abort_job(int code, const char* why);
}  // namespace ftmpi::api
