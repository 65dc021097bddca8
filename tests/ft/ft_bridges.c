/* ft_bridges — the agreement "bridges" of MPI_Intercomm_create (src/ft/bridge.h) are named exactly and never
 * mixed up or forgotten while needed (docs/fault-tolerance.md, "Bridges"). --with-ft ulfm, 4 ranks: side A is
 * ranks {0,1}, side B ranks {2,3} (MPI_Comm_split of MPI_COMM_WORLD); the leaders are ranks 0 and 2, the peer
 * communicator MPI_COMM_WORLD. Argument: the mode.
 *   collide: MPI_THREAD_MULTIPLE. Two local communicators L1 (context slot 13) and L2 (slot 17) over each side;
 *            N1 = 356 intercommunicators are made (and freed) over L1 and N2 = 4 over L2, then two threads per
 *            rank call MPI_Intercomm_create over L1 and over L2 at once. Under the 32-bit side hash that named
 *            a bridge before (FNV-1a over "BRDG", the count (creations before, and the hash of the side, its
 *            context id and lowest member) and the sorted members) side A's hash of both calls was equal (found
 *            offline: the FNV state after the count words, 0x3e62558e modulo the top bit): the second bridge
 *            replaced the first at ranks 0 and 1 while the first was still agreeing. Each new
 *            intercommunicator must work (an allreduce: the remote size; a message across). Then ITER more
 *            concurrent pairs (no collision expected) check that nothing was left behind.
 *   many:    MANY intercommunicators over 4 local communicators per side in turn (as many distinct bridges;
 *            each call drops the previous bridge of its two local communicators), each checked; the resident
 *            set may grow by at most GROW_KB between the first third and the end.
 *   spread:  the same over NLOCAL local communicators per side (NLOCAL live bridges, beyond the 256 kept live:
 *            the least recently used are compacted into records, dropped by the next call on their local
 *            communicators). The resident set is printed, and bounded by SPREAD_KB: each local communicator
 *            also keeps the agreements of the dups made over it (64 at most, ~1 kB each).
 *   many_kill: spread, and rank 3 is killed by a second thread of its own after a pseudo-random number of
 *            calls: every survivor of both sides must stop at the same call with MPI_ERR_PROC_FAILED.
 * PASS: every intercommunicator works, outcomes are uniform, memory stays within the bound, no hang. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "ft_check.h"

#define SLOT1 13
#define N1 356
#define SLOT2 17
#define N2 4
#define ITER 20
#define MANY 3000
#define NLOCAL 300 /* local communicators per side in spread and many_kill */
#define GROW_KB 8192
#define SPREAD_KB 32768

static int g_rank;
static atomic_int calls_done;
static int kill_after;

/* The intercommunicator works: the remote group's size by an allreduce, and a message with my partner. */
static void check_inter(MPI_Comm inter, int t) {
  int rn = 0, r = -1, one = 1, sum = 0;
  CHECK_MPI(MPI_Comm_remote_size(inter, &rn));
  CHECK_MPI(MPI_Comm_rank(inter, &r));
  CHECK(rn == 2, "remote size %d", rn);
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter));
  CHECK(sum == 2, "thread %d: allreduce over the intercommunicator gave %d, want 2", t, sum);
  int out = g_rank * 100 + t, in = -1;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, r, 7, &in, 1, MPI_INT, r, 7, inter, MPI_STATUS_IGNORE));
  const int partner = g_rank < 2 ? g_rank + 2 : g_rank - 2;
  CHECK(in == partner * 100 + t, "thread %d: got %d from the other side, want %d", t, in, partner * 100 + t);
}

/* One MPI_Intercomm_create over `local` (leaders: local rank 0, world ranks 0 and 2), returning its code. */
static int create(MPI_Comm local, int tag, MPI_Comm *inter) {
  return MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, g_rank < 2 ? 2 : 0, tag, inter);
}

static MPI_Comm g_local[2];
static void *collide_worker(void *arg) {
  const int t = (int)(intptr_t)arg;
  MPI_Comm inter = MPI_COMM_NULL;
  CHECK_MPI(create(g_local[t], 100 + t, &inter));
  check_inter(inter, t);
  CHECK_MPI(MPI_Comm_free(&inter));
  return NULL;
}

