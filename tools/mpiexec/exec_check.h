// Checks made before forking any rank, so that a job that cannot start fails at once with one clear
// line instead of N children exiting 127 (docs/mpiexec.md, "Before any rank starts").
#pragma once
#include <string>

#include "util/status.h"

namespace ftmpi::mpiexec {

// Would execve(2) accept `path` (already resolved, an executable regular file)? It must be a script
// starting with "#!" whose interpreter exists and is executable, or an ELF executable of this machine's
// class, byte order and architecture (compared with mpiexec's own binary), complete enough to hold its
// program headers, whose ELF interpreter (if any) exists. Errc::arg with the reason otherwise, e.g.
// "'x' has no #! line and is not an ELF executable (a shell script needs #!/bin/sh)".
Status check_executable_format(const std::string& path);

// Can this machine hold `np` more processes started by mpiexec? Raises mpiexec's soft open-file limit
// to the hard one if needed (each rank costs mpiexec 4-5 descriptors), then checks it, the user's
// process limit (RLIMIT_NPROC), the kernel's pid_max/threads-max and the available memory (at least
// 1 MiB per rank). Errc::arg naming the limit that is exceeded.
Status check_job_fits(int np, bool ft);

}  // namespace ftmpi::mpiexec
