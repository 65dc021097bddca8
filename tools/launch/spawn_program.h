// Where the program of an MPI_Comm_spawn command is (MPI-3.1 §10.3.4's info keys "path" and "wdir"), as
// mpiexec (one host) and ftmpid (the host a spawn runs on, several hosts) both look it up: a name without
// '/' is searched first in the "path" directories (':'-separated), then relative to "wdir", then as
// resolve_program does (PATH, then the working directory); a relative name with '/' is tried under "wdir"
// first. The result is absolute, so that it still works from the child's working directory.
#pragma once
#include <string>

#include "util/status.h"

namespace ftmpi::mpiexec {

// Errc::arg with a message when the program is not found or not executable, or when `wdir` is given and
// is not an accessible directory.
Result<std::string> resolve_spawn_program(const std::string& command, const std::string& path_dirs,
                                          const std::string& wdir);

}  // namespace ftmpi::mpiexec
