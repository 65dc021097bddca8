/* overlap.c — how much of a non-blocking operation hides behind computation (issue 13 target 4), measured
 * the way IMB-NBC does, for any MPI (same source for ftmpi, Open MPI, MPICH).
 *
 * usage: overlap [-m MIN_BYTES] [-M MAX_BYTES] [-i ITERS] [-o OPS]
 *   OPS: comma list of iallreduce,ibcast,ialltoall,isendrecv (default: all); sizes: MIN, then powers of 4
 *   up to MAX (default 4m .. 4m); the size is the message per rank (iallreduce: the vector; ialltoall: the
 *   send buffer of each rank, split among the ranks; isendrecv: each rank sends it to its right neighbour
 *   and receives the same from its left one).
 *
 * Per operation and size, every rank, with a barrier before each timed iteration:
 *   t_comm  start the operation, MPI_Wait at once                                  (IMB-NBC's t_pure)
 *   t_comp  the computation alone: a fixed amount of floating-point work calibrated to last t_comm, no MPI
 *           call at all                                                                   (IMB's t_CPU)
 *   t_ovl   start the operation, the same computation, then MPI_Wait                       (IMB's t_ovrl)
 * Each time is the median over the iterations of the maximum over the ranks. Printed:
 *   overlap = 1 - (t_ovl - max(t_comm, t_comp)) / min(t_comm, t_comp)
 * clamped to [0, 1] and given in percent: IMB-NBC's formula (100 * (t_pure + t_CPU - t_ovrl) /
 * min(t_pure, t_CPU)). 100 % = the operation was completely hidden; 0 % = it ran after the computation. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;
static double work(long units) {
  double x = 1.0;
  for (long u = 0; u < units; u++)
    for (int i = 0; i < 1000; i++) x = 0.999 * x + 0.5 / (1.0 + x * x);
  sink = x;
  return x;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int rank, size;
static char *sbuf, *rbuf;

/* Start `op` on `bytes` per rank. */
static void start(const char *op, long bytes, MPI_Request *req, int *nreq) {
  *nreq = 1;
  if (strcmp(op, "iallreduce") == 0) {
    MPI_Iallreduce(sbuf, rbuf, (int)(bytes / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, req);
  } else if (strcmp(op, "ibcast") == 0) {
    MPI_Ibcast(sbuf, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD, req);
  } else if (strcmp(op, "ialltoall") == 0) {
    MPI_Ialltoall(sbuf, (int)(bytes / size), MPI_BYTE, rbuf, (int)(bytes / size), MPI_BYTE, MPI_COMM_WORLD, req);
  } else {
    MPI_Irecv(rbuf, (int)bytes, MPI_BYTE, (rank + size - 1) % size, 3, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(sbuf, (int)bytes, MPI_BYTE, (rank + 1) % size, 3, MPI_COMM_WORLD, &req[1]);
    *nreq = 2;
  }
}

/* One timed iteration: the slowest rank's time. units < 0: no operation (computation alone); 0: no
 * computation. */
static double once(const char *op, long bytes, long units, int with_op) {
  MPI_Request req[2];
  int nreq = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (with_op) start(op, bytes, req, &nreq);
  if (units > 0) work(units);
  if (with_op) MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  double t = MPI_Wtime() - t0, tmax = 0;
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return tmax;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long min = 4L << 20, max = 4L << 20;
  int iters = 20;
  char ops[256] = "iallreduce,ibcast,ialltoall,isendrecv";
  int c;
  while ((c = getopt(argc, argv, "m:M:i:o:")) != -1) {
    char *end = NULL;
    long v = c == 'o' ? 0 : strtol(optarg, &end, 10);
    if (end && (*end == 'k' || *end == 'K')) v <<= 10;
    if (end && (*end == 'm' || *end == 'M')) v <<= 20;
    if (c == 'm') min = v;
    else if (c == 'M') max = v;
    else if (c == 'i') iters = (int)v;
    else if (c == 'o') snprintf(ops, sizeof ops, "%s", optarg);
    else {
      if (rank == 0) fprintf(stderr, "usage: %s [-m MIN] [-M MAX] [-i ITERS] [-o OPS]\n", argv[0]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (iters < 3) iters = 3;
  sbuf = malloc((size_t)max);
  rbuf = malloc((size_t)max);
  memset(sbuf, 1, (size_t)max);
  memset(rbuf, 0, (size_t)max);
  for (long i = 0; i < max / 8; i++) ((double *)sbuf)[i] = 1.0;

  /* Work units per second, measured once (median of 5). */
  double per[5];
  for (int k = 0; k < 5; k++) {
    double t0 = MPI_Wtime();
    work(2000);
    per[k] = (MPI_Wtime() - t0) / 2000;
  }
  double unit_s = median(per, 5);
  MPI_Allreduce(MPI_IN_PLACE, &unit_s, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

  if (rank == 0) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    char *nl = strchr(version, '\n');
    if (nl) *nl = '\0';
    printf("# overlap of non-blocking operations with computation (IMB-NBC's formula), %d ranks\n", size);
    printf("# library: %s\n", version);
    printf("# %-10s %10s %10s %10s %10s %8s\n", "op", "bytes", "t_comm_us", "t_comp_us", "t_ovl_us", "overlap%");
  }
  double *t = malloc(sizeof(double) * (size_t)iters);
  char *save = NULL;
  for (char *op = strtok_r(ops, ",", &save); op; op = strtok_r(NULL, ",", &save)) {
    for (long bytes = min; bytes <= max; bytes = bytes < 1 ? 1 : bytes * 4) {
      for (int k = 0; k < 3; k++) once(op, bytes, 0, 1); /* warm-up */
      for (int k = 0; k < iters; k++) t[k] = once(op, bytes, 0, 1);
      double t_comm = median(t, iters);
      /* Calibrate the computation to t_comm (as IMB does): start from the measured rate, then rescale twice
       * from the computation's own median time (a loaded machine changes the rate). */
      long units = (long)(t_comm / unit_s + 0.5);
      if (units < 1) units = 1;
      double t_comp = 0;
      for (int pass = 0; pass < 3; pass++) {
        for (int k = 0; k < iters; k++) t[k] = once(op, bytes, units, 0);
        t_comp = median(t, iters);
        if (pass < 2 && t_comp > 0) {
          units = (long)((double)units * t_comm / t_comp + 0.5);
          if (units < 1) units = 1;
        }
      }
      for (int k = 0; k < iters; k++) t[k] = once(op, bytes, units, 1);
      double t_ovl = median(t, iters);
      double lo = t_comm < t_comp ? t_comm : t_comp, hi = t_comm < t_comp ? t_comp : t_comm;
      double ov = 1.0 - (t_ovl - hi) / lo;
      if (ov < 0) ov = 0;
      if (ov > 1) ov = 1;
      if (rank == 0) {
        printf("  %-10s %10ld %10.1f %10.1f %10.1f %8.1f\n", op, bytes, t_comm * 1e6, t_comp * 1e6, t_ovl * 1e6,
               100.0 * ov);
        fflush(stdout);
      }
      if (bytes == 0) break;
    }
  }
  free(t);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
