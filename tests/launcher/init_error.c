/* init_error TOKEN — MPI_Init that may fail (the test makes it fail: FTMPI_TCP_IF names no interface). Prints
 * what MPI_Init returned when it returns (MPI_ERRORS_RETURN as the initial error handler); under
 * MPI_ERRORS_ARE_FATAL it must not return. Portable MPI. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  int rc = MPI_Init(&argc, &argv);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  printf("MPI_Init returned %d (class %d)\n", rc, cls);
  fflush(stdout);
  if (rc == MPI_SUCCESS) MPI_Finalize();
  return 0;
}
