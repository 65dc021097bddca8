/* ft_io — MPI-IO with failures (seed 000 §1.2.4, §1.3.3). 4 ranks, --with-ft ulfm.
 *
 * ARGS kill: every rank writes its block with MPI_File_write_at_all (two-phase forced: romio_cb_write enable,
 *   cb_nodes 4, so every rank's data passes through the others), and MPI_File_sync succeeds. Then rank 2 (an
 *   aggregator) is SIGKILLed as the second collective write starts. PASS when every survivor's write returns
 *   MPI_SUCCESS or MPI_ERR_PROC_FAILED (no hang), every survivor's MPI_File_sync returns the same class, which
 *   is MPI_ERR_PROC_FAILED, every survivor's MPI_File_close returns the same class, and the file holds every
 *   acknowledged byte: all four blocks of the first write (acknowledged by the first sync) and the second
 *   block of every survivor whose second write returned MPI_SUCCESS.
 * ARGS nbkill: the same with the second write a MPI_File_iwrite_at_all that rank 2 initiates and dies before
 *   completing (a writer killed during a non-blocking collective write): the survivors' MPI_Wait returns
 *   MPI_SUCCESS or MPI_ERR_PROC_FAILED, and the sync/close/acknowledged-bytes checks are those of kill.
 * ARGS revoke: rank 1 calls MPIX_File_revoke; no process dies. PASS when every rank's MPI_File_sync returns
 *   MPI_ERR_REVOKED (uniform, also at ranks that had not seen the revoke yet), a later write fails with
 *   MPI_ERR_REVOKED, and MPI_File_close frees the file. */
#include "ft_check.h"

#include <unistd.h>

#ifndef MPIX_File_revoke
int MPIX_File_revoke(MPI_File fh);
#endif

enum { N = 4096 };
static int rank, size;

static int cls(int rc) {
  int c = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  return c;
}

/* every survivor's value of x must be the same */
static void check_uniform(MPI_Comm s, int x, const char *what) {
  int n;
  MPI_Comm_size(s, &n);
  int *all = malloc(sizeof(int) * (size_t)n);
  CHECK_MPI(MPI_Allgather(&x, 1, MPI_INT, all, 1, MPI_INT, s));
  for (int i = 0; i < n; i++) CHECK(all[i] == x, "%s differs between survivors: %d vs %d", what, all[i], x);
  free(all);
}

