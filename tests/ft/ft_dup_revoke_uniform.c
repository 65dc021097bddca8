/* ft_dup_revoke_uniform — MPI_Comm_dup is uniform when a revoke of the parent races it (ULFM: a creation
 * succeeds at every survivor or fails at every one). --with-ft ulfm. Argument: "thread" or "skip".
 * TRIALS trials, each on a fresh parent (a dup of MPI_COMM_WORLD); every rank loops MPI_Comm_dup(parent) (each
 * new communicator freed at once) until a dup fails, counting its successes.
 *   thread (MPI_THREAD_MULTIPLE): rank (trial % size) has a second thread that revokes the parent after a
 *     pseudo-random number of its main thread's dups and a pseudo-random pause, so the revoke lands anywhere
 *     in a dup (before, inside or between the rounds of its context-id agreement, src/comm/comm_ops.h) at
 *     the revoker and, as it spreads, at the others.
 *   skip: rank (trial % size) revokes the parent in its main thread instead of its j-th dup and stops (it
 *     skipped the collective: what a revoke is for); the others must all fail exactly their j-th dup.
 * Uniformity, checked on a dup of MPI_COMM_WORLD made at the start (not the revoked parent) by an allgather of
 * (successes, error class): every rank made the same number of dups and failed the next with MPI_ERR_REVOKED.
 * PASS: that, every trial, no hang. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "ft_check.h"

#define TRIALS 40
#define MAX_DUPS 100000
static int rank, size;
static MPI_Comm parent;
static atomic_int dups_done;
static int revoke_after, pause_us;

static void *revoker(void *arg) {
  (void)arg;
  while (atomic_load(&dups_done) < revoke_after) ft_sleep_ms(0);
  ft_spin_us(pause_us);
  CHECK_MPI(MPIX_Comm_revoke(parent));
  return NULL;
}

int main(int argc, char **argv) {
  CHECK(argc > 1, "usage: ft_dup_revoke_uniform thread|skip");
  const int threaded = strcmp(argv[1], "thread") == 0;
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, threaded ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(!threaded || provided == MPI_THREAD_MULTIPLE, "thread level %d", provided);
  MPI_Comm check;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &check));
  CHECK_MPI(MPI_Comm_set_errhandler(check, MPI_ERRORS_RETURN));
  int *all = malloc(sizeof(int) * 2 * (size_t)size);
  CHECK(all != NULL);
  int total = 0;
  for (int trial = 0; trial < TRIALS; trial++) {
    const int who = trial % size;
    const unsigned h = ft_mix((unsigned)trial * 2654435761u + 12345u);
    const int j = 1 + (int)(h % 6u);  /* skip: the dup the revoker skips; thread: dups before the revoke */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
    CHECK_MPI(MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN));
    atomic_store(&dups_done, 0);
    revoke_after = j;
    pause_us = (int)((h >> 8) % 400u);
    pthread_t th;
    if (threaded && rank == who) CHECK(pthread_create(&th, NULL, revoker, NULL) == 0);
    int ok = 0, cls = MPI_SUCCESS;
    for (; ok < MAX_DUPS; ok++) {
      if (!threaded && rank == who && ok == j - 1) {
        CHECK_MPI(MPIX_Comm_revoke(parent));
        cls = MPI_ERR_REVOKED;  /* this rank's outcome of the dup it skipped */
        break;
      }
      MPI_Comm d = MPI_COMM_NULL;
      const int rc = MPI_Comm_dup(parent, &d);
      if (rc != MPI_SUCCESS) {
        cls = check_class_of(rc);
        break;
      }
      CHECK_MPI(MPI_Comm_free(&d));
      atomic_fetch_add(&dups_done, 1);
    }
    if (threaded && rank == who) CHECK(pthread_join(th, NULL) == 0);
    CHECK(ok < MAX_DUPS, "trial %d: %d dups, no error", trial, MAX_DUPS);
    int mine[2] = {ok, cls};
    CHECK_MPI(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, check));
    for (int p = 0; p < size; p++)
      CHECK(all[2 * p] == all[0] && all[2 * p + 1] == MPI_ERR_REVOKED,
            "trial %d (revoker %d): rank %d made %d dups then %s, rank 0 made %d then %s: not uniform", trial, who, p,
            all[2 * p], ft_class_name(all[2 * p + 1]), all[0], ft_class_name(all[1]));
    if (!threaded) CHECK(all[0] == j - 1, "trial %d: %d dups, the revoker skipped dup %d", trial, all[0], j);
    total += all[0];
    CHECK_MPI(MPI_Comm_free(&parent));
  }
  if (rank == 0) printf("%d trials, %d dups before the revokes\n", TRIALS, total);
  free(all);
  MPI_Comm_free(&check);
  ft_pass(MPI_COMM_WORLD, "ft_dup_revoke_uniform");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
