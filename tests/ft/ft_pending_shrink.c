/* ft_pending_shrink — a shrink in flight while the same processes create communicators by blocking calls, FT mode.
 * MPIX_Comm_ishrink completes in the progress loop, so MPI lets a program start it, then run other collectives
 * (MPI_Comm_dup, MPI_Comm_create_group, MPI_Comm_split on MPI_COMM_WORLD or another communicator) before waiting
 * for it; at MPI_THREAD_MULTIPLE a blocking MPIX_Comm_shrink in one thread can likewise overlap creations in
 * another. The shrink's context id must not collide with theirs (before the fix the shrink agreement offered the
 * blocking allocator's free slots without reserving them: a blocking creation claimed the lowest common one
 * meanwhile and the shrink decided the same slot — MPI_ERR_INTERN "context id already in use").
 * --with-ft ulfm, 4 ranks or more. Argument: the mode.
 *   nokill:  per iteration, MPIX_Comm_ishrink(MPI_COMM_WORLD), then MPI_Comm_dup, MPI_Comm_create_group and
 *            MPI_Comm_split of MPI_COMM_WORLD, then the wait; nobody fails.
 *   kill:    the same, the blocking creations on `live` (every rank but the last, made at the start); the last
 *            rank SIGKILLs itself at iteration KILL_AT: from then on the shrink must give the survivors.
 *   thread:  MPI_THREAD_MULTIPLE; a second thread loops on the blocking MPIX_Comm_shrink(MPI_COMM_WORLD) while
 *            the main thread loops on dup / create_group / split of a duplicate of MPI_COMM_WORLD.
 *   threadkill: the same with the creations on `live`; the last rank SIGKILLs itself (from its shrink thread)
 *            before its KILL_AT-th shrink.
 *   lamthread: threadkill in LAM's reliable mode (--with-ft lam), the second thread looping on
 *            MPI_Comm_split(MPI_COMM_WORLD, 0, rank) instead of a shrink: once the victim is dead, each such split
 *            runs LAM's survivors step (models/lam/lam_split.cpp), an agreement on a context id like a shrink's
 *            (before its fix it offered the blocking allocator's free slots without reserving them).
 * Each shrunk communicator must hold exactly the expected processes (group compare: IDENT), and every new
 * communicator must work: an allreduce with a value of its own gives the right sum.
 * PASS: every call succeeds, every check holds, ITERS iterations. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>

#include "ft_check.h"

#define ITERS 30
#define KILL_AT 5

static int rank, size, victim, kill_mode, lam_mode;
static MPI_Group wg, survivors;

/* Allreduce over c of a value distinct for each kind of communicator (k), checked. */
static void check_comm(MPI_Comm c, int expect_size, int k, const char *what, int it) {
  CHECK(c != MPI_COMM_NULL, "iteration %d: %s gave no communicator", it, what);
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  int n = 0;
  MPI_Comm_size(c, &n);
  CHECK(n == expect_size, "iteration %d: %s has %d members, want %d", it, what, n, expect_size);
  int v = 1000 * (k + 1), sum = 0;
  CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == v * n, "iteration %d: %s: allreduce gave %d, want %d (contexts mixed?)", it, what, sum, v * n);
}

/* The shrunk communicator of iteration `it`: every rank before the kill, the survivors after. */
static void check_shrunk(MPI_Comm s, int it) {
  const int after = kill_mode && it >= KILL_AT;
  check_comm(s, after ? size - 1 : size, 0, "shrink", it);
  MPI_Group g;
  int cmp = MPI_UNEQUAL;
  CHECK_MPI(MPI_Comm_group(s, &g));
  CHECK_MPI(MPI_Group_compare(g, after ? survivors : wg, &cmp));
  CHECK(cmp == MPI_IDENT, "iteration %d: the shrunk communicator is not the %s in order (compare %d)", it,
        after ? "survivors" : "whole world", cmp);
  MPI_Group_free(&g);
}

/* Blocking creations on p (every member of p calls them): dup, create_group over p's group, split by parity of
 * the world rank; each checked, then freed. */