static void mode_kill(const char *path, int nb) {
  const int victim = 2;
  MPI_File fh;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "cb_nodes", "4");
  MPI_Info_set(info, "cb_buffer_size", "8192");
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  int *buf = malloc(sizeof(int) * N);
  for (int i = 0; i < N; i++) buf[i] = rank * 1000000 + i;
  CHECK_MPI(MPI_File_write_at_all(fh, (MPI_Offset)rank * N * (int)sizeof(int), buf, N, MPI_INT, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_File_sync(fh));
  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == victim && !nb) ft_die();
  for (int i = 0; i < N; i++) buf[i] = 7000000 + rank * 10000 + i;
  int rc_w;
  if (nb) {
    /* The victim initiates the non-blocking collective write too, then dies before completing it. */
    MPI_Request rq;
    rc_w = MPI_File_iwrite_at_all(fh, (MPI_Offset)(size + rank) * N * (int)sizeof(int), buf, N, MPI_INT, &rq);
    CHECK(rc_w == MPI_SUCCESS, "iwrite_at_all initiation: %s", check_errstr(rc_w));
    if (rank == victim) ft_die();
    rc_w = MPI_Wait(&rq, MPI_STATUS_IGNORE);
  } else {
    rc_w = MPI_File_write_at_all(fh, (MPI_Offset)(size + rank) * N * (int)sizeof(int), buf, N, MPI_INT,
                                 MPI_STATUS_IGNORE);
  }
  CHECK(cls(rc_w) == MPI_SUCCESS || cls(rc_w) == MPI_ERR_PROC_FAILED, "second write: %s", check_errstr(rc_w));
  int rc_s = MPI_File_sync(fh);
  CHECK(cls(rc_s) == MPI_ERR_PROC_FAILED, "sync after the failure: %s", check_errstr(rc_s));
  int rc_c = MPI_File_close(&fh);
  CHECK(fh == MPI_FILE_NULL, "close left the handle");
  MPI_Comm s;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
  check_uniform(s, cls(rc_s), "MPI_File_sync's class");
  check_uniform(s, cls(rc_c), "MPI_File_close's class");
  /* acknowledged bytes */
  int ns;
  MPI_Comm_size(s, &ns);
  int *ok2 = malloc(sizeof(int) * (size_t)size), *ranks = malloc(sizeof(int) * (size_t)ns);
  int mine_ok = rc_w == MPI_SUCCESS;
  CHECK_MPI(MPI_Allgather(&rank, 1, MPI_INT, ranks, 1, MPI_INT, s));
  int *oks = malloc(sizeof(int) * (size_t)ns);
  CHECK_MPI(MPI_Allgather(&mine_ok, 1, MPI_INT, oks, 1, MPI_INT, s));
  for (int r = 0; r < size; r++) ok2[r] = 0;
  for (int i = 0; i < ns; i++) ok2[ranks[i]] = oks[i];
  int sr;
  MPI_Comm_rank(s, &sr);
  if (sr == 0) {
    MPI_File rf;
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &rf));
    int *in = malloc(sizeof(int) * N);
    for (int r = 0; r < size; r++) {
      CHECK_MPI(MPI_File_read_at(rf, (MPI_Offset)r * N * (int)sizeof(int), in, N, MPI_INT, MPI_STATUS_IGNORE));
      for (int i = 0; i < N; i++) CHECK(in[i] == r * 1000000 + i, "acknowledged block %d lost at int %d", r, i);
      if (!ok2[r]) continue;
      CHECK_MPI(MPI_File_read_at(rf, (MPI_Offset)(size + r) * N * (int)sizeof(int), in, N, MPI_INT, MPI_STATUS_IGNORE));
      for (int i = 0; i < N; i++)
        CHECK(in[i] == 7000000 + r * 10000 + i, "acknowledged second block %d lost at int %d", r, i);
    }
    free(in);
    CHECK_MPI(MPI_File_close(&rf));
    printf("survivors: sync class %d everywhere, second write acknowledged at %d of %d\n", cls(rc_s),
           oks[0] + (ns > 1 ? oks[1] : 0) + (ns > 2 ? oks[2] : 0), ns);
    unlink(path);
  }
  free(buf), free(ok2), free(ranks), free(oks);
  MPI_Comm_free(&s);
}

static void mode_revoke(const char *path) {
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  int x = rank;
  CHECK_MPI(MPI_File_write_at_all(fh, rank * 4, &x, 1, MPI_INT, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every write done before the revoke */
  if (rank == 1) CHECK_MPI(MPIX_File_revoke(fh));
  int rc_s = MPI_File_sync(fh);
  CHECK(cls(rc_s) == MPI_ERR_REVOKED, "sync after revoke: %s", check_errstr(rc_s));
  int rc_w = MPI_File_write_at(fh, rank * 4, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(cls(rc_w) == MPI_ERR_REVOKED, "write after revoke: %s", check_errstr(rc_w));
  int rc_c = MPI_File_close(&fh);
  CHECK(fh == MPI_FILE_NULL, "close left the handle (%s)", check_errstr(rc_c));
}

int main(int argc, char **argv) {
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 4, "run with 4 ranks");
  char path[256];
  if (rank == 0) snprintf(path, sizeof path, "/tmp/ftmpi-ft-io-%ld", (long)getpid());
  CHECK_MPI(MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD));
  const char *mode = argc > 1 ? argv[1] : "kill";
  if (strcmp(mode, "kill") == 0) mode_kill(path, 0);
  else if (strcmp(mode, "nbkill") == 0) mode_kill(path, 1);
  else mode_revoke(path);
  ft_pass(MPI_COMM_WORLD, mode);
  MPI_Finalize();
  return 0;
}
