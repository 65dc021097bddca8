/* bench/spawn.c — time of MPI_Comm_spawn of N processes (default 4) from a 1-process parent: from the call
 * to the first message received from every child over the new intercommunicator (the children have run
 * MPI_Init and answered). Repeated R times (default 5), spawn + disconnect each time; prints
 * "spawn <N> <median_ms> <min_ms>". Plain MPI: built with each MPI's own wrapper by bench/spawn_run.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    int rank, one = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Send(&one, 1, MPI_INT, 0, 1, parent);
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
  }
  int n = argc > 1 ? atoi(argv[1]) : 4, reps = argc > 2 ? atoi(argv[2]) : 5;
  double t[64];
  if (reps > 64) reps = 64;
  for (int r = 0; r < reps; ++r) {
    MPI_Comm inter;
    double t0 = MPI_Wtime();
    MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, n, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter, MPI_ERRCODES_IGNORE);
    for (int c = 0; c < n; ++c) {
      int v;
      MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, inter, MPI_STATUS_IGNORE);
    }
    t[r] = (MPI_Wtime() - t0) * 1e3;
    MPI_Comm_disconnect(&inter);
  }
  qsort(t, (size_t)reps, sizeof t[0], cmp);
  printf("spawn %d %.1f %.1f\n", n, t[reps / 2], t[0]);
  MPI_Finalize();
  return 0;
}
