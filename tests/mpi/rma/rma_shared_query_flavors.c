/* MPI_Win_shared_query on windows of MPI_Win_allocate and MPI_Win_create (MPI-4.1 §12.2.3), all ranks on one
 * host:
 * - every rank answers its own segment (size, unit, its own base);
 * - MPI_Win_allocate: ftmpi maps same-host segments into each member, so every peer's segment answers its size
 *   and unit and a local address; each rank stores its rank into slot [me] of every peer's segment through
 *   that address, and after a barrier every segment holds every rank's stamp; MPI_PROC_NULL names rank 0;
 * - MPI_Win_create: a peer's memory is private to it: size 0 and NULL (the query succeeds);
 * - a dynamic window has no segment: MPI_ERR_RMA_FLAVOR.
 * ftmpi only (MPICH 4.0 and Open MPI 4.1 predate MPI-4.1 and refuse both queries): the peers print SKIP.
 * Any rank count. */
#include "common/check.h"

#ifndef FTMPI
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("SKIP MPI-4.1 MPI_Win_shared_query on other flavours\nPASS rma_shared_query_flavors\n");
  MPI_Finalize();
  return 0;
}
#else

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const MPI_Aint bytes = (MPI_Aint)(size * sizeof(int));

  MPI_Win win;
  int *mine = NULL;
  CHECK_MPI(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  for (int i = 0; i < size; i++) mine[i] = -1;
  CHECK_MPI(MPI_Win_fence(0, win));
  for (int r = 0; r < size; r++) {
    MPI_Aint qsize = -1;
    int unit = -1;
    int *at = NULL;
    CHECK_MPI(MPI_Win_shared_query(win, r, &qsize, &unit, &at));
    if (r == rank) CHECK(at == mine, "own segment: %p, not the window's base %p", (void *)at, (void *)mine);
#ifdef FTMPI
    CHECK(at != NULL && qsize == bytes && unit == (int)sizeof(int), "allocate, rank %d: size %ld unit %d base %p", r,
          (long)qsize, unit, (void *)at);
#endif
    if (at) {
      CHECK(qsize == bytes && unit == (int)sizeof(int), "allocate, rank %d: size %ld unit %d", r, (long)qsize, unit);
      at[rank] = 1000 + rank;
    }
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
#ifdef FTMPI
  for (int i = 0; i < size; i++) CHECK(mine[i] == 1000 + i, "segment of %d: slot %d = %d", rank, i, mine[i]);
  MPI_Aint qsize = -1;
  int unit = -1;
  int *at = NULL;
  CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &unit, &at));
  CHECK(at != NULL && qsize == bytes, "MPI_PROC_NULL: size %ld base %p", (long)qsize, (void *)at);
#endif
  CHECK_MPI(MPI_Win_free(&win));

  int *priv = malloc((size_t)bytes);
  CHECK_MPI(MPI_Win_create(priv, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  for (int r = 0; r < size; r++) {
    MPI_Aint qsize = -1;
    int unit = -1;
    int *at = (int *)&unit;
    CHECK_MPI(MPI_Win_shared_query(win, r, &qsize, &unit, &at));
    if (r == rank)
      CHECK(at == priv && qsize == bytes, "create, own: size %ld base %p", (long)qsize, (void *)at);
    else
      CHECK((at == NULL && qsize == 0) || (at != NULL && qsize == bytes), "create, rank %d: size %ld base %p", r,
            (long)qsize, (void *)at);
  }
  CHECK_MPI(MPI_Win_free(&win));
  free(priv);

  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  CHECK_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  {
    MPI_Aint qsize;
    int unit;
    void *at;
    CHECK_CLASS(MPI_Win_shared_query(win, 0, &qsize, &unit, &at), MPI_ERR_RMA_FLAVOR);
  }
  CHECK_MPI(MPI_Win_free(&win));
  check_pass("rma_shared_query_flavors");
  MPI_Finalize();
  return 0;
}
#endif
