/* ft_famp_subset <victim> — FA-MPI operations over a strict subset of a communicator's group (seed 001
 * §7.3, §7.5.1), as the seed's recovery example uses them: only the subset's members call.
 * Rank <victim> (an even rank) dies (SIGKILL) after a p2p sync. Then, on MPI_COMM_WORLD:
 *   1. the even ranks call MPI_Comm_create_group_sync(tag 5, evens) while the odd ranks call it at the same
 *      time with the odds (same tag, other members): evens get MPI_GROUP_SHRUNK and a communicator of the
 *      surviving evens in group order, odds MPI_SUCCESS and all odds;
 *   2. a process outside the group gets MPI_COMM_NULL at once (rank 1 with the evens' group);
 *   3. the surviving ranks of a TryBlock on WORLD call MPI_TryBlock_group_sync over the odds only (the
 *      evens skip it): every odd gets the same class (checked through the odds' new communicator), the
 *      block is then committed by every survivor;
 *   4. MPI_Comm_igroup_local over the survivors (the group the seed builds from a TryBlock's outcome).
 * PASS: as above on every survivor, nothing hangs. */
#include "ft_check.h"

static int rank, size;

static MPI_Group parity_group(int parity) {
  MPI_Group wg, g;
  int ranks[64], n = 0;
  for (int r = parity; r < size; r += 2) ranks[n++] = r;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Group_incl(wg, n, ranks, &g));
  MPI_Group_free(&wg);
  return g;
}

static void check_uniform(MPI_Comm c, int value, const char *what) {
  int lo = 0, hi = 0;
  CHECK_MPI(MPI_Allreduce(&value, &lo, 1, MPI_INT, MPI_MIN, c));
  CHECK_MPI(MPI_Allreduce(&value, &hi, 1, MPI_INT, MPI_MAX, c));
  CHECK(lo == hi, "%s: members got different results (%d .. %d)", what, lo, hi);
}

int main(int argc, char **argv) {
  ft_init(&argc, &argv, &rank, &size);
  CHECK(argc == 2, "usage: ft_famp_subset <victim>");
  const int victim = atoi(argv[1]);
  CHECK(size >= 4 && size <= 64 && victim % 2 == 0 && victim < size, "needs 4..64 ranks and an even victim");
  CHECK_MPI(ft_sync_all(MPI_COMM_WORLD));
  if (rank == victim) ft_die();

  /* 1. concurrent strict-subset creations with the same tag over disjoint members */
  const int parity = rank % 2;
  MPI_Group mine = parity_group(parity);
  MPI_Comm sub = MPI_COMM_NULL;
  int rc = MPI_Comm_create_group_sync(MPI_COMM_WORLD, 5, mine, MPI_TIMEOUT_ZERO, &sub);
  const int want = parity == 0 ? MPI_GROUP_SHRUNK : MPI_SUCCESS;
  CHECK(rc == want, "create_group_sync over the %s: %d, expected %d", parity ? "odds" : "evens", rc, want);
  CHECK(sub != MPI_COMM_NULL, "create_group_sync: no communicator");
  CHECK_MPI(MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN));
  int n = 0, r = -1, expect_n = 0, expect_r = 0;
  for (int q = parity; q < size; q += 2)
    if (q != victim) {
      if (q < rank) expect_r++;
      expect_n++;
    }
  MPI_Comm_size(sub, &n);
  MPI_Comm_rank(sub, &r);
  CHECK(n == expect_n && r == expect_r, "subset communicator: size %d rank %d, expected %d %d", n, r, expect_n, expect_r);
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, sub));
  int expect_sum = 0;
  for (int q = parity; q < size; q += 2)
    if (q != victim) expect_sum += q;
  CHECK(sum == expect_sum, "subset communicator: Allreduce %d, expected %d", sum, expect_sum);

  /* 2. a caller outside the group */
  if (rank == 1) {
    MPI_Group evens = parity_group(0);
    MPI_Comm none = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_create_group_sync(MPI_COMM_WORLD, 6, evens, MPI_TIMEOUT_ZERO, &none));
    CHECK(none == MPI_COMM_NULL, "a non-member gets MPI_COMM_NULL");
    MPI_Group_free(&evens);
  }

  /* 3. TryBlock on WORLD with a sync over the odds only */
  int inj = 0, st0[64], gathered[64], try_flag = -1;
  MPI_Request tb;
  rc = MPI_TryBlock_start(MPI_COMM_WORLD, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &tb);
  CHECK(tb != MPI_REQUEST_NULL, "TryBlock_start gave no request (%d)", rc);
  if (parity == 1) {
    int src = MPI_TryBlock_group_sync(mine, tb, MPI_TIMEOUT_ZERO);
    CHECK(src == MPI_SUCCESS || src == MPI_TASK_FAULT, "group_sync over the odds: %d", src);
    check_uniform(sub, src, "TryBlock_group_sync over the odds");
  }
  rc = MPI_TryBlock_waitall(tb, &try_flag, MPI_STATUS_IGNORE, MPI_INT, &inj, gathered, MPI_TIMEOUT_ZERO, 0, NULL,
                            MPI_STATUSES_IGNORE, NULL, NULL);
  CHECK(rc == MPI_TASK_FAULT && try_flag == 0, "commit after the death: rc %d try_flag %d", rc, try_flag);
  MPI_Group failed = MPI_GROUP_NULL, wg, survivors;
  CHECK_MPI(MPI_TryBlock_get_failed(tb, &failed));
  CHECK_MPI(MPI_Request_free(&tb));

  /* 4. the seed's recovery step: a communicator over the survivors the block's outcome names */
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Group_difference(wg, failed, &survivors));
  int ns = 0;
  MPI_Group_size(survivors, &ns);
  CHECK(ns == size - 1, "survivors group has %d members, expected %d", ns, size - 1);
  MPI_Comm rec = MPI_COMM_NULL;
  MPI_Request q;
  CHECK_MPI(MPI_Comm_igroup_local(MPI_COMM_WORLD, 9, survivors, MPI_TIMEOUT_ZERO, &rec, &q));
  CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
  CHECK(rec != MPI_COMM_NULL, "igroup_local over the survivors: no communicator");
  MPI_Comm_size(rec, &n);
  CHECK(n == size - 1, "recovered communicator has %d members", n);
  CHECK_MPI(MPI_Barrier(rec));

  MPI_Comm_free(&rec);
  MPI_Comm_free(&sub);
  MPI_Group_free(&failed);
  MPI_Group_free(&wg);
  MPI_Group_free(&survivors);
  MPI_Group_free(&mine);
  ft_pass(MPI_COMM_WORLD, "ft_famp_subset");
  MPI_Finalize();
  return 0;
}
