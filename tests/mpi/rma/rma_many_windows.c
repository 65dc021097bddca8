/* Many windows alive at once (MPICH's rma/window_creation, window_allocation and
 * window_noncontig_allocation keep 1000 windows of MPI_COMM_WORLD open before freeing them; MPICH 4.0 and
 * Open MPI 4.1 pass). A window's private traffic must not take more than one context id slot: with two per
 * window ftmpi ran out of context ids at window 991. Each flavour keeps NWIN windows open, then checks that
 * they still work (a fence-synchronised put to the right neighbour, a passive-target get from the left one,
 * on every USED-th window and the last: every window's service is advanced on each progress pass, so traffic
 * on all 1000 takes minutes on the loaded 2-core machine), that a communicator can still be made, and frees
 * them all. Portable MPI.
 * Usage: rma_many_windows [create|allocate|noncontig|all] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWIN 1000
#define NELTS 16
#define USED 20 /* traffic on windows 0, USED, 2*USED, ... and the last */

static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

static MPI_Win wins[NWIN];
static int* bases[NWIN];

static void run(const char* flavour, int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int i = 0; i < NWIN; i++) {
    int rc;
    if (strcmp(flavour, "create") == 0) {
      MPI_Alloc_mem(NELTS * sizeof(int), MPI_INFO_NULL, &bases[i]);
      rc = MPI_Win_create(bases[i], NELTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wins[i]);
    } else {
      MPI_Info info = MPI_INFO_NULL;
      if (strcmp(flavour, "noncontig") == 0) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
      }
      rc = MPI_Win_allocate(NELTS * sizeof(int), sizeof(int), info, MPI_COMM_WORLD, &bases[i], &wins[i]);
      if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    }
    if (rc != MPI_SUCCESS) {
      char msg[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_Error_string(rc, msg, &len);
      printf("FAIL: %s: window %d of %d could not be made: %s\n", flavour, i, NWIN, msg);
      fails++;
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int k = 0; k < NELTS; k++) bases[i][k] = -1;
  }
  /* Every window still carries its own traffic: put (rank, i) into the right neighbour's window i. */
  for (int i = 0; i < NWIN; i++) {
    if (i % USED != 0 && i != NWIN - 1) continue;
    int v[2] = {rank, i};
    MPI_Win_fence(0, wins[i]);
    MPI_Put(v, 2, MPI_INT, right, 0, 2, MPI_INT, wins[i]);
    MPI_Win_fence(0, wins[i]);
    CHECK(bases[i][0] == left && bases[i][1] == i, "%s: window %d holds (%d, %d), want (%d, %d)", flavour, i,
          bases[i][0], bases[i][1], left, i);
    if (fails > 5) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int i = NWIN - 1; i >= 0; i--) {
    if (i % USED != 0 && i != NWIN - 1) continue;
    int got[2] = {-2, -2};
    MPI_Win_lock(MPI_LOCK_SHARED, left, 0, wins[i]);
    MPI_Get(got, 2, MPI_INT, left, 0, 2, MPI_INT, wins[i]);
    MPI_Win_unlock(left, wins[i]);
    const int want = (left + size - 1) % size;
    CHECK(got[0] == want && got[1] == i, "%s: get from window %d gave (%d, %d), want (%d, %d)", flavour, i,
          got[0], got[1], want, i);
    if (fails > 5) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Comm extra;
  CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &extra) == MPI_SUCCESS, "%s: MPI_Comm_dup beside %d windows", flavour, NWIN);
  MPI_Comm_free(&extra);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < NWIN; i++) {
    MPI_Win_free(&wins[i]);
    if (strcmp(flavour, "create") == 0) MPI_Free_mem(bases[i]);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char* which = argc > 1 ? argv[1] : "all";
  const char* flavours[] = {"create", "allocate", "noncontig"};
  for (int f = 0; f < 3; f++)
    if (strcmp(which, "all") == 0 || strcmp(which, flavours[f]) == 0) run(flavours[f], rank, size);
  int total = 0;
  MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(total ? "rma_many_windows: %d failures\n" : "rma_many_windows: PASS\n", total);
  MPI_Finalize();
  return total ? 1 : 0;
}
