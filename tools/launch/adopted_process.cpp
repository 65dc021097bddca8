#include "adopted_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

namespace ftmpi::mpiexec {

Result<AdoptedProcess> AdoptedProcess::watch(pid_t pid) {
  int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return Status(Errc::other, "cannot watch process " + std::to_string(pid) + ": " + std::strerror(errno));
  AdoptedProcess p;
  p.pid_ = pid;
  p.fd_ = fd;
  return p;
}

AdoptedProcess& AdoptedProcess::operator=(AdoptedProcess&& o) noexcept {
  if (this != &o) {
    release();
    pid_ = o.pid_;
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

AdoptedProcess::~AdoptedProcess() { release(); }

void AdoptedProcess::release() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool AdoptedProcess::signal(int sig) const {
  if (fd_ < 0) return false;
  return syscall(SYS_pidfd_send_signal, fd_, sig, nullptr, 0) == 0;
}

std::optional<int> AdoptedProcess::exit_status() const {
  if (pid_ <= 0) return std::nullopt;
  // /proc/PID/stat: "pid (comm) state ... exit_code" — the state is field 3 and the exit code (in waitpid's
  // form) field 52; comm may hold spaces and parentheses, so fields are counted after the last ')'.
  // Plain read(2): the process may be reaped between open and read (ESRCH), which a std::ifstream turns into
  // an exception.
  const std::string path = "/proc/" + std::to_string(pid_) + "/stat";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[2048];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  std::string all(buf, static_cast<std::size_t>(n));
  std::size_t paren = all.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(all.substr(paren + 1));
  std::string f;
  std::string state;
  for (int i = 3; fields >> f; ++i) {
    if (i == 3) state = f;
    if (i == 52) {
      if (state != "Z") return std::nullopt;  // not our ended process (reaped; the pid reused)
      return std::atoi(f.c_str());
    }
  }
  return std::nullopt;
}

}  // namespace ftmpi::mpiexec