static void run_pair(void) {
  pthread_t th[2];
  for (int t = 0; t < 2; t++) CHECK(pthread_create(&th[t], NULL, collide_worker, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
}

/* A split of MPI_COMM_WORLD into the two sides (one allocation: both sides' communicators get the same slot). */
static MPI_Comm split_sides(void) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, g_rank / 2, g_rank, &c));
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  return c;
}

static void *killer(void *arg) {
  (void)arg;
  while (atomic_load(&calls_done) < kill_after) ft_sleep_ms(0);
  ft_die();
  return NULL;
}

int main(int argc, char **argv) {
  CHECK(argc > 1, "usage: ft_bridges collide|many|spread|many_kill");
  const char *mode = argv[1];
  const int collide = strcmp(mode, "collide") == 0, kill = strcmp(mode, "many_kill") == 0;
  const int spread = strcmp(mode, "spread") == 0;
  CHECK(collide || kill || spread || strcmp(mode, "many") == 0, "unknown mode %s", mode);
  const int nlocal = spread || kill ? NLOCAL : 4;
  int provided = -1, size;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE, "thread level %d", provided);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 4, "needs 4 ranks");
  if (collide) {
    /* Slots 0 and 1 are MPI_COMM_WORLD's and MPI_COMM_SELF's; each allocation takes the lowest slot free
     * everywhere (src/comm/context_alloc.h), so fillers take slots 2.. in order. */
    MPI_Comm fill[SLOT2];
    int nfill = 0;
    for (int s = 2; s < SLOT1; s++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &fill[nfill++]));
    g_local[0] = split_sides();
    for (int s = SLOT1 + 1; s < SLOT2; s++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &fill[nfill++]));
    g_local[1] = split_sides();
    for (int i = 0; i < N1 + N2; i++) {  /* the counts before the colliding pair */
      MPI_Comm inter;
      CHECK_MPI(create(g_local[i < N1 ? 0 : 1], 1, &inter));
      if (i % 50 == 0) check_inter(inter, 0);
      CHECK_MPI(MPI_Comm_free(&inter));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    run_pair();  /* the colliding pair */
    for (int i = 0; i < ITER; i++) run_pair();
    if (g_rank == 0) printf("collide: the colliding pair and %d more pairs of concurrent bridges\n", ITER);
    for (int t = 0; t < 2; t++) CHECK_MPI(MPI_Comm_free(&g_local[t]));
    for (int i = 0; i < nfill; i++) CHECK_MPI(MPI_Comm_free(&fill[i]));
  } else {
    MPI_Comm local[NLOCAL];
    for (int l = 0; l < nlocal; l++) local[l] = split_sides();
    pthread_t th;
    kill_after = MANY / 3 + (int)((unsigned)time(NULL) % (MANY / 3));
    if (kill && g_rank == 3) CHECK(pthread_create(&th, NULL, killer, NULL) == 0);
    long rss_third = 0;
    int ok = 0, cls = MPI_SUCCESS;
    for (; ok < MANY; ok++) {
      if (ok == MANY / 3) rss_third = ft_rss_kb();
      MPI_Comm inter = MPI_COMM_NULL;
      const int rc = create(local[ok % nlocal], ok % 32767, &inter);
      if (rc != MPI_SUCCESS) {
        cls = check_class_of(rc);
        CHECK(inter == MPI_COMM_NULL, "call %d failed but gave a communicator", ok);
        break;
      }
      if (!kill) check_inter(inter, 0);
      CHECK_MPI(MPI_Comm_free(&inter));
      atomic_fetch_add(&calls_done, 1);
    }
    if (!kill) {
      const long grown = ft_rss_kb() - rss_third;
      if (g_rank == 0)
        printf("%s: %d intercommunicators (distinct bridges) over %d local communicators per side, resident set +%ld kB over the last two thirds\n",
               mode, MANY, nlocal, grown);
      CHECK(cls == MPI_SUCCESS, "call %d failed: %s", ok, ft_class_name(cls));
      CHECK(grown < (spread ? SPREAD_KB : GROW_KB), "resident set grew by %ld kB over %d creations", grown, MANY - MANY / 3);
    } else {
      CHECK(ok < MANY, "no failure seen");
      ft_check_uniform_stop(ok, cls, "intercommunicators");
    }
    for (int l = 0; l < nlocal; l++) MPI_Comm_free(&local[l]);
  }
  ft_pass(MPI_COMM_WORLD, "ft_bridges");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
