#include "ft/detector_datagram.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ftmpi::ft {

Result<BoundUdp> bind_any_udp(const char* who) {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Status(Errc::other, std::string(who) + ": socket: " + std::strerror(errno));
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof any;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&any), sizeof any) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&any), &len) != 0) {
    Status st(Errc::other, std::string(who) + ": bind: " + std::strerror(errno));
    ::close(fd);
    return st;
  }
  return BoundUdp{fd, ntohs(any.sin_port)};
}

}  // namespace ftmpi::ft
