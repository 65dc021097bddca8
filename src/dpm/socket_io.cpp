#include "dpm/socket_io.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

namespace ftmpi::dpm {

bool io_fully(int fd, std::byte* buf, std::size_t n, bool write, std::chrono::steady_clock::time_point deadline) {
  std::size_t done = 0;
  while (done < n) {
    ssize_t k = write ? ::send(fd, buf + done, n - done, MSG_NOSIGNAL) : ::recv(fd, buf + done, n - done, 0);
    if (k > 0) {
      done += static_cast<std::size_t>(k);
      continue;
    }
    if (k == 0 && !write) return false;
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, static_cast<short>(write ? POLLOUT : POLLIN), 0};
    if (::poll(&p, 1, static_cast<int>(left)) < 0 && errno != EINTR) return false;
  }
  return true;
}

}  // namespace ftmpi::dpm
