/* ft_pending_creations — several communicator creations outstanding on one parent at once (MPI: allowed as long as
 * every member starts them in the same order), FT mode: a non-blocking creation (FA-MPI's MPI_Comm_igroup_sync,
 * or MPI_Comm_idup) pending while blocking creations (MPI_Comm_create_group, MPI_Comm_dup) run on the same parent.
 * Before the fix an MPI_Comm_igroup_sync pending next to an MPI_Comm_create_group failed with MPI_ERR_INTERN
 * ("context id already in use"): the FA-MPI agreement offered every free slot without reserving it, the blocking
 * creation claimed the lowest common one meanwhile, and the FA-MPI decision picked the same slot.
 * --with-ft ulfm, 4 ranks or more. Argument: the mode.
 *   group:   per iteration, on MPI_COMM_WORLD: igroup_sync over G (the whole group in even iterations: a split of
 *            the parent; a strict subset in odd ones: an agreement channel), then a blocking create_group over G
 *            (another tag), then a second igroup_sync, then a blocking MPI_Comm_dup; then the requests are waited
 *            for (in either order).
 *   idup:    the same with MPI_Comm_idup in place of the igroup_syncs (idup takes ids of its own pool: checks that
 *            the mix works).
 *   many:    four igroup_syncs outstanding at once (distinct tags, alternately over G and the whole group), then
 *            a blocking create_group, then the waits.
 * Every new communicator must work (an allreduce over it gives its size) and all communicators a process holds at
 * once must have distinct contexts (the allreduce on each would mix messages otherwise: each sums a different
 * value).
 * PASS: every call succeeds, every sum is right, ITERS iterations. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "ft_check.h"

#define ITERS 40
#define MAXC 8

static int rank, size;

/* Allreduce over c of a value that is distinct for each communicator (k), checked. */
static void check_comm(MPI_Comm c, int expect_size, int k, const char *what, int it) {
  CHECK(c != MPI_COMM_NULL, "iteration %d: %s gave no communicator", it, what);
  int n = 0;
  MPI_Comm_size(c, &n);
  CHECK(n == expect_size, "iteration %d: %s has %d members, want %d", it, what, n, expect_size);
  int v = 1000 * (k + 1), sum = 0;
  CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == v * n, "iteration %d: %s: allreduce gave %d, want %d (contexts mixed?)", it, what, sum, v * n);
}

int main(int argc, char **argv) {
  CHECK(argc > 1, "usage: ft_pending_creations group|idup|many");
  const char *mode = argv[1];
  const int idup = strcmp(mode, "idup") == 0, many = strcmp(mode, "many") == 0;
  CHECK(idup || many || strcmp(mode, "group") == 0, "unknown mode %s", mode);
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 4, "needs 4 ranks or more");
  MPI_Group wg, sub;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  const int outside = size - 1;
  CHECK_MPI(MPI_Group_excl(wg, 1, &outside, &sub));
  for (int it = 0; it < ITERS; it++) {
    const int whole = it % 2 == 0;
    MPI_Group g = whole ? wg : sub;
    const int member = whole || rank != outside;
    const int gsize = whole ? size : size - 1;
    MPI_Comm c[MAXC];
    MPI_Request q[MAXC];
    int expect[MAXC], nq = 0, nc = 0;
    for (int i = 0; i < MAXC; i++) {
      c[i] = MPI_COMM_NULL;
      q[i] = MPI_REQUEST_NULL;
    }
    if (many) {
      for (int i = 0; i < 4; i++) {
        const int w = (i + it) % 2 == 0;
        if (!w && rank == outside) continue;  /* not a member of that one */
        CHECK_MPI(MPI_Comm_igroup_sync(MPI_COMM_WORLD, 20 + i, w ? wg : sub, MPI_TIMEOUT_ZERO, &c[nc], &q[nq]));
        expect[nc] = w ? size : size - 1;
        nc++;
        nq++;
      }
      if (member) {
        CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, &c[nc]));
        expect[nc++] = gsize;
      }
    } else {
      if (member) {
        if (idup)
          CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &c[nc], &q[nq++]));
        else
          CHECK_MPI(MPI_Comm_igroup_sync(MPI_COMM_WORLD, 7, g, MPI_TIMEOUT_ZERO, &c[nc], &q[nq++]));
        expect[nc++] = idup ? size : gsize;
      } else if (idup) {
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &c[nc], &q[nq++]));
        expect[nc++] = size;
      }
      if (member) {
        CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, &c[nc]));
        expect[nc++] = gsize;
      }
      if (idup) {
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &c[nc], &q[nq++]));
        expect[nc++] = size;
      } else if (member) {
        CHECK_MPI(MPI_Comm_igroup_sync(MPI_COMM_WORLD, 8, g, MPI_TIMEOUT_ZERO, &c[nc], &q[nq++]));
        expect[nc++] = gsize;
      }
      CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c[nc]));
      expect[nc++] = size;
    }
    /* Wait in order, or in reverse order. */
    for (int i = 0; i < nq; i++) {
      const int k = it % 4 < 2 ? i : nq - 1 - i;
      const int rc = MPI_Wait(&q[k], MPI_STATUS_IGNORE);
      CHECK(rc == MPI_SUCCESS, "iteration %d: request %d: %s", it, k, ft_class_name(rc));
    }
    /* Every process checks its communicators in the same order: those of the whole group first (every process
     * holds them, in creation order), then those of the subset (its members only). */
    int ord = 0;  /* the same at every process that holds the communicator */
    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < nc; i++)
        if ((expect[i] == size) == (pass == 0)) {
          CHECK_MPI(MPI_Comm_set_errhandler(c[i], MPI_ERRORS_RETURN));
          check_comm(c[i], expect[i], ord++, mode, it);
        }
    for (int i = 0; i < nc; i++) CHECK_MPI(MPI_Comm_free(&c[i]));
  }
  MPI_Group_free(&sub);
  MPI_Group_free(&wg);
  if (rank == 0) printf("ft_pending_creations %s: %d iterations\n", mode, ITERS);
  ft_pass(MPI_COMM_WORLD, "ft_pending_creations");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
