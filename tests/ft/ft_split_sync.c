/* ft_split_sync <nkill> — FA-MPI fault-aware communicator creation (seed 001 §7.5.1) with real kills.
 * The last <nkill> ranks die (SIGKILL) after a p2p sync; the survivors, some of which may not have seen
 * the notices yet, call:
 *   MPI_Comm_split_sync(color = rank % 2, key = -rank)  -> MPI_GROUP_SHRUNK (MPI_SUCCESS when nkill = 0),
 *       two communicators of the surviving even / odd ranks, ordered by descending rank;
 *   MPI_Comm_split_local                                -> MPI_SUCCESS, the same communicators;
 *   MPI_Comm_isplit_sync + MPI_Wait                     -> as split_sync;
 *   MPI_Comm_create_group_sync(whole group)             -> every survivor, in rank order;
 *   MPI_Comm_isplit_multi_sync (two outputs: parity, and all) -> both built;
 * then an Allreduce on every new communicator checks that it works and that every member has the same one.
 * PASS: as above on every survivor, nothing hangs; a call with nkill = 0 returns MPI_SUCCESS. */
#include "ft_check.h"

static int rank, size;

static void check_comm(MPI_Comm c, int expect_size, int color_parity, const char *what) {
  CHECK(c != MPI_COMM_NULL, "%s: no communicator", what);
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  int n, sum = 0, mine = rank;
  MPI_Comm_size(c, &n);
  CHECK(n == expect_size, "%s: size %d, expected %d", what, n, expect_size);
  CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
  int expect = 0;
  (void)color_parity;
  CHECK_MPI(MPI_Allreduce(&n, &expect, 1, MPI_INT, MPI_MAX, c));
  CHECK(expect == n, "%s: members disagree on the size", what);
}

int main(int argc, char **argv) {
  ft_init(&argc, &argv, &rank, &size);
  CHECK(argc == 2, "usage: ft_split_sync <nkill>");
  const int nkill = atoi(argv[1]);
  CHECK(nkill >= 0 && nkill < size, "bad nkill");
  const int alive = size - nkill;
  CHECK_MPI(ft_sync_all(MPI_COMM_WORLD));
  if (rank >= alive) ft_die();
  const int want = nkill ? MPI_GROUP_SHRUNK : MPI_SUCCESS;
  int same_parity = 0;
  for (int r = 0; r < alive; r++) same_parity += r % 2 == rank % 2;

  MPI_Comm a, b, c, d, m[2];
  int rc = MPI_Comm_split_sync(MPI_COMM_WORLD, rank % 2, -rank, MPI_TIMEOUT_ZERO, &a);
  CHECK(rc == want, "split_sync returned %d, expected %d", rc, want);
  check_comm(a, same_parity, rank % 2, "split_sync");
  /* key = -rank: new rank 0 is the highest surviving rank of my parity */
  int ar;
  MPI_Comm_rank(a, &ar);
  int higher = 0;
  for (int r = rank + 1; r < alive; r++) higher += r % 2 == rank % 2;
  CHECK(ar == higher, "split_sync ordered by key: rank %d has new rank %d, expected %d", rank, ar, higher);

  rc = MPI_Comm_split_local(MPI_COMM_WORLD, rank % 2, rank, MPI_TIMEOUT_ZERO, &b);
  CHECK(rc == MPI_SUCCESS, "split_local returned %d", rc);
  check_comm(b, same_parity, rank % 2, "split_local");

  MPI_Request req;
  CHECK_MPI(MPI_Comm_isplit_sync(MPI_COMM_WORLD, 0, rank, MPI_TIMEOUT_ZERO, &c, &req));
  rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(rc == want, "isplit_sync: %d", rc);
  check_comm(c, alive, 0, "isplit_sync");

  MPI_Group wg;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  rc = MPI_Comm_create_group_sync(MPI_COMM_WORLD, 3, wg, MPI_TIMEOUT_ZERO, &d);
  CHECK(rc == want, "create_group_sync: %d", rc);
  check_comm(d, alive, 0, "create_group_sync");
  int dr;
  MPI_Comm_rank(d, &dr);
  CHECK(dr == rank, "create_group_sync keeps the order (%d -> %d)", rank, dr);

  int colors[2] = {rank % 2, 7}, keys[2] = {rank, rank};
  CHECK_MPI(MPI_Comm_isplit_multi_sync(1, (MPI_Comm[]){MPI_COMM_WORLD}, 2, colors, keys, MPI_TIMEOUT_ZERO, m, 0, &req));
  rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(rc == want, "isplit_multi_sync: %d", rc);
  check_comm(m[0], same_parity, rank % 2, "isplit_multi_sync parity");
  check_comm(m[1], alive, 0, "isplit_multi_sync all");

  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Comm_free(&c);
  MPI_Comm_free(&d);
  MPI_Comm_free(&m[0]);
  MPI_Comm_free(&m[1]);
  MPI_Group_free(&wg);
  ft_pass(MPI_COMM_WORLD, "ft_split_sync");
  MPI_Finalize();
  return 0;
}
