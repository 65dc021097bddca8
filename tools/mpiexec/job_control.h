// --status JOBID and --halt JOBID: a running several-hosts job's origin listens on a Unix socket named by
// its pid ($XDG_RUNTIME_DIR or /tmp, "ftmpi-jobs-<uid>/job-<pid>.sock", mode 0700 directory), answers
// "status" with a table of hosts and ranks from its own records (never waiting for a host, so the answer
// is immediate even when hosts are dead) and "halt" by ending the job in order (no failure notices).
#pragma once
#include <string>

namespace ftmpi::mpiexec {

// The socket path of job `pid` (the directory is created by the server side).
std::string job_socket_path(int pid);

// Listening socket for this process's job; -1 (and a debug log) if it cannot be made.
int open_job_socket(std::string& path_out);

// The client side: send `command` ("status" or "halt") to job `pid`, copy the answer to stdout until the
// job closes the connection or `limit_seconds` pass. Returns mpiexec's exit status (0, or 1 with a
// message when there is no such job or it does not answer).
int job_control_client(int pid, const std::string& command, double limit_seconds);

}  // namespace ftmpi::mpiexec
