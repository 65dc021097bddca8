#include "spare_pool.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "rank_env.h"

namespace ftmpi::mpiexec {

void WarmProcess::close_fds() {
  for (int* fd : {&pmi_fd, &ctrl_fd, &out_fd, &err_fd, &stdin_fd, &pidfd})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
}

std::vector<std::string> SparePool::spare_environment(std::vector<std::string> env, int index) {
  std::erase_if(env, [](const std::string& e) {
    return e.rfind("PMI_RANK=", 0) == 0 || e.rfind("FTMPI_LOCAL_RANK=", 0) == 0 || is_foreign_rank_env(e) ||
           e.rfind("FTMPI_INJECT_AT=", 0) == 0 || e.rfind("FTMPI_SPARE=", 0) == 0;
  });
  env.push_back("FTMPI_SPARE=" + std::to_string(index));
  return env;
}

std::string SparePool::adopt_line(int rank, int epoch, const std::vector<int>& failed) {
  std::string list;
  for (int f : failed) list += (list.empty() ? "" : ",") + std::to_string(f);
  return "cmd=adopt rank=" + std::to_string(rank) + " epoch=" + std::to_string(epoch) + " failed=" + list + "\n";
}

int SparePool::fill(const std::vector<std::string>& rank_env, const Start& start, std::string* error) {
  int started = 0;
  while (size() < target_) {
    auto s = start(spare_environment(rank_env, next_index_));
    if (!s.ok()) {
      if (error) *error = s.status().message();
      break;
    }
    ++next_index_;
    spares_.push_back(s.value());
    ++started;
  }
  return started;
}

std::optional<WarmProcess> SparePool::take() {
  if (spares_.empty()) return std::nullopt;
  WarmProcess p = spares_.front();
  spares_.erase(spares_.begin());
  return p;
}

bool SparePool::holds(pid_t pid) const {
  for (const WarmProcess& p : spares_)
    if (p.pid == pid) return true;
  return false;
}

bool SparePool::reap(pid_t pid) {
  for (auto it = spares_.begin(); it != spares_.end(); ++it) {
    if (it->pid != pid) continue;
    it->close_fds();
    spares_.erase(it);
    return true;
  }
  return false;
}

void SparePool::release() {
  for (WarmProcess& s : spares_) {
    if (kill(-s.pid, SIGKILL) != 0) kill(s.pid, SIGKILL);
    int st = 0;
    while (waitpid(s.pid, &st, 0) < 0 && errno == EINTR) {
    }
    s.close_fds();
  }
  spares_.clear();
}

}  // namespace ftmpi::mpiexec
