#include "shm_cleanup.h"

#include <dirent.h>
#include <unistd.h>

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

}  // namespace ftmpi::mpiexec
