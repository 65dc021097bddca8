/* env_init: initialisation, thread levels and the environment queries.
 *
 * Usage: env_init [plain|single|funneled|serialized|multiple]   (plain = MPI_Init, default)
 * Covers MPI_Init / MPI_Init_thread, MPI_Query_thread, MPI_Is_thread_main, MPI_Initialized, MPI_Finalized
 * (before, during, after), MPI_Get_processor_name, MPI_Get_version, MPI_Get_library_version, MPI_Wtime,
 * MPI_Wtick, MPI_Error_string, MPI_Error_class, MPI_Comm_rank/size on MPI_COMM_WORLD and MPI_COMM_SELF.
 * PASS: provided is a valid level, Query_thread agrees, for SINGLE..SERIALIZED the library provides at least
 * what was asked (every MPI can), the queries return sane values, and Initialized/Finalized flip exactly at
 * MPI_Init and MPI_Finalize. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "common/check.h"

static int level_of(const char *s) {
  if (!strcmp(s, "single")) return MPI_THREAD_SINGLE;
  if (!strcmp(s, "funneled")) return MPI_THREAD_FUNNELED;
  if (!strcmp(s, "serialized")) return MPI_THREAD_SERIALIZED;
  if (!strcmp(s, "multiple")) return MPI_THREAD_MULTIPLE;
  return -1;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "plain";
  int flag = -1, provided = -1, required = level_of(mode);

  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(flag == 0, "Initialized before MPI_Init");
  CHECK_MPI(MPI_Finalized(&flag));
  CHECK(flag == 0, "Finalized before MPI_Init");

  if (required < 0) {
    CHECK_MPI(MPI_Init(&argc, &argv));
  } else {
    CHECK_MPI(MPI_Init_thread(&argc, &argv, required, &provided));
    CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d", provided);
    if (required <= MPI_THREAD_SERIALIZED)
      CHECK(provided >= required, "asked for %s, provided %d", mode, provided);
  }
  int rank, size, q = -1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 1 && rank >= 0 && rank < size, "rank %d size %d", rank, size);
  CHECK_MPI(MPI_Query_thread(&q));
  if (required >= 0) CHECK(q == provided, "Query_thread %d, Init_thread provided %d", q, provided);
  CHECK(q >= MPI_THREAD_SINGLE && q <= MPI_THREAD_MULTIPLE, "Query_thread %d", q);
  if (rank == 0) printf("%s: requested %s, provided %d\n", CHECK_LIB, mode, q);
  CHECK_MPI(MPI_Is_thread_main(&flag));
  CHECK(flag == 1, "Is_thread_main false on the main thread");
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(flag == 1, "Initialized after MPI_Init");
  CHECK_MPI(MPI_Finalized(&flag));
  CHECK(flag == 0, "Finalized before MPI_Finalize");

  /* MPI_COMM_SELF */
  int srank = -1, ssize = -1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &srank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &ssize));
  CHECK(srank == 0 && ssize == 1, "COMM_SELF rank %d size %d", srank, ssize);

  /* processor name: non-empty, NUL-terminated, length as reported */
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = -1;
  memset(name, 'x', sizeof name);
  CHECK_MPI(MPI_Get_processor_name(name, &len));
  CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (int)strlen(name) == len, "processor name len %d", len);

  /* versions */
  int ver = -1, sub = -1;
  CHECK_MPI(MPI_Get_version(&ver, &sub));
  CHECK(ver == MPI_VERSION && sub == MPI_SUBVERSION, "Get_version %d.%d, mpi.h says %d.%d", ver, sub, MPI_VERSION,
        MPI_SUBVERSION);
  CHECK(ver >= 3, "MPI version %d", ver);
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  CHECK_MPI(MPI_Get_library_version(lib, &len));
  /* Open MPI 4.1 counts the terminating NUL in resultlen; the standard's wording allows it. */
  CHECK(len > 0 && len <= MPI_MAX_LIBRARY_VERSION_STRING && ((int)strlen(lib) == len || (int)strlen(lib) + 1 == len),
        "library version len %d, strlen %zu", len, strlen(lib));
#ifdef FTMPI
  CHECK(strstr(lib, "ftmpi") != NULL, "library version \"%s\" does not name ftmpi", lib);
#endif

  /* clocks */
  double tick = MPI_Wtick(), t0 = MPI_Wtime(), t1;
  CHECK(tick > 0 && tick <= 0.01, "Wtick %g", tick);
  do t1 = MPI_Wtime(); while (t1 == t0);
  CHECK(t1 > t0, "Wtime went backwards");
  {
    double a = MPI_Wtime();
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    double b = MPI_Wtime();
    CHECK(b - a >= 0.045 && b - a < 5, "50 ms sleep measured as %g s", b - a);
  }

  /* error strings and classes */
  const int classes[] = {MPI_SUCCESS, MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG, MPI_ERR_COMM,
                         MPI_ERR_RANK, MPI_ERR_REQUEST, MPI_ERR_ROOT, MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_ARG,
                         MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN, MPI_ERR_IN_STATUS,
                         MPI_ERR_PENDING};
  char seen[sizeof classes / sizeof classes[0]][MPI_MAX_ERROR_STRING];
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
    int cls = -1;
    CHECK_MPI(MPI_Error_class(classes[i], &cls));
    CHECK(cls == classes[i], "Error_class(%d) = %d", classes[i], cls);
    len = -1;
    CHECK_MPI(MPI_Error_string(classes[i], seen[i], &len));
    CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(seen[i]) == len, "Error_string(%d) len %d",
          classes[i], len);
    for (size_t j = 0; j < i; j++)
      CHECK(strcmp(seen[i], seen[j]) != 0, "classes %d and %d have the same string \"%s\"", classes[i],
            classes[j], seen[i]);
  }
  CHECK(MPI_ERR_LASTCODE > MPI_ERR_PENDING, "MPI_ERR_LASTCODE");

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS env_init %s\n", mode);
  fflush(stdout);
  CHECK_MPI(MPI_Finalize());
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(flag == 1, "Initialized after MPI_Finalize must stay true");
  CHECK_MPI(MPI_Finalized(&flag));
  CHECK(flag == 1, "Finalized after MPI_Finalize");
  return 0;
}
