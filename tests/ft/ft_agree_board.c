/* ft_agree_board <mode> <victim> [agree|commit] — a loop of blocking MPIX_Comm_agree (or empty TryBlock commits)
 * on MPI_COMM_WORLD, which ftmpi decides on the shared-memory board of the collective area when no failure is
 * known (ft/agree_board.h), while rank `victim` dies in the middle of the loop. 2-16 ranks, --with-ft ulfm.
 *  - kill:   the victim kills itself (SIGKILL) inside the loop, at a pseudo-random iteration;
 *  - inject: mpiexec kills it (--inject rank=V,after=S): at a random point, mostly inside an agreement;
 *  - stop:   mpiexec stops it (--inject ...,signal=STOP); the heartbeat detector declares it failed.
 * Iteration i: rank i % size contributes a flag with bit i % 30 cleared, the others all ones.
 * PASS: every survivor leaves the loop with MPI_ERR_PROC_FAILED (agree; a commit: a fault class, try_flag 0)
 * at the same iteration, within 30 s; every successful iteration gave exactly the expected flag (all
 * contributions: nobody decides without one); the survivors' histories (iteration, outcome, flag) are identical
 * (checksums compared after a shrink); after MPIX_Comm_failure_ack one more agree succeeds everywhere with
 * the survivors' AND. Nothing hangs. */
#include "ft_check.h" /* first: it sets _POSIX_C_SOURCE */

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(argc >= 3, "usage: ft_agree_board kill|inject|stop <victim> [agree|commit]");
  const char *mode = argv[1];
  const int victim = atoi(argv[2]);
  const int commit = argc > 3 && strcmp(argv[3], "commit") == 0;
  CHECK(victim >= 0 && victim < size, "bad victim %d", victim);
  /* The collective area is set up by the 3rd small collective (coll/shm_area.h). */
  /* (An injected death may come this early on a loaded machine: then the loop's first agree reports it.) */
  for (int i = 0; i < 4; i++) {
    int x = 1, y = 0, rc = MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS || strcmp(mode, "kill") != 0, "allreduce failed before any death");
    if (rc != MPI_SUCCESS) break;
    CHECK(y == size, "allreduce gave %d", y);
  }
  const int die_at = 200 + (int)((unsigned)(size * 7919 + victim * 104729) % 1500u);
  unsigned long long sum = 1469598103934665603ull;
  int err_at = -1, err_class = MPI_SUCCESS, last_flag = 0;
  const double t0 = ft_now();
  for (int i = 0; i < 10000000; i++) {
    if (rank == victim && strcmp(mode, "kill") == 0 && i == die_at) ft_die();
    const int bit = 1 << (i % 30);
    int flag = rank == i % size ? ~bit : ~0, rc;
    if (commit) {
      MPI_Request tb;
      CHECK_MPI(MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &tb));
      rc = MPI_Tryblock_finish(tb, 0, NULL);
      MPI_Request_free(&tb);
      flag = rc == MPI_SUCCESS ? ~bit : 0;
    } else {
      rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    }
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    sum = (sum ^ (unsigned long long)(unsigned)i) * 1099511628211ull;
    sum = (sum ^ (unsigned long long)(unsigned)cls) * 1099511628211ull;
    sum = (sum ^ (unsigned long long)(unsigned)flag) * 1099511628211ull;
    if (rc != MPI_SUCCESS) {
      if (!commit) CHECK(cls == MPI_ERR_PROC_FAILED, "iteration %d: agree gave class %s", i, ft_class_name(rc));
      err_at = i;
      err_class = cls;
      last_flag = flag;
      break;
    }
    CHECK(flag == ~bit, "iteration %d: flag %#x, expected %#x (every contribution)", i, (unsigned)flag, (unsigned)~bit);
    CHECK(ft_now() - t0 < 30.0, "no failure seen after 30 s (iteration %d)", i);
  }
  CHECK(err_at >= 0, "the loop ended without an error");
  (void)err_class;
  (void)last_flag;
  /* After acknowledging, an agreement succeeds everywhere with the survivors' AND. */
  CHECK_MPI(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
  int flag = ~(1 << rank);
  CHECK_MPI(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
  for (int r = 0; r < size; r++)
    if (r != victim) CHECK(!(flag & (1 << r)), "survivor %d's bit missing from %#x", r, (unsigned)flag);
  /* Identical histories. */
  MPI_Comm s = MPI_COMM_NULL;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
  CHECK_MPI(MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
  unsigned long long lo = 0, hi = 0;
  CHECK_MPI(MPI_Allreduce(&sum, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, s));
  CHECK_MPI(MPI_Allreduce(&sum, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, s));
  int elo = 0, ehi = 0;
  CHECK_MPI(MPI_Allreduce(&err_at, &elo, 1, MPI_INT, MPI_MIN, s));
  CHECK_MPI(MPI_Allreduce(&err_at, &ehi, 1, MPI_INT, MPI_MAX, s));
  CHECK(elo == ehi, "survivors left the loop at different iterations (%d .. %d)", elo, ehi);
  CHECK(lo == hi, "survivors' histories differ (outcome or flag)");
  int n = 0;
  MPI_Comm_size(s, &n);
  CHECK(n == size - 1, "shrunk to %d, expected %d", n, size - 1);
  MPI_Comm_free(&s);
  ft_pass(MPI_COMM_WORLD, commit ? "ft_agree_board commit" : "ft_agree_board");
  MPI_Finalize();
  return 0;
}
