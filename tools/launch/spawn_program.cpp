#include "spawn_program.h"

#include <unistd.h>

#include "spawn.h"

namespace ftmpi::mpiexec {

Result<std::string> resolve_spawn_program(const std::string& command, const std::string& path_dirs,
                                          const std::string& wdir) {
  std::string name = command;
  if (!path_dirs.empty() && name.find('/') == std::string::npos) {
    std::size_t start = 0;
    for (;;) {
      std::size_t colon = path_dirs.find(':', start);
      std::string dir = path_dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      std::string cand = dir + "/" + command;
      if (::access(cand.c_str(), X_OK) == 0) {
        name = cand;
        break;
      }
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  if (!wdir.empty() && name.find('/') != std::string::npos && name[0] != '/') {
    std::string cand = wdir + "/" + name;
    if (::access(cand.c_str(), X_OK) == 0) name = cand;
  } else if (!wdir.empty() && name.find('/') == std::string::npos) {
    std::string cand = wdir + "/" + name;
    if (::access(cand.c_str(), X_OK) == 0 && ::access(name.c_str(), X_OK) != 0) name = cand;
  }
  auto path = resolve_program(name);
  if (!path.ok()) return path.status();
  if (!wdir.empty() && ::access(wdir.c_str(), X_OK) != 0)
    return Status(Errc::arg, "info wdir='" + wdir + "' is not an accessible directory");
  std::string p = path.value();
  if (p[0] != '/') {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) p = std::string(cwd) + "/" + p;
  }
  return p;
}

}  // namespace ftmpi::mpiexec
