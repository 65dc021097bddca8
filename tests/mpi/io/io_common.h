/* Shared helpers of the MPI-IO tests: a unique scratch path every rank agrees on, and checked calls. */
#ifndef FTMPI_TESTS_IO_COMMON_H
#define FTMPI_TESTS_IO_COMMON_H
#include <unistd.h>

#include "../common/check.h"

#define OK(call)                                                                             \
  do {                                                                                       \
    int rc_ = (call);                                                                        \
    CHECK(rc_ == MPI_SUCCESS, "%s -> %s", #call, check_errstr(rc_));                         \
  } while (0)

#define EXPECT_CLASS(call, cls)                                                              \
  do {                                                                                       \
    int rc_ = (call), c_ = -1;                                                               \
    if (rc_ != MPI_SUCCESS) MPI_Error_class(rc_, &c_);                                       \
    CHECK(rc_ != MPI_SUCCESS && c_ == (cls), "%s -> %s (class %d), wanted class %d", #call,  \
          check_errstr(rc_), c_, (int)(cls));                                                \
  } while (0)

/* "<dir>/<tag>-<rank 0's pid>": dir is $FTMPI_IO_DIR, else $TMPDIR, else /tmp. */
static inline void io_path(MPI_Comm comm, const char *tag, char *out, size_t cap) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    const char *d = getenv("FTMPI_IO_DIR");
    if (!d || !*d) d = getenv("TMPDIR");
    if (!d || !*d) d = "/tmp";
    snprintf(out, cap, "%s/%s-%ld", d, tag, (long)getpid());
  }
  MPI_Bcast(out, (int)cap, MPI_CHAR, 0, comm);
}
#endif
