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
 * For instruction counts (bench/icount.sh -s): -S USEC makes the receiving side wait OUTSIDE MPI until the sender
 * says (through a flag in a shared file, no MPI) that its messages are in: the receiver's wait then finds them
 * all arrived and counts their delivery, not empty polling passes (whose number depends on timing, and under
 * valgrind on the machine's load); USEC is the pause between looks at the flag. The rate printed is then
 * meaningless. -B (with -S) replaces the windows by single blocking messages of SIZE bytes, each direction in
 * turn: the sender calls MPI_Send and raises the flag, the receiver waits for the flag and calls MPI_Recv:
 * each Send and Recv is one message's whole path on its side. Both ranks on one host. */
#define _DEFAULT_SOURCE /* usleep, mkstemp */
#include "bench_common.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

enum { WINDOW = 64 };

static long sleep_us = 0;          /* -S */
static int blocking = 0;           /* -B */
static volatile long *flag = NULL; /* -S: messages the sender has handed to MPI so far (shared file) */

static void raise_flag(long n) { __atomic_store_n(flag, n, __ATOMIC_SEQ_CST); }
static void await_flag(long n) {
  while (__atomic_load_n(flag, __ATOMIC_SEQ_CST) < n) usleep((useconds_t)sleep_us);
}

/* -S: one page of a file in /tmp mapped by ranks 0 and 1 (rank 0 creates it and sends its name). */
static int map_flag(int rank) {
  char name[64] = "/tmp/msgrate-flag-XXXXXX";
  int fd = -1;
  if (rank == 0) {
    fd = mkstemp(name);
    if (fd < 0 || ftruncate(fd, 4096) != 0) return -1;
  }
  MPI_Bcast(name, (int)sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 1) fd = open(name, O_RDWR);
  if (rank <= 1) {
    if (fd < 0) return -1;
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return -1;
    flag = (volatile long *)p;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(name);
  return 0;
}

static long handed = 0; /* -S: messages handed over so far (both sides count alike) */

static void exchanges(int rank, char *buf, int count, long n) { /* -B: one message at a time, blocking */
  for (long i = 0; i < n; i++) {
    const int from = (int)(i & 1), to = 1 - from; /* both directions in turn */
    ++handed;
    if (rank == from) {
      MPI_Send(buf, count, MPI_CHAR, to, 2, MPI_COMM_WORLD);
      if (flag) raise_flag(handed);
    } else if (rank == to) {
      if (flag) await_flag(handed);
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
      handed += WINDOW;
      if (flag) raise_flag(handed);
      MPI_Waitall(WINDOW, reqs, stats);
      MPI_Recv(&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (int w = 0; w < WINDOW; w++) MPI_Irecv(buf, count, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &reqs[w]);
      handed += WINDOW;
      if (flag) await_flag(handed);
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
  if (sleep_us > 0 && map_flag(rank) != 0) {
    fprintf(stderr, "msgrate: -S: cannot share a flag file in /tmp\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
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
