// The local parts of communicator construction (comm/comm_ops.h): split ordering, make_comm, compare.
#include <gtest/gtest.h>

#include <vector>

#include "comm/comm_ops.h"
#include "comm/group.h"
#include "comm/group_algebra.h"
#include "mpi.h"

using namespace ftmpi;
using namespace ftmpi::comm;

TEST(GroupComm, SplitOrdersByKeyThenParentRank) {
  // parent ranks 0..5 are world ranks 10..15; colors 0/1/undefined
  const std::vector<int> world = {10, 11, 12, 13, 14, 15};
  const std::vector<int> ck = {0, 5, 1, 0, 0, 5, kUndefined, 0, 0, -1, 1, 0};
  EXPECT_EQ(split_members(ck, world, 0), (std::vector<int>{14, 10, 12}));
  EXPECT_EQ(split_members(ck, world, 1), (std::vector<int>{11, 15}));
  EXPECT_TRUE(split_members(ck, world, 7).empty());
}

TEST(GroupComm, MakeCommInheritsErrhandlerAndCompare) {
  ftmpi_errhandler_s user;
  user.kind = ftmpi_errhandler_s::Kind::user;
  ftmpi_comm_s parent;
  parent.errhandler = &user;
  Communicator* a = make_comm(make_group({3, 1, 2}, 1), 8, &parent);
  EXPECT_EQ(a->rank, 1);
  EXPECT_EQ(a->size, 3);
  EXPECT_EQ(a->ctx_pt2pt, 8u);
  EXPECT_EQ(a->ctx_coll, 9u);
  EXPECT_EQ(a->errhandler, &user);
  EXPECT_EQ(user.refs, 2);
  EXPECT_EQ(a->magic, kMagicComm);

  Communicator* same = make_comm(make_group({3, 1, 2}, 1), 10, &parent);
  Communicator* perm = make_comm(make_group({1, 2, 3}, 1), 12, &parent);
  Communicator* other = make_comm(make_group({1, 2}, 1), 14, &parent);
  EXPECT_EQ(compare(a, a), MPI_IDENT);
  EXPECT_EQ(compare(a, same), MPI_CONGRUENT);
  EXPECT_EQ(compare(a, perm), MPI_SIMILAR);
  EXPECT_EQ(compare(a, other), MPI_UNEQUAL);
  for (Communicator* c : {a, same, perm, other}) {
    group_release(c->group);
    delete c->group;
    delete c;
  }
}
