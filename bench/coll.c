/* coll.c — latency of MPI_Allreduce, MPI_Bcast, MPI_Alltoall, MPI_Barrier and MPI_Reduce over MPI_COMM_WORLD.
 * Standard MPI and C11/POSIX only, so the same source builds with ftmpi's, Open MPI's and MPICH's mpicc
 * (see bench/coll_run.sh).
 *
 * usage: coll [-c LIST] [-m MIN] [-M MAX] [-x FACTOR] [-i ITERS] [-w WARMUP] [-T SECONDS]
 *   -c   comma list of allreduce,bcast,alltoall,barrier,reduce (default: the first four)
 *   sizes MIN, MIN*FACTOR, MIN*FACTOR^2, ... up to MAX, and MAX itself (k/m suffixes; default 8 .. 1m,
 *   factor 2; a larger factor keeps slow oversubscribed runs short):
 *     allreduce  bytes of the vector (MPI_DOUBLE, MPI_SUM; size/8 elements, at least 1)
 *     bcast      bytes broadcast from rank 0 (MPI_BYTE)
 *     alltoall   bytes per block, i.e. sent to each rank (MPI_BYTE); buffers are size * nranks
 *     barrier    one line, size 0
 *     reduce     as allreduce, to root 0
 *   After WARMUP untimed calls (default 2), a timed probe (1 call, then 10 more if that one was short; the
 *   slowest rank counts) picks iterations so that the timed loop takes about SECONDS (default 0.05), between
 *   3 and 10000; -i fixes the count instead.
 *
 * Output: '#' header lines, then one line per collective and size: `collective size usec iterations`, where
 * usec is the slowest rank's average time per call (every rank times its own loop, started after a barrier;
 * the maximum over ranks is reported, so a rank that leaves early does not make the call look cheap). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kAllreduce, kBcast, kAlltoall, kBarrier, kReduce, kCount };
static const char *const kNames[kCount] = {"allreduce", "bcast", "alltoall", "barrier", "reduce"};

typedef struct {
  int want[kCount];
  long min_size, max_size, factor, iters, warmup;
  double seconds;
} options;

static long parse_size(const char *s) {
  char *end = NULL;
  long v = strtol(s, &end, 10);
  if (end == s || v < 0) return -1;
  if (*end == 'k' || *end == 'K') v <<= 10, end++;
  else if (*end == 'm' || *end == 'M') v <<= 20, end++;
  return *end == '\0' ? v : -1;
}

static int parse_list(char *list, int want[kCount]) {
  memset(want, 0, sizeof(int) * kCount);
  for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
    int found = 0;
    for (int c = 0; c < kCount; c++)
      if (strcmp(tok, kNames[c]) == 0) want[c] = found = 1;
    if (!found) return -1;
  }
  return 0;
}

/* Parses argv; returns 0, or -1 after printing usage (on rank 0 only). */
static int parse(int argc, char **argv, options *o, int rank) {
  int c, bad = 0;
  while (!bad && (c = getopt(argc, argv, "c:m:M:x:i:w:T:h")) != -1) {
    char *end = NULL;
    switch (c) {
      case 'c': bad = parse_list(optarg, o->want) != 0; break;
      case 'm': bad = (o->min_size = parse_size(optarg)) < 0; break;
      case 'M': bad = (o->max_size = parse_size(optarg)) < 0; break;
      case 'x': bad = (o->factor = parse_size(optarg)) < 2; break;
      case 'i': bad = (o->iters = parse_size(optarg)) < 0; break;
      case 'w': bad = (o->warmup = parse_size(optarg)) < 0; break;
      case 'T':
        o->seconds = strtod(optarg, &end);
        bad = end == optarg || *end != '\0' || o->seconds < 0;
        break;
      default: bad = 1;
    }
  }
  if (!bad && o->max_size >= o->min_size) return 0;
  if (rank == 0)
    fprintf(stderr, "usage: %s [-c allreduce,bcast,alltoall,barrier] [-m MIN] [-M MAX] [-x FACTOR] [-i ITERS] [-w WARMUP] "
                    "[-T SECONDS]\n", argv[0]);
  return -1;
}

