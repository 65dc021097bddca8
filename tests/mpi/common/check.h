/* tests/mpi/common/check.h — tiny assertion helpers shared by the MPI test programs.
 *
 * Portable C11 on top of mpi.h only: the same programs build against ftmpi, MPICH and Open MPI.
 *
 * Contract of every test program: it PASSES when mpiexec exits 0 and nothing it printed contains the word
 * "FAIL" (CTest's FAIL_REGULAR_EXPRESSION).  CHECK() prints "FAIL rank r: file:line: ..." and calls
 * MPI_Abort(MPI_COMM_WORLD, 1), so one failed check ends the whole job with a non-zero status.
 * Programs print "SKIP ..." (never "FAIL") for a feature the library does not offer, and rank 0 prints
 * "PASS <name>" at the end. */
#ifndef FTMPI_TESTS_CHECK_H
#define FTMPI_TESTS_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* World rank if MPI is up, -1 otherwise (before Init or after Finalize). */
static inline int check_world_rank(void) {
  int init = 0, fin = 0, rank = -1;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

/* Print the failure and end the job.  Never returns. */
static inline void check_fail(const char *file, int line, const char *expr, const char *fmt, ...) {
  char msg[512] = "";
  if (fmt && *fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
  }
  fprintf(stdout, "FAIL rank %d: %s:%d: %s%s%s\n", check_world_rank(), file, line, expr, *msg ? ": " : "", msg);
  fflush(stdout);
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

/* CHECK(cond, "fmt", args...) — the format part is optional: CHECK(x == 1) also works. */
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) check_fail(__FILE__, __LINE__, #cond, "" __VA_ARGS__);        \
  } while (0)

/* Name of an error code, for messages. */
static inline const char *check_errstr(int code) {
  static char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  s[0] = 0;
  if (MPI_Error_string(code, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "(code %d)", code);
  return s;
}

/* CHECK_MPI(MPI_Foo(...)) — the call must return MPI_SUCCESS. */
#define CHECK_MPI(call)                                                                         \
  do {                                                                                          \
    int check_rc_ = (call);                                                                     \
    if (check_rc_ != MPI_SUCCESS)                                                               \
      check_fail(__FILE__, __LINE__, #call, "returned %d (%s)", check_rc_, check_errstr(check_rc_)); \
  } while (0)

/* Error class of a return code. */
static inline int check_class_of(int code) {
  int cls = -1;
  if (MPI_Error_class(code, &cls) != MPI_SUCCESS) return -1;
  return cls;
}

/* CHECK_CLASS(MPI_Foo(...), MPI_ERR_X) — the call must fail with error class MPI_ERR_X.  Only meaningful
 * while the communicator involved (and MPI_COMM_WORLD, which handles errors on invalid handles) uses
 * MPI_ERRORS_RETURN. */
#define CHECK_CLASS(call, expected_class)                                                                    \
  do {                                                                                                       \
    int check_rc_ = (call);                                                                                  \
    int check_cls_ = check_class_of(check_rc_);                                                              \
    if (check_cls_ != (expected_class))                                                                      \
      check_fail(__FILE__, __LINE__, #call, "expected class %s (%d), got code %d class %d (%s)",             \
                 #expected_class, (int)(expected_class), check_rc_, check_cls_,                              \
                 check_rc_ == MPI_SUCCESS ? "MPI_SUCCESS" : check_errstr(check_rc_));                       \
  } while (0)

/* Run `body` with MPI_ERRORS_RETURN on `comm`, then put the previous handler back:
 *   WITH_ERRORS_RETURN(MPI_COMM_WORLD, { CHECK_CLASS(MPI_Send(...), MPI_ERR_RANK); }); */
#define WITH_ERRORS_RETURN(comm, body)                              \
  do {                                                              \
    MPI_Errhandler check_old_eh_;                                   \
    CHECK_MPI(MPI_Comm_get_errhandler((comm), &check_old_eh_));     \
    CHECK_MPI(MPI_Comm_set_errhandler((comm), MPI_ERRORS_RETURN));  \
    body;                                                           \
    CHECK_MPI(MPI_Comm_set_errhandler((comm), check_old_eh_));      \
    CHECK_MPI(MPI_Errhandler_free(&check_old_eh_));                 \
  } while (0)

/* Deterministic byte pattern: byte i of message `seed`. */
static inline unsigned char check_pattern_byte(unsigned seed, size_t i) {
  return (unsigned char)((i * 131u + seed * 7919u + (i >> 8) * 17u) & 0xff);
}
static inline void check_fill(void *buf, size_t n, unsigned seed) {
  unsigned char *p = (unsigned char *)buf;
  for (size_t i = 0; i < n; i++) p[i] = check_pattern_byte(seed, i);
}
/* Index of the first wrong byte, or (size_t)-1 when the whole buffer matches. */
static inline size_t check_verify(const void *buf, size_t n, unsigned seed) {
  const unsigned char *p = (const unsigned char *)buf;
  for (size_t i = 0; i < n; i++)
    if (p[i] != check_pattern_byte(seed, i)) return i;
  return (size_t)-1;
}
#define CHECK_PATTERN(buf, n, seed)                                                                \
  do {                                                                                             \
    size_t check_bad_ = check_verify((buf), (n), (seed));                                          \
    CHECK(check_bad_ == (size_t)-1, "pattern %u of %zu bytes wrong at byte %zu", (unsigned)(seed), \
          (size_t)(n), check_bad_);                                                                \
  } while (0)

/* Rank 0 says PASS after everybody got here. */
static inline void check_pass(const char *name) {
  int rank = check_world_rank();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    printf("PASS %s\n", name);
    fflush(stdout);
  }
}

/* Library identity, for the few places where a peer MPI legitimately differs. */
#if defined(FTMPI)
#define CHECK_LIB "ftmpi"
#elif defined(OPEN_MPI)
#define CHECK_LIB "openmpi"
#elif defined(MPICH)
#define CHECK_LIB "mpich"
#else
#define CHECK_LIB "unknown"
#endif

#endif /* FTMPI_TESTS_CHECK_H */
