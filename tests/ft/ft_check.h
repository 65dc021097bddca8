/* tests/ft/ft_check.h — helpers shared by the fault-tolerance test programs (on top of tests/mpi/common/check.h).
 *
 * Every FT program runs under `mpiexec --with-ft ulfm`, sets MPI_ERRORS_RETURN on the communicators it uses,
 * and kills ranks on purpose (raise(SIGKILL) or mpiexec --inject). So it cannot end with check_pass()'s barrier
 * on MPI_COMM_WORLD: ft_pass() prints PASS from one survivor instead.
 *
 * Output rule (CTest's FAIL_REGULAR_EXPRESSION is "FAIL"): never print an MPI error string on the success path —
 * "MPI_ERR_PROC_FAILED" contains the word. Use ft_class_name() for trace lines. */
#ifndef FTMPI_TESTS_FT_CHECK_H
#define FTMPI_TESTS_FT_CHECK_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep under -std=c11 */
#endif

#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/check.h"

/* World rank, usable after a failure (check_world_rank() is fine too; this one avoids the Initialized calls). */
static inline int ft_world_rank(void) {
  int r = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/* Short lower-case name of an error class, safe to print on the success path. */
static inline const char *ft_class_name(int code) {
  switch (check_class_of(code)) {
    case MPI_SUCCESS: return "success";
    case MPI_ERR_PROC_FAILED: return "proc-failed";
    case MPI_ERR_PROC_FAILED_PENDING: return "proc-failed-pending";
    case MPI_ERR_REVOKED: return "revoked";
    default: return "other-error";
  }
}

/* CHECK_CLASS2(call, A, B): the call must fail with class A or class B (MPI_SUCCESS allowed as a class). */
#define CHECK_CLASS2(call, a, b)                                                                          \
  do {                                                                                                    \
    int ft_rc_ = (call);                                                                                  \
    int ft_cls_ = check_class_of(ft_rc_);                                                                 \
    if (ft_cls_ != (a) && ft_cls_ != (b))                                                                 \
      check_fail(__FILE__, __LINE__, #call, "expected class %s or %s, got code %d (%s)", #a, #b, ft_rc_, \
                 ft_rc_ == MPI_SUCCESS ? "MPI_SUCCESS" : check_errstr(ft_rc_));                           \
  } while (0)

/* Die now, as a crash would: no MPI_Finalize, no atexit handlers, no flush of MPI state. */
static inline void ft_die(void) {
  fflush(stdout);
  fflush(stderr);
  raise(SIGKILL);
  for (;;) pause();
}

static inline double ft_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void ft_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Busy-wait about `us` microseconds without any call (a pause that lands a racing action mid-protocol). */
static inline void ft_spin_us(int us) {
  for (volatile int i = 0; i < us * 100; i++) {
  }
}

/* This process's resident set in kB (/proc/self/status VmRSS), or -1 (the leak tests' growth bounds). */
static inline long ft_rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) kb = strtol(line + 6, NULL, 10);
  fclose(f);
  return kb;
}

/* After one of 4 ranks was killed mid-loop: every survivor made the same number `made` of `what` and then failed
 * with MPI_ERR_PROC_FAILED (`cls`), checked over the survivors' shrunk MPI_COMM_WORLD; the count goes to stdout. */
static inline void ft_check_uniform_stop(int made, int cls, const char *what) {
  MPI_Comm survivors;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &survivors));
  int mine[2] = {made, cls}, all[8];
  CHECK_MPI(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, survivors));
  for (int p = 0; p < 3; p++)
    CHECK(all[2 * p] == all[0] && all[2 * p + 1] == MPI_ERR_PROC_FAILED,
          "survivor %d made %d %s then %s, survivor 0 made %d then %s: not uniform", p, all[2 * p], what,
          ft_class_name(all[2 * p + 1]), all[0], ft_class_name(all[1]));
  if (ft_world_rank() == 0) printf("many_kill: %d %s before the kill\n", all[0], what);
  CHECK_MPI(MPI_Comm_free(&survivors));
}

/* A well-mixed 32-bit hash (for per-trial schedules every rank derives alike). */
static inline unsigned ft_mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/* Number of members of `comm` this process knows to have failed (MPIX_Comm_get_failed). */
static inline int ft_num_failed(MPI_Comm comm) {
  MPI_Group g;
  int n = 0;
  CHECK_MPI(MPIX_Comm_get_failed(comm, &g));
  CHECK_MPI(MPI_Group_size(g, &n));
  if (g != MPI_GROUP_EMPTY) MPI_Group_free(&g);
  return n;
}

