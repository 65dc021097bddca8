/* coll_ft <dead|revoke> — the failure rules for the collectives of issue 4 (run with --with-ft ulfm).
 *
 * dead: the last rank dies (raise(SIGKILL)) right after a barrier; the survivors call, twice each, the blocking
 *   and non-blocking collectives whose every result depends on it (Allgatherv, Alltoall, Alltoallv, Alltoallw,
 *   Reduce_scatter, Reduce_scatter_block, Iallgather, Ialltoall, Ibarrier, Iallreduce, Ireduce_scatter_block):
 *   each returns MPI_ERR_PROC_FAILED (non-blocking ones at MPI_Wait, never at initiation) and never hangs.
 *   Gatherv with root 0 fails at the root; Scan and Exscan fail or succeed with the right prefix. After
 *   MPIX_Comm_shrink the same collectives succeed on the survivors with the right results.
 * revoke: on a duplicate of MPI_COMM_WORLD every rank but 0 starts an Ialltoall that cannot complete (rank 0
 *   never joins); rank 0 revokes the communicator 200 ms later; the pending Ialltoall completes with
 *   MPI_ERR_REVOKED and every later collective on it (blocking or not) reports MPI_ERR_REVOKED.
 * PASS: one survivor prints PASS after the checks above hold on every survivor. */
#include "../ft/ft_check.h"

enum { NB = 11 };
static const char *names[NB] = {"Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce_scatter",
                                "Reduce_scatter_block", "Iallgather", "Ialltoall", "Ibarrier", "Iallreduce",
                                "Ireduce_scatter_block"};

/* Collective `which` on comm with 2 ints per rank: value 100*world + k. Returns the code (of MPI_Wait for the
 * non-blocking ones); checks the data when it succeeded. `wr` maps comm ranks to world ranks. */
static int run(int which, MPI_Comm comm, const int *wr) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *in = malloc(sizeof(int) * 2 * size), *out = malloc(sizeof(int) * 2 * size);
  int *c = malloc(sizeof(int) * size), *d = malloc(sizeof(int) * size), *bd = malloc(sizeof(int) * size);
  MPI_Datatype *t = malloc(sizeof(MPI_Datatype) * size);
  for (int i = 0; i < size; i++) c[i] = 2, d[i] = 2 * i, bd[i] = 2 * i * (int)sizeof(int), t[i] = MPI_INT;
  for (int i = 0; i < 2 * size; i++) in[i] = 100 * wr[rank] + i, out[i] = -1;
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS, nb = which >= 6;
  switch (which) {
    case 0: rc = MPI_Allgatherv(in, 2, MPI_INT, out, c, d, MPI_INT, comm); break;
    case 1: rc = MPI_Alltoall(in, 2, MPI_INT, out, 2, MPI_INT, comm); break;
    case 2: rc = MPI_Alltoallv(in, c, d, MPI_INT, out, c, d, MPI_INT, comm); break;
    case 3: rc = MPI_Alltoallw(in, c, bd, t, out, c, bd, t, comm); break;
    case 4: rc = MPI_Reduce_scatter(in, out, c, MPI_INT, MPI_SUM, comm); break;
    case 5: rc = MPI_Reduce_scatter_block(in, out, 2, MPI_INT, MPI_SUM, comm); break;
    case 6: rc = MPI_Iallgather(in, 2, MPI_INT, out, 2, MPI_INT, comm, &req); break;
    case 7: rc = MPI_Ialltoall(in, 2, MPI_INT, out, 2, MPI_INT, comm, &req); break;
    case 8: rc = MPI_Ibarrier(comm, &req); break;
    case 9: rc = MPI_Iallreduce(in, out, 2, MPI_INT, MPI_SUM, comm, &req); break;
    case 10: rc = MPI_Ireduce_scatter_block(in, out, 2, MPI_INT, MPI_SUM, comm, &req); break;
  }
  if (nb) {
    CHECK(rc == MPI_SUCCESS, "%s failed at initiation (%s)", names[which], ft_class_name(rc));
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  if (rc == MPI_SUCCESS) {
    for (int i = 0; i < size; i++)
      for (int k = 0; k < 2; k++) {
        int sum = 0;
        for (int q = 0; q < size; q++) sum += 100 * wr[q] + 2 * rank + k;
        const int got = out[2 * i + k];
        if (which == 0 || which == 6) CHECK(got == 100 * wr[i] + k, "%s", names[which]);
        if (which == 1 || which == 2 || which == 3 || which == 7)
          CHECK(got == 100 * wr[i] + 2 * rank + k, "%s", names[which]);
        if ((which == 4 || which == 5 || which == 10) && i == 0) CHECK(got == sum, "%s", names[which]);
      }
  }
  free(in), free(out), free(c), free(d), free(bd), free(t);
  return rc;
}

