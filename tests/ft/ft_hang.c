/* ft_hang <timeout_ms> <period_ms> — hang detection: a SIGSTOPped rank is declared failed (and killed) by
 * mpiexec once its heartbeats stop for longer than --detector-timeout. 4 ranks, run with
 *   --with-ft ulfm --detector-period P --detector-timeout T --inject rank=2,after=1,signal=STOP
 *
 * Every rank but 2 posts a blocking Recv from rank 2 (which never sends; it just sleeps in MPI_Recv and is
 * stopped by mpiexec one second after the job started).
 *
 * PASS when, on every survivor: the Recv returns MPI_ERR_PROC_FAILED; it returns at most
 * 1 s (the injection) + T + P + 2 s (slack for a loaded 2-core machine) after the survivor posted it, and not
 * before T - P has passed since the stop could have happened (no early false positive); get_failed names rank 2;
 * the survivors then work on among themselves (shrink + Allreduce). Nothing hangs. */
#include "ft_check.h"

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(argc == 3, "usage: ft_hang <timeout_ms> <period_ms>");
  CHECK(size == 4, "needs 4 ranks");
  double timeout = atof(argv[1]) / 1000.0, period = atof(argv[2]) / 1000.0;
  /* On a loaded machine the start-up can take longer than the injection's 1 s: rank 2 may then be stopped
   * (and declared hung) before this Barrier completes everywhere. The Barrier then fails with
   * MPI_ERR_PROC_FAILED; the detection itself is what is tested, so the survivors go on to the checks
   * that do not depend on when the Recv was posted. */
  int rc = MPI_Barrier(MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS || check_class_of(rc) == MPI_ERR_PROC_FAILED, "Barrier: %s", check_errstr(rc));
  if (rc != MPI_SUCCESS && rank == 2) {
    printf("FAIL rank 2 came back from a hang that should have been fatal\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }

  int x = 0;
  if (rank == 2) {
    MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* stopped, then killed, in here */
    printf("FAIL rank 2 came back from a hang that should have been fatal\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  double t0 = ft_now();
  CHECK_CLASS(MPI_Recv(&x, 1, MPI_INT, 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
  double dt = ft_now() - t0;
  if (rc == MPI_SUCCESS) {
    CHECK(dt <= 1.0 + timeout + period + 2.0, "hang declared after %.2f s (timeout %.2f s)", dt, timeout);
    CHECK(dt >= timeout - period - 0.05, "hang declared after %.2f s, before the %.2f s timeout", dt, timeout);
  }
  CHECK(ft_is_failed(MPI_COMM_WORLD, 2));
  if (rank == 0 && rc == MPI_SUCCESS)
    printf("rank 0: the stopped rank was declared failed %.3f s after the Recv was posted\n", dt);
  if (rank == 0 && rc != MPI_SUCCESS) printf("rank 0: the stopped rank was declared failed during the start-up\n");

  MPI_Comm s;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, s));
  CHECK(sum == 0 + 1 + 3, "sum %d", sum);
  CHECK_MPI(MPI_Comm_free(&s));
  ft_pass(MPI_COMM_WORLD, "ft_hang");
  MPI_Finalize();
  return 0;
}
