/* ft_bench.h — helpers shared by the fault-tolerance benchmarks in bench/ft (plain MPI + ULFM's mpi-ext.h).
 *
 * Clock: the programs time with CLOCK_MONOTONIC rather than MPI_Wtime, because several of them compare
 * instants taken in different processes (the moment rank 0 revokes vs the moment another rank returns).
 * On one host CLOCK_MONOTONIC is the same clock in every process, so such differences are exact; the
 * programs are meant for one host only (that is all ftmpi's mpiexec runs today). */
#ifndef FTMPI_BENCH_FT_H
#define FTMPI_BENCH_FT_H

#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <mpi.h>
#include <mpi-ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Seconds on the host-wide monotonic clock. */
static inline double ftb_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleeps until the monotonic clock reads `when` (seconds); returns at once if that is past. */
static inline void ftb_sleep_until(double when) {
  struct timespec ts;
  ts.tv_sec = (time_t)when;
  ts.tv_nsec = (long)((when - (double)ts.tv_sec) * 1e9);
  if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
  }
}

static inline void ftb_sleep(double seconds) { ftb_sleep_until(ftb_now() + seconds); }

static inline int ftb_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v in place); 0 for n == 0. */
static inline double ftb_median(double *v, int n) {
  if (n <= 0) return 0.0;
  qsort(v, (size_t)n, sizeof *v, ftb_cmp_double);
  return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Aborts the job when `rc` is not MPI_SUCCESS, naming the call and the error string. */
static inline void ftb_check(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  fprintf(stderr, "%s failed: %s\n", what, msg);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

/* Error class of `rc` (MPI_SUCCESS stays MPI_SUCCESS). */
static inline int ftb_class(int rc) {
  int cls = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  return cls;
}

/* A non-negative integer option value, or exits with a message. */
static inline long ftb_long_arg(const char *prog, int opt, const char *s) {
  char *end = NULL;
  long v = strtol(s, &end, 10);
  if (end == s || *end != '\0' || v < 0) {
    fprintf(stderr, "%s: -%c wants a non-negative integer, not '%s'\n", prog, opt, s);
    exit(2);
  }
  return v;
}

static inline double ftb_double_arg(const char *prog, int opt, const char *s) {
  char *end = NULL;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || v < 0) {
    fprintf(stderr, "%s: -%c wants a non-negative number, not '%s'\n", prog, opt, s);
    exit(2);
  }
  return v;
}

/* The name of the MPI library (first line of MPI_Get_library_version), for the '#' header. */
static inline void ftb_print_library(void) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  version[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';
  char *nl = strchr(version, '\n');
  if (nl) *nl = '\0';
  printf("# library: %s\n", version);
}

#endif
