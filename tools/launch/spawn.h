// Starting one rank: fork, put it in its own process group, wire its stdio and PMI socket, bind it to a
// core, exec the program.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "util/status.h"

namespace ftmpi::mpiexec {

struct SpawnRequest {
  std::string path;               // resolved executable (resolve_program)
  std::vector<std::string> argv;  // argv[0] as the user typed it
  std::vector<std::string> env;   // the complete environment, "NAME=value"
  int pmi_fd = -1;     // the rank's end of its PMI socket; stays open across exec (as PMI_FD)
  int ctrl_fd = -1;    // FT mode: the rank's end of its control channel (FTMPI_CTRL_FD); -1: none
  int stdin_fd = -1;   // becomes fd 0; -1 means /dev/null
  int stdout_fd = -1;  // becomes fd 1
  int stderr_fd = -1;  // becomes fd 2
  int cpu = -1;        // bind to this logical CPU; -1: no binding
  std::string cwd;     // working directory of the rank (MPI_Comm_spawn's "wdir"); empty: mpiexec's
};

// Find the program the way execvp would ($PATH when it has no '/'), then, as Open MPI does, in the
// working directory ("./name"); Errc::arg with a message such as "program 'foo' not found in PATH or in
// the working directory" or "'./x' is not executable".
Result<std::string> resolve_program(const std::string& name);

// Fork and exec. The child: own process group (pgid == pid), SIGKILL if mpiexec dies, default signal
// dispositions and an empty signal mask, fds 0/1/2 as given, all other fds of mpiexec closed (they are
// close-on-exec) except pmi_fd and ctrl_fd. Expects the fds in `req` to be distinct from 0, 1 and 2.
// Returns the pid; the caller owns reaping it.
Result<pid_t> spawn_rank(const SpawnRequest& req);

}  // namespace ftmpi::mpiexec
