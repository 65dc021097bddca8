// The Reinit fence board's segment (src/models/reinit/fence_board.h) with real threads standing for ranks:
// fence 1 is released only when every member arrived, each member gets exactly the cards card_reaches
// gives it, a newer epoch on the word supersedes a waiter, and a stale arrival counts for nothing.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "models/reinit/fence_board.h"

namespace {
using ftmpi::reinit::Card;
using ftmpi::reinit::FenceBoard;

std::string board_name(const char* tag) { return "ftmpi-test-rboard-" + std::to_string(getpid()) + "-" + tag; }

TEST(ReinitFenceBoard, ReleasedWhenAllArrivedWithTheirCards) {
  const std::string name = board_name("a");
  auto coord = FenceBoard::create(name, 4);
  ASSERT_TRUE(coord.ok()) << coord.status().message();
  coord.value().begin(1, 4);  // epoch 1: rank 3 is new
  auto is_new = [](int k) { return k == 3; };
  std::vector<std::vector<Card>> got(4);
  std::atomic<int> released{0};
  std::vector<std::thread> ts;
  for (int r = 0; r < 4; ++r)
    ts.emplace_back([&, r] {
      auto b = FenceBoard::attach(name);
      ASSERT_TRUE(b.ok()) << b.status().message();
      if (r == 3) usleep(20000);  // the others wait for the last one
      std::vector<Card> mine{{"shm." + std::to_string(r), "seg" + std::to_string(r)}};
      if (r == 0) mine.emplace_back("secret", "s1");
      if (b.value().fence1(r, 1, mine, is_new, [] { return false; }, &got[static_cast<size_t>(r)])) ++released;
    });
  for (auto& t : ts) t.join();
  ::shm_unlink(("/" + name).c_str());
  EXPECT_EQ(released.load(), 4);
  // survivors: the new process's card (and the card for no rank); the new process: everybody's
  for (int r = 0; r < 3; ++r) {
    std::vector<Card> want{{"shm.3", "seg3"}};
    if (r != 0) want.insert(want.begin(), {"secret", "s1"});
    std::vector<Card> have = got[static_cast<size_t>(r)];
    std::sort(have.begin(), have.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(have, want) << "rank " << r;
  }
  EXPECT_EQ(got[3].size(), 4u);
}

TEST(ReinitFenceBoard, NewerEpochSupersedesAndStaleArrivalsDoNotCount) {
  const std::string name = board_name("b");
  auto coord = FenceBoard::create(name, 2);
  ASSERT_TRUE(coord.ok());
  coord.value().begin(2, 2);
  std::atomic<int> result{-1};
  std::thread waiter([&] {
    auto b = FenceBoard::attach(name);
    ASSERT_TRUE(b.ok());
    std::vector<Card> got;
    result = b.value().fence1(0, 2, {}, [](int) { return true; }, [] { return false; }, &got) ? 1 : 0;
  });
  usleep(20000);
  EXPECT_EQ(result.load(), -1);  // rank 1 has not arrived
  coord.value().begin(3, 2);     // a death: epoch 3
  waiter.join();
  EXPECT_EQ(result.load(), 0);   // superseded, not released
  // Rank 0's arrival at epoch 2 counts for nothing in epoch 3: rank 1 alone does not release it.
  auto b = FenceBoard::attach(name);
  ASSERT_TRUE(b.ok());
  std::vector<Card> got;
  int polls = 0;
  bool rel = b.value().fence1(1, 3, {}, [](int) { return true; }, [&] { return ++polls > 2; }, &got);
  EXPECT_FALSE(rel);  // gave up waiting: rank 0 never arrived at 3
  ::shm_unlink(("/" + name).c_str());
}

}  // namespace
