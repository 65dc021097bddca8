/* err_coll_alias: aliased send and receive buffers in intracommunicator collectives (MPI forbids them
 * outside MPI_IN_PLACE) are refused with MPI_ERR_BUFFER before anything is communicated, on every rank that
 * passes them, for the blocking, non-blocking and persistent forms; the MPICH errors/coll noalias* patterns.
 * Rooted collectives are called at the root alone (as MPICH's noalias2 does): a missed check there leaves
 * the root waiting for the others (a hang) or, for the non-blocking form, a request left running into freed
 * buffers. Allgather(v) pass this rank's own block of recvbuf as sendbuf (the MPI_IN_PLACE position).
 * MPI_Reduce_local(b, b, ...) likewise. Zero counts and MPI_IN_PLACE are not refused.
 * PASS: each call returns MPI_ERR_BUFFER, and correct collectives afterwards give the right results. */
#include <stdlib.h>

#include "common/check.h"

#define N 2

static void check_after(MPI_Comm comm, int size) {
  int v = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == size, "Allreduce after the refused calls: %d", sum);
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm comm = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_rank(comm, &rank));
  CHECK_MPI(MPI_Comm_size(comm, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));

  int *b = malloc(sizeof(int) * N * size);
  int *cnt = malloc(sizeof(int) * size), *dsp = malloc(sizeof(int) * size);
  MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * size);
  for (int i = 0; i < size; ++i) {
    cnt[i] = N;
    dsp[i] = N * i;
    types[i] = MPI_INT;
    b[N * i] = b[N * i + 1] = i;
  }
  MPI_Request req = MPI_REQUEST_NULL;

  /* rooted collectives: the root alone */
  if (rank == 0) {
    CHECK_CLASS(MPI_Gather(b, N, MPI_INT, b, N, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Gatherv(b, N, MPI_INT, b, cnt, dsp, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Scatter(b, N, MPI_INT, b, N, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Scatterv(b, cnt, dsp, MPI_INT, b, N, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Reduce(b, b, N, MPI_INT, MPI_SUM, 0, comm), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Igather(b, N, MPI_INT, b, N, MPI_INT, 0, comm, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Igatherv(b, N, MPI_INT, b, cnt, dsp, MPI_INT, 0, comm, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Iscatter(b, N, MPI_INT, b, N, MPI_INT, 0, comm, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Iscatterv(b, cnt, dsp, MPI_INT, b, N, MPI_INT, 0, comm, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Ireduce(b, b, N, MPI_INT, MPI_SUM, 0, comm, &req), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Reduce_init(b, b, N, MPI_INT, MPI_SUM, 0, comm, MPI_INFO_NULL, &req), MPI_ERR_BUFFER);
    CHECK(req == MPI_REQUEST_NULL, "a refused call set the request");
  }
  check_after(comm, size);

  /* every rank */
  CHECK_CLASS(MPI_Allgather(&b[rank], 1, MPI_INT, b, 1, MPI_INT, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allgatherv(&b[N * rank], N, MPI_INT, b, cnt, dsp, MPI_INT, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Alltoall(b, N, MPI_INT, b, N, MPI_INT, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Alltoallv(b, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Alltoallw(b, cnt, dsp, types, b, cnt, dsp, types, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allreduce(b, b, N, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Reduce_scatter(b, b, cnt, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Reduce_scatter_block(b, b, N, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Scan(b, b, N, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Exscan(b, b, N, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Iallgather(&b[rank], 1, MPI_INT, b, 1, MPI_INT, comm, &req), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Iallgatherv(&b[N * rank], N, MPI_INT, b, cnt, dsp, MPI_INT, comm, &req), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Ialltoall(b, N, MPI_INT, b, N, MPI_INT, comm, &req), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Ialltoallv(b, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, comm, &req), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Ialltoallw(b, cnt, dsp, types, b, cnt, dsp, types, comm, &req), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Iallreduce(b, b, N, MPI_INT, MPI_SUM, comm, &req), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Ireduce_scatter(b, b, cnt, MPI_INT, MPI_SUM, comm, &req), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Ireduce_scatter_block(b, b, N, MPI_INT, MPI_SUM, comm, &req), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Iscan(b, b, N, MPI_INT, MPI_SUM, comm, &req), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Iexscan(b, b, N, MPI_INT, MPI_SUM, comm, &req), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Allreduce_init(b, b, N, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req), MPI_ERR_BUFFER);
  CHECK(req == MPI_REQUEST_NULL, "a refused call set the request");
  check_after(comm, size);
  CHECK_CLASS(MPI_Reduce_local(b, b, N, MPI_INT, MPI_SUM), MPI_ERR_BUFFER); /* MPICH errors/coll/reduce_local */

  /* not aliasing: zero counts, MPI_IN_PLACE */
  CHECK_MPI(MPI_Allreduce(b, b, 0, MPI_INT, MPI_SUM, comm));
  CHECK_MPI(MPI_Alltoall(b, 0, MPI_INT, b, 0, MPI_INT, comm));
  for (int i = 0; i < size; ++i) b[i] = rank == i ? 10 * i : -1;
  CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, comm));
  for (int i = 0; i < size; ++i) CHECK(b[i] == 10 * i, "Allgather in place: b[%d] = %d", i, b[i]);
  b[0] = rank + 1;
  CHECK_MPI(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : b, b, 1, MPI_INT, MPI_SUM, 0, comm));
  if (rank == 0) CHECK(b[0] == size * (size + 1) / 2, "Reduce in place: %d", b[0]);
  b[0] = rank + 1;
  CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(b[0] == size * (size + 1) / 2, "Iallreduce in place: %d", b[0]);

  free(types);
  free(dsp);
  free(cnt);
  free(b);
  check_pass("err_coll_alias");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
