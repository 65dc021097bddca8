/* ft_revoke — revoke without any failure (seed 000 §1.3.1, MPIX_Comm_revoke). 4 ranks, --with-ft ulfm.
 *
 * c = dup(MPI_COMM_WORLD). Ranks 1..3 block in Recv(from 0) on c, rank 0 has an Irecv pending on c; after
 * 200 ms rank 0 calls MPIX_Comm_revoke(c) and nobody else does.
 *
 * PASS when:
 *  - the blocked Recv on ranks 1..3 returns MPI_ERR_REVOKED, and rank 0's pending Irecv completes with
 *    MPI_ERR_REVOKED at Wait;
 *  - MPIX_Comm_is_revoked(c) is 1 everywhere, 0 for MPI_COMM_WORLD;
 *  - later Send, Recv, Barrier, Allreduce on c return MPI_ERR_REVOKED (Isend/Irecv: at initiation or at Wait);
 *  - MPIX_Comm_agree and MPIX_Comm_shrink still work on c (shrink keeps all 4 ranks), the shrunk
 *    communicator does an Allreduce, and the seed's MPI_Comm_shrink accepts the revoked c too;
 *  - MPI_COMM_WORLD is unaffected (Barrier succeeds); nothing hangs. */
#include "ft_check.h"

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 4, "needs 4 ranks");
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  int flag = 1;
  CHECK_MPI(MPIX_Comm_is_revoked(c, &flag));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Barrier(c));

  int x = 0;
  if (rank == 0) {
    MPI_Request r;
    CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, 1, 1, c, &r));
    ft_sleep_ms(200);
    CHECK_MPI(MPIX_Comm_revoke(c));
    CHECK_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_REVOKED);
  } else {
    double t0 = ft_now();
    CHECK_CLASS(MPI_Recv(&x, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE), MPI_ERR_REVOKED);
    CHECK(ft_now() - t0 < 5.0, "the revoke took %.2f s to arrive", ft_now() - t0);
  }
  CHECK_MPI(MPIX_Comm_is_revoked(c, &flag));
  CHECK(flag == 1, "is_revoked after the revoke");
  CHECK_MPI(MPIX_Comm_is_revoked(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0, "MPI_COMM_WORLD is not revoked");

  int peer = (rank + 1) % size, y = 0;
  CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, peer, 2, c), MPI_ERR_REVOKED);
  CHECK_CLASS(MPI_Recv(&x, 1, MPI_INT, peer, 2, c, MPI_STATUS_IGNORE), MPI_ERR_REVOKED);
  CHECK_CLASS(MPI_Barrier(c), MPI_ERR_REVOKED);
  CHECK_CLASS(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c), MPI_ERR_REVOKED);
  MPI_Request r = MPI_REQUEST_NULL;
  int rc = MPI_Isend(&x, 1, MPI_INT, peer, 3, c, &r);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK_CLASS(rc, MPI_ERR_REVOKED);
  rc = MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 3, c, &r);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK_CLASS(rc, MPI_ERR_REVOKED);

  /* repair tools still work on a revoked communicator */
  flag = (rank == 2) ? 0x5 : 0x7;
  CHECK_MPI(MPIX_Comm_agree(c, &flag));
  CHECK(flag == 0x5, "agree on a revoked communicator: flag %#x", flag);
  MPI_Comm s, s2;
  CHECK_MPI(MPIX_Comm_shrink(c, &s));
  int ssize = 0, srank = -1;
  MPI_Comm_size(s, &ssize);
  MPI_Comm_rank(s, &srank);
  CHECK(ssize == 4 && srank == rank, "shrink without failures keeps everybody in order (%d of %d)", srank, ssize);
  CHECK_MPI(MPIX_Comm_is_revoked(s, &flag));
  CHECK(flag == 0, "the shrunk communicator is not revoked");
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, s));
  CHECK(sum == 6);
  CHECK_MPI(MPI_Comm_shrink(c, &s2)); /* seed spelling: fine on an invalidated communicator */
  CHECK_MPI(MPI_Barrier(s2));
  CHECK_MPI(MPI_Comm_free(&s2));
  CHECK_MPI(MPI_Comm_free(&s));
  CHECK_MPI(MPI_Comm_free(&c));

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS ft_revoke\n");
  MPI_Finalize();
  return 0;
}
