// PMI_process_mapping parsing (boot/process_mapping.h): the shapes Hydra, Slurm and mpiexec publish, and
// malformed values as clear errors.
#include <gtest/gtest.h>

#include "boot/process_mapping.h"

using ftmpi::boot::parse_process_mapping;

TEST(ProcessMapping, BlockPlacement) {
  auto m = parse_process_mapping("(vector,(0,2,3))", 6);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m.value(), (std::vector<int>{0, 0, 0, 1, 1, 1}));
}

TEST(ProcessMapping, RoundRobinRepeatsTheVector) {
  auto m = parse_process_mapping("(vector,(0,3,1))", 6);  // Hydra -hosts a,b,c -n 6
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value(), (std::vector<int>{0, 1, 2, 0, 1, 2}));
}

TEST(ProcessMapping, SeveralEntriesUnevenNodes) {
  auto m = parse_process_mapping("(vector,(0,1,2),(1,2,1))", 4);  // Slurm: 2 ranks on node 0, 1 on 1 and 2
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value(), (std::vector<int>{0, 0, 1, 2}));
}

TEST(ProcessMapping, SingleNodeFromMpiexec) {
  auto m = parse_process_mapping(ftmpi::boot::single_node_mapping(5), 5);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value(), (std::vector<int>(5, 0)));
  auto s = parse_process_mapping("(vector,(0,1,8))", 3);  // more slots than ranks: fine
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value(), (std::vector<int>(3, 0)));
}

TEST(ProcessMapping, MalformedIsAnError) {
  for (const char* bad : {"", "(vector)", "(vector,)", "vector,(0,1,2)", "(vector,(0,1))", "(vector,(0,0,2))",
                          "(vector,(0,1,0))", "(vector,(0,1,2)", "(vector,(0,1,2)))", "(vector,(-1,1,2))",
                          "(vector, (0,1,2))", "(vector,(0,1,999999999999))", "(vector,(a,b,c))"}) {
    auto m = parse_process_mapping(bad, 4);
    EXPECT_FALSE(m.ok()) << bad;
    if (!m.ok()) {
      EXPECT_NE(m.status().message().find("PMI_process_mapping"), std::string::npos);
    }
  }
  EXPECT_FALSE(parse_process_mapping("(vector,(0,1,1))", 0).ok());
}
