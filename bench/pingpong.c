/* pingpong.c — point-to-point latency between ranks 0 and 1 (blocking Send/Recv ping-pong).
 *
 * For each size (0 B to 4 MiB by default) rank 0 sends to rank 1, which sends the same size back; after a
 * warm-up, `iters` round trips are timed (fewer when they would take longer than -T seconds) and the one-way latency (round trip / 2) is printed in µs:
 *   # ... header lines start with '#'
 *   <size bytes> <one-way latency µs> <iterations>
 * Run with 2 ranks (ranks beyond 1 only take part in the barriers).  Options: see bench_common.h or -h. */
#include "bench_common.h"

/* `n` round trips of `count` bytes: rank 0 sends first, rank 1 echoes. */
static void round_trips(int rank, char *buf, int count, long n) {
  for (long i = 0; i < n; i++) {
    if (rank == 0) {
      MPI_Send(buf, count, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, count, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, count, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, count, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  bench_options opt = {.min_size = 0, .max_size = 4L << 20, .iters = 0, .warmup = 0, .budget = 256L << 20,
                       .seconds = 0.2};
  if (bench_parse(argc, argv, &opt, "ping-pong latency") != 0 || size < 2) {
    if (rank == 0 && size < 2) fprintf(stderr, "pingpong: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  char *buf = bench_buffer(opt.max_size, rank + 1);
  if (!buf) MPI_Abort(MPI_COMM_WORLD, 3);
  if (rank == 0) bench_print_header("pingpong: one-way latency", "size_bytes latency_us iterations");

  for (long bytes = opt.min_size; bytes <= opt.max_size; bytes = bench_next_size(bytes)) {
    long iters = bench_iterations(&opt, bytes, 2 * bytes);
    const long warmup = bench_warmup(&opt, iters, 100);
    const int count = (int)bytes;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank > 1) continue;
    const double warm_start = MPI_Wtime();
    round_trips(rank, buf, count, warmup);
    iters = bench_agree_iterations(&opt, rank, iters, warmup, MPI_Wtime() - warm_start);
    const double start = MPI_Wtime();
    round_trips(rank, buf, count, iters);
    const double elapsed = MPI_Wtime() - start;
    if (rank == 0) {
      printf("%ld %.3f %ld\n", bytes, elapsed * 1e6 / (2.0 * (double)iters), iters);
      fflush(stdout);
    }
  }

  free(buf);
  MPI_Finalize();
  return 0;
}
