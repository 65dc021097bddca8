/* comm_groups_empty — group operations with empty groups and MPI_GROUP_EMPTY (issue 14 item 4):
 * union/intersection/difference/incl/excl/range_incl/range_excl/translate_ranks/compare, sizes and ranks
 * of empty results, bad ranks against an empty group (MPI_ERR_RANK), and communicator creation from an empty
 * group. Any rank count. */
#include "common/check.h"

static void expect_empty(MPI_Group g, const char *what) {
  int size = -1, rank = 0, cmp = -1;
  CHECK_MPI(MPI_Group_size(g, &size));
  CHECK(size == 0, "%s: size %d", what, size);
  CHECK_MPI(MPI_Group_rank(g, &rank));
  CHECK(rank == MPI_UNDEFINED, "%s: rank %d", what, rank);
  CHECK_MPI(MPI_Group_compare(g, MPI_GROUP_EMPTY, &cmp));
  CHECK(cmp == MPI_IDENT, "%s: compare with MPI_GROUP_EMPTY gave %d", what, cmp);
}

/* Bad ranks: ftmpi answers MPI_ERR_RANK; the peers disagree on the class (MPICH: MPI_ERR_ARG for ranges,
 * Open MPI: MPI_ERR_GROUP for excl), so elsewhere only the failure is checked. */
#ifdef FTMPI
#define CHECK_BAD_RANK(call) CHECK_CLASS(call, MPI_ERR_RANK)
#else
#define CHECK_BAD_RANK(call) CHECK((call) != MPI_SUCCESS)
#endif

static void release(MPI_Group *g) {
  if (*g != MPI_GROUP_EMPTY) CHECK_MPI(MPI_Group_free(g));
}

