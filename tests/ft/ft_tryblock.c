/* ft_tryblock <mode> [victim] — FA-MPI TryBlocks (seed 001) with real kills. Modes:
 *   basic        fault-free block around a halo exchange: MPI_SUCCESS, try_flag 1, group_error_state =
 *                every rank's injection; an injection from one rank, MPI_Request_raise_error on the try request
 *                from one rank, and MPI_Comm_raise_error from one rank reach every member's commit
 *                (MPI_LOCAL_ERROR_INJECTION); local waits that time out (MPI_TIMEOUT) and later complete;
 *                both MPI_Wait_local argument orders; the published names (MPI_Tryblock_start/finish);
 *                bad input gets clear errors (NULL timeout, negative time, foreign request, freed/NULL try
 *                request, mismatched datatype) — run without kills.
 *   kill_before  the victim dies before MPI_TryBlock_start: start and commit give MPI_TASK_FAULT everywhere
 *   kill_during  the victim dies inside the block (after the start, before the commit)
 *   kill_commit  the victim contributes to the commit (MPI_TryBlock_testall starts it) and dies in it
 *   kill_after   the victim dies right after the commit: the commit succeeded everywhere, the next fails
 *   hang         the victim stops (SIGSTOP) inside the block: the commit ends with MPI_TIMEOUT within its
 *                timeout (never a hang); rank 0 then kills it (SIGKILL) and waiting again on the same try
 *                request gives every survivor the same MPI_TASK_FAULT
 *   nested       an inner block fails (injection on one rank) -> the outer block fails everywhere; a death
 *                inside a nested block fails the inner and the outer block
 * PASS (every kill mode): every survivor gets the same return code, try_flag, group_error_state and failed
 * group (checked by an Allgather of a digest over MPI_Comm_split_sync's communicator of the survivors, which
 * itself returns MPI_GROUP_SHRUNK), the failed group names the victim, and nothing hangs. */
#include "ft_check.h"

#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#define TAG_HALO 11

static int rank, size;

static MPI_Timeout secs(double s) {
  MPI_Timeout t;
  CHECK_MPI(MPI_Timeout_set_seconds(&t, s));
  return t;
}

/* Nonblocking halo exchange with both ring neighbours on comm (4 requests in reqs). */
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

/* Outcome of one commit, as seen by one process. */
struct outcome {
  int rc, try_flag, nfailed, failed_has_victim;
  uint64_t gathered_hash;
};

static uint64_t hash_ints(const int *v, int n) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < n; i++) h = (h ^ (uint64_t)(unsigned)v[i]) * 1099511628211ull;
  return h;
}

static struct outcome outcome_of(int rc, int try_flag, MPI_Request tb, const int *gathered, int n, int victim) {
  struct outcome o = {rc, try_flag, 0, 0, hash_ints(gathered, n)};
  MPI_Group fg, wg;
  CHECK_MPI(MPI_TryBlock_get_failed(tb, &fg));
  CHECK_MPI(MPI_Group_size(fg, &o.nfailed));
  if (o.nfailed > 0 && victim >= 0) {
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < o.nfailed; i++) {
      int w;
      CHECK_MPI(MPI_Group_translate_ranks(fg, 1, &i, wg, &w));
      if (w == victim) o.failed_has_victim = 1;
    }
    MPI_Group_free(&wg);
  }
  if (fg != MPI_GROUP_EMPTY) MPI_Group_free(&fg);
  return o;
}

