/* ft_revoke_loop — a revoke reaches ranks that spin on a failing collective (issue 12 item 1). 5 ranks,
 * --with-ft ulfm.
 *
 * Rank 4 dies. Ranks 1..3 loop on a call on c = dup(MPI_COMM_WORLD) until it returns MPI_ERR_REVOKED —
 * argv[1]: barrier (MPI_Barrier only), allreduce (MPI_Allreduce only), mixed (Barrier, Allreduce and a Send to
 * the dead rank in turn): every call fails (a member is dead), and
 * the revoke only arrives as frames waiting in the transports, so a failing call must still read them.
 * Rank 0 waits until it knows of the failure, lets the others spin for 200 ms, then revokes c.
 *
 * PASS when every looping rank sees MPI_ERR_REVOKED within 5 s of the revoke (the time from the revoke to
 * the last rank seeing it is printed: "revoke seen by all after X ms"), every error before it is
 * MPI_ERR_PROC_FAILED (or success for the calls that do not need the dead rank), and the survivors shrink
 * c and agree. Before the fix, failing collectives returned at once without progress: the loops never saw
 * the revoke (livelock, caught here by the 5 s bound). */
#include "ft_check.h" /* first: it sets _POSIX_C_SOURCE */

#include <string.h>

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 5, "needs 5 ranks");
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  CHECK(ft_sync_all(c) == MPI_SUCCESS);
  if (rank == 4) ft_die();

  const char *mode = argc > 1 ? argv[1] : "mixed";
  const int fixed = strcmp(mode, "barrier") == 0 ? 0 : strcmp(mode, "allreduce") == 0 ? 1 : -1;
  double t_seen = 0.0, t_revoke = 0.0;
  long iterations = 0;
  if (rank == 0) {
    ft_wait_failed(c, 1, 10.0);
    ft_sleep_ms(200);
    t_revoke = ft_now();
    CHECK_MPI(MPIX_Comm_revoke(c));
    t_seen = t_revoke;
  } else {
    ft_wait_failed(c, 1, 10.0);
    double t0 = ft_now();
    for (;;) {
      int in = rank, out = 0, rc;
      switch (fixed >= 0 ? fixed : (int)(iterations % 3)) {
        case 0: rc = MPI_Barrier(c); break;
        case 1: rc = MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, c); break;
        default: rc = MPI_Send(&in, 1, MPI_INT, 4, 7, c); break;
      }
      ++iterations;
      int cls = check_class_of(rc);
      if (cls == MPI_ERR_REVOKED) break;
      CHECK(cls == MPI_ERR_PROC_FAILED, "iteration %ld: expected proc-failed or revoked, got %s", iterations,
            ft_class_name(rc));
      CHECK(ft_now() - t0 < 8.0, "still not revoked after %.1f s and %ld failing calls (livelock)",
            ft_now() - t0, iterations);
    }
    t_seen = ft_now();
  }

  MPI_Comm s = MPI_COMM_NULL;
  CHECK_MPI(MPIX_Comm_shrink(c, &s));
  CHECK_MPI(MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
  double t_rev = 0.0, t_last = 0.0;
  CHECK_MPI(MPI_Allreduce(&t_revoke, &t_rev, 1, MPI_DOUBLE, MPI_MAX, s));
  CHECK_MPI(MPI_Allreduce(&t_seen, &t_last, 1, MPI_DOUBLE, MPI_MAX, s));
  long iters_max = 0;
  CHECK_MPI(MPI_Allreduce(&iterations, &iters_max, 1, MPI_LONG, MPI_MAX, s));
  CHECK(t_last - t_rev < 5.0, "the last rank saw the revoke %.2f s after it", t_last - t_rev);
  if (rank == 0) {
    printf("revoke seen by all after %.3f ms (at most %ld failing calls per rank before)\n",
           (t_last - t_rev) * 1e3, iters_max);
    fflush(stdout);
  }
  int flag = 1;
  CHECK_MPI(MPIX_Comm_agree(s, &flag));
  CHECK(flag == 1);
  MPI_Comm_free(&s);
  ft_pass(c, "ft_revoke_loop");
  MPI_Comm_free(&c);
  MPI_Finalize();
  return 0;
}
