// The launcher's bounded connect (tools/launch/net_addr.h, connect_any) on real sockets: a SYN that is
// dropped (a listener whose accept queue is full drops it, as a lost packet would be) is retried on a fresh
// socket instead of waiting for the kernel's retransmission; an address that cannot be reached is retried
// until the limit and named in the error; a refusal is final for its address. Silence is made with a
// listener whose accept queue is full (the kernel drops the SYN), so no root and no outside network.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "net_addr.h"

using namespace ftmpi::mpiexec;
using ftmpi::Result;
using Clock = std::chrono::steady_clock;
using ms = std::chrono::milliseconds;

namespace {

// A TCP socket on 127.0.0.1, an ephemeral port; listening with `backlog` when listen_too.
int loopback_socket(int& port, bool listen_too, int backlog = 0) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      (listen_too && ::listen(fd, backlog) != 0) || ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    return -1;
  port = ntohs(a.sin_port);
  return fd;
}

int connect_blocking(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

long long elapsed_ms(Clock::time_point t0) {
  return std::chrono::duration_cast<ms>(Clock::now() - t0).count();
}

}  // namespace

TEST(ConnectAny, DroppedSynIsRetriedOnAFreshSocket) {
  int port = 0;
  int lfd = loopback_socket(port, true, 0);
  ASSERT_GE(lfd, 0);
  // Backlog 0: one connection fills the accept queue; the kernel then drops every further SYN (it does
  // not refuse), exactly what a lost SYN looks like to the connecting side.
  int filler = connect_blocking(port);
  ASSERT_GE(filler, 0);
  std::thread drain([&] {  // the queue frees up 400 ms later: the next attempt gets through
    std::this_thread::sleep_for(ms(400));
    int c = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    if (c >= 0) ::close(c);
  });
  ConnectReport rep;
  auto t0 = Clock::now();
  Result<int> fd = connect_any({"127.0.0.1"}, port, ms(8000), false, &rep);
  long long took = elapsed_ms(t0);
  drain.join();
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  ASSERT_EQ(rep.attempts.size(), 1u);
  // The first attempt's SYN was dropped; it was abandoned and the address tried again on a fresh socket
  // (the kernel's own retransmission would have come only after 1 s).
  EXPECT_GE(rep.attempts[0], 2) << "took " << took << " ms";
  EXPECT_LT(took, 8000);
  ::close(fd.value());
  ::close(filler);
  ::close(lfd);
}

TEST(ConnectAny, SilentAddressIsRetriedWithinTheLimitAndNamed) {
  // A listener whose accept queue stays full: every SYN is dropped, the address never answers (as one
  // behind a cut link). (Not an outside address: this machine's network may answer for any of them.)
  int port = 0;
  int lfd = loopback_socket(port, true, 0);
  ASSERT_GE(lfd, 0);
  int filler = connect_blocking(port);
  ASSERT_GE(filler, 0);
  ConnectReport rep;
  auto t0 = Clock::now();
  Result<int> fd = connect_any({"127.0.0.1"}, port, ms(1000), false, &rep);
  long long took = elapsed_ms(t0);
  ::close(filler);
  ::close(lfd);
  ASSERT_FALSE(fd.ok());
  const std::string& m = fd.status().message();
  EXPECT_NE(m.find("127.0.0.1: no answer ("), std::string::npos) << m;
  EXPECT_NE(m.find("within 1000 ms"), std::string::npos) << m;
  EXPECT_GE(took, 950) << m;   // it kept trying until the limit
  EXPECT_LT(took, 3000) << m;  // and no longer
  ASSERT_EQ(rep.attempts.size(), 1u);
  EXPECT_GE(rep.attempts[0], 2) << m;
}

TEST(ConnectAny, RefusalIsFinalForItsAddress) {
  int port = 0;
  int fd0 = loopback_socket(port, false);  // bound, not listening: a SYN there is refused
  ASSERT_GE(fd0, 0);
  ConnectReport rep;
  auto t0 = Clock::now();
  Result<int> fd = connect_any({"127.0.0.1"}, port, ms(5000), false, &rep);
  long long took = elapsed_ms(t0);
  ::close(fd0);
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.status().message().find("127.0.0.1: Connection refused"), std::string::npos) << fd.status().message();
  EXPECT_LT(took, 2000);
  EXPECT_EQ(rep.attempts.at(0), 1);
}

TEST(ConnectAny, AReachableAddressWinsOverASilentOne) {
  int port = 0;
  int lfd = loopback_socket(port, true, 8);
  ASSERT_GE(lfd, 0);
  // 127.0.0.2, same port: a listener that never answers (accept queue full).
  int dead = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.2", &a.sin_addr);
  ASSERT_EQ(::bind(dead, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(dead, 0), 0);
  int filler = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_EQ(::connect(filler, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  Result<int> fd = connect_any({"127.0.0.2", "127.0.0.1"}, port, ms(5000));
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  sockaddr_in peer{};
  socklen_t len = sizeof peer;
  ASSERT_EQ(::getpeername(fd.value(), reinterpret_cast<sockaddr*>(&peer), &len), 0);
  EXPECT_EQ(peer.sin_addr.s_addr, htonl(INADDR_LOOPBACK));
  ::close(fd.value());
  ::close(filler);
  ::close(dead);
  ::close(lfd);
}

TEST(ConnectAny, BadAddressIsNamed) {
  Result<int> fd = connect_any({"not-an-address"}, 9, ms(200));
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.status().message().find("not-an-address: bad address"), std::string::npos) << fd.status().message();
}
