/* ft_finalize — MPI_Finalize after failures, without any repair. 5 ranks, --with-ft ulfm.
 *
 * Rank 1 dies at once after MPI_Init's barrier; rank 3 dies while the others are inside an Allreduce that
 * fails; nobody acknowledges, revokes or shrinks. Rank 4 had an Irecv from rank 3 pending when 3 died: its
 * Wait returns MPI_ERR_PROC_FAILED.
 *
 * PASS when every survivor returns from MPI_Finalize and exits 0, mpiexec exits 0 (checked by CTest's exit
 * status) and prints its one-line failure summary naming ranks 1 and 3 (checked by the ft_finalize_summary
 * variant with run_expect_summary.cmake); nothing hangs. */
#include "ft_check.h"

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 5, "needs 5 ranks");
  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == 1) ft_die();
  MPI_Request r = MPI_REQUEST_NULL;
  int x = 0;
  if (rank == 4) CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, 3, 0, MPI_COMM_WORLD, &r));
  if (rank == 3) {
    ft_sleep_ms(50);
    ft_die();
  }
  int v = 1, sum = 0;
  CHECK_CLASS(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_PROC_FAILED);
  if (rank == 4) CHECK_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
  if (rank == 0) printf("PASS ft_finalize (survivors finalize without repairing)\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
