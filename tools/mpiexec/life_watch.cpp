#include "life_watch.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>

namespace ftmpi::mpiexec {

LifeWatch::LifeWatch(const reinit::FenceBoard& board, int n) : board_(board) {
  if (::pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
    pipe_[0] = pipe_[1] = -1;
    return;
  }
  threads_.reserve(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) threads_.emplace_back([this, r] { watch(r); });
}

LifeWatch::~LifeWatch() {
  stop_.store(true);
  for (std::thread& t : threads_) t.join();
  for (int fd : pipe_)
    if (fd >= 0) ::close(fd);
}

void LifeWatch::watch(int rank) {
  pthread_setname_np(pthread_self(), "mpiexec-life");
  reinit::LifeSlot* slot = board_.life(rank);
  if (!slot) return;
  std::uint32_t seen = 0;
  for (;;) {
    Report rep{rank, 0, 0};
    const reinit::LifeEnd end = reinit::watch_life(*slot, &seen, &rep.pid, &rep.tid, stop_);
    if (end == reinit::LifeEnd::stopped) return;
    if (end != reinit::LifeEnd::died) continue;
    // A record is smaller than PIPE_BUF: written whole or not at all (a full pipe: SIGCHLD still tells).
    ssize_t w;
    do w = ::write(pipe_[1], &rep, sizeof rep);
    while (w < 0 && errno == EINTR);
  }
}

std::vector<LifeWatch::Report> LifeWatch::drain() {
  std::vector<Report> out;
  Report rep{};
  for (;;) {
    ssize_t n = ::read(pipe_[0], &rep, sizeof rep);
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof rep)) break;
    out.push_back(rep);
  }
  return out;
}

}  // namespace ftmpi::mpiexec
