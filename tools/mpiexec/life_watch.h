// mpiexec, Reinit on one host: one thread per rank watching the rank's life lock on the fence board
// (src/models/reinit/life_lock.h), so that a rank's death is known before the kernel has torn down the dead
// process (1-2 ms earlier than SIGCHLD for a rank with populated shared-memory rings). The threads only
// write (rank, pid, tid) records into a pipe that the job's poll loop reads (fd()); what to do with a report
// is the job's decision (Job::on_life_readable): it is a hint, checked against the kernel and the rank table.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <thread>
#include <vector>

#include "models/reinit/fence_board.h"

namespace ftmpi::mpiexec {

class LifeWatch {
 public:
  struct Report {
    int rank;
    pid_t pid;
    pid_t tid;
  };
  // Watches ranks [0, n) of `board`, which must outlive this object. Starts no thread if the pipe fails.
  LifeWatch(const reinit::FenceBoard& board, int n);
  ~LifeWatch();  // stops and joins the threads (each notices within 100 ms)
  LifeWatch(const LifeWatch&) = delete;
  LifeWatch& operator=(const LifeWatch&) = delete;

  int fd() const { return pipe_[0]; }  // readable when reports wait
  std::vector<Report> drain();

 private:
  void watch(int rank);

  const reinit::FenceBoard& board_;
  int pipe_[2] = {-1, -1};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

}  // namespace ftmpi::mpiexec
