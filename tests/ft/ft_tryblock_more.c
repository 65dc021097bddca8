/* ft_tryblock_more <victim> — the FA-MPI calls ft_tryblock.c does not reach, with a real kill (seed 001 §7).
 * Before the kill (fault-free, every rank):
 *   1. MPI_TryBlock_istart + MPI_Wait_local on the try request, a halo exchange committed by a
 *      MPI_TryBlock_waitsome loop (each request reported once, then the commit): MPI_SUCCESS, try_flag 1;
 *      the same with MPI_TryBlock_testsome; MPI_Testall_local completes a request pair locally;
 *   2. MPI_Comm_rank_raise_error (rank 0 declares the last rank failed on a duplicate) and
 *      MPI_Comm_ranks_raise_error (two ranks on another duplicate): the next block on that duplicate gives
 *      MPI_TASK_FAULT at every member, its failed group is exactly the declared ranks.
 * The victim then dies (SIGKILL) inside a block started with MPI_TryBlock_istart. The survivors:
 *   3. MPI_TryBlock_comm_isync over MPI_COMM_WORLD and MPI_TryBlock_group_isync over the survivors' group
 *      (each completed by MPI_Wait): the same class at every survivor, MPI_TASK_FAULT for the whole
 *      communicator;
 *   4. commit the block around a halo exchange with the dead neighbour by a MPI_TryBlock_testsome loop:
 *      MPI_TASK_FAULT, try_flag 0, a failed group of exactly the victim, at every survivor;
 *   5. MPI_Comm_isplit_local, MPI_Comm_create_group_local and MPI_Comm_igroup_sync build communicators of
 *      the survivors (igroup_sync over the whole group: MPI_GROUP_SHRUNK);
 *   6. MPI_Comm_rank_raise_forall / MPI_Comm_ranks_raise_forall from one survivor: a block on another
 *      communicator (the survivors' one) fails with MPI_TASK_FAULT everywhere and names the declared rank.
 * Uniformity is checked by an Allgather of each outcome over the survivors' communicator.
 * PASS: as above on every survivor, nothing hangs. */
#include "ft_check.h"

#include <string.h>

#define TAG_HALO 21

static int rank, size;

static void halo(MPI_Comm comm, int *out, int *in, MPI_Request reqs[4]) {
  int r, n;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  const int left = (r + n - 1) % n, right = (r + 1) % n;
  out[0] = out[1] = r;
  CHECK_MPI(MPI_Irecv(&in[0], 1, MPI_INT, left, TAG_HALO, comm, &reqs[0]));
  CHECK_MPI(MPI_Irecv(&in[1], 1, MPI_INT, right, TAG_HALO, comm, &reqs[1]));
  CHECK_MPI(MPI_Isend(&out[0], 1, MPI_INT, right, TAG_HALO, comm, &reqs[2]));
  CHECK_MPI(MPI_Isend(&out[1], 1, MPI_INT, left, TAG_HALO, comm, &reqs[3]));
}

/* Commit `tb` around reqs[0..3] by a waitsome (blocking) or testsome loop; returns the commit's code. Each
 * request is reported at most once before the commit. */
static int commit_some(MPI_Request tb, MPI_Request reqs[4], int blocking, int *try_flag, int *gathered) {
  int inj = 0, outcount = 0, idx[4], nerr = 0, eidx[4], seen = 0, rc;
  MPI_Status st[4], ts;
  const double t0 = ft_now();
  for (;;) {
    CHECK(ft_now() - t0 < 30.0, "the %s loop does not end", blocking ? "waitsome" : "testsome");
    if (blocking)
      rc = MPI_TryBlock_waitsome(tb, try_flag, &ts, MPI_INT, &inj, gathered, MPI_TIMEOUT_ZERO, 4, reqs, &outcount, idx,
                                 st, &nerr, eidx);
    else
      rc = MPI_TryBlock_testsome(tb, try_flag, &ts, MPI_INT, &inj, gathered, MPI_TIMEOUT_ZERO, 4, reqs, &outcount, idx,
                                 st, &nerr, eidx);
    seen += outcount;
    CHECK(seen <= 4, "%d requests reported for 4", seen);
    if (ts.MPI_ERROR != MPI_ERR_PENDING) return rc; /* committed */
    CHECK(rc == MPI_SUCCESS, "before the commit: %d", rc);
    if (!blocking) ft_sleep_ms(1);
  }
}

static int failed_group_world_ranks(MPI_Request tb, int *out, int max) {
  MPI_Group fg, wg;
  int n = 0;
  CHECK_MPI(MPI_TryBlock_get_failed(tb, &fg));
  CHECK_MPI(MPI_Group_size(fg, &n));
  CHECK(n <= max, "failed group of %d", n);
  if (n > 0) {
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < n; i++) CHECK_MPI(MPI_Group_translate_ranks(fg, 1, &i, wg, &out[i]));
    MPI_Group_free(&wg);
    MPI_Group_free(&fg);
  }
  return n;
}

