#include "dpm/direct_port.h"
#include "dpm/socket_io.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "mpi.h"
#include "transport/tcp/tcp_interfaces.h"
#include "transport/tcp/tcp_socket.h"
#include "transport/tcp/tcp_transport.h"

namespace ftmpi::dpm {
namespace {

namespace tcp = transport::tcp;
using Clock = std::chrono::steady_clock;

constexpr char kPrefix[] = "ftmpi-port-";
constexpr char kHelloMagic[8] = {'F', 'T', 'D', 'P', 'M', 'H', 'I', '1'};
constexpr char kReplyMagic[8] = {'F', 'T', 'D', 'P', 'M', 'O', 'K', '1'};
constexpr std::size_t kHelloHead = 8 + 4 + 2;
constexpr std::size_t kReplySize = 8 + 4 + 4 + 4;
constexpr std::size_t kMaxSecret = 128;
constexpr int kPollMs = 2;

void put32(std::byte* p, std::int32_t v) { std::memcpy(p, &v, 4); }
std::int32_t get32(const std::byte* p) {
  std::int32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace

bool is_direct_port(std::string_view name) {
  return name.rfind(kPrefix, 0) == 0 && name.find('@') != std::string_view::npos;
}

Result<std::unique_ptr<DirectPort>> DirectPort::open(int owner_id, int n) {
  transport::TcpOptions opts = transport::TcpOptions::from_env();
  tcp::Endpoint bound;
  auto lfd = tcp::open_listener("0.0.0.0", 0, bound);
  if (!lfd.ok()) return lfd.status();
  const auto port = reinterpret_cast<sockaddr_in*>(&bound.addr)->sin_port;
  std::vector<tcp::Endpoint> eps;
  if (auto all = tcp::local_addresses(); all.ok())
    if (auto sel = tcp::select_addresses(opts.if_include, all.value()); sel.ok())
      for (const auto& a : sel.value())
        if (a.ep.addr.ss_family == AF_INET && !a.loopback) {
          tcp::Endpoint e = a.ep;
          reinterpret_cast<sockaddr_in*>(&e.addr)->sin_port = port;
          eps.push_back(e);
        }
  std::string head = std::string(kPrefix) + std::to_string(owner_id) + "-" + std::to_string(n) + "@";
  const std::string lo = "127.0.0.1:" + std::to_string(ntohs(port));
  // As many addresses as fit, then loopback (on this host it always works).
  std::string card;
  for (const tcp::Endpoint& e : eps) {
    std::string item = tcp::format_endpoint(e);
    if (head.size() + card.size() + item.size() + 1 + lo.size() >= MPI_MAX_PORT_NAME) break;
    card += item + ",";
  }
  card += lo;
  return std::unique_ptr<DirectPort>(new DirectPort(lfd.value(), head + card));
}

DirectPort::~DirectPort() { ::close(fd_); }

Result<Meeting> DirectPort::accept(int my_id, const std::string& secret, int pair, const std::function<void()>& idle) {
  for (;;) {
    int fd = ::accept4(fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
        return Status(Errc::port, std::string("MPI_Comm_accept: ") + std::strerror(errno));
      if (idle) idle();
      pollfd p{fd_, POLLIN, 0};
      (void)::poll(&p, 1, kPollMs);
      continue;
    }
    auto deadline = Clock::now() + std::chrono::seconds(5);
    std::array<std::byte, kHelloHead + kMaxSecret> in{};
    bool ok = io_fully(fd, in.data(), kHelloHead, false, deadline) && std::memcmp(in.data(), kHelloMagic, 8) == 0;
    std::uint16_t len = 0;
    if (ok) {
      std::memcpy(&len, in.data() + 12, 2);
      ok = len <= kMaxSecret && io_fully(fd, in.data() + kHelloHead, len, false, deadline);
    }
    if (!ok) {  // a stranger, or a connector that died: wait for the next one
      ::close(fd);
      continue;
    }
    const int peer = get32(in.data() + 8);
    const bool same = std::string_view(reinterpret_cast<const char*>(in.data() + kHelloHead), len) == secret;
    std::array<std::byte, kReplySize> out{};
    std::memcpy(out.data(), kReplyMagic, 8);
    put32(out.data() + 8, same ? 0 : 1);
    put32(out.data() + 12, my_id);
    put32(out.data() + 16, pair);
    bool sent = io_fully(fd, out.data(), out.size(), true, deadline);
    ::close(fd);
    if (same && sent && peer >= 0) return Meeting{peer, pair};
  }
}

Result<Meeting> direct_connect(const std::string& port, int my_id, const std::string& secret,
                               const std::function<void()>& idle) {
  const auto at = port.find('@');
  auto eps = tcp::parse_card(std::string_view(port).substr(at + 1));
  if (!eps.ok()) return Status(Errc::port, "MPI_Comm_connect: malformed port name '" + port + "'");
  if (secret.size() > kMaxSecret) return Status(Errc::intern, "dpm: secret too long");
  transport::TcpOptions opts = transport::TcpOptions::from_env();
  std::vector<std::byte> hello(kHelloHead + secret.size());
  std::memcpy(hello.data(), kHelloMagic, 8);
  put32(hello.data() + 8, my_id);
  const auto len = static_cast<std::uint16_t>(secret.size());
  std::memcpy(hello.data() + 12, &len, 2);
  std::memcpy(hello.data() + kHelloHead, secret.data(), secret.size());
  std::string why = "no address";
  for (const tcp::Endpoint& ep : eps.value()) {
    auto fd = tcp::start_connect(ep, 0);
    if (!fd.ok()) {
      why = fd.status().message();
      continue;
    }
    auto deadline = Clock::now() + std::chrono::milliseconds(opts.connect_timeout_ms);
    int err = ETIMEDOUT;
    for (;;) {
      pollfd p{fd.value(), POLLOUT, 0};
      int k = ::poll(&p, 1, kPollMs);
      if (k > 0) {
        err = tcp::connect_result(fd.value());
        break;
      }
      if (Clock::now() >= deadline) break;
      if (idle) idle();
    }
    if (err != 0 || !io_fully(fd.value(), hello.data(), hello.size(), true, deadline)) {
      why = std::string(err ? std::strerror(err) : "cannot send the hello") + " at " + tcp::format_endpoint(ep);
      ::close(fd.value());
      continue;
    }
    // Connected: the owner answers when its MPI_Comm_accept takes us (however long that is); the socket
    // ends if the port is closed or its owner dies.
    std::array<std::byte, kReplySize> in{};
    std::size_t got = 0;
    while (got < in.size()) {
      ssize_t k = ::recv(fd.value(), in.data() + got, in.size() - got, 0);
      if (k > 0) {
        got += static_cast<std::size_t>(k);
        continue;
      }
      if (k < 0 && errno == EINTR) continue;
      if (k == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) break;
      if (idle) idle();
      pollfd p{fd.value(), POLLIN, 0};
      (void)::poll(&p, 1, kPollMs);
    }
    ::close(fd.value());
    if (got < in.size() || std::memcmp(in.data(), kReplyMagic, 8) != 0)
      return Status(Errc::port, "MPI_Comm_connect: port " + port + " was closed, or its owner failed");
    if (get32(in.data() + 8) != 0)
      return Status(Errc::port, "MPI_Comm_connect: port " + port +
                                    " belongs to a job of another name service (mpiexec --name-service DIR: the same DIR for both jobs)");
    return Meeting{get32(in.data() + 12), get32(in.data() + 16)};
  }
  return Status(Errc::port, "MPI_Comm_connect: no such port: " + port + " (" + why + ")");
}

}  // namespace ftmpi::dpm