static void dead(int rank, int size) {
  const int victim = size - 1;
  int *wr = malloc(sizeof(int) * size);
  for (int i = 0; i < size; i++) wr[i] = i;
  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == victim) ft_die();
  for (int round = 0; round < 2; round++) {
    for (int w = 0; w < NB; w++) {
      int rc = run(w, MPI_COMM_WORLD, wr);
      CHECK(check_class_of(rc) == MPI_ERR_PROC_FAILED, "%s round %d: %s, expected proc-failed", names[w], round,
            ft_class_name(rc));
    }
    int x[2] = {rank, 1}, y[2] = {-1, -1}, *all = malloc(sizeof(int) * size), *c = malloc(sizeof(int) * size);
    for (int i = 0; i < size; i++) c[i] = 1;
    int rc = MPI_Gatherv(x, 1, MPI_INT, all, c, wr, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) CHECK_CLASS(rc, MPI_ERR_PROC_FAILED);
    CHECK_CLASS2(rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    rc = MPI_Scan(x, y, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_CLASS2(rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    if (rc == MPI_SUCCESS) CHECK(y[0] == rank * (rank + 1) / 2 && y[1] == rank + 1, "scan");
    rc = MPI_Exscan(x, y, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_CLASS2(rc, MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    if (rc == MPI_SUCCESS && rank > 0) CHECK(y[0] == rank * (rank - 1) / 2 && y[1] == rank, "exscan");
    free(all), free(c);
  }
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  MPI_Comm s;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
  CHECK_MPI(MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
  for (int w = 0; w < NB; w++) CHECK_MPI(run(w, s, wr)); /* survivors keep their order: wr still maps */
  MPI_Comm_free(&s);
  free(wr);
}

/* The revoked communicator is freed only after ft_pass: see the comment in main(). */
static MPI_Comm revoked_comm = MPI_COMM_NULL;

static void revoke(int rank, int size) {
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &revoked_comm));
  CHECK_MPI(MPI_Comm_set_errhandler(revoked_comm, MPI_ERRORS_RETURN));
  int *wr = malloc(sizeof(int) * size);
  for (int i = 0; i < size; i++) wr[i] = i;
  if (rank == 0) {
    ft_sleep_ms(200);
    CHECK_MPI(MPIX_Comm_revoke(revoked_comm));
  } else {
    const double t0 = ft_now();
    CHECK_CLASS(run(7, revoked_comm, wr), MPI_ERR_REVOKED); /* pending Ialltoall interrupted */
    CHECK(ft_now() - t0 < 20.0, "the revoke took too long to interrupt");
  }
  for (int w = 0; w < NB; w++) CHECK_CLASS(run(w, revoked_comm, wr), MPI_ERR_REVOKED);
  int x = 1, y;
  CHECK_CLASS(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, revoked_comm), MPI_ERR_REVOKED);
  free(wr);
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(argc >= 2 && size >= 3, "usage: coll_ft dead|revoke (3 ranks or more)");
  if (strcmp(argv[1], "dead") == 0)
    dead(rank, size);
  else
    revoke(rank, size);
  /* Freeing the revoked duplicate before the shrink of ft_pass lets the shrunk communicator reuse its context
   * id, and a revoke notice still being forwarded then revokes the new communicator (a known limitation of
   * context reuse after a revoke, reported to the FT layer); so free it at the end. */
  ft_pass(MPI_COMM_WORLD, argv[1]);
  if (revoked_comm != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&revoked_comm));
  MPI_Finalize();
  return 0;
}