/* Every survivor must hold the same outcome: compare over the survivors' communicator (split_sync). */
static void check_uniform(const struct outcome *o, const char *what) {
  MPI_Comm s;
  int rc = MPI_Comm_split_sync(MPI_COMM_WORLD, 0, rank, MPI_TIMEOUT_ZERO, &s);
  CHECK(rc == MPI_SUCCESS || rc == MPI_GROUP_SHRUNK, "split_sync returned %d", rc);
  CHECK_MPI(MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
  int n;
  MPI_Comm_size(s, &n);
  struct outcome *all = malloc(sizeof(*all) * (size_t)n);
  CHECK(all != NULL);
  CHECK_MPI(MPI_Allgather(o, (int)sizeof(*o), MPI_BYTE, all, (int)sizeof(*o), MPI_BYTE, s));
  for (int i = 0; i < n; i++)
    CHECK(memcmp(&all[i], o, sizeof(*o)) == 0,
          "%s: survivor %d got rc %d try_flag %d nfailed %d, I got rc %d try_flag %d nfailed %d", what, i, all[i].rc,
          all[i].try_flag, all[i].nfailed, o->rc, o->try_flag, o->nfailed);
  free(all);
  MPI_Comm_free(&s);
}

/* One full block around a halo exchange on comm; returns the commit's code. */
static int block(MPI_Comm comm, int injection, int *gathered, int *try_flag, MPI_Request *tb, MPI_Timeout t) {
  int start_state[64];
  int out[2], in[2], nerr = 0, idx[4];
  MPI_Request reqs[4];
  MPI_Status st[4], ts;
  int rc = MPI_TryBlock_start(comm, MPI_INT, &injection, start_state, t, tb);
  (void)rc;
  halo(comm, out, in, reqs);
  return MPI_TryBlock_waitall(*tb, try_flag, &ts, MPI_INT, &injection, gathered, t, 4, reqs, st, &nerr, idx);
}

static void mode_basic(void) {
  int gathered[64], try_flag = -1;
  MPI_Request tb;
  /* fault-free */
  int rc = block(MPI_COMM_WORLD, 0, gathered, &try_flag, &tb, MPI_TIMEOUT_ZERO);
  CHECK(rc == MPI_SUCCESS && try_flag == 1, "fault-free block: rc %d try_flag %d", rc, try_flag);
  CHECK_MPI(MPI_Request_free(&tb));
  /* injection from one rank: everyone sees it, with everyone's value gathered */
  rc = block(MPI_COMM_WORLD, rank == size - 1 ? 42 : 0, gathered, &try_flag, &tb, MPI_TIMEOUT_ZERO);
  CHECK(rc == MPI_LOCAL_ERROR_INJECTION && try_flag == 0, "injection: rc %d try_flag %d", rc, try_flag);
  for (int i = 0; i < size; i++) CHECK(gathered[i] == (i == size - 1 ? 42 : 0), "gathered[%d] = %d", i, gathered[i]);
  CHECK_MPI(MPI_Request_free(&tb));
  /* raise_error on the try request from rank 0 reaches every member's commit */
  {
    int inj = 0, st0[64], out[2], in[2], nerr = -1, idx[4];
    MPI_Request reqs[4];
    MPI_Status ts;
    CHECK_MPI(MPI_TryBlock_start(MPI_COMM_WORLD, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &tb));
    halo(MPI_COMM_WORLD, out, in, reqs);
    if (rank == 0) CHECK_MPI(MPI_Request_raise_error(tb, MPI_Error_incorrect_results));
    if (rank == 1) CHECK_MPI(MPI_Request_raise_error(reqs[0], MPI_Error_unknown)); /* a request of the block */
    rc = MPI_TryBlock_waitall(tb, &try_flag, &ts, MPI_INT, &inj, gathered, MPI_TIMEOUT_ZERO, 4, reqs,
                              MPI_STATUSES_IGNORE, &nerr, idx);
    CHECK(rc == MPI_LOCAL_ERROR_INJECTION && try_flag == 0 && ts.MPI_ERROR == rc, "raise_error: rc %d", rc);
    CHECK(rank != 1 || (nerr == 1 && idx[0] == 0), "the raised request is reported locally (nerr %d)", nerr);
    for (int i = 0; i < 4; i++) CHECK(reqs[i] == MPI_REQUEST_NULL, "the commit frees the block's requests");
    CHECK_MPI(MPI_Request_free(&tb));
  }
  /* MPI_Comm_raise_error is irreversible on that communicator: on a duplicate */
  {
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    if (rank == size / 2) CHECK_MPI(MPI_Comm_raise_error(d, MPI_Error_Invalidate_Collective));
    for (int k = 0; k < 2; k++) {
      rc = block(d, 0, gathered, &try_flag, &tb, MPI_TIMEOUT_ZERO);
      CHECK(rc == MPI_LOCAL_ERROR_INJECTION, "comm raise_error, block %d: rc %d", k, rc);
      CHECK_MPI(MPI_Request_free(&tb));
    }
    MPI_Comm_free(&d);
  }
  /* local waits: time out, later complete, the request stays valid for the commit */
  {
    int inj = 0, st0[64], x = 0, y = 7, nerr;
    MPI_Request r = MPI_REQUEST_NULL, s = MPI_REQUEST_NULL;
    MPI_Status status;
    CHECK_MPI(MPI_TryBlock_start(MPI_COMM_WORLD, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &tb));
    const int peer = rank ^ 1;
    if (peer < size) {
      if (rank % 2 == 0) {
        CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &r));
        double t0 = MPI_Wtime();
        rc = MPI_Wait_local(secs(0.2), &r, &status); /* seed order; the peer sends after 0.5 s */
        CHECK(rc == MPI_TIMEOUT, "Wait_local before the send: %d", rc);
        CHECK(MPI_Wtime() - t0 >= 0.19 && MPI_Wtime() - t0 < 3.0, "timed out after %.3f s", MPI_Wtime() - t0);
        CHECK(r != MPI_REQUEST_NULL, "a timed-out request stays valid");
        int flag = 1;
        CHECK_MPI(MPI_Test_local(&r, &flag, MPI_TIMEOUT_ZERO, &status));
        CHECK(flag == 0, "not complete yet");
        rc = MPI_Wait_local(&r, &status, secs(10)); /* published order */
        CHECK(rc == MPI_SUCCESS && x == 7 && status.MPI_SOURCE == peer, "Wait_local completes: rc %d x %d", rc, x);
        CHECK(r != MPI_REQUEST_NULL, "locally completed request is still valid");
        int outcount = -1, index[1];
        CHECK_MPI(MPI_Waitsome_local(MPI_TIMEOUT_ZERO, 1, &r, &outcount, index, MPI_STATUSES_IGNORE));
        CHECK(outcount == 1, "Waitsome_local reports it once: %d", outcount);
        CHECK_MPI(MPI_Testsome_local(MPI_TIMEOUT_ZERO, 1, &r, &outcount, index, MPI_STATUSES_IGNORE));
        CHECK(outcount == MPI_UNDEFINED || outcount == 0, "... and not again: %d", outcount);
      } else {
        ft_sleep_ms(500);
        CHECK_MPI(MPI_Isend(&y, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &s));
        CHECK_MPI(MPI_Waitall_local(secs(10), 1, &s, MPI_STATUSES_IGNORE));
      }
    }
    MPI_Request both[2] = {r, s};
    rc = MPI_TryBlock_waitall(tb, &try_flag, MPI_STATUS_IGNORE, MPI_INT, &inj, gathered, MPI_TIMEOUT_ZERO, 2, both,
                              MPI_STATUSES_IGNORE, &nerr, NULL);
    CHECK(rc == MPI_SUCCESS && try_flag == 1 && nerr == 0, "commit after local completion: rc %d", rc);
    CHECK(both[0] == MPI_REQUEST_NULL && both[1] == MPI_REQUEST_NULL, "commit frees locally completed requests");
    CHECK_MPI(MPI_Request_free(&tb));
  }
  /* published names */
  {
    int out[2], in[2];
    MPI_Request reqs[4];
    CHECK_MPI(MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &tb));
    halo(MPI_COMM_WORLD, out, in, reqs);
    CHECK_MPI(MPI_Tryblock_finish(tb, 4, reqs));
    CHECK_MPI(MPI_Request_free(&tb));
    CHECK_MPI(MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &tb));
    halo(MPI_COMM_WORLD, out, in, reqs);
    if (rank == 0) CHECK_MPI(MPI_Request_raise_error(tb, MPI_Error_User_assertion));
    rc = MPI_Tryblock_finish_local(tb, 4, reqs, secs(10));
    CHECK(rc == MPI_ERR_TRYBLOCK_FOUND_ERRORS, "published finish: %d", rc);
    MPI_Group g;
    CHECK_MPI(MPI_Get_failed_group(tb, 0, NULL, MPI_COMM_WORLD, &g));
    CHECK_MPI(MPI_Request_free(&tb));
    /* empty published blocks (the library's plain path, whose freed try request is kept for the next block):
     * nested with the inner one failing, a block freed before its commit, a freed handle refused */
    MPI_Request outer, inner, stale;
    CHECK_MPI(MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &outer));
    CHECK_MPI(MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &inner));
    if (rank == 0) CHECK_MPI(MPI_Request_raise_error(inner, MPI_Error_User_assertion));
    rc = MPI_Tryblock_finish(inner, 0, NULL);
    CHECK(rc == MPI_ERR_TRYBLOCK_FOUND_ERRORS, "empty inner block with a raised error: %d", rc);
    CHECK_MPI(MPI_Request_free(&inner));
    rc = MPI_Tryblock_finish(outer, 0, NULL);
    CHECK(rc == MPI_ERR_TRYBLOCK_FOUND_ERRORS, "empty outer block after a failed inner one: %d", rc);
    stale = outer;
    CHECK_MPI(MPI_Request_free(&outer));
    CHECK_CLASS(MPI_Tryblock_finish(stale, 0, NULL), MPI_ERR_REQUEST);
    CHECK_MPI(MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &outer));
    CHECK_MPI(MPI_Request_free(&outer)); /* ends it uncommitted */
    for (int k = 0; k < 3; k++) {
      CHECK_MPI(MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &outer));
      rc = MPI_Tryblock_finish(outer, 0, NULL);
      CHECK(rc == MPI_SUCCESS, "empty block %d after the failed ones: %d", k, rc);
      CHECK_MPI(MPI_Get_failed_group(outer, 0, NULL, MPI_COMM_WORLD, &g));
      int gs = -1;
      MPI_Group_size(g, &gs);
      CHECK(gs == 0, "empty block %d: failed group of %d", k, gs);
      if (g != MPI_GROUP_EMPTY) MPI_Group_free(&g);
      CHECK_MPI(MPI_Request_free(&outer));
    }
  }
  /* bad input */
  {
    MPI_Timeout t;
    CHECK_CLASS(MPI_Timeout_set_seconds(NULL, 1.0), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Timeout_set_seconds(&t, -1.0), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Timeout_set_ticks(NULL, 5), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Timeout_get_time(t, NULL), MPI_ERR_ARG);
    CHECK_MPI(MPI_Timeout_set_ticks(&t, 1000));
    MPI_Aint ticks = 0;
    CHECK_MPI(MPI_Timeout_get_ticks(t, &ticks));
    CHECK(ticks == 1000, "ticks round trip: %ld", (long)ticks);
    int inj = 0, st0[64], try_flag2;
    MPI_Request none = MPI_REQUEST_NULL, copy;
    CHECK_CLASS(MPI_TryBlock_waitall(none, &try_flag2, NULL, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, 0, NULL, NULL, NULL, NULL),
                MPI_ERR_REQUEST);
    /* foreign request: a block on a half communicator, a request on MPI_COMM_WORLD */
    MPI_Comm half;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    CHECK_MPI(MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_TryBlock_start(half, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &tb));
    MPI_Request foreign;
    int v = rank, w = -1;
    CHECK_MPI(MPI_Irecv(&w, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &foreign));
    CHECK_CLASS(MPI_TryBlock_waitall(tb, &try_flag2, NULL, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, 1, &foreign, NULL, NULL, NULL),
                MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_TryBlock_waitall(tb, &try_flag2, NULL, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, 1, &tb, NULL, NULL, NULL),
                MPI_ERR_REQUEST); /* a try request among the operations */
    CHECK_CLASS(MPI_TryBlock_waitall(tb, &try_flag2, NULL, MPI_DOUBLE, &inj, st0, MPI_TIMEOUT_ZERO, 0, NULL, NULL, NULL, NULL),
                MPI_ERR_TYPE);
    CHECK_CLASS(MPI_TryBlock_waitall(tb, NULL, NULL, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, 0, NULL, NULL, NULL, NULL), MPI_ERR_ARG);
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, rank, 9, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&foreign, MPI_STATUS_IGNORE));
    rc = MPI_TryBlock_waitall(tb, &try_flag2, NULL, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, 0, NULL, NULL, NULL, NULL);
    CHECK(rc == MPI_SUCCESS, "the block still commits after the refused calls: %d", rc);
    copy = tb;
    CHECK_MPI(MPI_Request_free(&tb));
    CHECK_CLASS(MPI_TryBlock_waitall(copy, &try_flag2, NULL, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, 0, NULL, NULL, NULL, NULL),
                MPI_ERR_REQUEST); /* freed try request */
    CHECK_CLASS(MPI_TryBlock_get_failed(copy, NULL), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Request_raise_error(MPI_REQUEST_NULL, 1), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Wait_local(MPI_TIMEOUT_ZERO, NULL, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Comm_spawn_local(NULL, NULL, 1, MPI_INFO_NULL, 0, NULL, MPI_COMM_WORLD, NULL, MPI_TIMEOUT_ZERO, NULL),
                MPI_ERR_ARG); /* NULL output communicator (the spawn forms: tests/ft/ft_famp_spawn.c) */
    MPI_Comm_free(&half);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS ft_tryblock basic (%d ranks)\n", size);
}

