/* ft_agree — agreement with and without acknowledgement, both spellings (seed 000 §1.3.2, API.md).
 * 5 ranks, --with-ft ulfm.
 *
 * PASS when, on every survivor:
 *  - MPI_Comm_shrink (seed spelling) on MPI_COMM_WORLD, which was not invalidated, returns MPI_ERR_ARG;
 *  - without failures MPIX_Comm_agree returns MPI_SUCCESS and the bitwise AND of the flags (rank r clears
 *    bit r), the same with MPI_Comm_agreement;
 *  - rank 4 dies; with its failure not acknowledged, MPIX_Comm_agree returns MPI_ERR_PROC_FAILED and still the
 *    agreed flag (the AND of the survivors' flags) on every survivor;
 *  - after MPIX_Comm_failure_ack it returns MPI_SUCCESS with the AND;
 *  - rank 3 dies too; the seed spelling MPI_Comm_agreement returns MPI_SUCCESS (never a process-failure
 *    error) with the AND of the survivors' flags, while MPIX_Comm_agree reports the unacknowledged failure;
 *  - nothing hangs. */
#include "ft_check.h"

static int mask_without(int nranks, const int *dead) {
  int m = ~0;
  for (int r = 0; r < nranks; r++)
    if (!dead[r]) m &= ~(1 << r);
  return m;
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 5, "needs 5 ranks");
  int dead[5] = {0};

  MPI_Comm bad = MPI_COMM_NULL;
  CHECK_CLASS(MPI_Comm_shrink(MPI_COMM_WORLD, &bad), MPI_ERR_ARG);

  int flag = ~(1 << rank);
  CHECK_MPI(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
  CHECK(flag == mask_without(size, dead), "agree without failures: %#x", flag);
  flag = ~(1 << rank);
  CHECK_MPI(MPI_Comm_agreement(MPI_COMM_WORLD, &flag));
  CHECK(flag == mask_without(size, dead), "agreement without failures: %#x", flag);
  flag = 1;
  CHECK_MPI(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
  CHECK(flag == 1);

  /* one failure, not acknowledged */
  if (rank == 4) ft_die();
  dead[4] = 1;
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  flag = ~(1 << rank);
  CHECK_CLASS(MPIX_Comm_agree(MPI_COMM_WORLD, &flag), MPI_ERR_PROC_FAILED);
  CHECK(flag == mask_without(size, dead), "agree with an unacknowledged failure: %#x", flag);

  /* acknowledged */
  CHECK_MPI(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
  flag = ~(1 << rank);
  CHECK_MPI(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
  CHECK(flag == mask_without(size, dead), "agree after ack: %#x", flag);
  flag = (rank == 1) ? 0 : 1;
  CHECK_MPI(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0, "AND with one zero");

  /* a second failure: the seed spelling never reports it, the MPIX one does */
  if (rank == 3) ft_die();
  dead[3] = 1;
  ft_wait_failed(MPI_COMM_WORLD, 2, 10.0);
  flag = ~(1 << rank);
  CHECK_MPI(MPI_Comm_agreement(MPI_COMM_WORLD, &flag));
  CHECK(flag == mask_without(size, dead), "agreement after the second failure: %#x", flag);
  flag = 7;
  CHECK_CLASS(MPIX_Comm_agree(MPI_COMM_WORLD, &flag), MPI_ERR_PROC_FAILED);
  CHECK(flag == 7);
  int acked = 0;
  CHECK_MPI(MPIX_Comm_ack_failed(MPI_COMM_WORLD, 10, &acked));
  CHECK(acked == 2, "ack_failed acknowledged %d", acked);
  flag = 7;
  CHECK_MPI(MPIX_Comm_agree(MPI_COMM_WORLD, &flag));
  CHECK(flag == 7);

  ft_pass(MPI_COMM_WORLD, "ft_agree");
  MPI_Finalize();
  return 0;
}
