/* ft_insulation — a communicator without the failed process is not affected (seed 000 §1.2). 4 ranks,
 * --with-ft ulfm.
 *
 * MPI_COMM_WORLD is split into A = {0, 1} and B = {2, 3}; rank 3 dies (raise(SIGKILL)).
 *
 * PASS when:
 *  - ranks 0 and 1: 200 rounds of Barrier, Allreduce, Bcast and Sendrecv on A all succeed with the right
 *    results, after the failure is known (MPIX_Comm_get_failed on A is empty, on MPI_COMM_WORLD names 3);
 *    A is not revoked; p2p between 0 and 1 on MPI_COMM_WORLD also works;
 *  - rank 2: a Barrier on B returns MPI_ERR_PROC_FAILED; MPIX_Comm_get_failed(B) names B's rank 1;
 *  - nothing hangs. */
#include "ft_check.h"

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 4, "needs 4 ranks");
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half));
  CHECK_MPI(MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN));
  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == 3) ft_die();
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  CHECK(ft_is_failed(MPI_COMM_WORLD, 3));

  if (rank < 2) {
    CHECK(ft_num_failed(half) == 0, "A has no failed member");
    for (int round = 0; round < 200; round++) {
      CHECK_MPI(MPI_Barrier(half));
      int v = rank + round, sum = -1;
      CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, half));
      CHECK(sum == 1 + 2 * round, "allreduce round %d: %d", round, sum);
      int b = (rank == round % 2) ? round : -1;
      CHECK_MPI(MPI_Bcast(&b, 1, MPI_INT, round % 2, half));
      CHECK(b == round);
      int out = rank * 10 + round, in = -1;
      CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, 1 - rank, 1, &in, 1, MPI_INT, 1 - rank, 1, half, MPI_STATUS_IGNORE));
      CHECK(in == (1 - rank) * 10 + round);
      CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, 1 - rank, 2, &in, 1, MPI_INT, 1 - rank, 2, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE));
      CHECK(in == (1 - rank) * 10 + round);
    }
    int revoked = 1;
    CHECK_MPI(MPIX_Comm_is_revoked(half, &revoked));
    CHECK(!revoked);
  } else {
    CHECK_CLASS(MPI_Barrier(half), MPI_ERR_PROC_FAILED);
    CHECK(ft_is_failed(half, 1), "B's rank 1 (world 3) is failed");
  }
  MPI_Comm_free(&half);
  ft_pass(MPI_COMM_WORLD, "ft_insulation");
  MPI_Finalize();
  return 0;
}
