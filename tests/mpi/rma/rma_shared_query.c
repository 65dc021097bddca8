/* MPI_Win_shared_query on a window of MPI_Win_allocate_shared where some ranks give size 0 (MPICH's
 * rma/win_shared_noncontig_put): an empty rank's segment has size 0 and a NULL base (checked portably with
 * alloc_shared_noncontig, as MPICH's test does; always for ftmpi); MPI_PROC_NULL names
 * the lowest rank with memory; every non-empty segment is reachable by load/store and by MPI_Put from its
 * neighbours. Run with both info "alloc_shared_noncontig" true and without. Portable MPI. */
#include <mpi.h>
#include <stdio.h>

#define N 64
static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

static void run(MPI_Comm node, MPI_Info info, const char* what, int noncontig) {
  (void)noncontig; /* used by the portable build only */
  int rank, size;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_size(node, &size);
  int* mine = NULL;
  MPI_Win win;
  const MPI_Aint bytes = (rank % 2 == 0) ? N * sizeof(int) : 0;  /* odd ranks give no memory */
  MPI_Win_allocate_shared(bytes, sizeof(int), info, node, &mine, &win);
  /* every even rank writes i into slot i of the next even rank (wrapping), through MPI_Put under fences */
  for (int i = 0; i < N; ++i) {
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    if (rank % 2 == 0) {
      int to = rank + 2 < size ? rank + 2 : 0;
      MPI_Put(&i, 1, MPI_INT, to, i, 1, MPI_INT, win);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  }
  for (int r = 0; r < size; ++r) {
    MPI_Aint qsize = -1;
    int unit = -1;
    int* base = (int*)&qsize; /* anything but NULL */
    MPI_Win_shared_query(win, r, &qsize, &unit, &base);
    CHECK(unit == (int)sizeof(int), "%s: rank %d disp_unit %d", what, r, unit);
    if (r % 2 == 0) {
      /* Open MPI rounds noncontiguous segments up to pages: at least the size asked for */
      CHECK(qsize >= N * (MPI_Aint)sizeof(int), "%s: rank %d size %ld", what, r, (long)qsize);
      if (base)
        for (int j = 0; j < N; ++j) CHECK(base[j] == j, "%s: rank %d slot %d holds %d", what, r, j, base[j]);
      else CHECK(0, "%s: rank %d has memory but a NULL base", what, r);
    } else {
      CHECK(qsize == 0, "%s: empty rank %d reports size %ld", what, r, (long)qsize);
#ifndef FTMPI
      if (noncontig) /* Open MPI 4.1 answers a pointer into the segment for contiguous windows */
#endif
        CHECK(base == NULL, "%s: empty rank %d reports a non-NULL base", what, r);
    }
  }
  MPI_Aint qsize = -1;
  int unit = -1;
  int* base = NULL;
  MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &unit, &base);
  CHECK(qsize >= N * (MPI_Aint)sizeof(int) && base != NULL, "%s: MPI_PROC_NULL query gave size %ld", what,
        (long)qsize);
  MPI_Win_free(&win);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int wrank;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wrank, MPI_INFO_NULL, &node);
  run(node, MPI_INFO_NULL, "contiguous", 0);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");
  run(node, info, "noncontig", 1);
  MPI_Info_free(&info);
  MPI_Comm_free(&node);
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (wrank == 0) printf(all ? "FAIL: %d problems\n" : "PASS\n", all);
  MPI_Finalize();
  return all != 0;
}
