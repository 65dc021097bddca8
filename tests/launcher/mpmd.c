// A program for mpiexec's several-programs (MPMD) tests: each rank prints what tells its application
// context apart (program name, first argument, MPI_APPNUM, FOO, working directory) and checks that
// MPI_COMM_WORLD spans every context (an Allreduce of the ranks).
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, flag = 0, *appnum = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char cwd[512] = "?";
  if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "?");
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  const char* base = strrchr(argv[0], '/');
  const char* foo = getenv("FOO");
  printf("rank %d of %d prog %s arg %s appnum %d foo %s cwd %s host %s sum %s\n", rank, size, base ? base + 1 : argv[0],
         argc > 1 ? argv[1] : "-", flag ? *appnum : -1, foo ? foo : "-", cwd, host,
         sum == size * (size - 1) / 2 ? "ok" : "WRONG");
  MPI_Finalize();
  return 0;
}
