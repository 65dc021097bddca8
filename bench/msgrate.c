/* msgrate.c — small-message rate from rank 0 to rank 1: windows of 64 MPI_Isend / MPI_Irecv, acknowledged per
 * window (issue 13 target 2; bench/icount.sh also runs it under callgrind for instructions per call).
 *
 * One window: rank 1 posts WINDOW (64) Irecvs, rank 0 posts WINDOW Isends of SIZE bytes (default 8), both
 * Waitall, then rank 1 sends a 1-byte acknowledgement so the next window starts only when this one arrived.
 * After -w warm-up windows, -i windows are timed (default: as many as fit in -T seconds, measured during the
 * warm-up); printed is
 *   <size bytes> <messages per second> <windows>
 * Options: -m SIZE (bytes, default 8), -i WINDOWS, -w WARMUP, -T SECONDS (default 1), -r REPEATS (default 1:
 * timed runs, one line each). Run with 2 ranks (ranks beyond 1 only take part in the barriers).
 *
 * For instruction counts (bench/icount.sh -s): -S USEC makes the receiving side sleep USEC microseconds outside
 * MPI before each wait, so that the wait finds every message already in shared memory and counts the delivery
 * of the messages, not empty polling passes (whose number depends on timing); the rate printed is then
 * meaningless. -B (with -S) replaces the windows by single blocking messages of SIZE bytes, each direction in
 * turn: a barrier, then the sender sleeps USEC and calls MPI_Send, the receiver sleeps 2*USEC and calls
 * MPI_Recv: each Send and Recv is one message's whole path on its side (the barrier takes the polling). */
#define _DEFAULT_SOURCE /* usleep */
#include "bench_common.h"
#include <unistd.h>

enum { WINDOW = 64 };

static long sleep_us = 0; /* -S */
static int blocking = 0;  /* -B */

static void exchanges(int rank, char *buf, int count, long n) { /* -B: one message at a time, blocking */
  for (long i = 0; i < n; i++) {
    const int from = (int)(i & 1), to = 1 - from; /* both directions in turn */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == from) { /* after the barrier, so that the receiver is not polling in it when this arrives */
      if (sleep_us) usleep((useconds_t)sleep_us);
      MPI_Send(buf, count, MPI_CHAR, to, 2, MPI_COMM_WORLD);
    } else if (rank == to) {
      if (sleep_us) usleep((useconds_t)(2 * sleep_us));
      MPI_Recv(buf, count, MPI_CHAR, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
}

static void windows(int rank, char *buf, int count, long n) {
  if (blocking) {
    exchanges(rank, buf, count, n * WINDOW);
    return;
  }
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
      if (sleep_us) usleep((useconds_t)sleep_us);
      MPI_Waitall(WINDOW, reqs, stats);
      MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  long bytes = 8, iters = 0, warmup = 200, repeats = 1;
  double seconds = 1.0;
  int c, bad = size < 2;
  while (!bad && (c = getopt(argc, argv, "m:i:w:T:r:S:Bh")) != -1) {
    switch (c) {
      case 'm': bytes = bench_parse_size(optarg); bad = bytes < 0; break;
      case 'i': iters = atol(optarg); bad = iters <= 0; break;
      case 'w': warmup = atol(optarg); bad = warmup < 0; break;
      case 'T': seconds = atof(optarg); bad = seconds <= 0; break;
      case 'r': repeats = atol(optarg); bad = repeats <= 0; break;
      case 'S': sleep_us = atol(optarg); bad = sleep_us < 0; break;
      case 'B': blocking = 1; break;
      default: bad = 1;
    }
  }
  if (bad) {
    if (rank == 0)
      fprintf(stderr, "usage: msgrate [-m SIZE] [-i WINDOWS] [-w WARMUP] [-T SECONDS] [-r REPEATS] [-S USEC] [-B] (2 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *buf = bench_buffer(bytes > 0 ? bytes : 1, rank + 1);
  if (!buf) MPI_Abort(MPI_COMM_WORLD, 3);
  if (rank == 0) bench_print_header("msgrate: windows of 64 Isend/Irecv, acknowledged", "size_bytes msgs_per_s windows");

  MPI_Barrier(MPI_COMM_WORLD);
  double warm = 0;
  if (rank <= 1) {
    const double t0 = MPI_Wtime();
    windows(rank, buf, (int)bytes, warmup);
    warm = MPI_Wtime() - t0;
  }
  if (iters == 0) { /* rank 0's estimate, so both ranks run the same number of windows */
    long n = warm > 0 && warmup > 0 ? (long)(seconds * (double)warmup / warm) : 1000;
    iters = n < 10 ? 10 : n;
    MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  }
  for (long r = 0; r < repeats; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank > 1) continue;
    const double start = MPI_Wtime();
    windows(rank, buf, (int)bytes, iters);
    const double elapsed = MPI_Wtime() - start;
    if (rank == 0) {
      printf("%ld %.0f %ld\n", bytes, (double)WINDOW * (double)iters / elapsed, iters);
      fflush(stdout);
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
