/* ft_coll_dead <collective> [victim] — a foundation collective with a dead member. 4–8 ranks, --with-ft ulfm.
 *
 * collective: barrier | bcast | reduce | allreduce | gather | scatter | allgather; the root is always rank 0.
 * victim: the world rank that dies (default size-1). It calls raise(SIGKILL) instead of entering the collective.
 * With the argument "loop" instead (run with --inject rank=R,at=MPI_Allreduce:3), every rank calls
 * MPI_Allreduce repeatedly and rank R is killed by the library at its 3rd call.
 *
 * PASS when, on every survivor:
 *  - the collective returns MPI_ERR_PROC_FAILED or MPI_SUCCESS, never hangs, and:
 *    barrier/allreduce/allgather (the victim never contributed): MPI_ERR_PROC_FAILED on every survivor;
 *    reduce/gather: MPI_ERR_PROC_FAILED at the root; bcast/scatter with the victim as root: MPI_ERR_PROC_FAILED
 *    everywhere; a rank that returns MPI_SUCCESS holds the right data;
 *  - a second call of the same collective on MPI_COMM_WORLD also returns an error or success as above (never
 *    hangs), and the failure is visible in MPIX_Comm_get_failed;
 *  - after MPIX_Comm_shrink the same collective on the shrunk communicator succeeds with the right result;
 *  - loop mode: every survivor completes 2 Allreduces and fails the 3rd (or, as collectives are not uniform under
 *    failures, completes 1 and fails the 2nd, which the victim left just before dying). */
#include "ft_check.h"

enum { BARRIER, BCAST, REDUCE, ALLREDUCE, GATHER, SCATTER, ALLGATHER };
static const char *names[] = {"barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather"};

/* Run collective `which` on `comm` (root `root`); values contributed are 100 + world rank. Returns the MPI
 * return code; checks the data when the call succeeded. `wranks` maps comm ranks to world ranks. */
static int run(int which, MPI_Comm comm, int root, const int *wranks) {
  int rank, size, me;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  me = wranks[rank];
  int v = 100 + me, out = -1, rc = MPI_SUCCESS;
  int *all = calloc((size_t)size, sizeof(int));
  CHECK(all != NULL);
  int expect_sum = 0;
  for (int i = 0; i < size; i++) expect_sum += 100 + wranks[i];
  switch (which) {
    case BARRIER: rc = MPI_Barrier(comm); break;
    case BCAST:
      out = (rank == root) ? v : -1;
      rc = MPI_Bcast(&out, 1, MPI_INT, root, comm);
      if (rc == MPI_SUCCESS) CHECK(out == 100 + wranks[root], "bcast got %d", out);
      break;
    case REDUCE:
      rc = MPI_Reduce(&v, &out, 1, MPI_INT, MPI_SUM, root, comm);
      if (rc == MPI_SUCCESS && rank == root) CHECK(out == expect_sum, "reduce got %d want %d", out, expect_sum);
      break;
    case ALLREDUCE:
      rc = MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_SUM, comm);
      if (rc == MPI_SUCCESS) CHECK(out == expect_sum, "allreduce got %d want %d", out, expect_sum);
      break;
    case GATHER:
      rc = MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, root, comm);
      if (rc == MPI_SUCCESS && rank == root)
        for (int i = 0; i < size; i++) CHECK(all[i] == 100 + wranks[i], "gather[%d] = %d", i, all[i]);
      break;
    case SCATTER:
      for (int i = 0; i < size; i++) all[i] = 1000 + wranks[i];
      rc = MPI_Scatter(all, 1, MPI_INT, &out, 1, MPI_INT, root, comm);
      if (rc == MPI_SUCCESS) CHECK(out == 1000 + me, "scatter got %d", out);
      break;
    case ALLGATHER:
      rc = MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, comm);
      if (rc == MPI_SUCCESS)
        for (int i = 0; i < size; i++) CHECK(all[i] == 100 + wranks[i], "allgather[%d] = %d", i, all[i]);
      break;
  }
  free(all);
  return rc;
}

/* The rules of the header comment for a collective the victim never entered. */
static void check_outcome(int which, int rc, int rank, int root, int victim, int round) {
  CHECK(rc == MPI_SUCCESS || check_class_of(rc) == MPI_ERR_PROC_FAILED,
        "%s round %d: unexpected code %d (%s)", names[which], round, rc, check_errstr(rc));
  int must_fail = which == BARRIER || which == ALLREDUCE || which == ALLGATHER ||
                  ((which == REDUCE || which == GATHER) && rank == root) ||
                  ((which == BCAST || which == SCATTER) && root == victim);
  if (must_fail)
    CHECK(rc != MPI_SUCCESS, "%s round %d: succeeded although rank %d never took part", names[which], round,
          victim);
}

static int loop_mode(int rank, int size) {
  int done = 0, rc = MPI_SUCCESS;
  int *wr = malloc((size_t)size * sizeof(int));
  for (int i = 0; i < size; i++) wr[i] = i;
  for (done = 0; done < 10; done++) {
    rc = run(ALLREDUCE, MPI_COMM_WORLD, 0, wr);
    if (rc != MPI_SUCCESS) break;
  }
  free(wr);
  CHECK_CLASS(rc, MPI_ERR_PROC_FAILED);
  /* 1 is possible: the victim may leave its 2nd Allreduce and die before a survivor's 2nd has completed */
  CHECK(done == 2 || done == 1, "rank %d completed %d Allreduces, expected 2 (the victim died at its 3rd)", rank,
        done);
  return 0;
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(argc >= 2, "usage: ft_coll_dead <collective>|loop [victim]");
  CHECK(size >= 3, "needs at least 3 ranks");

  if (strcmp(argv[1], "loop") == 0) {
    loop_mode(rank, size);
  } else {
    int which = -1;
    for (int i = 0; i < 7; i++)
      if (strcmp(argv[1], names[i]) == 0) which = i;
    CHECK(which >= 0, "unknown collective %s", argv[1]);
    int victim = argc >= 3 ? atoi(argv[2]) : size - 1;
    int root = 0; /* victim 0: the root itself dies */
    int *wr = malloc((size_t)size * sizeof(int));
    for (int i = 0; i < size; i++) wr[i] = i;

    ft_barrier_before_death(MPI_COMM_WORLD);
    if (rank == victim) ft_die();
    for (int round = 0; round < 2; round++) {
      int rc = run(which, MPI_COMM_WORLD, root, wr);
      check_outcome(which, rc, rank, root, victim, round);
    }
    ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
    CHECK(ft_is_failed(MPI_COMM_WORLD, victim));

    /* the survivors repair and the collective works again */
    MPI_Comm s;
    CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
    CHECK_MPI(MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
    int ssize = 0, srank = -1;
    MPI_Comm_size(s, &ssize);
    MPI_Comm_rank(s, &srank);
    CHECK(ssize == size - 1, "shrunk to %d ranks", ssize);
    for (int i = 0, j = 0; i < size; i++)
      if (i != victim) wr[j++] = i;
    CHECK(wr[srank] == rank, "shrink keeps the old order");
    CHECK_MPI(run(which, s, 0, wr));
    CHECK_MPI(run(which, s, ssize - 1, wr));
    MPI_Comm_free(&s);
    free(wr);
  }
  ft_pass(MPI_COMM_WORLD, argv[1]);
  MPI_Finalize();
  return 0;
}
