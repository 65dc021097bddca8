/* tests/ft/ft_inter_revoke.c — revoking an intercommunicator reaches both groups (seed 000 §1.3.1 on an
 * intercommunicator), interrupts point-to-point and collective operations pending on it in either group, and
 * leaves MPI_COMM_WORLD usable.
 *
 * World ranks split into A = even ranks and B = odd ranks (local ranks in order), joined by an intercommunicator.
 *   argv[1] = "kill": B's last member dies first; A's rank 0 sees MPI_ERR_PROC_FAILED on a receive from it and
 *             revokes. Otherwise ("plain") B's rank 0 revokes without any failure.
 * Every other survivor is blocked on the intercommunicator when the revoke arrives: A's members in a receive
 * from a live B member that never sends, B's members in a receive from a live A member that never sends, and
 * (plain variant) A's last member in an intercommunicator Bcast whose root never calls it (its local phase and
 * leader exchange are both interrupted). Each must return MPI_ERR_REVOKED; afterwards every operation on the
 * intercommunicator fails with MPI_ERR_REVOKED in both groups, the flag is set everywhere, and it can be freed.
 * Runs with an even number of ranks >= 4 under mpiexec --with-ft ulfm. */
#include "ft_check.h"

#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int kill = argc > 1 && strcmp(argv[1], "kill") == 0;
  int wrank = -1, wsize = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  CHECK(wsize >= 4 && wsize % 2 == 0, "needs an even number of ranks >= 4");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  const int in_a = wrank % 2 == 0;
  MPI_Comm local, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, in_a ? 0 : 1, wrank, &local));
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? 1 : 0, 77, &inter));
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int lrank = -1, lsize = 0, rsize = 0, flag = -1;
  MPI_Comm_rank(inter, &lrank);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  CHECK(lsize == wsize / 2 && rsize == wsize / 2, "group sizes %d + %d", lsize, rsize);
  CHECK_MPI(MPIX_Comm_is_revoked(inter, &flag));
  CHECK(flag == 0, "a new intercommunicator is not revoked");

  /* The intercommunicator works before anything happens. */
  int token = wrank, got = -1;
  CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, lrank, 5, &got, 1, MPI_INT, lrank, 5, inter, MPI_STATUS_IGNORE));
  CHECK(got == (in_a ? wrank + 1 : wrank - 1), "exchange with the remote partner: got %d", got);

  const int victim_b = lsize - 1; /* B's last member (kill variant) */
  if (kill) {
    ft_barrier_before_death(MPI_COMM_WORLD);
    if (!in_a && lrank == victim_b) ft_die();
  } else {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }

  const int revoker_a = kill && in_a && lrank == 0;
  const int revoker_b = !kill && !in_a && lrank == 0;
  int x = 0;
  if (revoker_a) {
    CHECK_CLASS(MPI_Recv(&x, 1, MPI_INT, victim_b, 1, inter, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
    CHECK_MPI(MPIX_Comm_revoke(inter));
  } else if (revoker_b) {
    ft_sleep_ms(50); /* let the others block first */
    CHECK_MPI(MPI_Comm_invalidate(inter)); /* the seed's spelling of MPIX_Comm_revoke */
  } else if (!kill && in_a && lrank == lsize - 1 && lsize > 1) {
    /* Root 0 of B never calls this Bcast: the receive from B's leader (A's leader) and the local phase
     * (everyone else in A) are both interrupted. */
    int buf[4] = {0};
    CHECK_CLASS(MPI_Bcast(buf, 4, MPI_INT, 0, inter), MPI_ERR_REVOKED);
  } else {
    /* Remote rank 0 is alive in both variants and never sends on tag 9. */
    CHECK_CLASS(MPI_Recv(&x, 1, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE), MPI_ERR_REVOKED);
  }

  /* Everyone (both groups) now sees the revoke, and every operation on the intercommunicator fails with it. */
  CHECK_MPI(MPIX_Comm_is_revoked(inter, &flag));
  CHECK(flag == 1, "the intercommunicator is revoked in group %s", in_a ? "A" : "B");
  CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, 0, 3, inter), MPI_ERR_REVOKED);
  CHECK_CLASS(MPI_Barrier(inter), MPI_ERR_REVOKED);
  int y = 0;
  CHECK_CLASS(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_REVOKED);
  MPI_Request r = MPI_REQUEST_NULL;
  int rc = MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 3, inter, &r);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK_CLASS(rc, MPI_ERR_REVOKED);
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPI_Comm_free(&local));

  /* MPI_COMM_WORLD is not affected by the intercommunicator's revoke. */
  if (kill) {
    MPI_Comm survivors;
    CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &survivors));
    int n = 0;
    MPI_Comm_size(survivors, &n);
    CHECK(n == wsize - 1, "shrink of MPI_COMM_WORLD keeps %d of %d", n, wsize);
    CHECK_MPI(MPI_Barrier(survivors));
    int srank = -1;
    MPI_Comm_rank(survivors, &srank);
    if (srank == 0) printf("PASS ft_inter_revoke kill\n");
    CHECK_MPI(MPI_Comm_free(&survivors));
  } else {
    int sum = 0;
    CHECK_MPI(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == wsize * (wsize - 1) / 2, "MPI_COMM_WORLD still works: %d", sum);
    if (wrank == 0) printf("PASS ft_inter_revoke plain\n");
  }
  MPI_Finalize();
  return 0;
}
