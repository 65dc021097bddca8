/* comm_threads_ctx: communicators created by several threads at once (MPI_THREAD_MULTIPLE) get distinct
 * context ids and work.
 *
 * NT threads per rank, each with its own duplicate of MPI_COMM_WORLD, run ROUNDS rounds of: MPI_Comm_dup of
 * it, MPI_Comm_split of it (two halves, reversed order), MPI_Comm_create_group over the even ranks (tag =
 * thread), and a dup of MPI_COMM_SELF taken while holding an application mutex (MPICH's comm_dup_deadlock
 * pattern: another thread's collective creation waits for this rank's thread that waits for the mutex).
 * Every new communicator is checked with an Allreduce of the thread number and of the rank sum, and with
 * messages on it while the other threads use theirs, then freed.
 * PASS: no error. Before the fix the threads' allocations agreed on the same slot: "context id already in
 * use" (MPICH suite threads/comm/comm_create_threads, dup_leak_test, comm_create_group_threads), and the
 * mutex pattern hung. */
#define _DEFAULT_SOURCE /* usleep */
#include <pthread.h>
#include <unistd.h>

#include "common/check.h"

#define NT 3
#define ROUNDS 20
static int g_rank, g_size;
static MPI_Comm g_base[NT];
static pthread_mutex_t g_app = PTHREAD_MUTEX_INITIALIZER;
static int g_mix = 0; /* argv[1] "mix": split and create_group too */

static void use(MPI_Comm c, int t, const char *what) {
  int n, r, v = t, sum = 0;
  CHECK_MPI(MPI_Comm_size(c, &n));
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == t * n, "thread %d %s: allreduce %d, expected %d", t, what, sum, t * n);
  int out = r * 100 + t, in = -1;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, (r + 1) % n, 3, &in, 1, MPI_INT, (r + n - 1) % n, 3, c, MPI_STATUS_IGNORE));
  CHECK(in == ((r + n - 1) % n) * 100 + t, "thread %d %s: got %d", t, what, in);
}

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  MPI_Comm base = g_base[t];
  MPI_Group wg, eg;
  CHECK_MPI(MPI_Comm_group(base, &wg));
  int ne = (g_size + 1) / 2, evens[64];
  for (int i = 0; i < ne; i++) evens[i] = 2 * i;
  CHECK_MPI(MPI_Group_incl(wg, ne, evens, &eg));
  for (int r = 0; r < ROUNDS; r++) {
    MPI_Comm d, s, g, self;
    CHECK_MPI(MPI_Comm_dup(base, &d));
    use(d, t, "dup");
    if (g_mix) {
      CHECK_MPI(MPI_Comm_split(base, g_rank % 2, -g_rank, &s));
      use(s, t, "split");
    }
    if (g_mix && g_rank % 2 == 0) {
      CHECK_MPI(MPI_Comm_create_group(base, eg, t, &g));
      use(g, t, "create_group");
      CHECK_MPI(MPI_Comm_free(&g));
    }
    if (t == r % NT) usleep(1000 * (g_rank % 3));
    pthread_mutex_lock(&g_app);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &self));
    pthread_mutex_unlock(&g_app);
    use(self, t, "self dup");
    CHECK_MPI(MPI_Comm_free(&self));
    if (g_mix) CHECK_MPI(MPI_Comm_free(&s));
    CHECK_MPI(MPI_Comm_free(&d));
  }
  CHECK_MPI(MPI_Group_free(&eg));
  CHECK_MPI(MPI_Group_free(&wg));
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &g_size));
  if (provided < MPI_THREAD_MULTIPLE) {
    if (g_rank == 0) printf("SKIP comm_threads_ctx: library provides thread level %d only\n", provided);
    CHECK_MPI(MPI_Finalize());
    return 0;
  }
  CHECK(g_size <= 128, "at most 128 ranks");
  g_mix = argc > 1 && strcmp(argv[1], "mix") == 0;
  for (int t = 0; t < NT; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &g_base[t]));
  pthread_t th[NT];
  for (int t = 0; t < NT; t++) CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < NT; t++) CHECK(pthread_join(th[t], NULL) == 0);
  for (int t = 0; t < NT; t++) CHECK_MPI(MPI_Comm_free(&g_base[t]));
  check_pass("comm_threads_ctx");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
