/* comm_threads_inter: intercommunicators created by several threads at once (MPI_THREAD_MULTIPLE) get
 * distinct context ids and work (src/comm/context_alloc.h "Threads").
 *
 * Mode "inter" (default): NT threads per rank, each with its own duplicate of MPI_COMM_WORLD (its base), run
 * ROUNDS rounds of: MPI_Comm_split of the base into two halves (lower half, upper half), MPI_Intercomm_create
 * between them (peer communicator: the base, tag = thread), MPI_Intercomm_merge, MPI_Comm_dup of the
 * intercommunicator, MPI_Comm_split and MPI_Comm_create on it, while the other threads do the same on theirs.
 * Every new communicator is checked with an Allreduce (an intercommunicator's: the other group's size) and a
 * message across, then freed. Thread 0 also dups MPI_COMM_WORLD's base each round, so intracommunicator and
 * intercommunicator allocations cross.
 * Mode "spawn": every rank's NT threads each spawn one child of this program over MPI_COMM_SELF (2 rounds),
 * swap a message with it and disconnect; the children reply and disconnect.
 * PASS: no error, no hang. Before the fix both modes failed with "context id already in use" (the
 * intercommunicator constructors took the lowest slot free on both sides without the rounds: MPICH suite
 * threads/comm/idup_comm_gen, threads/spawn/multispawn, th_taskmanager). */
#include <pthread.h>

#include "common/check.h"

#define NT 3
#define ROUNDS 8
static int g_rank, g_size;
static MPI_Comm g_base[NT];
static const char *g_prog;

static void use_intra(MPI_Comm c, int t, const char *what) {
  int n, r, v = t, sum = 0;
  CHECK_MPI(MPI_Comm_size(c, &n));
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == t * n, "thread %d %s: allreduce %d, expected %d", t, what, sum, t * n);
  int out = r * 100 + t, in = -1;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, (r + 1) % n, 3, &in, 1, MPI_INT, (r + n - 1) % n, 3, c, MPI_STATUS_IGNORE));
  CHECK(in == ((r + n - 1) % n) * 100 + t, "thread %d %s: got %d", t, what, in);
}

static void use_inter(MPI_Comm c, int t, const char *what) {
  int n, rn, r, one = 1, sum = 0;
  CHECK_MPI(MPI_Comm_size(c, &n));
  CHECK_MPI(MPI_Comm_remote_size(c, &rn));
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == rn, "thread %d %s: allreduce %d, expected the remote size %d", t, what, sum, rn);
  int out = r * 100 + t, in = -1;
  const int peer = r % rn;  /* my partner in the other group */
  if (r < rn) {
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, peer, 5, &in, 1, MPI_INT, peer, 5, c, MPI_STATUS_IGNORE));
    CHECK(in == peer * 100 + t, "thread %d %s: got %d from %d", t, what, in, peer);
  }
}

static void *inter_worker(void *arg) {
  int t = (int)(intptr_t)arg;
  MPI_Comm base = g_base[t];
  const int half = g_size / 2, low = g_rank < half;
  for (int r = 0; r < ROUNDS; r++) {
    MPI_Comm local, inter, merged, idup, isplit, icreate;
    if (t == 0) {  /* an intracommunicator allocation beside the others' intercommunicator ones */
      MPI_Comm d;
      CHECK_MPI(MPI_Comm_dup(base, &d));
      use_intra(d, t, "dup");
      CHECK_MPI(MPI_Comm_free(&d));
    }
    CHECK_MPI(MPI_Comm_split(base, low, g_rank, &local));
    CHECK_MPI(MPI_Intercomm_create(local, 0, base, low ? half : 0, 100 + t, &inter));
    use_inter(inter, t, "intercomm_create");
    CHECK_MPI(MPI_Intercomm_merge(inter, !low, &merged));
    use_intra(merged, t, "merge");
    int mr;
    CHECK_MPI(MPI_Comm_rank(merged, &mr));
    CHECK(mr == g_rank, "thread %d merge: rank %d, expected %d (low group first)", t, mr, g_rank);
    CHECK_MPI(MPI_Comm_dup(inter, &idup));
    use_inter(idup, t, "intercomm dup");
    CHECK_MPI(MPI_Comm_split(inter, 0, g_rank, &isplit));
    use_inter(isplit, t, "intercomm split");
    MPI_Group lg;
    CHECK_MPI(MPI_Comm_group(inter, &lg));
    CHECK_MPI(MPI_Comm_create(inter, lg, &icreate));
    CHECK_MPI(MPI_Group_free(&lg));
    use_inter(icreate, t, "intercomm create");
    CHECK_MPI(MPI_Comm_free(&icreate));
    CHECK_MPI(MPI_Comm_free(&isplit));
    CHECK_MPI(MPI_Comm_free(&idup));
    CHECK_MPI(MPI_Comm_free(&merged));
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&local));
  }
  return NULL;
}

static void *spawn_worker(void *arg) {
  int t = (int)(intptr_t)arg;
  for (int r = 0; r < 2; r++) {
    MPI_Comm child;
    int err = MPI_SUCCESS;
    char *argv[] = {"child", NULL};
    CHECK_MPI(MPI_Comm_spawn(g_prog, argv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child, &err));
    CHECK(err == MPI_SUCCESS, "thread %d: spawn error %d", t, err);
    int out = g_rank * 100 + t, in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, 0, 7, &in, 1, MPI_INT, 0, 7, child, MPI_STATUS_IGNORE));
    CHECK(in == out + 1, "thread %d: child replied %d, expected %d", t, in, out + 1);
    CHECK_MPI(MPI_Comm_disconnect(&child));
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  MPI_Comm parent;
  CHECK_MPI(MPI_Comm_get_parent(&parent));
  if (parent != MPI_COMM_NULL) {  /* a spawned child: echo + 1, disconnect */
    int v = -1;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE));
    v += 1;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 7, parent));
    CHECK_MPI(MPI_Comm_disconnect(&parent));
    CHECK_MPI(MPI_Finalize());
    return 0;
  }
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &g_size));
  if (provided < MPI_THREAD_MULTIPLE) {
    if (g_rank == 0) printf("SKIP comm_threads_inter: library provides thread level %d only\n", provided);
    CHECK_MPI(MPI_Finalize());
    return 0;
  }
  const int spawn = argc > 1 && strcmp(argv[1], "spawn") == 0;
  g_prog = argv[0];
  CHECK(spawn || g_size >= 2, "inter mode needs at least 2 ranks");
  for (int t = 0; t < NT; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &g_base[t]));
  pthread_t th[NT];
  for (int t = 0; t < NT; t++)
    CHECK(pthread_create(&th[t], NULL, spawn ? spawn_worker : inter_worker, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < NT; t++) CHECK(pthread_join(th[t], NULL) == 0);
  for (int t = 0; t < NT; t++) CHECK_MPI(MPI_Comm_free(&g_base[t]));
  check_pass(spawn ? "comm_threads_inter spawn" : "comm_threads_inter");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
