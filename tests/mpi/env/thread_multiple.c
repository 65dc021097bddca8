/* thread_multiple: two threads per rank doing point-to-point at the same time.
 *
 * Asks for MPI_THREAD_MULTIPLE; when the library provides less, prints "SKIP" and passes.  Otherwise
 * ranks are paired (0-1, 2-3, ...; an odd last rank talks to itself); on each rank two threads ping-pong
 * with the partner concurrently — thread t on tag t and on its own duplicated communicator — with sizes
 * 0 B .. 64 KiB, and one thread also uses MPI_ANY_SOURCE receives.  MPI_Is_thread_main is false in them.
 * PASS: every message arrives intact in both threads, and the job finishes within its timeout. */
#include <pthread.h>

#include "common/check.h"

#define ITERS 200
static int g_rank, g_peer;
static MPI_Comm g_comms[2];

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  static const int sizes[] = {0, 1, 100, 8 << 10, 64 << 10};
  unsigned char *buf = malloc(64 << 10);
  int flag = 1;
  CHECK_MPI(MPI_Is_thread_main(&flag));
  CHECK(!flag, "Is_thread_main true in a spawned thread");
  MPI_Comm comm = t == 0 ? MPI_COMM_WORLD : g_comms[t];
  for (int it = 0; it < ITERS; it++) {
    int n = sizes[it % 5];
    unsigned seed = (unsigned)(t * 100000 + it);
    int src = (t == 1) ? MPI_ANY_SOURCE : g_peer;
    MPI_Status st;
    if (g_rank <= g_peer) { /* ping first (self-paired ranks use Sendrecv) */
      check_fill(buf, n, seed);
      if (g_rank == g_peer) {
        unsigned char *in = malloc(n + 1);
        CHECK_MPI(MPI_Sendrecv(buf, n, MPI_BYTE, g_peer, t, in, n, MPI_BYTE, src, t, comm, &st));
        CHECK_PATTERN(in, n, seed);
        free(in);
        continue;
      }
      CHECK_MPI(MPI_Send(buf, n, MPI_BYTE, g_peer, t, comm));
      memset(buf, 0, n);
      CHECK_MPI(MPI_Recv(buf, n, MPI_BYTE, src, t, comm, &st));
      CHECK_PATTERN(buf, n, seed + 1);
    } else {
      CHECK_MPI(MPI_Recv(buf, n, MPI_BYTE, src, t, comm, &st));
      CHECK_PATTERN(buf, n, seed);
      check_fill(buf, n, seed + 1);
      CHECK_MPI(MPI_Send(buf, n, MPI_BYTE, g_peer, t, comm));
    }
    CHECK(st.MPI_SOURCE == g_peer && st.MPI_TAG == t, "thread %d: source %d tag %d", t, st.MPI_SOURCE, st.MPI_TAG);
  }
  free(buf);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1, size;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  if (provided < MPI_THREAD_MULTIPLE) {
    if (g_rank == 0) printf("SKIP thread_multiple: library provides thread level %d only\n", provided);
    CHECK_MPI(MPI_Finalize());
    return 0;
  }
  g_peer = (g_rank % 2 == 0) ? (g_rank + 1 < size ? g_rank + 1 : g_rank) : g_rank - 1;
  g_comms[0] = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &g_comms[1]));

  pthread_t th[2];
  for (int t = 0; t < 2; t++) CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < 2; t++) CHECK(pthread_join(th[t], NULL) == 0);

  CHECK_MPI(MPI_Comm_free(&g_comms[1]));
  check_pass("thread_multiple");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
