#include "dpm/failure_board.h"

#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "dpm/universe.h"

namespace ftmpi::dpm {

Result<std::unique_ptr<FailureBoard>> FailureBoard::open(const std::string& dir, int slot) {
  const std::string path = dir + "/failed";
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    return Status(Errc::other, "name service: cannot create " + path + ": " + std::strerror(errno));
  int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return Status(Errc::other, std::string("name service: inotify: ") + std::strerror(errno));
  if (::inotify_add_watch(fd, path.c_str(), IN_CREATE | IN_MOVED_TO) < 0) {
    Status st(Errc::other, "name service: cannot watch " + path + ": " + std::strerror(errno));
    ::close(fd);
    return st;
  }
  return std::unique_ptr<FailureBoard>(new FailureBoard(dir, slot, fd));
}

FailureBoard::~FailureBoard() { ::close(fd_); }

void FailureBoard::post(int id) const {
  const std::string path = dir_ + "/failed/" + std::to_string(id);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) ::close(fd);
}

std::vector<int> FailureBoard::poll() {
  std::vector<int> out;
  alignas(inotify_event) char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (char* p = buf; p < buf + n;) {
      auto* ev = reinterpret_cast<inotify_event*>(p);
      p += sizeof(inotify_event) + ev->len;
      if (ev->len == 0) continue;
      char* end = nullptr;
      long id = std::strtol(ev->name, &end, 10);
      if (end == ev->name || *end != '\0' || id < 0 || id >= kMaxProcesses) continue;
      if (slot_of(static_cast<int>(id)) == slot_) continue;  // our own posts
      out.push_back(static_cast<int>(id));
    }
  }
  return out;
}

}  // namespace ftmpi::dpm
