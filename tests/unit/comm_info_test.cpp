// Info objects: ordered keys, replace in place, limits, nth key, delete.
#include <gtest/gtest.h>

#include <string>

#include "util/info.h"

using ftmpi::Errc;
using ftmpi::Info;

TEST(Info, KeysKeepFirstSetOrderAndReplaceInPlace) {
  Info info;
  ASSERT_TRUE(info.set("b", "1").ok());
  ASSERT_TRUE(info.set("a", "2").ok());
  ASSERT_TRUE(info.set("c", "3").ok());
  ASSERT_TRUE(info.set("b", "4").ok());
  ASSERT_EQ(info.size(), 3u);
  EXPECT_EQ(*info.nth_key(0), "b");
  EXPECT_EQ(*info.nth_key(1), "a");
  EXPECT_EQ(*info.nth_key(2), "c");
  EXPECT_EQ(info.nth_key(3).status().code(), Errc::arg);
  ASSERT_NE(info.get("b"), nullptr);
  EXPECT_EQ(*info.get("b"), "4");
  EXPECT_EQ(info.get("zz"), nullptr);
}

TEST(Info, Limits) {
  Info info;
  EXPECT_EQ(info.set("", "v").code(), Errc::info_key);
  EXPECT_EQ(info.set(std::string(256, 'k'), "v").code(), Errc::info_key);
  EXPECT_TRUE(info.set(std::string(255, 'k'), "v").ok());
  EXPECT_EQ(info.set("k", "").code(), Errc::info_value);
  EXPECT_EQ(info.set("k", std::string(1025, 'v')).code(), Errc::info_value);
  EXPECT_TRUE(info.set("k", std::string(1024, 'v')).ok());
}

TEST(Info, RemoveAndCopy) {
  Info info;
  ASSERT_TRUE(info.set("x", "1").ok());
  ASSERT_TRUE(info.set("y", "2").ok());
  Info copy = info;
  EXPECT_EQ(info.remove("nokey").code(), Errc::info_nokey);
  EXPECT_EQ(info.remove("").code(), Errc::info_key);
  ASSERT_TRUE(info.remove("x").ok());
  EXPECT_EQ(info.size(), 1u);
  EXPECT_EQ(*info.nth_key(0), "y");
  EXPECT_EQ(copy.size(), 2u);  // independent
}

TEST(Info, CopyCString) {
  char buf[4];
  EXPECT_EQ(ftmpi::copy_c_string("hello", buf, sizeof buf), 3u);
  EXPECT_STREQ(buf, "hel");
  EXPECT_EQ(ftmpi::copy_c_string("hi", buf, sizeof buf), 2u);
  EXPECT_STREQ(buf, "hi");
  EXPECT_EQ(ftmpi::copy_c_string("hi", buf, 0), 0u);
}