static void blocking_creations(MPI_Comm p, int it) {
  int psize = 0, same = 0;
  MPI_Comm_size(p, &psize);
  MPI_Group pg;
  CHECK_MPI(MPI_Comm_group(p, &pg));
  /* Members of p with this rank's parity (p's members are world ranks 0..psize-1 here). */
  for (int r = 0; r < psize; r++) same += r % 2 == rank % 2;
  MPI_Comm d = MPI_COMM_NULL, g = MPI_COMM_NULL, sp = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_dup(p, &d));
  CHECK_MPI(MPI_Comm_create_group(p, pg, 11, &g));
  CHECK_MPI(MPI_Comm_split(p, rank % 2, rank, &sp));
  check_comm(d, psize, 1, "dup", it);
  check_comm(g, psize, 2, "create_group", it);
  check_comm(sp, same, 3, "split", it);
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK_MPI(MPI_Comm_free(&g));
  CHECK_MPI(MPI_Comm_free(&sp));
  MPI_Group_free(&pg);
}

static void *shrink_loop(void *arg) {
  (void)arg;
  for (int it = 0; it < ITERS; it++) {
    if (kill_mode && it == KILL_AT && rank == victim) ft_die();
    MPI_Comm s = MPI_COMM_NULL;
    const int rc = lam_mode ? MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &s) : MPIX_Comm_shrink(MPI_COMM_WORLD, &s);
    CHECK(rc == MPI_SUCCESS, "iteration %d: %s: %s (%d)", it, lam_mode ? "MPI_Comm_split (LAM)" : "MPIX_Comm_shrink",
          ft_class_name(rc), rc);
    check_shrunk(s, it);
    CHECK_MPI(MPI_Comm_free(&s));
  }
  return NULL;
}

int main(int argc, char **argv) {
  CHECK(argc > 1, "usage: ft_pending_shrink nokill|kill|thread|threadkill|lamthread");
  const char *mode = argv[1];
  lam_mode = strcmp(mode, "lamthread") == 0;
  const int threads = strncmp(mode, "thread", 6) == 0 || lam_mode;
  kill_mode = strcmp(mode, "kill") == 0 || strcmp(mode, "threadkill") == 0 || lam_mode;
  CHECK(kill_mode || strcmp(mode, "nokill") == 0 || strcmp(mode, "thread") == 0, "unknown mode %s", mode);
  if (threads) {
    int provided = 0;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
  } else {
    CHECK_MPI(MPI_Init(&argc, &argv));
  }
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 4, "needs 4 ranks or more");
  victim = size - 1;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Group_excl(wg, 1, &victim, &survivors));
  /* Where the blocking creations run: all of MPI_COMM_WORLD (a duplicate with threads: the two threads' collectives
   * must be on different communicators), or `live`, which the victim is not part of. */
  MPI_Comm p = MPI_COMM_NULL;
  if (kill_mode) {
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank == victim ? MPI_UNDEFINED : 0, rank, &p));
  } else if (threads) {
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &p));
  } else {
    p = MPI_COMM_WORLD;
  }
  if (p != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_set_errhandler(p, MPI_ERRORS_RETURN));

  if (threads) {
    pthread_t t;
    CHECK(pthread_create(&t, NULL, shrink_loop, NULL) == 0, "pthread_create");
    if (p != MPI_COMM_NULL)
      for (int it = 0; it < ITERS; it++) blocking_creations(p, it);
    CHECK(pthread_join(t, NULL) == 0, "pthread_join");
  } else {
    for (int it = 0; it < ITERS; it++) {
      if (kill_mode && it == KILL_AT && rank == victim) ft_die();
      MPI_Comm s = MPI_COMM_NULL;
      MPI_Request q = MPI_REQUEST_NULL;
      CHECK_MPI(MPIX_Comm_ishrink(MPI_COMM_WORLD, &s, &q));
      if (p != MPI_COMM_NULL) blocking_creations(p, it);  /* while the shrink is pending */
      const int rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
      CHECK(rc == MPI_SUCCESS, "iteration %d: MPIX_Comm_ishrink: %s (%d)", it, ft_class_name(rc), rc);
      check_shrunk(s, it);
      CHECK_MPI(MPI_Comm_free(&s));
    }
  }
  if (p != MPI_COMM_NULL && p != MPI_COMM_WORLD) CHECK_MPI(MPI_Comm_free(&p));
  MPI_Group_free(&survivors);
  MPI_Group_free(&wg);
  if (rank == 0) printf("ft_pending_shrink %s: %d iterations\n", mode, ITERS);
  ft_pass(MPI_COMM_WORLD, "ft_pending_shrink");  /* (it shrinks first) */
  CHECK_MPI(MPI_Finalize());
  return 0;
}
