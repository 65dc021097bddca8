/* mpi_abort: rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while the others wait in a barrier.
 * PASS (checked by launcher_test.sh): mpiexec exits 7 and says that rank 1 called MPI_Abort. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 7);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
