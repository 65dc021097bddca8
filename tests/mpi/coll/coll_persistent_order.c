/* coll_persistent_order [rounds] — persistent collectives match in the order of their inits, not of their
 * starts (MPI-4.0 §6.13; MPICH's coll/p_order). 2+ ranks.
 *
 * Every rank initialises, in the same order, Bcast_init (root 0), Barrier_init, Allreduce_init (SUM),
 * Reduce_init (MAX, root size-1) and Alltoall_init on MPI_COMM_WORLD, and Bcast_init / Allreduce_init on an
 * intercommunicator between the even and the odd ranks. Then, for `rounds` rounds (default 20), each rank
 * starts the world requests in its own order (a rotation by rank + round, reversed on odd ranks), calls a
 * blocking MPI_Allreduce between two of its starts at a rank-dependent point, starts the intercommunicator
 * requests in the opposite order in the two groups, and completes everything with one Waitall.
 *
 * PASS when every result is the one the round's input gives (Bcast: the root's value; Allreduce: the sum;
 * Reduce: the largest rank's value at the root; Alltoall: each block from its sender; the interleaved blocking
 * Allreduce: its sum) in every round. Before the fix the plans took tags from the communicator's one
 * sequence at each start, so a start order that differs between ranks matched the wrong collectives:
 * wrong values, MPI_ERR_TRUNCATE or a hang. Passes with MPICH 4.0; Open MPI 4.1 has only MPIX_ forms. */
#include "common/check.h"

enum { NREQ = 5 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 20;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) printf("SKIP coll_persistent_order needs 2 ranks\n");
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  int bc = -1, sum_in = 0, sum_out = 0, gin = 0, gout = -1;
  int *ain = malloc(sizeof(int) * size), *aout = malloc(sizeof(int) * size);
  CHECK(ain && aout);
  MPI_Request req[NREQ];
  CHECK(MPI_Bcast_init(&bc, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]) == MPI_SUCCESS);
  CHECK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]) == MPI_SUCCESS);
  CHECK(MPI_Allreduce_init(&sum_in, &sum_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[2]) ==
        MPI_SUCCESS);
  CHECK(MPI_Reduce_init(&gin, &gout, 1, MPI_INT, MPI_MAX, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req[3]) ==
        MPI_SUCCESS);
  CHECK(MPI_Alltoall_init(ain, 1, MPI_INT, aout, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &req[4]) == MPI_SUCCESS);

  /* Intercommunicator: even ranks (group 0) and odd ranks (group 1); leaders world ranks 0 and 1. */
  MPI_Comm half, inter;
  const int color = rank % 2;
  CHECK(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half) == MPI_SUCCESS);
  CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter) == MPI_SUCCESS);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int hrank, rsize;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_remote_size(inter, &rsize);
  int ibc = -1, isum_in = 0, isum_out = 0;
  const int iroot = color == 0 ? (hrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;  /* group 0's rank 0 sends */
  MPI_Request ireq[2];
  CHECK(MPI_Bcast_init(&ibc, 1, MPI_INT, iroot, inter, MPI_INFO_NULL, &ireq[0]) == MPI_SUCCESS);
  CHECK(MPI_Allreduce_init(&isum_in, &isum_out, 1, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &ireq[1]) == MPI_SUCCESS);

  for (int r = 0; r < rounds; ++r) {
    const int v = 1000 * (r + 1);
    bc = rank == 0 ? v : -1;
    sum_in = v + rank;
    sum_out = -1;
    gin = v + rank;
    gout = -1;
    for (int i = 0; i < size; ++i) {
      ain[i] = v + rank * size + i;
      aout[i] = -1;
    }
    ibc = (color == 0 && hrank == 0) ? v + 7 : -1;
    isum_in = v + rank;
    isum_out = -1;

    /* World requests in this rank's order; the blocking Allreduce between two starts. */
    const int blocking_at = (rank + r) % NREQ;
    for (int k = 0; k < NREQ; ++k) {
      const int step = rank % 2 ? NREQ - 1 - k : k;
      const int which = (step + rank + r) % NREQ;
      if (k == blocking_at) {
        int x = v + rank, y = -1;
        CHECK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK(y == v * size + size * (size - 1) / 2, "round %d: blocking allreduce gave %d", r, y);
      }
      CHECK(MPI_Start(&req[which]) == MPI_SUCCESS);
    }
    /* Intercommunicator requests: group 0 Bcast then Allreduce, group 1 the other way (by Startall). */
    MPI_Request iorder[2] = {ireq[color], ireq[1 - color]};
    CHECK(MPI_Startall(2, iorder) == MPI_SUCCESS);
    CHECK(MPI_Waitall(NREQ, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "round %d", r);
    CHECK(MPI_Waitall(2, iorder, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "round %d", r);

    CHECK(bc == v, "round %d: bcast gave %d", r, bc);
    CHECK(sum_out == v * size + size * (size - 1) / 2, "round %d: allreduce gave %d", r, sum_out);
    if (rank == size - 1) CHECK(gout == v + size - 1, "round %d: reduce gave %d", r, gout);
    for (int i = 0; i < size; ++i) CHECK(aout[i] == v + i * size + rank, "round %d: alltoall[%d] = %d", r, i, aout[i]);
    if (color == 1) CHECK(ibc == v + 7, "round %d: inter bcast gave %d", r, ibc);
    int rsum = 0; /* the other group's sum of (v + world rank) */
    for (int w = 1 - color; w < size; w += 2) rsum += v + w;
    CHECK(rsize == (size - (1 - color) + 1) / 2);
    CHECK(isum_out == rsum, "round %d: inter allreduce gave %d, want %d", r, isum_out, rsum);
  }

  for (int i = 0; i < NREQ; ++i) CHECK(MPI_Request_free(&req[i]) == MPI_SUCCESS);
  for (int i = 0; i < 2; ++i) CHECK(MPI_Request_free(&ireq[i]) == MPI_SUCCESS);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  free(ain);
  free(aout);
  if (rank == 0) printf("PASS coll_persistent_order\n");
  MPI_Finalize();
  return 0;
}
