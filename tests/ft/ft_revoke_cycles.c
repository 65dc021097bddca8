/* ft_revoke_cycles — context ids of revoked communicators are recycled safely (issue 12, items 4 and 7).
 * Any number of ranks, --with-ft ulfm. Arguments: CYCLES [plain|pending].
 *
 * Each cycle: c = dup(MPI_COMM_WORLD) (MPI_ERRORS_RETURN); an Allreduce on c; a Barrier on MPI_COMM_WORLD;
 * rank (cycle % size) revokes c; everybody frees c.
 *  - plain: the others free c at once, without waiting for the revoke: it reaches them (and their forwards
 *    reach each other) while the next cycle's communicator, which gets the same context id, is in use.
 *  - pending: after the Barrier every rank starts a 256 KiB Isend (rendezvous) to its right neighbour, the
 *    matching 256 KiB Irecv from its left neighbour, and a 1-int Irecv nobody matches, and the revoker
 *    revokes at once: large transfers are cut short by the revoke at every stage, cycle after cycle. Every
 *    rank waits for the three requests (the transfer may succeed or be revoked; the unmatched receive is
 *    revoked), then frees c.
 *
 * PASS when, for every cycle: the dup succeeds (before the fix revoked ids were never reused and dup
 * failed with MPI_ERR_NO_MEM after about 2,046 cycles), the Allreduce on the fresh communicator succeeds
 * with the right sum (no revoke or message of an earlier communicator leaks into it), is_revoked is 0 on
 * it before the revoke, and (pending) the transfer completes with success or MPI_ERR_REVOKED and the unmatched
 * receive with MPI_ERR_REVOKED. The CTest entry also
 * fails on any "warning" line (before the fix, pending printed "dropping completion notice for an unknown
 * send request" dozens of times). */
#include "ft_check.h"

#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  long cycles = argc > 1 ? atol(argv[1]) : 100000;
  int pending = argc > 2 && strcmp(argv[2], "pending") == 0;
  const int big = 256 * 1024;
  char *sbuf = pending ? calloc(1, (size_t)big) : NULL;
  char *rbuf = pending ? calloc(1, (size_t)big) : NULL;
  int lone = 0;
  CHECK(!pending || (sbuf != NULL && rbuf != NULL));
  double t0 = ft_now();
  for (long i = 0; i < cycles; i++) {
    MPI_Comm c;
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &c);
    CHECK(rc == MPI_SUCCESS, "cycle %ld: MPI_Comm_dup failed (%s)", i, check_errstr(rc));
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    int flag = 1;
    CHECK_MPI(MPIX_Comm_is_revoked(c, &flag));
    CHECK(flag == 0, "cycle %ld: a fresh communicator is already revoked", i);
    long in = i + rank, out = -1;
    rc = MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, c);
    CHECK(rc == MPI_SUCCESS, "cycle %ld: Allreduce on a fresh communicator failed (%s)", i, check_errstr(rc));
    CHECK(out == i * size + (long)size * (size - 1) / 2, "cycle %ld: Allreduce gave %ld", i, out);
    /* everybody is done with the Allreduce before the revoke: a revoke overtaking a slower rank's last
     * Allreduce message would be legitimate */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Request req[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (pending) {
      CHECK_MPI(MPI_Irecv(rbuf, big, MPI_CHAR, (rank + size - 1) % size, 77, c, &req[0]));
      CHECK_MPI(MPI_Isend(sbuf, big, MPI_CHAR, (rank + 1) % size, 77, c, &req[1]));
      CHECK_MPI(MPI_Irecv(&lone, 1, MPI_INT, (rank + size - 1) % size, 78, c, &req[2]));
    }
    if (rank == (int)(i % size)) CHECK_MPI(MPIX_Comm_revoke(c));
    if (pending) {
      for (int k = 0; k < 3; k++) {
        rc = MPI_Wait(&req[k], MPI_STATUS_IGNORE);
        int cls = check_class_of(rc);
        CHECK(cls == MPI_ERR_REVOKED || (k < 2 && cls == MPI_SUCCESS), "cycle %ld: request %d completed with %s",
              i, k, ft_class_name(rc));
      }
    }
    CHECK_MPI(MPI_Comm_free(&c));
    if (rank == 0 && (i + 1) % 20000 == 0) printf("cycle %ld: %.1f s\n", i + 1, ft_now() - t0);
  }
  free(sbuf);
  free(rbuf);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("%ld revoke-and-free cycles on %d ranks in %.2f s\n", cycles, size, ft_now() - t0);
  ft_pass(MPI_COMM_WORLD, pending ? "ft_revoke_cycles (pending)" : "ft_revoke_cycles");
  MPI_Finalize();
  return 0;
}
