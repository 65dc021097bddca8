/* mpi_no_finalize: every rank initializes MPI; rank 0 returns 0 without MPI_Finalize, the others
 * finalize normally (their MPI_Finalize may fail or hang on the missing rank; mpiexec ends the job).
 * PASS (checked by launcher_test.sh): mpiexec exits non-zero naming rank 0 "without calling MPI_Finalize". */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) return 0;
  MPI_Finalize();
  return 0;
}
