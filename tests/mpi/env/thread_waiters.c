/* thread_waiters: MPI_THREAD_MULTIPLE calls must not be held up by threads that wait in MPI.
 *
 * Phase 1 (a blocked waiter beside a busy thread): on rank 0 a thread blocks in MPI_Recv from rank 1 for a
 * message rank 1 sends only at the end of the phase; meanwhile rank 0's main thread runs ITERS rounds of
 * Isend/Irecv/Waitall to itself on MPI_COMM_SELF and one small Sendrecv with rank 1 per 50 rounds. No round
 * needs the blocked thread, so the phase must take about as long as without it.
 * Phase 2 (many waiters, the MPICH suite's threads/pt2pt/multisend4 pattern): NT threads per rank, thread t
 * of every rank exchanging with thread t of every other rank on tag t (Isend + Irecv per peer, then one
 * Waitall), ROUNDS rounds, all threads waiting at once.
 * PASS: every message intact, and (ftmpi only: a timing bound, generous for a loaded 2-core machine) phase 1
 * within 5 s and phase 2 within 20 s. Before the fix a waiting thread slept in the transports holding the
 * big lock (2 ms a time) and took it back before the woken caller ran: multisend4 spent 2.7 s per round. */
#include <pthread.h>

#include "common/check.h"

#define ITERS 2000
#define NT 4
#define ROUNDS 40
static int g_rank, g_size;

static double now(void) { return MPI_Wtime(); }

static void *blocked_waiter(void *arg) {
  (void)arg;
  int v = -1;
  MPI_Status st;
  CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, &st));
  CHECK(v == 4242 && st.MPI_SOURCE == 1 && st.MPI_TAG == 99, "late message %d from %d tag %d", v, st.MPI_SOURCE,
        st.MPI_TAG);
  return NULL;
}

static void *exchanger(void *arg) {
  int t = (int)(intptr_t)arg;
  int n = g_size;
  int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
  MPI_Request *rq = malloc(sizeof(MPI_Request) * 2 * (size_t)n);
  for (int r = 0; r < ROUNDS; r++) {
    for (int p = 0; p < n; p++) {
      out[p] = (g_rank * 1000 + p) * 100 + t * 10 + r % 10;
      in[p] = -1;
      CHECK_MPI(MPI_Irecv(&in[p], 1, MPI_INT, p, t, MPI_COMM_WORLD, &rq[2 * p]));
      CHECK_MPI(MPI_Isend(&out[p], 1, MPI_INT, p, t, MPI_COMM_WORLD, &rq[2 * p + 1]));
    }
    CHECK_MPI(MPI_Waitall(2 * n, rq, MPI_STATUSES_IGNORE));
    for (int p = 0; p < n; p++)
      CHECK(in[p] == (p * 1000 + g_rank) * 100 + t * 10 + r % 10, "thread %d round %d: %d from %d", t, r, in[p], p);
  }
  free(out);
  free(in);
  free(rq);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &g_size));
  if (provided < MPI_THREAD_MULTIPLE) {
    if (g_rank == 0) printf("SKIP thread_waiters: library provides thread level %d only\n", provided);
    CHECK_MPI(MPI_Finalize());
    return 0;
  }
  CHECK(g_size >= 2, "needs 2 ranks");

  /* Phase 1 */
  double t1 = now();
  pthread_t w;
  if (g_rank == 0) {
    CHECK(pthread_create(&w, NULL, blocked_waiter, NULL) == 0);
    int a = 0, b = -1;
    for (int i = 0; i < ITERS; i++) {
      MPI_Request rq[2];
      a = i;
      CHECK_MPI(MPI_Irecv(&b, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &rq[0]));
      CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &rq[1]));
      CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
      CHECK(b == i, "self message %d, expected %d", b, i);
      if (i % 50 == 0) {
        int x = i, y = -1;
        CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, 1, 5, &y, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(y == -i, "echo %d for %d", y, i);
      }
    }
    t1 = now() - t1;
    int done = -1;
    CHECK_MPI(MPI_Send(&done, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
    CHECK(pthread_join(w, NULL) == 0);
  } else if (g_rank == 1) {
    for (;;) {
      int x;
      CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      if (x == -1) break;
      x = -x;
      CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
    }
    int v = 4242;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 99, MPI_COMM_WORLD));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Phase 2 */
  double t2 = now();
  pthread_t th[NT];
  for (int t = 0; t < NT; t++) CHECK(pthread_create(&th[t], NULL, exchanger, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < NT; t++) CHECK(pthread_join(th[t], NULL) == 0);
  t2 = now() - t2;
  double t2max = 0;
  CHECK_MPI(MPI_Reduce(&t2, &t2max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));

  if (g_rank == 0) {
    printf("thread_waiters: phase 1 %d rounds beside a blocked thread %.3f s; phase 2 %d threads x %d rounds %.3f s\n",
           ITERS, t1, NT, ROUNDS, t2max);
#ifdef FTMPI
    CHECK(t1 < 5.0, "phase 1 took %.2f s: a waiting thread holds the others up", t1);
    CHECK(t2max < 20.0, "phase 2 took %.2f s: waiting threads hold each other up", t2max);
#endif
  }
  check_pass("thread_waiters");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
