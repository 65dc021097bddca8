#include "shm_cleanup.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace ftmpi::mpiexec {

int remove_job_shm_segments(const std::string& job_id) {
  if (job_id.empty()) return 0;
  DIR* d = opendir("/dev/shm");
  if (!d) return 0;
  const std::string prefix1 = "ftmpi-" + job_id;
  const std::string& prefix2 = job_id;
  int removed = 0;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.rfind(prefix1, 0) == 0 || name.rfind(prefix2, 0) == 0) {
      if (unlinkat(dirfd(d), name.c_str(), 0) == 0) ++removed;
    }
  }
  closedir(d);
  return removed;
}

namespace {
// The pid a segment name carries (mpiexec's, or for a communicator's scratch segment the creating rank's), or
// -1 if the name is not one of ours.
long owner_pid(const std::string& name) {
  std::size_t p = 0;
  if (name.rfind("ftmpi-ftmpi-", 0) == 0) p = 12;
  else if (name.rfind("ftmpi-coll-", 0) == 0) p = 11;  // coll/shm_area.cpp: the small-collective area
  else if (name.rfind("ftmpi-rwin-", 0) == 0) p = 11;  // rma/direct.cpp: a member's window segment
  else if (name.rfind("ftmpi-rma-", 0) == 0) p = 10;   // api/rma_win.cpp: an allocate_shared window
  else if (name.rfind("ftmpi-", 0) == 0) p = 6;
  else return -1;
  std::size_t q = p;
  while (q < name.size() && name[q] >= '0' && name[q] <= '9') ++q;
  if (q == p || q - p > 9 || q >= name.size() || name[q] != '-') return -1;
  return std::strtol(name.c_str() + p, nullptr, 10);
}
}  // namespace

int remove_stale_shm_segments() {
  DIR* d = opendir("/dev/shm");
  if (!d) return 0;
  int removed = 0;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    long pid = owner_pid(name);
    if (pid <= 1) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
    if (unlinkat(dirfd(d), name.c_str(), 0) == 0) ++removed;
  }
  closedir(d);
  return removed;
}

}  // namespace ftmpi::mpiexec
