// The name service's failure board (src/dpm/failure_board.h): a post by one universe reaches the others'
// watchers once, never its own; a slot's cleanup removes its posts (dpm/name_dir.h).
#include <gtest/gtest.h>

#include <dirent.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

#include "dpm/failure_board.h"
#include "dpm/name_dir.h"
#include "dpm/universe.h"

namespace ftmpi::dpm {
namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/ftmpi-board-test.XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { (void)system(("rm -rf " + path).c_str()); }
};

bool readable(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, ms) == 1;
}

int entries(const std::string& dir) {
  int n = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

TEST(FailureBoard, PostReachesOtherUniversesOnly) {
  TempDir tmp;
  auto a = FailureBoard::open(tmp.path, 1);
  auto b = FailureBoard::open(tmp.path, 2);
  ASSERT_TRUE(a.ok() && b.ok());
  a.value()->post(universe_base(1) + 3);
  ASSERT_TRUE(readable(b.value()->fd(), 1000));
  auto got = b.value()->poll();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], universe_base(1) + 3);
  EXPECT_TRUE(a.value()->poll().empty());  // its own post
  EXPECT_TRUE(b.value()->poll().empty());  // read once
}

TEST(FailureBoard, SlotCleanupRemovesPosts) {
  TempDir tmp;
  auto a = FailureBoard::open(tmp.path, 1);
  ASSERT_TRUE(a.ok());
  a.value()->post(universe_base(1) + 0);
  a.value()->post(universe_base(2) + 7);  // another slot's entry stays
  EXPECT_EQ(entries(tmp.path + "/failed"), 2);
  remove_slot_entries(tmp.path, 1);
  EXPECT_EQ(entries(tmp.path + "/failed"), 1);
}

}  // namespace
}  // namespace ftmpi::dpm
