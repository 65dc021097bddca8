/* p2p_ring: a token and bulk data around a ring of all ranks — run with 16 ranks on 2 cores to prove
 * that oversubscribed jobs make progress (waiting must back off instead of spinning).
 *
 * Usage: p2p_ring [laps]   (default 20)
 * A token makes `laps` round trips (each rank adds its rank); then every rank Isend/Irecv's a 256 KiB block
 * to both neighbours, and a Sendrecv shift runs once per rank.  PASS: the token's final value and every
 * block's content are right, within the test's timeout. */
#include "common/check.h"

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  int laps = argc > 1 ? atoi(argv[1]) : 20;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double t0 = MPI_Wtime();

  long long token = 0;
  for (int lap = 0; lap < laps; lap++) {
    if (rank == 0) {
      CHECK_MPI(MPI_Send(&token, 1, MPI_LONG_LONG, right, lap, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Recv(&token, 1, MPI_LONG_LONG, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Recv(&token, 1, MPI_LONG_LONG, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      token += rank;
      CHECK_MPI(MPI_Send(&token, 1, MPI_LONG_LONG, right, lap, MPI_COMM_WORLD));
    }
  }
  if (rank == 0) {
    long long expect = (long long)laps * size * (size - 1) / 2;
    CHECK(token == expect, "token %lld, expected %lld", token, expect);
  }
  double t1 = MPI_Wtime();

  const int n = 256 << 10;
  unsigned char *to_r = malloc(n), *to_l = malloc(n), *from_r = malloc(n), *from_l = malloc(n);
  check_fill(to_r, n, rank * 2);
  check_fill(to_l, n, rank * 2 + 1);
  MPI_Request rq[4];
  CHECK_MPI(MPI_Irecv(from_l, n, MPI_BYTE, left, 100, MPI_COMM_WORLD, &rq[0]));
  CHECK_MPI(MPI_Irecv(from_r, n, MPI_BYTE, right, 101, MPI_COMM_WORLD, &rq[1]));
  CHECK_MPI(MPI_Isend(to_r, n, MPI_BYTE, right, 100, MPI_COMM_WORLD, &rq[2]));
  CHECK_MPI(MPI_Isend(to_l, n, MPI_BYTE, left, 101, MPI_COMM_WORLD, &rq[3]));
  CHECK_MPI(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
  CHECK_PATTERN(from_l, n, left * 2);
  CHECK_PATTERN(from_r, n, right * 2 + 1);

  int v = rank;
  for (int step = 0; step < size; step++)
    CHECK_MPI(MPI_Sendrecv_replace(&v, 1, MPI_INT, right, 200, left, 200, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(v == rank, "after a full shift got %d", v);

  free(to_r);
  free(to_l);
  free(from_r);
  free(from_l);
  if (rank == 0) printf("%d ranks: %d token laps in %.3f s, total %.3f s\n", size, laps, t1 - t0, MPI_Wtime() - t0);
  check_pass("p2p_ring");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
