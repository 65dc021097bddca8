/* MPI_Comm_join: rank 0 listens on a loopback TCP socket, rank 1 connects; both join over the socket
 * and exchange over the resulting intercommunicator. Needs 2 ranks. */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

static int fails = 0;
#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int fd = -1, port = 0;
  if (rank == 0) {
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(l, (struct sockaddr*)&a, sizeof a);
    listen(l, 1);
    socklen_t len = sizeof a;
    getsockname(l, (struct sockaddr*)&a, &len);
    port = ntohs(a.sin_port);
    MPI_Send(&port, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    fd = accept(l, NULL, NULL);
    close(l);
  } else if (rank == 1) {
    MPI_Recv(&port, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((unsigned short)port);
    if (connect(fd, (struct sockaddr*)&a, sizeof a) != 0) CHECK(0, "connect failed");
  }
  if (rank < 2) {
    MPI_Comm inter;
    int rc = MPI_Comm_join(fd, &inter);
    CHECK(rc == MPI_SUCCESS, "join returned %d", rc);
    int rsize = 0;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 1, "remote size %d", rsize);
    int v = 100 + rank, got = -1;
    MPI_Sendrecv(&v, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
    CHECK(got == 101 - rank, "got %d", got);
    MPI_Comm_disconnect(&inter);
    close(fd);
  }
  int all = 0;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s\n", all ? "FAIL" : "ok");
  MPI_Finalize();
  return all ? 1 : 0;
}
