/* bandwidth.c — streaming bandwidth from rank 0 to rank 1 with a window of non-blocking sends.
 *
 * For each size (1 B to 4 MiB by default), one iteration is: rank 1 posts WINDOW (64) Irecvs, rank 0 posts
 * WINDOW Isends, both Waitall, then rank 1 sends a 1-byte acknowledgement so the next window starts only
 * when this one has arrived.  After a warm-up, `iters` windows are timed (fewer when they would take
 * longer than -T seconds); printed is
 *   <size bytes> <bandwidth MB/s (10^6 bytes per second)> <iterations>
 * Run with 2 ranks (ranks beyond 1 only take part in the barriers).
 * BW_READ=1 in the environment: rank 1 waits for its receives one by one and reads its buffer (one load per
 * 64-byte line) after each, as an application consuming its messages would (the bytes a sender wrote into
 * the receiver's memory, or left in its own cache, cost the reader a crossing; docs/performance.md). */
#include "bench_common.h"

enum { WINDOW = 64 };

/* `n` windows of WINDOW messages of `count` bytes from rank 0 to rank 1, each acknowledged by rank 1.
 * Every message of a window uses the same buffer (contents are not checked). */
static int read_data; /* BW_READ */
static volatile unsigned long sink;

static void read_buffer(const char *buf, int count) {
  unsigned long x = 0;
  for (int i = 0; i < count; i += 64) x += (unsigned char)buf[i];
  sink += x;
}

static void windows(int rank, char *buf, int count, long n) {
  MPI_Request reqs[WINDOW];
  MPI_Status stats[WINDOW]; /* a real array: MPI_STATUSES_IGNORE trips GCC 12 warnings with MPICH's mpi.h */
  char ack = 0;
  for (long i = 0; i < n; i++) {
    if (rank == 0) {
      for (int w = 0; w < WINDOW; w++) MPI_Isend(buf, count, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &reqs[w]);
      MPI_Waitall(WINDOW, reqs, stats);
      MPI_Recv(&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (int w = 0; w < WINDOW; w++) MPI_Irecv(buf, count, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &reqs[w]);
      if (read_data) {
        for (int w = 0; w < WINDOW; w++) {
          MPI_Wait(&reqs[w], &stats[w]);
          read_buffer(buf, count);
        }
      } else {
        MPI_Waitall(WINDOW, reqs, stats);
      }
      MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  bench_options opt = {.min_size = 1, .max_size = 4L << 20, .iters = 0, .warmup = 0, .budget = 512L << 20,
                       .seconds = 0.2};
  if (bench_parse(argc, argv, &opt, "streaming bandwidth (window of 64 Isends)") != 0 || size < 2) {
    if (rank == 0 && size < 2) fprintf(stderr, "bandwidth: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (opt.min_size < 1) opt.min_size = 1;
  const char *rd = getenv("BW_READ");
  read_data = rd != NULL && strcmp(rd, "1") == 0;

  char *buf = bench_buffer(opt.max_size, rank + 1);
  if (!buf) MPI_Abort(MPI_COMM_WORLD, 3);
  if (rank == 0) bench_print_header("bandwidth: window of 64 Isend", "size_bytes bandwidth_MBps iterations");

  for (long bytes = opt.min_size; bytes <= opt.max_size; bytes = bench_next_size(bytes)) {
    long iters = bench_iterations(&opt, bytes, (long)WINDOW * bytes);
    const long warmup = bench_warmup(&opt, iters, 10);
    const int count = (int)bytes;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank > 1) continue;
    const double warm_start = MPI_Wtime();
    windows(rank, buf, count, warmup);
    iters = bench_agree_iterations(&opt, rank, iters, warmup, MPI_Wtime() - warm_start);
    const double start = MPI_Wtime();
    windows(rank, buf, count, iters);
    const double elapsed = MPI_Wtime() - start;
    if (rank == 0) {
      printf("%ld %.2f %ld\n", bytes, (double)bytes * WINDOW * (double)iters / elapsed / 1e6, iters);
      fflush(stdout);
    }
  }

  free(buf);
  MPI_Finalize();
  return 0;
}
