/* MPI_Comm_connect to an open port on which nobody calls MPI_Comm_accept "will eventually time out after an
 * implementation-defined time" (MPI-4.0 §11.7.2): ftmpi gives up after the info key "timeout" (seconds, as
 * MPICH) or FTMPI_CONNECT_TIMEOUT with MPI_ERR_PORT, and the port stays usable: a later connect that finds an
 * accept succeeds (the timed-out request was withdrawn, not paired with that accept). MPICH's
 * errors/spawn/connect_timeout_no_accept. Odd ranks connect (each over MPI_COMM_SELF), rank 0 owns the port.
 * PASS: each timed-out connect returns MPI_ERR_PORT within a few seconds of its timeout. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

int main(int argc, char** argv) {
  setenv("FTMPI_CONNECT_TIMEOUT", "1", 1);  /* the default for connects without the info key */
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  char port[MPI_MAX_PORT_NAME] = {0};
  if (rank == 0) MPI_Open_port(MPI_INFO_NULL, port);
  MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);

  if (rank % 2 == 1) {
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "timeout", "2");
    double t0 = MPI_Wtime();
    int rc = MPI_Comm_connect(port, info, 0, MPI_COMM_SELF, &c);
    double waited = MPI_Wtime() - t0;
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_PORT && c == MPI_COMM_NULL, "rank %d: connect with timeout 2 gave class %d", rank, cls);
    CHECK(waited >= 1.5 && waited < 30, "rank %d: connect with timeout 2 returned after %.1f s", rank, waited);
    MPI_Info_free(&info);
    t0 = MPI_Wtime();
    rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c);
    waited = MPI_Wtime() - t0;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_PORT, "rank %d: connect with FTMPI_CONNECT_TIMEOUT=1 gave class %d", rank, cls);
    CHECK(waited < 30, "rank %d: connect with FTMPI_CONNECT_TIMEOUT=1 returned after %.1f s", rank, waited);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* the port still pairs a connect with an accept (rank 1 with rank 0) */
  if (size > 1 && rank <= 1) {
    MPI_Comm c = MPI_COMM_NULL;
    int rc = rank == 0 ? MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c)
                       : MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c);
    CHECK(rc == MPI_SUCCESS, "rank %d: accept/connect after the timeouts failed (%d)", rank, rc);
    if (rc == MPI_SUCCESS) {
      int v = rank == 0 ? 42 : 0;
      if (rank == 0) MPI_Send(&v, 1, MPI_INT, 0, 0, c);
      else MPI_Recv(&v, 1, MPI_INT, 0, 0, c, MPI_STATUS_IGNORE);
      CHECK(v == 42, "rank %d: message over the new intercommunicator", rank);
      MPI_Comm_disconnect(&c);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_Close_port(port);

  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all ? "FAIL: %d problems\n" : "PASS\n", all);
  MPI_Finalize();
  return all != 0;
}
