/* ft_agree_uniform — MPIX_Comm_agree raises its error consistently, and acknowledging after it covers every
 * process that did not contribute (issue 12 item 3). 6 ranks, --with-ft ulfm.
 *
 *  1. Rank 5 dies; every survivor waits until it knows; only rank 0 acknowledges; all call MPIX_Comm_agree.
 *     PASS when every survivor gets the same class (MPI_ERR_PROC_FAILED: the failure was not acknowledged by
 *     every contributor) and the agreed flag. Before the fix rank 0 got success and the others the error.
 *  2. After everyone acknowledged, MPIX_Comm_agree returns success everywhere.
 *  3. Rank 4 dies instead of calling the next agreement, which the others enter at once (their failure
 *     notice may not have arrived yet). Every survivor gets MPI_ERR_PROC_FAILED; then MPIX_Comm_failure_ack,
 *     and MPIX_Comm_failure_get_acked must name rank 4 on every survivor (the agreement decided it had
 *     failed), and the next MPIX_Comm_agree returns success everywhere.
 *  Uniformity is checked by two further agreements after acknowledging (AND of "I got the error" and AND of
 *  "I did not"): both 0 means the survivors disagreed. Repeated `rounds` times (argv[1], default 1) on
 *  fresh duplicates; nothing hangs. */
#include "ft_check.h" /* first: it sets _POSIX_C_SOURCE */

#include <stdlib.h>

/* All survivors saw the same outcome `mine` (1 = error) of the previous call? Uses two agreements. */
static void check_uniform(MPI_Comm c, int mine, const char *what) {
  int all_err = mine, all_ok = !mine;
  CHECK_MPI(MPIX_Comm_agree(c, &all_err));
  CHECK_MPI(MPIX_Comm_agree(c, &all_ok));
  CHECK(all_err || all_ok, "%s: survivors disagree on the error (here: %s)", what, mine ? "error" : "success");
}

static int acked_has(MPI_Comm c, int r) {
  MPI_Group acked, all;
  int n = 0, found = 0;
  CHECK_MPI(MPIX_Comm_failure_get_acked(c, &acked));
  CHECK_MPI(MPI_Group_size(acked, &n));
  CHECK_MPI(MPI_Comm_group(c, &all));
  for (int i = 0; i < n; i++) {
    int cr = MPI_UNDEFINED;
    CHECK_MPI(MPI_Group_translate_ranks(acked, 1, &i, all, &cr));
    if (cr == r) found = 1;
  }
  MPI_Group_free(&all);
  if (acked != MPI_GROUP_EMPTY) MPI_Group_free(&acked);
  return found;
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 6, "needs 6 ranks");

  /* 1. one rank acknowledged, the others did not */
  if (rank == 5) ft_die();
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  if (rank == 0) CHECK_MPI(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
  int flag = ~(1 << rank);
  int rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
  CHECK(flag == ~0x1f, "agreed flag %#x", flag);
  const int err1 = rc != MPI_SUCCESS;
  CHECK(rc == MPI_SUCCESS || check_class_of(rc) == MPI_ERR_PROC_FAILED, "agree: %s", ft_class_name(rc));
  CHECK_MPI(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
  check_uniform(MPI_COMM_WORLD, err1, "agree with one acknowledgement");
  CHECK(err1, "agree succeeded although rank 5's failure was acknowledged by rank 0 only");

  /* 2. everyone acknowledged */
  flag = 1;
  CHECK_MPI(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
  CHECK(flag == 1);

  /* 3. a rank dies instead of contributing; acknowledging afterwards covers it everywhere */
  int rounds = argc > 1 ? atoi(argv[1]) : 1;
  for (int round = 0; round < rounds; round++) {
    MPI_Comm c;
    CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &c)); /* 5 ranks, or fewer after round 0 */
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int cr, cn;
    MPI_Comm_rank(c, &cr);
    MPI_Comm_size(c, &cn);
    CHECK(ft_sync_all(c) == MPI_SUCCESS);
    const int victim = cn - 1;
    if (round == 0 && cr == victim) ft_die(); /* only once: later rounds check the steady state */
    flag = 1;
    rc = MPIX_Comm_agree(c, &flag);
    CHECK(flag == 1, "flag %d", flag);
    if (round == 0)
      CHECK(check_class_of(rc) == MPI_ERR_PROC_FAILED, "agree after a death: %s", ft_class_name(rc));
    else
      CHECK(rc == MPI_SUCCESS, "agree without a new failure: %s", ft_class_name(rc));
    CHECK_MPI(MPIX_Comm_failure_ack(c));
    if (round == 0) CHECK(acked_has(c, victim), "failure_ack after the agreement did not acknowledge rank %d", victim);
    flag = 1;
    CHECK_MPI(MPIX_Comm_agree(c, &flag));
    check_uniform(c, 0, "agree after acknowledging");
    MPI_Comm_free(&c);
  }

  ft_pass(MPI_COMM_WORLD, "ft_agree_uniform");
  MPI_Finalize();
  return 0;
}
