// PmiClient against PmiServer over socketpairs (one thread per simulated rank, the server driven by a
// small loop here), and the singleton bootstrap.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "boot/pmi_client.h"
#include "boot/pmi_server.h"
#include "boot/pmi_wire.h"
#include "boot/singleton.h"

using namespace ftmpi::boot;

namespace {

// Serves `fds` (one per rank) until every client closed its socket or `stop` is set.
void serve(PmiServer& server, std::vector<int> fds, std::atomic<bool>& stop) {
  std::vector<pmi::LineSplitter> in(fds.size());
  size_t open = fds.size();
  while (open > 0 && !stop) {
    std::vector<pollfd> p;
    for (int fd : fds) p.push_back({fd, POLLIN, 0});
    if (poll(p.data(), p.size(), 100) <= 0) continue;
    for (size_t r = 0; r < fds.size(); ++r) {
      if (fds[r] < 0 || !(p[r].revents & (POLLIN | POLLHUP))) continue;
      char buf[4096];
      ssize_t n = read(fds[r], buf, sizeof buf);
      if (n <= 0) {
        close(fds[r]);
        fds[r] = -1;
        --open;
        continue;
      }
      in[r].append(buf, static_cast<size_t>(n));
      while (auto line = in[r].next()) {
        auto o = server.handle(static_cast<int>(r), *line);
        for (auto& rep : o.replies) {
          int fd = fds[static_cast<size_t>(rep.rank)];
          if (fd < 0) continue;
          ASSERT_EQ(write(fd, rep.line.data(), rep.line.size()), static_cast<ssize_t>(rep.line.size()));
        }
      }
    }
  }
  for (int fd : fds)
    if (fd >= 0) close(fd);
}

}  // namespace

TEST(PmiClient, FourRanksPutFenceGet) {
  constexpr int kRanks = 4;
  PmiServer server(kRanks, "kvs_unit");
  std::vector<int> server_fds, client_fds;
  for (int r = 0; r < kRanks; ++r) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    server_fds.push_back(sv[0]);
    client_fds.push_back(sv[1]);
  }
  std::atomic<bool> stop{false};
  std::thread srv(serve, std::ref(server), server_fds, std::ref(stop));
  std::atomic<int> good{0};
  std::vector<std::thread> ranks;
  for (int r = 0; r < kRanks; ++r)
    ranks.emplace_back([&, r] {
      // Rank 3 learns its rank/size through the PMI_ID handshake.
      auto c = r == 3 ? PmiClient::connect_on_fd(client_fds[static_cast<size_t>(r)], -1, -1, 3, true)
                      : PmiClient::connect_on_fd(client_fds[static_cast<size_t>(r)], r, kRanks, -1, false);
      ASSERT_TRUE(c.ok()) << c.status().message();
      PmiClient& b = *c.value();
      EXPECT_EQ(b.rank(), r);
      EXPECT_EQ(b.size(), kRanks);
      EXPECT_EQ(b.job_id(), "kvs_unit");
      EXPECT_EQ(b.launched_by_ftmpi(), r == 3);
      ASSERT_TRUE(b.put("card-" + std::to_string(r), "value-" + std::to_string(r)).ok());
      ASSERT_TRUE(b.fence().ok());
      for (int p = 0; p < kRanks; ++p) {
        auto v = b.get("card-" + std::to_string(p));
        ASSERT_TRUE(v.ok()) << v.status().message();
        EXPECT_EQ(*v, "value-" + std::to_string(p));
      }
      auto missing = b.get("missing");
      EXPECT_FALSE(missing.ok());
      EXPECT_EQ(missing.status().code(), ftmpi::Errc::arg);
      EXPECT_FALSE(b.put("bad key", "v").ok());
      EXPECT_FALSE(b.put("k", std::string(1025, 'v')).ok());
      EXPECT_EQ(b.appnum().value(), 0);
      ASSERT_TRUE(b.fence().ok());
      ASSERT_TRUE(b.finalize().ok());
      ++good;
    });
  for (auto& t : ranks) t.join();
  stop = true;
  srv.join();
  EXPECT_EQ(good.load(), kRanks);
}

TEST(PmiClient, ServerGoneIsAnErrorNotAHang) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  close(sv[0]);
  auto c = PmiClient::connect_on_fd(sv[1], 0, 1, -1, false);
  EXPECT_FALSE(c.ok());
}

TEST(PmiClient, GarbageFromServerIsAnError) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  const char junk[] = "this is not pmi\n";
  ASSERT_EQ(write(sv[0], junk, sizeof junk - 1), static_cast<ssize_t>(sizeof junk - 1));
  auto c = PmiClient::connect_on_fd(sv[1], 0, 1, -1, false);
  EXPECT_FALSE(c.ok());
  close(sv[0]);
}

TEST(Singleton, PrivateKeyValueSpace) {
  SingletonBootstrap b;
  EXPECT_EQ(b.rank(), 0);
  EXPECT_EQ(b.size(), 1);
  EXPECT_EQ(b.job_id(), "singleton-" + std::to_string(getpid()));
  EXPECT_FALSE(b.launched_by_ftmpi());
  ASSERT_TRUE(b.put("k", "v").ok());
  ASSERT_TRUE(b.fence().ok());
  EXPECT_EQ(b.get("k").value(), "v");
  EXPECT_FALSE(b.get("x").ok());
  EXPECT_FALSE(b.put("a b", "v").ok());
  EXPECT_TRUE(b.finalize().ok());
}
