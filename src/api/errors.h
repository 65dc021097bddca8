// Error-handler invocation and the sentences behind MPI_Error_string.
#pragma once
#include <string>

struct ftmpi_comm_s;

namespace ftmpi::api {
// "MPI_ERR_RANK: invalid rank" for an error class, nullptr for an unknown code.
const char* error_class_sentence(int cls);
// Apply comm's handler to `code` (see ret() in common.h).
int invoke_errhandler(ftmpi_comm_s* comm, int code, const std::string& detail, const char* fn);
[[noreturn]] void abort_job(int code, const char* why);
}  // namespace ftmpi::api