/* A block with a death at a chosen moment; checks the uniform outcome. */
static void mode_kill(const char *when, int victim) {
  int gathered[64], try_flag = -1, inj = 0, st0[64];
  int out[2], in[2], nerr, idx[4];
  MPI_Request tb, reqs[4];
  MPI_Status ts;
  memset(gathered, 0, sizeof gathered);
  CHECK_MPI(ft_sync_all(MPI_COMM_WORLD));
  if (!strcmp(when, "before")) {
    if (rank == victim) ft_die();
    ft_wait_failed(MPI_COMM_WORLD, 1, 20); /* known before the start (the start is rejected everywhere) */
  }
  int src = MPI_TryBlock_start(MPI_COMM_WORLD, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &tb);
  if (!strcmp(when, "before")) CHECK(src == MPI_TASK_FAULT, "start with a dead member: %d", src);
  if (!strcmp(when, "during") && rank == victim) ft_die();
  halo(MPI_COMM_WORLD, out, in, reqs);
  if (!strcmp(when, "commit") && rank == victim) {
    /* MPI_TryBlock_testall starts the commit's agreement (this member contributes) as soon as the halo is
     * done; test for 50 ms, then die inside the commit */
    int flag = 0;
    for (int k = 0; k < 50 && !flag; k++) {
      CHECK_MPI(MPI_TryBlock_testall(tb, &try_flag, &ts, MPI_INT, &inj, gathered, MPI_TIMEOUT_ZERO, 4, reqs, &flag,
                                     MPI_STATUSES_IGNORE, &nerr, idx));
      if (!flag) ft_sleep_ms(1);
    }
    ft_die();
  }
  int rc = MPI_TryBlock_waitall(tb, &try_flag, &ts, MPI_INT, &inj, gathered, MPI_TIMEOUT_ZERO, 4, reqs,
                                MPI_STATUSES_IGNORE, &nerr, idx);
  if (!strcmp(when, "after")) {
    CHECK(rc == MPI_SUCCESS && try_flag == 1, "commit before the death: rc %d", rc);
    for (int i = 0; i < size; i++) CHECK(gathered[i] == 0, "gathered[%d] = %d", i, gathered[i]);
    CHECK_MPI(MPI_Request_free(&tb));
    if (rank == victim) ft_die();
    int r2 = block(MPI_COMM_WORLD, 0, gathered, &try_flag, &tb, MPI_TIMEOUT_ZERO);
    CHECK(r2 == MPI_TASK_FAULT || r2 == MPI_MULTIPLE_FAULTS, "block after the death: %d", r2);
    rc = r2;
  } else {
    /* A member that dies after contributing (commit mode) may or may not count as failed: the agreement
     * decides it once for everyone (success if its contribution made it and the decision came first). */
    const int ok_success = !strcmp(when, "commit");
    CHECK(rc == MPI_TASK_FAULT || rc == MPI_MULTIPLE_FAULTS || (ok_success && rc == MPI_SUCCESS),
          "commit with a dead member (%s): %d", when, rc);
    CHECK(try_flag == (rc == MPI_SUCCESS), "try_flag %d", try_flag);
    /* a contributor's slot holds its injection; the victim's may be present (commit) or absent */
    for (int i = 0; i < size; i++)
      if (i != victim) CHECK(gathered[i] == 0, "gathered[%d] = %d", i, gathered[i]);
  }
  struct outcome o = outcome_of(rc, try_flag, tb, gathered, size, victim);
  CHECK(o.failed_has_victim || rc == MPI_SUCCESS, "the failed group names the victim (%d members)", o.nfailed);
  check_uniform(&o, when);
  if (rank == 0) printf("%s: commit class %d on every survivor\n", when, rc);
  CHECK_MPI(MPI_Request_free(&tb));
  ft_pass(MPI_COMM_WORLD, when);
}

