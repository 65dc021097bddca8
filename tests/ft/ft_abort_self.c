/* ft_abort_self — in a fault-tolerant job, MPI_Abort on a communicator whose group is the caller alone ends
 * that process only; the others see an ordinary process failure (docs/fault-tolerance.md). 6 ranks,
 * --with-ft ulfm.
 *
 * Rank 1 calls MPI_Abort(MPI_COMM_SELF, 7) (how ULFM tutorial workers leave, or inject a failure); rank 3 is
 * killed by SIGKILL; rank 5 calls MPI_Abort on a one-process communicator from MPI_Comm_split.
 *
 * PASS when:
 *  - the job is not ended by the aborts: ranks 0, 2 and 4 run to MPI_Finalize and mpiexec exits 0;
 *  - every survivor sees exactly ranks 1, 3 and 5 failed in MPI_COMM_WORLD (MPIX_Comm_get_failed), and a
 *    collective on MPI_COMM_WORLD then fails with MPI_ERR_PROC_FAILED (or MPI_ERR_REVOKED);
 *  - MPIX_Comm_shrink gives the 3 survivors, and an Allreduce on it sums their world ranks (6);
 *  - nothing hangs. */
#include "ft_check.h"

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 6, "needs 6 ranks");
  MPI_Comm alone;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &alone));
  ft_barrier_before_death(MPI_COMM_WORLD);

  if (rank == 1) {
    MPI_Abort(MPI_COMM_SELF, 7);
    CHECK(0, "MPI_Abort returned");
  }
  if (rank == 3) ft_die();
  if (rank == 5) {
    MPI_Abort(alone, 9);
    CHECK(0, "MPI_Abort returned");
  }

  ft_wait_failed(MPI_COMM_WORLD, 3, 20.0);
  CHECK(ft_num_failed(MPI_COMM_WORLD) == 3, "%d failed, expected 3", ft_num_failed(MPI_COMM_WORLD));
  CHECK(ft_is_failed(MPI_COMM_WORLD, 1) && ft_is_failed(MPI_COMM_WORLD, 3) && ft_is_failed(MPI_COMM_WORLD, 5),
        "ranks 1, 3 and 5 are the failed ones");
  int v = rank, sum = -1;
  CHECK_CLASS2(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_PROC_FAILED, MPI_ERR_REVOKED);

  MPI_Comm s = MPI_COMM_NULL;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
  CHECK_MPI(MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
  int n = 0;
  MPI_Comm_size(s, &n);
  CHECK(n == 3, "shrunk size %d, expected 3", n);
  CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, s));
  CHECK(sum == 0 + 2 + 4, "sum over the survivors %d, expected 6", sum);
  MPI_Comm_free(&s);
  MPI_Comm_free(&alone);
  ft_pass(MPI_COMM_WORLD, "ft_abort_self");
  MPI_Finalize();
  return 0;
}