/* Every member of `comm` holds the same `v[0..n-1]`. */
static void check_same(MPI_Comm comm, const int *v, int n, const char *what) {
  int m;
  MPI_Comm_size(comm, &m);
  int *all = malloc(sizeof(int) * (size_t)(n * m));
  CHECK(all != NULL);
  CHECK_MPI(MPI_Allgather(v, n, MPI_INT, all, n, MPI_INT, comm));
  for (int i = 0; i < m; i++)
    CHECK(memcmp(&all[i * n], v, sizeof(int) * (size_t)n) == 0, "%s: member %d got %d, I got %d", what, i,
          all[i * n], v[0]);
  free(all);
}

/* A seed block (start + waitall, no requests) on comm; returns the commit's code and the failed group. */
static int empty_block(MPI_Comm comm, int *failed, int *nfailed) {
  int inj = 0, st0[64], g[64], try_flag = -1;
  MPI_Request tb;
  (void)MPI_TryBlock_start(comm, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &tb); /* may already report the fault */
  int rc = MPI_TryBlock_waitall(tb, &try_flag, MPI_STATUS_IGNORE, MPI_INT, &inj, g, MPI_TIMEOUT_ZERO, 0, NULL, NULL,
                                NULL, NULL);
  CHECK(try_flag == (rc == MPI_SUCCESS), "try_flag %d with rc %d", try_flag, rc);
  *nfailed = failed_group_world_ranks(tb, failed, 64);
  CHECK_MPI(MPI_Request_free(&tb));
  return rc;
}

static void fault_free(void) {
  int gathered[64], try_flag = -1, inj = 0, st0[64], out[2], in[2];
  MPI_Request tb, reqs[4];
  MPI_Status s;
  /* 1. istart, Wait_local on the try request (it stays valid), waitsome / testsome commits */
  for (int blocking = 1; blocking >= 0; blocking--) {
    CHECK_MPI(MPI_TryBlock_istart(MPI_COMM_WORLD, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &tb));
    CHECK_MPI(MPI_Wait_local(MPI_TIMEOUT_ZERO, &tb, &s));
    CHECK(tb != MPI_REQUEST_NULL, "Wait_local freed the try request");
    halo(MPI_COMM_WORLD, out, in, reqs);
    int rc = commit_some(tb, reqs, blocking, &try_flag, gathered);
    CHECK(rc == MPI_SUCCESS && try_flag == 1, "%s commit: rc %d try_flag %d", blocking ? "waitsome" : "testsome", rc,
          try_flag);
    CHECK(in[0] == (rank + size - 1) % size && in[1] == (rank + 1) % size, "halo data");
    for (int i = 0; i < 4; i++) CHECK(reqs[i] == MPI_REQUEST_NULL, "the commit frees request %d", i);
    CHECK_MPI(MPI_Request_free(&tb));
  }
  /* Testall_local: completes locally, the requests stay valid until MPI_Waitall frees them */
  {
    int flag = 0;
    halo(MPI_COMM_WORLD, out, in, reqs);
    const double t0 = ft_now();
    while (!flag) { /* zero timeout: tests once (a loaded machine may need many calls) */
      CHECK(ft_now() - t0 < 20.0, "Testall_local never completes");
      CHECK_MPI(MPI_Testall_local(4, reqs, &flag, MPI_TIMEOUT_ZERO, MPI_STATUSES_IGNORE));
    }
    for (int i = 0; i < 4; i++) CHECK(reqs[i] != MPI_REQUEST_NULL, "Testall_local freed request %d", i);
    CHECK_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
  }
  /* 2. rank(s)_raise_error: declared failures are agreed by the next block on that communicator */
  {
    MPI_Comm d1, d2;
    int failed[64], nf, rc;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d1));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d2));
    MPI_Comm_set_errhandler(d1, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(d2, MPI_ERRORS_RETURN);
    if (rank == 0) CHECK_MPI(MPI_Comm_rank_raise_error(d1, size - 1, 7));
    rc = empty_block(d1, failed, &nf);
    CHECK(rc == MPI_TASK_FAULT && nf == 1 && failed[0] == size - 1, "rank_raise_error: rc %d, %d failed", rc, nf);
    int list[2] = {1, 2}, errs[2] = {3, 4};
    if (rank == size - 1) CHECK_MPI(MPI_Comm_ranks_raise_error(d2, 2, list, errs));
    rc = empty_block(d2, failed, &nf);
    CHECK(rc == MPI_TASK_FAULT && nf == 2 && failed[0] == 1 && failed[1] == 2, "ranks_raise_error: rc %d, %d failed",
          rc, nf);
    /* MPI_COMM_WORLD is untouched */
    rc = empty_block(MPI_COMM_WORLD, failed, &nf);
    CHECK(rc == MPI_SUCCESS && nf == 0, "a block on another communicator: rc %d", rc);
    MPI_Comm_free(&d1);
    MPI_Comm_free(&d2);
  }
}

