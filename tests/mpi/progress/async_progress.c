/* async_progress — non-blocking operations progress while a rank computes and never calls MPI.
 * 2 ranks. Usage: mpitest_async_progress on|off|report
 *
 * Each case: rank 1 starts its half of an operation, then computes for 600 ms without any MPI call, then
 * waits; rank 0 starts its half 100 ms after a barrier (rank 1 is computing by then, not still inside the
 * barrier's MPI call) and times its own MPI_Wait. Rank 0 can only finish
 * when rank 1's side advanced (rank 1 must match/pull a rendezvous message, or reduce and forward data of a
 * 4 MiB collective), so rank 0's wait time says whether rank 1 progressed while it computed:
 *   p2p      rank 1: Irecv 4 MiB (rendezvous), rank 0: Send 4 MiB
 *   iallreduce  4 MiB of doubles (both ranks), values checked
 *   ibcast   4 MiB from rank 0, checked at rank 1 (judged in "on" mode only, see judge())
 *   ialltoall   2 MiB per rank pair, checked
 * PASS when: "on" (ftmpi with --async-progress / FTMPI_ASYNC_PROGRESS=1): every wait of rank 0 ended
 * within 250 ms; "off" (ftmpi without it): every wait lasted at least 250 ms (ftmpi makes no progress outside MPI
 * calls then: proof that the "on" figures come from the thread); "report" (any MPI): the data are right,
 * the times are printed only. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/check.h"

#define T_COMPUTE 0.6 /* rank 1's computation */
#define T_DELAY 0.1   /* rank 0 starts its half this long after the barrier: rank 1 is computing by then */
#define T_LIMIT 0.25  /* "on": rank 0's wait ends before this; "off": it lasts at least this */
#define BIG (4u << 20)

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Computation with no MPI call for `secs` seconds. */
static volatile double sink;
static void compute(double secs) {
  double t0 = now(), x = 1.0;
  while (now() - t0 < secs)
    for (int i = 0; i < 10000; i++) x = 0.999 * x + 0.5 / (1.0 + x * x);
  sink = x;
}

static void delay(void) {
  struct timespec ts = {0, (long)(T_DELAY * 1e9)};
  nanosleep(&ts, NULL);
}

enum { MODE_ON, MODE_OFF, MODE_REPORT };
static int mode;
static int failures;

/* off_too: the case also needs rank 1's progress when there is no thread (an Ibcast root's sends may complete
 * into the transport's buffers without the receiver, e.g. over TCP; that case is judged in "on" mode only). */
static void judge(const char* what, double t_wait, int off_too) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  printf("%-11s rank 0 waited %7.1f ms while rank 1 computed %.0f ms\n", what, t_wait * 1e3, T_COMPUTE * 1e3);
  if (mode == MODE_ON && t_wait >= T_LIMIT) {
    printf("FAIL %s: rank 1 did not progress while computing (rank 0 waited %.1f ms)\n", what, t_wait * 1e3);
    failures++;
  }
  if (mode == MODE_OFF && off_too && t_wait < T_LIMIT) {
    printf("FAIL %s: progress without a thread? (rank 0 waited only %.1f ms)\n", what, t_wait * 1e3);
    failures++;
  }
  fflush(stdout);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2, "needs 2 ranks");
  CHECK(argc == 2, "usage: %s on|off|report", argv[0]);
  mode = strcmp(argv[1], "on") == 0 ? MODE_ON : strcmp(argv[1], "off") == 0 ? MODE_OFF : MODE_REPORT;
#ifndef FTMPI
  mode = MODE_REPORT; /* the peers' progress rules are theirs */
#endif
  const size_t n = BIG / sizeof(double);
  double* a = malloc(BIG);
  double* b = malloc(BIG);
  CHECK(a && b);
  MPI_Request req;
  double t0;

  /* p2p: rendezvous receive posted at rank 1 before it computes. */
  for (size_t i = 0; i < n; i++) a[i] = (double)i;
  if (rank == 1) CHECK_MPI(MPI_Irecv(b, (int)n, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    delay();
    t0 = now();
    CHECK_MPI(MPI_Send(a, (int)n, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD));
    judge("p2p", now() - t0, 1);
  } else {
    compute(T_COMPUTE);
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (size_t i = 0; i < n; i++) CHECK(b[i] == (double)i, "p2p data at %zu", i);
  }

  /* Iallreduce 4 MiB. */
  for (size_t i = 0; i < n; i++) a[i] = (double)(i % 1000) + rank;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) delay();
  t0 = now();
  CHECK_MPI(MPI_Iallreduce(a, b, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req));
  if (rank == 1) compute(T_COMPUTE);
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  judge("iallreduce", now() - t0, 1);
  for (size_t i = 0; i < n; i++) CHECK(b[i] == 2.0 * (double)(i % 1000) + 1.0, "iallreduce data at %zu", i);

  /* Ibcast 4 MiB from rank 0. */
  for (size_t i = 0; i < n; i++) a[i] = rank == 0 ? (double)(3 * i) : -1.0;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) delay();
  t0 = now();
  CHECK_MPI(MPI_Ibcast(a, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req));
  if (rank == 1) compute(T_COMPUTE);
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  judge("ibcast", now() - t0, 0);
  for (size_t i = 0; i < n; i++) CHECK(a[i] == (double)(3 * i), "ibcast data at %zu", i);

  /* Ialltoall: 2 MiB to each rank. */
  const size_t half = n / 2;
  for (size_t i = 0; i < n; i++) a[i] = (double)(rank * 10 + (int)(i / half)) + (double)(i % half) * 1e-3;
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) delay();
  t0 = now();
  CHECK_MPI(MPI_Ialltoall(a, (int)half, MPI_DOUBLE, b, (int)half, MPI_DOUBLE, MPI_COMM_WORLD, &req));
  if (rank == 1) compute(T_COMPUTE);
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  judge("ialltoall", now() - t0, 1);
  for (size_t i = 0; i < n; i++) {
    int from = (int)(i / half);
    double want = (double)(from * 10 + rank) + (double)(i % half) * 1e-3;
    CHECK(b[i] == want, "ialltoall data at %zu: %g, want %g", i, b[i], want);
  }

  free(a);
  free(b);
  CHECK(failures == 0, "%d case(s) failed", failures);
  check_pass("async_progress");
  MPI_Finalize();
  return 0;
}
