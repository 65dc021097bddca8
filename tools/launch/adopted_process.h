// A process a launcher supervises as a rank without having started it: a singleton that started mpiexec on
// demand for its dynamic processes (src/boot/launcher_on_demand.h, mpiexec --singleton PID:FD).
//
// It is not the launcher's child, so there is no SIGCHLD, no waitpid and no process group of its own to kill:
// its end is seen on a pidfd (readable once it has ended), it is signalled through that pidfd (never another
// process that reused its pid), and its exit status is read, when still possible, from /proc/PID/stat while it
// is a zombie (its parent — a shell, a test harness — may reap it first: then it is unknown).
#pragma once
#include <sys/types.h>

#include <optional>

#include "util/status.h"

namespace ftmpi::mpiexec {

class AdoptedProcess {
 public:
  AdoptedProcess() = default;
  // Opens the pidfd of `pid`. Errc::other if the process is gone already.
  static Result<AdoptedProcess> watch(pid_t pid);
  AdoptedProcess(AdoptedProcess&& o) noexcept : pid_(o.pid_), fd_(o.fd_) { o.fd_ = -1; }
  AdoptedProcess& operator=(AdoptedProcess&& o) noexcept;
  ~AdoptedProcess();

  pid_t pid() const { return pid_; }
  // Readable (POLLIN) once the process has ended; -1 when not watching.
  int fd() const { return fd_; }
  // Sends `sig` to the process (to it alone, not to its group). False if it has ended or on error.
  bool signal(int sig) const;
  // After fd() turned readable: the process's wait status (as waitpid gives it) if it is still a zombie, else
  // nullopt (its parent reaped it: the status is lost).
  std::optional<int> exit_status() const;
  // Stop watching (closes the pidfd).
  void release();

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
};

}  // namespace ftmpi::mpiexec