/* Wait (polling get_failed every millisecond) until at least `n` members of `comm` are known failed.
 * Fails the test after `timeout_s` seconds: a notice that never arrives is a bug, not a hang. */
static inline void ft_wait_failed(MPI_Comm comm, int n, double timeout_s) {
  double t0 = ft_now();
  while (ft_num_failed(comm) < n) {
    CHECK(ft_now() - t0 < timeout_s, "waited %.1f s for %d failure notice(s), have %d", timeout_s, n,
          ft_num_failed(comm));
    ft_sleep_ms(1);
  }
}

/* Is communicator rank `r` among the known failed of `comm`? */
static inline int ft_is_failed(MPI_Comm comm, int r) {
  MPI_Group failed, all;
  int n = 0, found = 0;
  CHECK_MPI(MPIX_Comm_get_failed(comm, &failed));
  CHECK_MPI(MPI_Group_size(failed, &n));
  if (n > 0) {
    CHECK_MPI(MPI_Comm_group(comm, &all));
    for (int i = 0; i < n; i++) {
      int cr = MPI_UNDEFINED;
      CHECK_MPI(MPI_Group_translate_ranks(failed, 1, &i, all, &cr));
      if (cr == r) found = 1;
    }
    MPI_Group_free(&all);
  }
  if (failed != MPI_GROUP_EMPTY) MPI_Group_free(&failed);
  return found;
}

/* A barrier right before a rank dies on purpose. ULFM collectives are not uniform: once the victim has left
 * the barrier it may die before a survivor's barrier has completed, and the survivor's failure sweep may then
 * fail that barrier with MPI_ERR_PROC_FAILED. Both outcomes are correct; anything else is not. */
static inline void ft_barrier_before_death(MPI_Comm comm) {
  CHECK_CLASS2(MPI_Barrier(comm), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
}

/* A synchronisation made of p2p only: every rank sends a token to every other rank, then receives one from
 * each. When any rank leaves, every rank has entered, so a rank may die right after it without making an
 * earlier collective fail elsewhere (its tokens were fully sent and are delivered). Returns the first error
 * of a receive: a rank still inside may see MPI_ERR_REVOKED when faster ones already revoked `comm`. */
static inline int ft_sync_all(MPI_Comm comm) {
  int r, n;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)n);
  int token = 1, in = 0, rc = MPI_SUCCESS;
  CHECK(req != NULL);
  for (int q = 0; q < n; q++) req[q] = MPI_REQUEST_NULL;
  for (int q = 0; q < n; q++)
    if (q != r) CHECK_MPI(MPI_Isend(&token, 1, MPI_INT, q, 32000, comm, &req[q]));
  for (int q = 0; q < n; q++)
    if (q != r && rc == MPI_SUCCESS) rc = MPI_Recv(&in, 1, MPI_INT, q, 32000, comm, MPI_STATUS_IGNORE);
  for (int q = 0; q < n; q++) MPI_Wait(&req[q], MPI_STATUS_IGNORE); /* a send to a rank that died since may fail */
  free(req);
  return rc;
}

/* The survivors of `comm` finish: shrink it (every survivor must call this), barrier on the shrunk
 * communicator, and its rank 0 prints "PASS <name>". Frees the shrunk communicator. */
static inline void ft_pass(MPI_Comm comm, const char *name) {
  MPI_Comm s = MPI_COMM_NULL;
  CHECK_MPI(MPIX_Comm_shrink(comm, &s));
  CHECK_MPI(MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Barrier(s));
  int r = -1, n = 0;
  MPI_Comm_rank(s, &r);
  MPI_Comm_size(s, &n);
  if (r == 0) {
    printf("PASS %s (%d survivors)\n", name, n);
    fflush(stdout);
  }
  MPI_Comm_free(&s);
}

/* Standard start of an FT test: MPI_Init, MPI_ERRORS_RETURN on MPI_COMM_WORLD, and a check that the job runs
 * in fault-tolerant mode (the MPIX_FT attribute), so a test run without --with-ft fails loudly. */
static inline void ft_init(int *argc, char ***argv, int *rank, int *size) {
  CHECK_MPI(MPI_Init(argc, argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  int *ft = NULL, flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPIX_FT, &ft, &flag));
  CHECK(flag && ft && *ft == 1, "MPIX_FT attribute says the job is not fault-tolerant (run with --with-ft ulfm)");
}

#endif /* FTMPI_TESTS_FT_CHECK_H */
