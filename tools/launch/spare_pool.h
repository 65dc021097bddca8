// Warm spare processes (mpiexec --with-ft reinit --spares N; the spare's own side is
// src/models/reinit/spare.h): the launcher's bookkeeping, shared by the two programs that start processes —
// mpiexec for a job on one host (tools/mpiexec/job_reinit.cpp) and the host daemon ftmpid on several hosts
// (tools/ftmpid/daemon_spare.cpp), which keeps N of them on its own host.
//
// Model. A spare is a process of the job's program started with a rank's environment minus its rank
// (no PMI_RANK, no FTMPI_LOCAL_RANK) and FTMPI_SPARE set: it runs main up to MPI_Init and blocks there on
// its control channel. The launcher holds its pid and its ends of the channels (WarmProcess). A failed
// rank is given to a spare by one line on that channel (adopt_line); from then on the process is that
// rank's, and the launcher treats the channels as the rank's.
//
// Algorithm. fill() starts spares until `target` wait (target N: at the job's start and after each
// committed epoch change, never on the recovery path); take() hands out the oldest (it has had the most
// time to reach MPI_Init); reap() forgets one that ended before it was used; release() kills and reaps
// the rest at the end of the job (SIGKILL to its process group; a spare has no rank, nothing to flush).
//
// Safety. A spare is in exactly one place: in the pool, or taken (then its channels belong to the caller,
// which must not give it back). The pool closes the descriptors of what it holds and of nothing else.
// Cost. Per spare: one process (exec'd, libraries loaded, waiting in a blocking read), 4-6 descriptors
// in the launcher. take() is O(1) in practice (the pool holds N, a handful).
#pragma once
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/status.h"

namespace ftmpi::mpiexec {

// A process the launcher started (a rank, a restart or a spare): its pid and the launcher's ends of its
// channels (-1: none). `stdin_fd` (rank 0's forwarded stdin) and `pidfd` are used by ftmpid only.
struct WarmProcess {
  pid_t pid = -1;
  int pmi_fd = -1, ctrl_fd = -1, out_fd = -1, err_fd = -1;
  int stdin_fd = -1, pidfd = -1;
  void close_fds();
};

class SparePool {
 public:
  // Start one spare with environment `env` (already a spare's: spare_environment).
  using Start = std::function<Result<WarmProcess>(std::vector<std::string> env)>;

  void set_target(int n) { target_ = n < 0 ? 0 : n; }
  int target() const { return target_; }
  int size() const { return static_cast<int>(spares_.size()); }
  const std::vector<WarmProcess>& spares() const { return spares_; }

  // A rank's environment `rank_env` made a spare's: PMI_RANK and FTMPI_LOCAL_RANK removed (it learns them
  // when adopted), FTMPI_INJECT_AT removed (an injection fires in the rank launched first only),
  // FTMPI_SPARE=<index> added.
  static std::vector<std::string> spare_environment(std::vector<std::string> rank_env, int index);
  // The line that hands rank `rank` to a spare: it joins epoch `epoch` knowing the ranks `failed`.
  static std::string adopt_line(int rank, int epoch, const std::vector<int>& failed);

  // Start spares until `target` wait. Returns how many were started; stops at the first failure and
  // puts its message in *error (the recovery then falls back on fork+exec).
  int fill(const std::vector<std::string>& rank_env, const Start& start, std::string* error);
  // The oldest spare, removed from the pool (its descriptors are the caller's now); none when empty.
  std::optional<WarmProcess> take();
  // `pid` is a spare of this pool (not taken).
  bool holds(pid_t pid) const;
  // `pid` was a spare of this pool and ended: forget it (descriptors closed). False if it was not one.
  bool reap(pid_t pid);
  // The end of the job: every spare is killed (SIGKILL to its group) and reaped, descriptors closed.
  void release();

 private:
  int target_ = 0;
  int next_index_ = 0;  // FTMPI_SPARE's value: a number per spare of this launcher, for the logs
  std::vector<WarmProcess> spares_;
};

}  // namespace ftmpi::mpiexec