static void after_kill(int victim) {
  int gathered[64], try_flag = -1, inj = 0, st0[64], out[2], in[2], failed[64], nf;
  MPI_Request tb, reqs[4], q;
  CHECK_MPI(ft_sync_all(MPI_COMM_WORLD));
  CHECK_MPI(MPI_TryBlock_istart(MPI_COMM_WORLD, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &tb));
  CHECK_MPI(MPI_Wait_local(MPI_TIMEOUT_ZERO, &tb, MPI_STATUS_IGNORE)); /* the start decided, with the victim */
  if (rank == victim) ft_die();
  /* 3. isync over the communicator, then over the survivors' group */
  CHECK_MPI(MPI_TryBlock_comm_isync(MPI_COMM_WORLD, tb, MPI_TIMEOUT_ZERO, &q));
  int res[4];
  res[0] = check_class_of(MPI_Wait(&q, MPI_STATUS_IGNORE));
  CHECK(res[0] == MPI_TASK_FAULT, "comm_isync with a dead member: class %d", res[0]);
  MPI_Group wg, alive;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  CHECK_MPI(MPI_Group_excl(wg, 1, &victim, &alive));
  CHECK_MPI(MPI_TryBlock_group_isync(alive, tb, MPI_TIMEOUT_ZERO, &q));
  res[1] = check_class_of(MPI_Wait(&q, MPI_STATUS_IGNORE));
  /* 4. the block's commit around a halo with the dead neighbour (testsome loop) */
  halo(MPI_COMM_WORLD, out, in, reqs);
  int rc = commit_some(tb, reqs, 0, &try_flag, gathered);
  CHECK(rc == MPI_TASK_FAULT && try_flag == 0, "commit with a dead member: rc %d try_flag %d", rc, try_flag);
  nf = failed_group_world_ranks(tb, failed, 64);
  CHECK(nf == 1 && failed[0] == victim, "failed group: %d members", nf);
  for (int i = 0; i < 4; i++)
    if (reqs[i] != MPI_REQUEST_NULL) { /* a receive from the dead neighbour may stay pending: cancel it */
      MPI_Cancel(&reqs[i]);
      MPI_Request_free(&reqs[i]);
    }
  CHECK_MPI(MPI_Request_free(&tb));
  res[2] = rc;
  res[3] = try_flag;
  /* 5. communicators of the survivors */
  MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL, c = MPI_COMM_NULL;
  CHECK_MPI(MPI_Comm_isplit_local(MPI_COMM_WORLD, 0, rank, MPI_TIMEOUT_ZERO, &a, &q));
  CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
  CHECK(a != MPI_COMM_NULL, "isplit_local: no communicator");
  MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
  int n = 0;
  MPI_Comm_size(a, &n);
  CHECK(n == size - 1, "isplit_local: %d members", n);
  check_same(a, res, 4, "isync / commit outcome");
  rc = MPI_Comm_create_group_local(MPI_COMM_WORLD, 6, alive, MPI_TIMEOUT_ZERO, &b);
  CHECK(rc == MPI_SUCCESS && b != MPI_COMM_NULL, "create_group_local over the survivors: %d", rc);
  MPI_Comm_set_errhandler(b, MPI_ERRORS_RETURN);
  MPI_Comm_size(b, &n);
  CHECK(n == size - 1, "create_group_local: %d members", n);
  CHECK_MPI(MPI_Barrier(b));
  CHECK_MPI(MPI_Comm_igroup_sync(MPI_COMM_WORLD, 7, wg, MPI_TIMEOUT_ZERO, &c, &q));
  rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_GROUP_SHRUNK && c != MPI_COMM_NULL, "igroup_sync over the whole group: %d", rc);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  MPI_Comm_size(c, &n);
  CHECK(n == size - 1, "igroup_sync: %d members", n);
  CHECK_MPI(MPI_Barrier(c));
  /* 6. raise_forall from the first survivor: a block on the survivors' communicator names the declared rank */
  const int first = victim == 0 ? 1 : 0;
  const int declared = (first + 1 == victim) ? first + 2 : first + 1; /* a survivor other than `first` */
  if (rank == first) CHECK_MPI(MPI_Comm_rank_raise_forall(MPI_COMM_WORLD, declared, 9));
  rc = empty_block(a, failed, &nf);
  CHECK(rc == MPI_TASK_FAULT && nf == 1 && failed[0] == declared, "rank_raise_forall: rc %d, %d failed", rc, nf);
  int list[1] = {first}, errs[1] = {5};
  if (rank == declared) CHECK_MPI(MPI_Comm_ranks_raise_forall(MPI_COMM_WORLD, 1, list, errs));
  rc = empty_block(b, failed, &nf);
  CHECK(rc == MPI_TASK_FAULT && nf == 2, "ranks_raise_forall: rc %d, %d failed", rc, nf);
  MPI_Group_free(&alive);
  MPI_Group_free(&wg);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Comm_free(&c);
  ft_pass(MPI_COMM_WORLD, "ft_tryblock_more");
}

int main(int argc, char **argv) {
  ft_init(&argc, &argv, &rank, &size);
  const int victim = argc > 1 ? atoi(argv[1]) : 2;
  CHECK(size >= 4 && victim >= 0 && victim < size, "needs 4 ranks or more and a victim among them");
  fault_free();
  after_kill(victim);
  MPI_Finalize();
  return 0;
}