static void mode_hang(int victim) {
  int gathered[64], try_flag = -1, inj = 0, st0[64];
  int out[2], in[2], nerr, idx[4];
  MPI_Request tb, reqs[4];
  int pid = (int)getpid(), *pids = malloc(sizeof(int) * (size_t)size);
  CHECK(pids != NULL);
  CHECK_MPI(MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD));
  CHECK_MPI(MPI_TryBlock_start(MPI_COMM_WORLD, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &tb));
  if (rank == victim) raise(SIGSTOP); /* never comes back: rank 0 kills it */
  halo(MPI_COMM_WORLD, out, in, reqs);
  double t0 = ft_now();
  int rc = MPI_TryBlock_waitall(tb, &try_flag, MPI_STATUS_IGNORE, MPI_INT, &inj, gathered, secs(1.0), 4, reqs,
                                MPI_STATUSES_IGNORE, &nerr, idx);
  double dt = ft_now() - t0;
  CHECK(rc == MPI_TIMEOUT, "commit with a stopped member: %d (after %.2f s)", rc, dt);
  CHECK(dt >= 0.95 && dt < 4.0, "the timeout took %.2f s (1 s asked)", dt);
  /* the block's requests stay valid (the stopped neighbour's did not complete); rank 0 ends the hang */
  if (rank == 0) {
    ft_sleep_ms(1000); /* every survivor has timed out by now (same 1 s timeout) */
    kill((pid_t)pids[victim], SIGKILL);
  }
  rc = MPI_TryBlock_waitall(tb, &try_flag, MPI_STATUS_IGNORE, MPI_INT, &inj, gathered, MPI_TIMEOUT_ZERO, 4, reqs,
                            MPI_STATUSES_IGNORE, &nerr, idx);
  CHECK(rc == MPI_TASK_FAULT || rc == MPI_MULTIPLE_FAULTS, "waiting again after the kill: %d", rc);
  struct outcome o = outcome_of(rc, try_flag, tb, gathered, size, victim);
  CHECK(o.failed_has_victim, "failed group names the stopped rank");
  check_uniform(&o, "hang");
  for (int i = 0; i < 4; i++)
    if (reqs[i] != MPI_REQUEST_NULL) MPI_Request_free(&reqs[i]);
  CHECK_MPI(MPI_Request_free(&tb));
  free(pids);
  ft_pass(MPI_COMM_WORLD, "hang");
}

