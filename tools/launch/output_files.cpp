#include "output_files.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "output_forwarder.h"
#include "say.h"

namespace ftmpi::mpiexec {
namespace {

// mkdir -p: every missing directory of `path`. False (errno set) if one cannot be made.
bool make_dirs(const std::string& path) {
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    const std::string part = path.substr(0, i);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

}  // namespace

std::optional<OutputFileSpec> parse_output_files(const std::string& value, std::string& error) {
  OutputFileSpec s;
  std::string dir = value;
  // Trailing modifiers: ":nojobid", ":nocopy", or both as ":nojobid,nocopy".
  for (;;) {
    const std::size_t colon = dir.rfind(':');
    if (colon == std::string::npos) break;
    const std::string mods = dir.substr(colon + 1);
    bool all_known = !mods.empty();
    std::size_t start = 0;
    bool jobid = s.jobid, copy = s.copy;
    while (all_known && start <= mods.size()) {
      const std::size_t comma = mods.find(',', start);
      const std::string m = mods.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (m == "nojobid") jobid = false;
      else if (m == "nocopy") copy = false;
      else all_known = false;
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (!all_known) break;  // a colon that is part of the directory's name
    s.jobid = jobid;
    s.copy = copy;
    dir.resize(colon);
  }
  if (dir.empty()) {
    error = "expected a directory (DIR[:nojobid][:nocopy])";
    return std::nullopt;
  }
  if (dir[0] != '/') {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) {
      error = std::string("cannot read the working directory: ") + strerror(errno);
      return std::nullopt;
    }
    dir = std::string(cwd) + "/" + dir;
  }
  s.dir = dir;
  return s;
}

OutputFiles::~OutputFiles() {
  for (auto& [key, fd] : fds_)
    if (fd >= 0) ::close(fd);
}

int OutputFiles::open_file(int rank, int fd) {
  auto it = fds_.find({rank, fd});
  if (it != fds_.end()) return it->second;
  std::string n = std::to_string(rank);
  if (static_cast<int>(n.size()) < width_) n.insert(0, static_cast<std::size_t>(width_) - n.size(), '0');
  const std::string dir = spec_.dir + (spec_.jobid ? "/1" : "") + "/rank." + n;
  const std::string path = dir + (fd == 2 ? "/stderr" : "/stdout");
  int f = -1;
  if (make_dirs(dir)) f = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (f < 0) say("cannot write '%s': %s (rank %d's output is not saved)", path.c_str(), strerror(errno), rank);
  fds_[{rank, fd}] = f;
  return f;
}

void OutputFiles::write(int rank, int fd, const char* data, std::size_t n) {
  if (!enabled() || rank < 0) return;
  const int f = open_file(rank, fd);
  if (f >= 0) write_lines(f, std::string(), data, n);
}

}  // namespace ftmpi::mpiexec
