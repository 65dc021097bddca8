/* bench/part_pingpong.c — MPI-4.0 partitioned ping-pong between ranks 0 and 1 (usage: P B R): each holds a
 * Psend_init/Precv_init pair of P partitions of B bytes; a round is Start both, Pready_range all, Wait both. Prints
 * the one-way time per round in microseconds (R rounds after 10 warm-up rounds). docs/performance.md. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int P = atoi(argv[1]); long B = atol(argv[2]); int R = atoi(argv[3]);
  char *sb = calloc((size_t)P, (size_t)B), *rb = calloc((size_t)P, (size_t)B);
  MPI_Request s, r;
  int peer = 1 - rank;
  MPI_Psend_init(sb, P, B, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
  MPI_Precv_init(rb, P, B, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
  double t0 = 0;
  for (int i = -10; i < R; i++) {
    if (i == 0) { MPI_Barrier(MPI_COMM_WORLD); t0 = MPI_Wtime(); }
    if (rank == 0) {
      MPI_Start(&r); MPI_Start(&s); MPI_Pready_range(0, P - 1, s); MPI_Wait(&s, MPI_STATUS_IGNORE); MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      MPI_Start(&r); MPI_Start(&s); MPI_Wait(&r, MPI_STATUS_IGNORE); MPI_Pready_range(0, P - 1, s); MPI_Wait(&s, MPI_STATUS_IGNORE);
    }
  }
  double t = MPI_Wtime() - t0;
  if (rank == 0) printf("P=%d B=%ld one-way %.2f us\n", P, B, t / R / 2 * 1e6);
  MPI_Request_free(&s); MPI_Request_free(&r);
  MPI_Finalize();
  return 0;
}
