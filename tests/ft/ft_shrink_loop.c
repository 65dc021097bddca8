/* ft_shrink_loop — shrink repeated until one rank remains. 5 ranks, --with-ft ulfm.
 *
 * Round k on communicator c (starting with a dup of MPI_COMM_WORLD): the member at position (2k+1) mod size
 * dies (raise(SIGKILL)) instead of calling Allreduce; the others call Allreduce (which must fail: the victim
 * never contributes), revoke c, shrink it, and check the new communicator.
 *
 * PASS when in every round on every survivor: the Allreduce returns MPI_ERR_PROC_FAILED or MPI_ERR_REVOKED;
 * the shrunk communicator has exactly one member less, the survivors in their old order, and an Allreduce of
 * world ranks on it gives the sum over the survivors (or fails with PROC_FAILED/REVOKED when the next round's
 * victim already died; in the last round, with one rank, it must succeed); after 4 rounds the last rank alone prints PASS; nothing
 * hangs. */
#include "ft_check.h"

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size >= 2, "needs 2 ranks or more");
  int alive[64], nalive = size; /* world ranks of the current communicator, in order */
  CHECK(size <= 64);
  for (int i = 0; i < size; i++) alive[i] = i;

  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  /* the first victim must not die before every rank has its dup */
  CHECK_CLASS2(ft_sync_all(c), MPI_SUCCESS, MPI_ERR_REVOKED);
  for (int round = 0; nalive > 1; round++) {
    int crank = -1;
    MPI_Comm_rank(c, &crank);
    CHECK(alive[crank] == rank);
    int victim = (2 * round + 1) % nalive;
    if (crank == victim) ft_die();
    int v = rank, sum = 0;
    CHECK_CLASS2(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c), MPI_ERR_PROC_FAILED, MPI_ERR_REVOKED);
    CHECK_MPI(MPIX_Comm_revoke(c));
    MPI_Comm s;
    CHECK_MPI(MPIX_Comm_shrink(c, &s));
    CHECK_MPI(MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_free(&c));
    c = s;
    int vworld = alive[victim];
    for (int i = victim; i + 1 < nalive; i++) alive[i] = alive[i + 1];
    nalive--;
    int ssize = 0, srank = -1;
    MPI_Comm_size(c, &ssize);
    MPI_Comm_rank(c, &srank);
    CHECK(ssize == nalive, "round %d: shrunk to %d, expected %d", round, ssize, nalive);
    CHECK(alive[srank] == rank, "round %d: order not kept", round);
    int expect = 0;
    for (int i = 0; i < nalive; i++) expect += alive[i];
    /* the next round's victim may leave this Allreduce and die before the others have left it (collectives are
       not uniform under failures), and a faster survivor may already have revoked c in the next round */
    int rc = MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c);
    if (rc == MPI_SUCCESS) CHECK(sum == expect, "round %d: sum %d, expected %d", round, sum, expect);
    else CHECK(nalive > 1, "round %d: the last Allreduce failed with nobody left to fail", round);
    CHECK_CLASS2(rc, MPI_SUCCESS, check_class_of(rc) == MPI_ERR_REVOKED ? MPI_ERR_REVOKED : MPI_ERR_PROC_FAILED);
    if (srank == 0) {
      printf("round %d: world rank %d died, %d ranks left\n", round, vworld, nalive);
      fflush(stdout);
    }
  }
  printf("PASS ft_shrink_loop (world rank %d is the last one)\n", rank);
  CHECK_MPI(MPI_Comm_free(&c));
  MPI_Finalize();
  return 0;
}
