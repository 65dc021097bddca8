/* MPI_Open_port / MPI_Publish_name / MPI_Lookup_name / MPI_Comm_accept / MPI_Comm_connect between the two
 * halves of MPI_COMM_WORLD (each half its own intracommunicator), then exchange, merge, disconnect,
 * unpublish, close the port; an unpublished name gives MPI_ERR_NAME. Needs an even number of ranks >= 2. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int server = rank < size / 2;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, server, rank, &half);
  int hrank, hsize;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  char port[MPI_MAX_PORT_NAME] = "";
  const char* svc = "ftmpi-dpm-test-service";
  if (server && hrank == 0) {
    MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Publish_name(svc, MPI_INFO_NULL, port);
  }
  MPI_Barrier(MPI_COMM_WORLD);  /* published before anyone looks */
  if (server) {
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
  } else {
    if (hrank == 0) {
      int rc = MPI_Lookup_name(svc, MPI_INFO_NULL, port);
      CHECK(rc == MPI_SUCCESS, "lookup returned %d", rc);
    }
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
  }
  int rsize = 0;
  MPI_Comm_remote_size(inter, &rsize);
  CHECK(rsize == size - hsize, "remote size %d", rsize);
  int v = server ? 10 + hrank : 20 + hrank, got = -1;
  int peer = hrank % rsize;
  if (hrank < rsize) {
    MPI_Sendrecv(&v, 1, MPI_INT, peer, 3, &got, 1, MPI_INT, peer, 3, inter, MPI_STATUS_IGNORE);
    CHECK(got == (server ? 20 : 10) + peer, "got %d from remote %d", got, peer);
  }
  MPI_Comm all;
  MPI_Intercomm_merge(inter, !server, &all);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, all);
  CHECK(sum == size * (size - 1) / 2, "merged allreduce %d", sum);
  MPI_Comm_free(&all);
  MPI_Comm_disconnect(&inter);
  MPI_Barrier(MPI_COMM_WORLD);
  if (server && hrank == 0) {
    MPI_Unpublish_name(svc, MPI_INFO_NULL, port);
    MPI_Close_port(port);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (!server && hrank == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    char p2[MPI_MAX_PORT_NAME];
    int rc = MPI_Lookup_name(svc, MPI_INFO_NULL, p2);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_NAME, "lookup after unpublish: rc %d class %d", rc, cls);
  }
  MPI_Comm_free(&half);
  int all_fails = 0;
  MPI_Allreduce(&fails, &all_fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s\n", all_fails ? "FAIL" : "ok");
  MPI_Finalize();
  return all_fails ? 1 : 0;
}
