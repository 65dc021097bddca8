// Data sieving (io/sieve.h): the grouping of extents, and reads/writes through it on a real file against a
// reference image.
#include "io/sieve.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/posix.h"

namespace ftmpi::io {
namespace {

std::vector<Extent> strided(std::uint64_t start, std::uint64_t len, std::uint64_t stride, int n) {
  std::vector<Extent> ex;
  for (int i = 0; i < n; ++i) ex.push_back({start + static_cast<std::uint64_t>(i) * stride, static_cast<std::uint64_t>(i) * len, len});
  return ex;
}

TEST(SieveGroups, GroupsWhileTheSpanFitsTheBuffer) {
  auto ex = strided(0, 10, 40, 10);  // span of k extents: 40 (k - 1) + 10
  SieveOptions o{100, CbMode::enable, true};
  auto g = sieve_groups(ex, o);
  // 3 extents span 90 <= 100, 4 span 130: groups of 3, 3, 3, 1
  ASSERT_EQ(g.size(), 4u);
  EXPECT_EQ(g[0].first, 0u);
  EXPECT_EQ(g[0].last, 3u);
  EXPECT_TRUE(g[0].sieve);
  EXPECT_EQ(g[3].first, 9u);
  EXPECT_EQ(g[3].last, 10u);
  EXPECT_FALSE(g[3].sieve);  // alone
}

TEST(SieveGroups, DisableAndSparseAutomatic) {
  auto ex = strided(0, 10, 40, 10);
  auto g = sieve_groups(ex, SieveOptions{1000, CbMode::disable, true});
  ASSERT_EQ(g.size(), 10u);
  for (auto& x : g) EXPECT_FALSE(x.sieve);
  // density 10/400 < 1/16: automatic moves each extent alone, enable sieves
  auto sparse = strided(0, 10, 400, 5);
  for (auto& x : sieve_groups(sparse, SieveOptions{1 << 20, CbMode::automatic, true})) EXPECT_FALSE(x.sieve);
  auto forced = sieve_groups(sparse, SieveOptions{1 << 20, CbMode::enable, true});
  ASSERT_EQ(forced.size(), 1u);
  EXPECT_TRUE(forced[0].sieve);
  // dense enough: automatic sieves
  auto dense = sieve_groups(ex, SieveOptions{1 << 20, CbMode::automatic, true});
  ASSERT_EQ(dense.size(), 1u);
  EXPECT_TRUE(dense[0].sieve);
}

TEST(SieveGroups, ExtentLargerThanTheBufferIsAlone) {
  std::vector<Extent> ex{{0, 0, 10}, {20, 10, 500}, {600, 510, 10}, {620, 520, 10}};
  auto g = sieve_groups(ex, SieveOptions{100, CbMode::enable, true});
  ASSERT_EQ(g.size(), 3u);
  EXPECT_FALSE(g[0].sieve);  // {0} then {20, 500} does not fit
  EXPECT_FALSE(g[1].sieve);
  EXPECT_TRUE(g[2].sieve);
  EXPECT_EQ(g[2].first, 2u);
  EXPECT_EQ(g[2].last, 4u);
}

class SieveFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ftmpi-sieve-unit-XXXXXX";
    fd_ = mkstemp(tmpl);
    ASSERT_GE(fd_, 0);
    path_ = tmpl;
  }
  void TearDown() override {
    close(fd_);
    unlink(path_.c_str());
  }
  int fd_ = -1;
  std::string path_;
};

TEST_F(SieveFile, WriteKeepsTheHolesAndReadMatches) {
  for (CbMode mode : {CbMode::enable, CbMode::disable, CbMode::automatic}) {
    ASSERT_EQ(ftruncate(fd_, 0), 0);
    // background 0..999
    std::vector<char> bg(1000);
    for (int i = 0; i < 1000; ++i) bg[static_cast<std::size_t>(i)] = static_cast<char>(i % 97);
    ASSERT_TRUE(write_at(fd_, 0, bg.data(), bg.size()).ok());
    // 7-byte extents every 23 bytes from 5, 50 of them: the last ends past the background (file grows)
    auto ex = strided(5, 7, 23, 50);
    std::vector<char> data(350);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(100 + i % 50);
    ASSERT_TRUE(sieve_write(fd_, ex, 0, data.data(), SieveOptions{64, mode, true}).ok());
    std::vector<char> ref = bg;
    ref.resize(5 + 49 * 23 + 7, 0);
    for (const Extent& e : ex)
      for (std::uint64_t k = 0; k < e.len; ++k) ref[e.file_off + k] = data[e.stream_off + k];
    std::vector<char> file(ref.size() + 10, 'x');
    std::uint64_t n = 0;
    ASSERT_TRUE(read_at(fd_, 0, file.data(), file.size(), &n).ok());
    ASSERT_EQ(n, ref.size());  // no byte written past the last extent
    file.resize(n);
    EXPECT_EQ(file, ref);
    // read back through the extents, and past the end: 3 more extents that do not exist
    auto more = strided(5, 7, 23, 53);
    std::vector<char> back(371, 'y');
    std::uint64_t got = 0;
    ASSERT_TRUE(sieve_read(fd_, more, 0, back.data(), SieveOptions{100, mode, false}, &got).ok());
    EXPECT_EQ(got, 350u);
    back.resize(350);
    EXPECT_EQ(back, data);
  }
}

}  // namespace
}  // namespace ftmpi::io
