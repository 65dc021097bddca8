/* ft_failed_groups — contents of MPIX_Comm_get_failed, MPIX_Comm_ack_failed and
 * MPIX_Comm_failure_get_acked (Open MPI 5 ULFM names). 5 ranks, --with-ft ulfm.
 *
 * Rank 3 dies; once rank 1 knows, rank 1 dies too (so everybody learns 3 first, then 1).
 *
 * PASS when, on every survivor (0, 2, 4):
 *  - before any failure get_failed and get_acked are empty and ack_failed(5) acknowledges 0;
 *  - after rank 3's notice: get_failed = {3}; get_acked = {} until ack_failed(1) returns 1, then {3};
 *  - after rank 1's notice: get_failed = {3, 1} (in detection order), get_acked still {3};
 *    ack_failed(0) returns 1 (already acknowledged) and acknowledges nothing more; ack_failed(100) returns 2;
 *    get_acked = {3, 1}; MPIX_Comm_failure_ack keeps it so;
 *  - the same failures seen on a communicator dup'ed before them, with its ranks (acks are per communicator:
 *    the dup still has none acknowledged);
 *  - nothing hangs. */
#include "ft_check.h"

/* Check that group g holds exactly the world ranks `want` (in that order). */
static void expect_group(MPI_Group g, int n, const int *want, const char *what) {
  int gs = -1;
  CHECK_MPI(MPI_Group_size(g, &gs));
  CHECK(gs == n, "%s: %d members, expected %d", what, gs, n);
  MPI_Group world;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  for (int i = 0; i < n; i++) {
    int w = -1;
    CHECK_MPI(MPI_Group_translate_ranks(g, 1, &i, world, &w));
    CHECK(w == want[i], "%s: member %d is world rank %d, expected %d", what, i, w, want[i]);
  }
  MPI_Group_free(&world);
}

static void expect_failed(MPI_Comm c, int n, const int *want, const char *what) {
  MPI_Group g;
  CHECK_MPI(MPIX_Comm_get_failed(c, &g));
  expect_group(g, n, want, what);
  if (g != MPI_GROUP_EMPTY) MPI_Group_free(&g);
}

static void expect_acked(MPI_Comm c, int n, const int *want, const char *what) {
  MPI_Group g;
  CHECK_MPI(MPIX_Comm_failure_get_acked(c, &g));
  expect_group(g, n, want, what);
  if (g != MPI_GROUP_EMPTY) MPI_Group_free(&g);
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 5, "needs 5 ranks");
  MPI_Comm d;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK_MPI(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));

  int n = -1;
  expect_failed(MPI_COMM_WORLD, 0, NULL, "get_failed before failures");
  expect_acked(MPI_COMM_WORLD, 0, NULL, "get_acked before failures");
  CHECK_MPI(MPIX_Comm_ack_failed(MPI_COMM_WORLD, 5, &n));
  CHECK(n == 0, "ack_failed before failures: %d", n);
  ft_barrier_before_death(MPI_COMM_WORLD);

  if (rank == 3) ft_die();
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  if (rank == 1) ft_die();
  const int first[1] = {3}, both[2] = {3, 1};
  int nf = ft_num_failed(MPI_COMM_WORLD);
  CHECK(nf == 1 || nf == 2);
  expect_failed(MPI_COMM_WORLD, nf, both, "get_failed after the first failure");
  expect_acked(MPI_COMM_WORLD, 0, NULL, "get_acked before any ack");
  CHECK_MPI(MPIX_Comm_ack_failed(MPI_COMM_WORLD, 1, &n));
  CHECK(n == 1, "ack_failed(1) returned %d", n);
  expect_acked(MPI_COMM_WORLD, 1, first, "get_acked after ack_failed(1)");

  ft_wait_failed(MPI_COMM_WORLD, 2, 10.0);
  expect_failed(MPI_COMM_WORLD, 2, both, "get_failed after the second failure");
  expect_acked(MPI_COMM_WORLD, 1, first, "get_acked after the second failure");
  CHECK_MPI(MPIX_Comm_ack_failed(MPI_COMM_WORLD, 0, &n));
  CHECK(n == 1, "ack_failed(0) returned %d", n);
  expect_acked(MPI_COMM_WORLD, 1, first, "get_acked after ack_failed(0)");
  CHECK_MPI(MPIX_Comm_ack_failed(MPI_COMM_WORLD, 100, &n));
  CHECK(n == 2, "ack_failed(100) returned %d", n);
  expect_acked(MPI_COMM_WORLD, 2, both, "get_acked after ack_failed(100)");
  CHECK_MPI(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
  expect_acked(MPI_COMM_WORLD, 2, both, "get_acked after failure_ack");

  /* per communicator: the dup sees the same failures and has its own acknowledgements */
  expect_failed(d, 2, both, "get_failed on the dup");
  expect_acked(d, 0, NULL, "get_acked on the dup");
  CHECK_MPI(MPIX_Comm_failure_ack(d));
  expect_acked(d, 2, both, "get_acked on the dup after failure_ack");
  CHECK_MPI(MPI_Comm_free(&d));

  ft_pass(MPI_COMM_WORLD, "ft_failed_groups");
  MPI_Finalize();
  return 0;
}
