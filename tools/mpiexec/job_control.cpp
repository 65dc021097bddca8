#include "job_control.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "say.h"

namespace ftmpi::mpiexec {
namespace {

std::string socket_dir() {
  const char* rt = getenv("XDG_RUNTIME_DIR");
  std::string base = rt && *rt ? rt : "/tmp";
  return base + "/ftmpi-jobs-" + std::to_string(getuid());
}

bool fill_addr(const std::string& path, sockaddr_un& a) {
  a = {};
  a.sun_family = AF_UNIX;
  if (path.size() >= sizeof a.sun_path) return false;
  memcpy(a.sun_path, path.c_str(), path.size() + 1);
  return true;
}

}  // namespace

std::string job_socket_path(int pid) { return socket_dir() + "/job-" + std::to_string(pid) + ".sock"; }

int open_job_socket(std::string& path_out) {
  std::string dir = socket_dir();
  mkdir(dir.c_str(), 0700);
  path_out = job_socket_path(getpid());
  unlink(path_out.c_str());
  sockaddr_un a;
  if (!fill_addr(path_out, a)) return -1;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 8) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int job_control_client(int pid, const std::string& command, double limit_seconds) {
  std::string path = job_socket_path(pid);
  sockaddr_un a;
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || !fill_addr(path, a) || ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    say("no running several-hosts job %d (%s: %s)", pid, path.c_str(), strerror(errno));
    if (fd >= 0) ::close(fd);
    return 1;
  }
  std::string line = command + "\n";
  (void)!::send(fd, line.data(), line.size(), MSG_NOSIGNAL);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                          std::chrono::duration<double>(limit_seconds));
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      say("job %d did not finish answering '%s' within %g s", pid, command.c_str(), limit_seconds);
      ::close(fd);
      return 1;
    }
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    (void)!::write(1, buf, static_cast<std::size_t>(r));
  }
  ::close(fd);
  return 0;
}

}  // namespace ftmpi::mpiexec