int main(int argc, char **argv) {
  int rank, size, i, cmp;
  MPI_Group world, g, e;
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));

  expect_empty(MPI_GROUP_EMPTY, "MPI_GROUP_EMPTY");

  /* set operations with MPI_GROUP_EMPTY on either side */
  CHECK_MPI(MPI_Group_union(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY, &g));
  expect_empty(g, "union(empty, empty)");
  release(&g);
  CHECK_MPI(MPI_Group_union(world, MPI_GROUP_EMPTY, &g));
  CHECK_MPI(MPI_Group_compare(g, world, &cmp));
  CHECK(cmp == MPI_IDENT, "union(world, empty) is world: %d", cmp);
  release(&g);
  CHECK_MPI(MPI_Group_union(MPI_GROUP_EMPTY, world, &g));
  CHECK_MPI(MPI_Group_compare(g, world, &cmp));
  CHECK(cmp == MPI_IDENT);
  release(&g);
  CHECK_MPI(MPI_Group_intersection(world, MPI_GROUP_EMPTY, &g));
  expect_empty(g, "intersection(world, empty)");
  release(&g);
  CHECK_MPI(MPI_Group_intersection(MPI_GROUP_EMPTY, world, &g));
  expect_empty(g, "intersection(empty, world)");
  release(&g);
  CHECK_MPI(MPI_Group_difference(world, world, &g));
  expect_empty(g, "difference(world, world)");
  release(&g);
  CHECK_MPI(MPI_Group_difference(MPI_GROUP_EMPTY, world, &g));
  expect_empty(g, "difference(empty, world)");
  release(&g);
  CHECK_MPI(MPI_Group_difference(world, MPI_GROUP_EMPTY, &g));
  CHECK_MPI(MPI_Group_compare(g, world, &cmp));
  CHECK(cmp == MPI_IDENT);
  release(&g);

  /* incl/excl/range with nothing */
  CHECK_MPI(MPI_Group_incl(world, 0, NULL, &g));
  expect_empty(g, "incl(world, 0)");
  release(&g);
  CHECK_MPI(MPI_Group_incl(MPI_GROUP_EMPTY, 0, NULL, &g));
  expect_empty(g, "incl(empty, 0)");
  release(&g);
  CHECK_MPI(MPI_Group_excl(MPI_GROUP_EMPTY, 0, NULL, &g));
  expect_empty(g, "excl(empty, 0)");
  release(&g);
  {
    int *all = malloc(sizeof(int) * (size_t)size);
    for (i = 0; i < size; i++) all[i] = i;
    CHECK_MPI(MPI_Group_excl(world, size, all, &g));
    expect_empty(g, "excl(world, all)");
    release(&g);
    free(all);
  }
  {
    int r1[1][3] = {{0, size - 1, 1}};
    CHECK_MPI(MPI_Group_range_excl(world, 1, r1, &g));
    expect_empty(g, "range_excl(world, all)");
    release(&g);
    CHECK_MPI(MPI_Group_range_incl(world, 0, r1, &g));
    expect_empty(g, "range_incl(world, 0 ranges)");
    release(&g);
    CHECK_MPI(MPI_Group_range_excl(MPI_GROUP_EMPTY, 0, r1, &g));
    expect_empty(g, "range_excl(empty, 0 ranges)");
    release(&g);
  }

  /* an empty group built by an operation behaves as MPI_GROUP_EMPTY in further operations */
  CHECK_MPI(MPI_Group_incl(world, 0, NULL, &e));
  CHECK_MPI(MPI_Group_union(e, world, &g));
  CHECK_MPI(MPI_Group_compare(g, world, &cmp));
  CHECK(cmp == MPI_IDENT);
  release(&g);
  CHECK_MPI(MPI_Group_compare(e, world, &cmp));
  CHECK(cmp == MPI_UNEQUAL);

  /* translate_ranks into and out of empty groups */
  {
    int in[2] = {0, MPI_PROC_NULL}, out[2] = {-7, -7};
    CHECK_MPI(MPI_Group_translate_ranks(world, 2, in, MPI_GROUP_EMPTY, out));
    CHECK(out[0] == MPI_UNDEFINED, "translate into empty: %d", out[0]);
    /* MPI_PROC_NULL translates to itself (MPI-3.1 §6.3.1; ftmpi also does so into an empty group, where both
     * peers answer MPI_UNDEFINED) */
#ifdef FTMPI
    CHECK(out[1] == MPI_PROC_NULL, "PROC_NULL into empty: %d", out[1]);
#endif
    out[1] = -7;
    CHECK_MPI(MPI_Group_translate_ranks(world, 2, in, world, out));
    CHECK(out[0] == 0 && out[1] == MPI_PROC_NULL, "translate into world: %d %d", out[0], out[1]);
    CHECK_MPI(MPI_Group_translate_ranks(MPI_GROUP_EMPTY, 0, in, world, out));
    CHECK_MPI(MPI_Group_translate_ranks(e, 0, NULL, world, NULL));
  }

  /* bad input against an empty group */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  {
    int r0 = 0, out = 0;
    int rr[1][3] = {{0, 0, 1}};
    CHECK_BAD_RANK(MPI_Group_incl(MPI_GROUP_EMPTY, 1, &r0, &g));
    CHECK_BAD_RANK(MPI_Group_excl(MPI_GROUP_EMPTY, 1, &r0, &g));
    CHECK_BAD_RANK(MPI_Group_range_incl(MPI_GROUP_EMPTY, 1, rr, &g));
#ifdef FTMPI /* Open MPI 4.1 accepts this one */
    CHECK_BAD_RANK(MPI_Group_translate_ranks(MPI_GROUP_EMPTY, 1, &r0, world, &out));
#endif
    (void)out;
  }
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

  /* a communicator over an empty group: MPI_COMM_NULL everywhere */
  {
    MPI_Comm c = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c));
    CHECK(c == MPI_COMM_NULL);
    c = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, e, &c));
    CHECK(c == MPI_COMM_NULL);
  }
  /* freeing MPI_GROUP_EMPTY as returned by an operation is allowed */
  CHECK_MPI(MPI_Group_free(&e));
  CHECK(e == MPI_GROUP_NULL);
  CHECK_MPI(MPI_Group_free(&world));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS comm_groups_empty\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
