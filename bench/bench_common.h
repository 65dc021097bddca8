/* bench_common.h — shared helpers of the plain-MPI benchmarks in bench/ (pingpong.c, bandwidth.c).
 * Only standard MPI and C11/POSIX: the same source builds with ftmpi's, Open MPI's and MPICH's mpicc. */
#ifndef FTMPI_BENCH_COMMON_H
#define FTMPI_BENCH_COMMON_H

#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Options common to every benchmark.  Sizes run over min, then powers of two up to max (a min of 0 runs 0,
 * then 1, 2, 4, ...).  iters/warmup of 0 mean "choose per size" (see bench_iterations). */
typedef struct {
  long min_size;
  long max_size;
  long iters;
  long warmup;
  long budget;    /* bytes moved per size and direction when iterations are chosen automatically */
  double seconds; /* time limit of the timed loop of one size (0: none); keeps a slow run short */
} bench_options;

static void bench_usage(const char *prog, const char *what) {
  fprintf(stderr,
          "usage: %s [-m MIN_BYTES] [-M MAX_BYTES] [-i ITERS] [-w WARMUP] [-b BUDGET_BYTES] [-T SECONDS]\n"
          "  %s between ranks 0 and 1 (run with 2 ranks; others wait).\n"
          "  Sizes: MIN, then powers of two up to MAX (suffixes k, m: 4m = 4 MiB).\n"
          "  Without -i, each size runs about BUDGET bytes, between 20 and 10000 times, and at most about\n"
          "  SECONDS (default 0.2; measured during the warm-up; 0 = no limit).\n",
          prog, what);
}

static long bench_parse_size(const char *s) {
  char *end = NULL;
  long v = strtol(s, &end, 10);
  if (end == s || v < 0) return -1;
  if (*end == 'k' || *end == 'K') v <<= 10, end++;
  else if (*end == 'm' || *end == 'M') v <<= 20, end++;
  return *end == '\0' ? v : -1;
}

/* Parses argv into *opt (defaults preset by the caller).  Returns 0, or -1 after printing usage. */
static int bench_parse(int argc, char **argv, bench_options *opt, const char *what) {
  int c;
  while ((c = getopt(argc, argv, "m:M:i:w:b:T:h")) != -1) {
    if (c == 'T') {
      char *end = NULL;
      opt->seconds = strtod(optarg, &end);
      if (end != optarg && *end == '\0' && opt->seconds >= 0) continue;
    }
    long v = (c == 'h' || c == '?' || c == 'T') ? -1 : bench_parse_size(optarg);
    if (v < 0) {
      bench_usage(argv[0], what);
      return -1;
    }
    switch (c) {
      case 'm': opt->min_size = v; break;
      case 'M': opt->max_size = v; break;
      case 'i': opt->iters = v; break;
      case 'w': opt->warmup = v; break;
      case 'b': opt->budget = v; break;
    }
  }
  if (opt->max_size < opt->min_size) {
    bench_usage(argv[0], what);
    return -1;
  }
  return 0;
}

static long bench_next_size(long size) { return size == 0 ? 1 : size * 2; }

/* Iterations for one size: fixed when given, else enough to move about `budget` bytes, within [20, 10000]. */
static long bench_iterations(const bench_options *opt, long size, long per_iter_bytes) {
  if (opt->iters > 0) return opt->iters;
  long n = per_iter_bytes > 0 ? opt->budget / per_iter_bytes : 10000;
  if (n > 10000) n = 10000;
  if (n < 20) n = 20;
  (void)size;
  return n;
}

/* Warm-up iterations: given, else a tenth of the iterations, between 2 and `cap`. */
static long bench_warmup(const bench_options *opt, long iters, long cap) {
  if (opt->warmup > 0) return opt->warmup;
  long w = iters / 10;
  if (w > cap) w = cap;
  return w < 2 ? 2 : w;
}

/* Rank 0 shortens `iters` so that the timed loop takes about opt->seconds, judging from the warm-up
 * (`warmup` iterations took `warm_elapsed` seconds), and tells rank 1; both return the agreed count (never
 * below 5).  Ranks other than 0 and 1 must not call it.  Fixed -i counts are kept as given. */
static long bench_agree_iterations(const bench_options *opt, int rank, long iters, long warmup,
                                   double warm_elapsed) {
  long n = iters;
  if (rank == 0 && opt->iters == 0 && opt->seconds > 0 && warm_elapsed > 0) {
    double per_iter = warm_elapsed / (double)warmup;
    double fit = opt->seconds / per_iter;
    if (fit < (double)n) n = fit < 5.0 ? 5 : (long)fit;
  }
  if (rank == 0) MPI_Send(&n, 1, MPI_LONG, 1, 99, MPI_COMM_WORLD);
  else MPI_Recv(&n, 1, MPI_LONG, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return n;
}

/* A page-aligned buffer of `size` bytes (at least 1), touched so page faults stay out of the timing. */
static char *bench_buffer(long size, int fill) {
  void *p = NULL;
  size_t n = size > 0 ? (size_t)size : 1;
  if (posix_memalign(&p, 4096, n) != 0) return NULL;
  memset(p, fill, n);
  return (char *)p;
}

/* Names the MPI library in the header line (MPI_Get_library_version's first line). */
static void bench_print_header(const char *what, const char *columns) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  version[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';
  char *nl = strchr(version, '\n');
  if (nl) *nl = '\0';
  printf("# %s\n# library: %s\n# %s\n", what, version, columns);
  fflush(stdout);
}

#endif
