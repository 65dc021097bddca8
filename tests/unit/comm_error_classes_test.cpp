// User-defined error classes, codes and strings.
#include <gtest/gtest.h>

#include "comm/error_classes.h"

using ftmpi::Errc;
using ftmpi::comm::ErrorClassRegistry;

TEST(ErrorClasses, ClassesAndCodesAreFreshAndTracked) {
  ErrorClassRegistry reg(101, 100);
  EXPECT_EQ(reg.last_used(), 100);
  auto c1 = reg.add_class();
  ASSERT_TRUE(c1.ok());
  EXPECT_EQ(*c1, 101);
  EXPECT_EQ(reg.class_of(*c1), *c1);
  auto code = reg.add_code(*c1);
  ASSERT_TRUE(code.ok());
  EXPECT_EQ(*code, 102);
  EXPECT_EQ(reg.class_of(*code), *c1);
  auto code_pre = reg.add_code(5);  // a code of a predefined class
  ASSERT_TRUE(code_pre.ok());
  EXPECT_EQ(reg.class_of(*code_pre), 5);
  EXPECT_EQ(reg.last_used(), 103);
  EXPECT_EQ(reg.add_code(*code).status().code(), Errc::arg);  // a code is not a class
  EXPECT_EQ(reg.add_code(500).status().code(), Errc::arg);    // unknown
  EXPECT_EQ(reg.class_of(7), -1);
}

TEST(ErrorClasses, Strings) {
  ErrorClassRegistry reg(101, 100);
  auto c = reg.add_class();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(reg.string_of(*c), nullptr);
  ASSERT_TRUE(reg.set_string(*c, "my class").ok());
  EXPECT_EQ(*reg.string_of(*c), "my class");
  ASSERT_TRUE(reg.set_string(*c, "renamed").ok());
  EXPECT_EQ(*reg.string_of(*c), "renamed");
  EXPECT_EQ(reg.set_string(3, "no").code(), Errc::arg);  // predefined
  EXPECT_EQ(reg.set_string(*c, std::string(512, 'x')).code(), Errc::arg);
}
