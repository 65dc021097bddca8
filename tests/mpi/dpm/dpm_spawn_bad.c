/* MPI_Comm_spawn of a program that does not exist: MPI_ERR_SPAWN (error class) with MPI_ERR_SPAWN in
 * every entry of array_of_errcodes, and the job goes on (a second, good spawn works). */
#include <mpi.h>
#include <stdio.h>

static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
  }
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm inter = MPI_COMM_NULL;
  int codes[2] = {-1, -1};
  int rc = MPI_Comm_spawn("./no-such-program-ftmpi-dpm", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_SPAWN, "spawn of a missing program: rc %d class %d", rc, cls);
  CHECK(codes[0] != MPI_SUCCESS && codes[1] != MPI_SUCCESS, "errcodes %d %d", codes[0], codes[1]);
  int c0 = -1;
  MPI_Error_class(codes[0], &c0);
  CHECK(c0 == MPI_ERR_SPAWN, "errcode class %d", c0);
  CHECK(inter == MPI_COMM_NULL, "intercomm set after a failed spawn");
  rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
  CHECK(rc == MPI_SUCCESS, "good spawn after a bad one: rc %d", rc);
  if (rc == MPI_SUCCESS) MPI_Comm_disconnect(&inter);
  if (rank == 0) printf("%s\n", fails ? "FAIL" : "ok");
  MPI_Finalize();
  return fails ? 1 : 0;
}
