/* hello.c — the smallest real MPI program, used by the install tests (tests/install/).
 * PASS: every rank prints exactly one line "hello from rank R of N" and exits 0; the test checks that
 * ranks 0..N-1 all appear once. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rank = -1, size = -1;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("hello from rank %d of %d\n", rank, size);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
