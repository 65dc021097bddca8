/* ft_coll_shm <mode> <victim> — failures in the middle of a loop of small collectives (8-byte Bcast, Allreduce,
 * Reduce, Barrier), which ftmpi runs through its shared-memory collective area when every rank is on one host
 * (coll/shm_area.h). 4-8 ranks, --with-ft ulfm.
 *  - kill:   rank `victim` kills itself (SIGKILL) at a pseudo-random iteration (100-400) of the loop.
 *  - stop:   mpiexec stops rank `victim` (--inject ...,signal=STOP); the heartbeat detector declares it hung.
 *  - revoke: rank `victim` revokes MPI_COMM_WORLD at a pseudo-random iteration and leaves the loop.
 *  - leave:  (3+ ranks) two Barriers, then rank `victim` dies (SIGKILL); rank 0 waits until a receive from it
 *            fails and leaves the collective sequence (as a rank whose collective failed does), every other
 *            survivor calls a third Barrier — in ftmpi the one that sets the area up — which must fail with
 *            MPI_ERR_PROC_FAILED (a member is dead), not wait for rank 0 (the hang found with
 *            launcher.ft_early_stop, coll/shm_area.h "Failures").
 * PASS: every survivor leaves the loop with MPI_ERR_PROC_FAILED or MPI_ERR_REVOKED (REVOKED for `revoke`)
 * within 20 s, every result computed before is right, and after revoke + shrink the survivors run 2000
 * more iterations of the loop on the shrunk communicator with the right results. Nothing hangs. */
#include "ft_check.h" /* first: it sets _POSIX_C_SOURCE */

#include <stdlib.h>
#include <string.h>

/* One iteration on `comm`: returns the first error code, checks every result. */
static int one_iteration(MPI_Comm comm, int i) {
  int rank, size, rc;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int root = i % size;
  long long b = rank == root ? 1000LL * i + root : -1;
  if ((rc = MPI_Bcast(&b, 1, MPI_LONG_LONG, root, comm)) != MPI_SUCCESS) return rc;
  CHECK(b == 1000LL * i + root, "iteration %d: Bcast gave %lld", i, b);
  double x = (double)(rank + 1) * (i + 1), sum = 0;
  if ((rc = MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, comm)) != MPI_SUCCESS) return rc;
  CHECK(sum == (double)size * (size + 1) / 2 * (i + 1), "iteration %d: Allreduce gave %g", i, sum);
  int v = rank + i, mx = -1;
  if ((rc = MPI_Reduce(&v, &mx, 1, MPI_INT, MPI_MAX, (root + 1) % size, comm)) != MPI_SUCCESS) return rc;
  if (rank == (root + 1) % size) CHECK(mx == size - 1 + i, "iteration %d: Reduce gave %d", i, mx);
  return MPI_Barrier(comm);
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(argc == 3, "usage: ft_coll_shm kill|stop|revoke <victim>");
  const char *mode = argv[1];
  const int victim = atoi(argv[2]);
  CHECK(victim >= 0 && victim < size && size >= 2, "bad victim %d", victim);
  srand((unsigned)time(NULL) + 7u);
  const int at = 100 + rand() % 300; /* only the victim uses it */

  double t0 = ft_now();
  int rc = MPI_SUCCESS, i = 0;
  if (strcmp(mode, "leave") == 0) {
    CHECK(size >= 3 && victim != 0, "leave: 3+ ranks and a victim other than 0");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == victim) ft_die();
    if (rank == 0) {
      int x = 0;
      rc = MPI_Recv(&x, 1, MPI_INT, victim, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(check_class_of(rc) == MPI_ERR_PROC_FAILED, "leave: receive from the dead rank gave %s", ft_class_name(rc));
    } else {
      rc = MPI_Barrier(MPI_COMM_WORLD);
      CHECK(check_class_of(rc) == MPI_ERR_PROC_FAILED, "leave: Barrier with a dead member gave %s", ft_class_name(rc));
    }
    CHECK(ft_now() - t0 < 20.0, "leave: the failure took %.1f s", ft_now() - t0);
    i = 2;
    goto repair;
  }
  for (;; i++) {
    if (rank == victim && i == at) {
      if (strcmp(mode, "kill") == 0) ft_die();
      if (strcmp(mode, "revoke") == 0) {
        CHECK_MPI(MPIX_Comm_revoke(MPI_COMM_WORLD));
        rc = MPI_ERR_REVOKED;
        break;
      }
    }
    rc = one_iteration(MPI_COMM_WORLD, i);
    if (rc != MPI_SUCCESS) break;
    CHECK(ft_now() - t0 < 20.0, "no failure seen after %d iterations (20 s)", i);
  }
  CHECK(rank != victim || strcmp(mode, "revoke") == 0, "the victim survived");
  if (strcmp(mode, "revoke") == 0)
    CHECK(check_class_of(rc) == MPI_ERR_REVOKED, "iteration %d: %s, expected revoked", i, ft_class_name(rc));
  else
    CHECK(check_class_of(rc) == MPI_ERR_PROC_FAILED || check_class_of(rc) == MPI_ERR_REVOKED,
          "iteration %d: %s", i, ft_class_name(rc));
repair:;
  double t_fail = ft_now() - t0;

  /* leave: no revoke, as in launcher ft_start (a revoke would end the others' Barrier whatever it waits for) */
  if (strcmp(mode, "leave") != 0) MPIX_Comm_revoke(MPI_COMM_WORLD);
  MPI_Comm small;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &small));
  CHECK_MPI(MPI_Comm_set_errhandler(small, MPI_ERRORS_RETURN));
  int sn;
  MPI_Comm_size(small, &sn);
  CHECK(sn == (strcmp(mode, "revoke") == 0 ? size : size - 1), "shrunk to %d ranks", sn);
  for (int k = 0; k < 2000; k++) CHECK_MPI(one_iteration(small, k));
  CHECK_MPI(MPI_Comm_free(&small));
  if (rank == 0 || (rank == 1 && victim == 0))
    printf("PASS ft_coll_shm %s: left the loop after %d iterations, %.3f s, with %s\n", mode, i, t_fail,
           ft_class_name(rc));
  MPI_Finalize();
  return 0;
}
