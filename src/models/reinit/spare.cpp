#include "models/reinit/spare.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "models/reinit/reinit_control.h"
#include "util/kv_line.h"

namespace ftmpi::reinit {

bool is_spare() {
  const char* s = std::getenv("FTMPI_SPARE");
  return s && *s;
}

Result<double> wait_for_adoption() {
  const char* fd_s = std::getenv("FTMPI_CTRL_FD");
  int fd = fd_s ? std::atoi(fd_s) : -1;
  if (fd < 0) return Status(Errc::other, "FTMPI_SPARE set without a control channel (FTMPI_CTRL_FD)");
  std::string line;
  for (;;) {
    char c;
    ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(0);  // released: the job is over (or mpiexec is gone)
    if (c == '\n') break;
    if (line.size() > 4096) return Status(Errc::other, "spare: over-long line from the launcher");
    line += c;
  }
  const double adopted_at = realtime_now();
  if (kv_field(line, "cmd") != "adopt") _exit(0);
  int rank = kv_int(line, "rank", -1);
  int epoch = kv_int(line, "epoch", -1);
  if (rank < 0 || epoch <= 0) return Status(Errc::other, "spare: malformed adopt line '" + line + "'");
  std::string_view failed = kv_field(line, "failed");
  const std::string r = std::to_string(rank);
  setenv("PMI_RANK", r.c_str(), 1);
  setenv("FTMPI_LOCAL_RANK", r.c_str(), 1);
  // The other MPIs' names for it (tools/launch/rank_env.h), as a rank started with it has them.
  setenv("OMPI_COMM_WORLD_RANK", r.c_str(), 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", r.c_str(), 1);
  setenv("OMPI_COMM_WORLD_NODE_RANK", r.c_str(), 1);
  setenv("MPI_LOCALRANKID", r.c_str(), 1);
  setenv("FTMPI_REINIT_EPOCH", std::to_string(epoch).c_str(), 1);
  setenv("FTMPI_REINIT_FAILED", std::string(failed.data() ? failed : std::string_view()).c_str(), 1);
  unsetenv("FTMPI_SPARE");
  return adopted_at;
}

}  // namespace ftmpi::reinit