static void mode_nested(int victim) {
  int gathered[64], inner_g[64], try_flag = -1, inj = 0, st0[64], st1[64];
  MPI_Request outer, inner;
  /* 1: the inner block fails by injection on one rank -> the outer fails at every member */
  CHECK_MPI(MPI_TryBlock_start(MPI_COMM_WORLD, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &outer));
  int inj_inner = rank == 1 ? 5 : 0;
  int rc = block(MPI_COMM_WORLD, inj_inner, inner_g, &try_flag, &inner, MPI_TIMEOUT_ZERO);
  CHECK(rc == MPI_LOCAL_ERROR_INJECTION, "inner: %d", rc);
  CHECK_MPI(MPI_Request_free(&inner));
  rc = MPI_TryBlock_waitall(outer, &try_flag, MPI_STATUS_IGNORE, MPI_INT, &inj, gathered, MPI_TIMEOUT_ZERO, 0, NULL,
                            NULL, NULL, NULL);
  CHECK(rc == MPI_LOCAL_ERROR_INJECTION && try_flag == 0, "outer after a failed inner block: %d", rc);
  CHECK_MPI(MPI_Request_free(&outer));
  /* 2: a good inner block keeps the outer good */
  CHECK_MPI(MPI_TryBlock_start(MPI_COMM_WORLD, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &outer));
  rc = block(MPI_COMM_WORLD, 0, inner_g, &try_flag, &inner, MPI_TIMEOUT_ZERO);
  CHECK(rc == MPI_SUCCESS, "inner ok: %d", rc);
  CHECK_MPI(MPI_Request_free(&inner));
  rc = MPI_TryBlock_waitall(outer, &try_flag, MPI_STATUS_IGNORE, MPI_INT, &inj, gathered, MPI_TIMEOUT_ZERO, 0, NULL,
                            NULL, NULL, NULL);
  CHECK(rc == MPI_SUCCESS && try_flag == 1, "outer ok: %d", rc);
  CHECK_MPI(MPI_Request_free(&outer));
  /* 3: a death inside the inner block, both committed at once with multiple_waitall */
  CHECK_MPI(ft_sync_all(MPI_COMM_WORLD));
  MPI_Request tbs[2];
  int flags[2] = {-1, -1};
  CHECK_MPI(MPI_TryBlock_start(MPI_COMM_WORLD, MPI_INT, &inj, st0, MPI_TIMEOUT_ZERO, &tbs[0]));
  CHECK_MPI(MPI_TryBlock_start(MPI_COMM_WORLD, MPI_INT, &inj, st1, MPI_TIMEOUT_ZERO, &tbs[1]));
  if (rank == victim) ft_die();
  int out[2], in[2];
  MPI_Request reqs[4];
  halo(MPI_COMM_WORLD, out, in, reqs);
  rc = MPI_TryBlock_multiple_waitall(2, tbs, flags, NULL, MPI_INT, &inj, gathered, MPI_TIMEOUT_ZERO, 4, reqs,
                                     MPI_STATUSES_IGNORE, NULL, NULL);
  CHECK(rc != MPI_SUCCESS && flags[0] == 0 && flags[1] == 0, "nested blocks with a death: rc %d flags %d %d", rc,
        flags[0], flags[1]);
  struct outcome o = outcome_of(rc, flags[0] * 2 + flags[1], tbs[0], gathered, size, victim);
  CHECK(o.failed_has_victim, "outer failed group names the victim");
  check_uniform(&o, "nested");
  MPI_Request_free(&tbs[0]);
  MPI_Request_free(&tbs[1]);
  ft_pass(MPI_COMM_WORLD, "nested");
}

int main(int argc, char **argv) {
  ft_init(&argc, &argv, &rank, &size);
  CHECK(argc >= 2, "usage: ft_tryblock <mode> [victim]");
  CHECK(size >= 3 && size <= 64, "needs 3-64 ranks");
  const int victim = argc > 2 ? atoi(argv[2]) : size - 1;
  if (!strcmp(argv[1], "basic"))
    mode_basic();
  else if (!strcmp(argv[1], "kill_before"))
    mode_kill("before", victim);
  else if (!strcmp(argv[1], "kill_during"))
    mode_kill("during", victim);
  else if (!strcmp(argv[1], "kill_commit"))
    mode_kill("commit", victim);
  else if (!strcmp(argv[1], "kill_after"))
    mode_kill("after", victim);
  else if (!strcmp(argv[1], "hang"))
    mode_hang(victim);
  else if (!strcmp(argv[1], "nested"))
    mode_nested(victim);
  else
    CHECK(0, "unknown mode %s", argv[1]);
  MPI_Finalize();
  return 0;
}