/* A page-aligned buffer of `size` bytes (at least 1), touched so page faults stay out of the timing. */
static char *buffer(size_t size, int fill) {
  void *p = NULL;
  if (size == 0) size = 1;
  if (posix_memalign(&p, 4096, size) != 0) return NULL;
  memset(p, fill, size);
  return (char *)p;
}

typedef struct {
  char *send, *recv;
  int nranks;
} buffers;

/* One call of collective `c` with `size` bytes (see the header for what size means per collective). */
static void run_once(int c, long size, const buffers *b) {
  switch (c) {
    case kAllreduce: {
      int n = size / 8 > 0 ? (int)(size / 8) : 1;
      MPI_Allreduce(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    }
    case kBcast: MPI_Bcast(b->send, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case kReduce: {
      int n = size / 8 > 0 ? (int)(size / 8) : 1;
      MPI_Reduce(b->send, b->recv, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      break;
    }
    case kAlltoall: MPI_Alltoall(b->send, (int)size, MPI_BYTE, b->recv, (int)size, MPI_BYTE, MPI_COMM_WORLD); break;
    default: MPI_Barrier(MPI_COMM_WORLD); break;
  }
}

/* Seconds per call of collective `c` at `size` over `calls` calls, as the slowest rank saw it (all agree). */
static double probe(int c, long size, const buffers *b, long calls) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long i = 0; i < calls; i++) run_once(c, size, b);
  double took = MPI_Wtime() - t0, took_max = 0;
  MPI_Allreduce(&took, &took_max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return took_max / (double)calls;
}

/* Times collective `c` at `size`: warm-up, agreement on the iteration count, timed loop; prints on rank 0. */
static void measure(int c, long size, const options *o, const buffers *b, int rank) {
  long warmup = o->warmup > 0 ? o->warmup : 2;
  MPI_Barrier(MPI_COMM_WORLD);
  for (long i = 0; i < warmup; i++) run_once(c, size, b); /* first calls: connection and page setup */
  long iters = o->iters;
  if (iters <= 0) { /* a short timed probe after the warm-up estimates the cost of one call */
    double per = probe(c, size, b, 1);
    if (per < o->seconds / 20) per = probe(c, size, b, 10);
    double fit = per > 0 ? o->seconds / per : 10000.0;
    iters = fit > 10000.0 ? 10000 : fit < 3.0 ? 3 : (long)fit;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (long i = 0; i < iters; i++) run_once(c, size, b);
  double mine = (MPI_Wtime() - t0) / (double)iters, slowest = 0;
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("%s %ld %.3f %ld\n", kNames[c], size, slowest * 1e6, iters);
    fflush(stdout);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  options o = {{1, 1, 1, 1}, 8, 1 << 20, 2, 0, 0, 0.05};
  if (parse(argc, argv, &o, rank) != 0) {
    MPI_Finalize();
    return 2;
  }
  size_t per_rank = (size_t)(o.max_size > 8 ? o.max_size : 8);
  buffers b = {buffer(per_rank * (size_t)nranks, rank + 1), buffer(per_rank * (size_t)nranks, 0), nranks};
  if (!b.send || !b.recv) {
    fprintf(stderr, "coll: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* Allreduce sums doubles: start from small exact values so repeated sums never overflow or go NaN. */
  double *d = (double *)b.send;
  for (size_t i = 0; i < per_rank * (size_t)nranks / sizeof(double); i++) d[i] = (double)(rank + 1);

  if (rank == 0) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    version[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';
    char *nl = strchr(version, '\n');
    if (nl) *nl = '\0';
    printf("# collective latency, %d ranks (slowest rank's average per call)\n# library: %s\n"
           "# collective size usec iterations\n", nranks, version);
    fflush(stdout);
  }
  for (int c = 0; c < kCount; c++) {
    if (!o.want[c]) continue;
    if (c == kBarrier) {
      measure(c, 0, &o, &b, rank);
      continue;
    }
    for (long size = o.min_size;; size = size == 0 ? 1 : size * o.factor) {
      if (size > o.max_size) size = o.max_size;
      measure(c, size, &o, &b, rank);
      if (size == o.max_size) break;
    }
  }
  free(b.send);
  free(b.recv);
  MPI_Finalize();
  return 0;
}
