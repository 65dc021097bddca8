/* ft_revoke_tree — the revoke broadcast's tree (src/ft/revoke.h) with an inner node of the tree killed.
 * 8 ranks, --with-ft ulfm; under ftmpi the tree is made binary (FTMPI_REVOKE_RADIX=2, set before MPI_Init),
 * so that rank 0's tree is 0 -> {4, 2, 1}, 4 -> {6, 5}, 2 -> {3}, 6 -> {7}: rank 4 relays to 5, 6 and 7.
 *
 * c = dup(MPI_COMM_WORLD). After a p2p synchronisation, rank 4 raise(SIGKILL)s; ranks 1-3 and 5-7 block in
 * MPI_Recv(from 0) on c. Rank 0 revokes c:
 *   mode "race":  at once (the revoke may reach rank 4 before or after its death, and rank 0 may learn of the
 *                 death before or after it sent: the broadcast floods when the failure is learnt late),
 *   mode "known": after rank 0 saw the failure (the tree routes around rank 4).
 * PASS when every survivor's receive returns MPI_ERR_REVOKED within 5 s (none hangs: 5, 6 and 7 are reached
 * without rank 4), and the survivors then shrink c to 7 ranks whose Allreduce gives the right sum. */
#include "ft_check.h"

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
#ifdef FTMPI
  setenv("FTMPI_REVOKE_RADIX", "2", 1);
#endif
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 8, "needs 8 ranks");
  CHECK(argc > 1 && (!strcmp(argv[1], "race") || !strcmp(argv[1], "known")), "usage: ft_revoke_tree race|known");
  const int known = !strcmp(argv[1], "known");
  const int victim = 4;
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  CHECK_MPI(ft_sync_all(MPI_COMM_WORLD)); /* on world: a revoke of c must not cut it short */
  if (rank == victim) raise(SIGKILL);

  int x = 0;
  if (rank == 0) {
    if (known) ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
    CHECK_MPI(MPIX_Comm_revoke(c));
  } else {
    const double t0 = ft_now();
    CHECK_CLASS(MPI_Recv(&x, 1, MPI_INT, 0, 1, c, MPI_STATUS_IGNORE), MPI_ERR_REVOKED);
    CHECK(ft_now() - t0 < 5.0, "rank %d: the revoke took %.2f s to arrive", rank, ft_now() - t0);
  }
  int flag = 0;
  CHECK_MPI(MPIX_Comm_is_revoked(c, &flag));
  CHECK(flag == 1, "is_revoked after the revoke");

  MPI_Comm s;
  CHECK_MPI(MPIX_Comm_shrink(c, &s));
  int ssize = 0, sum = 0, one = rank;
  MPI_Comm_size(s, &ssize);
  CHECK(ssize == 7, "shrunk to %d ranks", ssize);
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s));
  CHECK(sum == 0 + 1 + 2 + 3 + 5 + 6 + 7, "sum %d", sum);
  CHECK_MPI(MPI_Comm_free(&s));
  CHECK_MPI(MPI_Comm_free(&c));
  if (rank == 0) printf("PASS ft_revoke_tree %s\n", argv[1]);
  MPI_Finalize();
  return 0;
}
