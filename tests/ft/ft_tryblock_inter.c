/* ft_tryblock_inter <mode> [victim] — FA-MPI TryBlocks on an intercommunicator (seed 001 §7.6) with real kills.
 * WORLD is split into even and odd ranks, joined by MPI_Intercomm_create; every block lives on that
 * intercommunicator and its requests are exchanges with the remote group.
 *   basic   fault-free: MPI_TryBlock_start/waitall with zero int injections: MPI_SUCCESS, try_flag 1; with
 *           injections (world rank + 1) the start and the commit give MPI_LOCAL_ERROR_INJECTION and
 *           group_error_state = the local group's injections then the remote group's;
 *           MPI_TryBlock_comm_sync over the intercommunicator and MPI_TryBlock_group_sync over the union of
 *           both groups give MPI_SUCCESS; MPI_Request_raise_error on the try request at one rank of the odd
 *           side reaches every member of both sides (MPI_LOCAL_ERROR_INJECTION); the published
 *           MPI_Tryblock_start/finish work on it.
 *   kill    the victim (a world rank) dies inside the block: every survivor of both sides gets
 *           MPI_TASK_FAULT, try_flag 0, the same gathered state (compared in world-rank order) and a failed
 *           group naming the victim.
 *   hang    the victim stops (SIGSTOP) inside the block: the commit ends with MPI_TIMEOUT within its timeout
 *           (never a hang); after the victim is killed, waiting again gives every survivor MPI_TASK_FAULT.
 * PASS: the checks above, uniformity by an Allgather over the shrunk WORLD. */
#include "ft_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static int rank, size;

static MPI_Timeout secs(double s) {
  MPI_Timeout t;
  CHECK_MPI(MPI_Timeout_set_seconds(&t, s));
  return t;
}

/* World ranks of the local (remote) group, in group order. */
static void world_ranks(MPI_Comm inter, int remote, int* out, int* n) {
  MPI_Group g, w;
  if (remote) {
    MPI_Comm_remote_group(inter, &g);
  } else {
    MPI_Comm_group(inter, &g);
  }
  MPI_Comm_group(MPI_COMM_WORLD, &w);
  MPI_Group_size(g, n);
  int idx[64];
  for (int i = 0; i < *n; ++i) idx[i] = i;
  MPI_Group_translate_ranks(g, *n, idx, w, out);
  MPI_Group_free(&g);
  MPI_Group_free(&w);
}

static MPI_Comm make_inter(void) {
  MPI_Comm local, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local));
  CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 5, &inter));
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  MPI_Comm_free(&local);
  return inter;
}

/* Exchange with the remote rank of the same index (if any): up to 2 requests. */
static int exchange(MPI_Comm inter, int* out, int* in, MPI_Request r[2]) {
  int lr, rs;
  MPI_Comm_rank(inter, &lr);
  MPI_Comm_remote_size(inter, &rs);
  r[0] = r[1] = MPI_REQUEST_NULL;
  const int peer = lr < rs ? lr : rs - 1;
  CHECK_MPI(MPI_Irecv(in, 1, MPI_INT, peer, 3, inter, &r[0]));
  CHECK_MPI(MPI_Isend(out, 1, MPI_INT, peer, 3, inter, &r[1]));
  return 2;
}

struct digest {
  int rc, try_flag, nfailed, victim_in_failed;
  uint64_t state;
};

static struct digest digest_of(MPI_Comm inter, int rc, int try_flag, MPI_Request tb, const int* g, int victim) {
  struct digest d = {check_class_of(rc), try_flag, 0, 0, 0};
  int lw[64], rw[64], ln, rn;
  world_ranks(inter, 0, lw, &ln);
  world_ranks(inter, 1, rw, &rn);
  int by_world[128];
  for (int i = 0; i < size; ++i) by_world[i] = -7;
  for (int i = 0; i < ln; ++i) by_world[lw[i]] = g[i];
  for (int j = 0; j < rn; ++j) by_world[rw[j]] = g[ln + j];
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < size; ++i) h = (h ^ (uint64_t)(uint32_t)by_world[i]) * 1099511628211ull;
  d.state = h;
  MPI_Group failed, w;
  CHECK_MPI(MPI_TryBlock_get_failed(tb, &failed));
  MPI_Group_size(failed, &d.nfailed);
  MPI_Comm_group(MPI_COMM_WORLD, &w);
  for (int i = 0; i < d.nfailed; ++i) {
    int t = -1;
    MPI_Group_translate_ranks(failed, 1, &i, w, &t);
    if (t == victim) d.victim_in_failed = 1;
  }
  if (failed != MPI_GROUP_EMPTY) MPI_Group_free(&failed);
  MPI_Group_free(&w);
  return d;
}

static void check_uniform(const struct digest* d, const char* what) {
  MPI_Comm s;
  int n;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
  MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN);
  MPI_Comm_size(s, &n);
  struct digest all[128];
  CHECK_MPI(MPI_Allgather((void*)d, (int)sizeof *d, MPI_BYTE, all, (int)sizeof *d, MPI_BYTE, s));
  for (int i = 0; i < n; ++i)
    CHECK(memcmp(&all[i], d, sizeof *d) == 0, "%s: survivor %d got rc %d flag %d nfailed %d, I got rc %d flag %d nfailed %d",
          what, i, all[i].rc, all[i].try_flag, all[i].nfailed, d->rc, d->try_flag, d->nfailed);
  MPI_Comm_free(&s);
}

static void mode_basic(void) {
  MPI_Comm inter = make_inter();
  int ln, rn, lw[64], rw[64];
  world_ranks(inter, 0, lw, &ln);
  world_ranks(inter, 1, rw, &rn);
  int inj = 0, g[128], flag = -1, out = rank, in = -1, nerr = 0;
  MPI_Request tb, r[2];
  /* 1. fault-free block (zero injections) */
  CHECK_MPI(MPI_TryBlock_start(inter, MPI_INT, &inj, g, secs(20), &tb));
  exchange(inter, &out, &in, r);
  int rc = MPI_TryBlock_waitall(tb, &flag, MPI_STATUS_IGNORE, MPI_INT, &inj, g, secs(20), 2, r, MPI_STATUSES_IGNORE, &nerr, NULL);
  CHECK(rc == MPI_SUCCESS && flag == 1, "fault-free intercommunicator block: class %d flag %d", check_class_of(rc), flag);
  CHECK(in % 2 != rank % 2, "received %d from the other side", in);
  for (int i = 0; i < ln + rn; ++i) CHECK(g[i] == 0, "group_error_state[%d] = %d in a fault-free block", i, g[i]);
  MPI_Request_free(&tb);
  /* 1b. every member injects world rank + 1: the start and the commit gather them, local group first */
  inj = rank + 1;
  memset(g, 0, sizeof g);
  rc = MPI_TryBlock_start(inter, MPI_INT, &inj, g, secs(20), &tb);
  CHECK(check_class_of(rc) == MPI_LOCAL_ERROR_INJECTION, "start with injections: class %d", check_class_of(rc));
  for (int i = 0; i < ln; ++i) CHECK(g[i] == lw[i] + 1, "start: group_error_state[%d] = %d, expected local %d", i, g[i], lw[i] + 1);
  for (int j = 0; j < rn; ++j) CHECK(g[ln + j] == rw[j] + 1, "start: group_error_state[%d] = %d, expected remote %d", ln + j, g[ln + j], rw[j] + 1);
  exchange(inter, &out, &in, r);
  memset(g, 0, sizeof g);
  rc = MPI_TryBlock_waitall(tb, &flag, MPI_STATUS_IGNORE, MPI_INT, &inj, g, secs(20), 2, r, MPI_STATUSES_IGNORE, &nerr, NULL);
  CHECK(check_class_of(rc) == MPI_LOCAL_ERROR_INJECTION && flag == 0, "commit with injections: class %d flag %d", check_class_of(rc), flag);
  for (int i = 0; i < ln; ++i) CHECK(g[i] == lw[i] + 1, "group_error_state[%d] = %d, expected local %d", i, g[i], lw[i] + 1);
  for (int j = 0; j < rn; ++j) CHECK(g[ln + j] == rw[j] + 1, "group_error_state[%d] = %d, expected remote %d", ln + j, g[ln + j], rw[j] + 1);
  MPI_Request_free(&tb);
  inj = 0;
  /* 2. syncs in the middle of a block: over the intercommunicator, over the union group */
  MPI_Group lg, rg, ug;
  MPI_Comm_group(inter, &lg);
  MPI_Comm_remote_group(inter, &rg);
  MPI_Group_union(lg, rg, &ug);
  CHECK_MPI(MPI_TryBlock_start(inter, MPI_INT, &inj, g, secs(20), &tb));
  CHECK(MPI_TryBlock_comm_sync(inter, tb, secs(20)) == MPI_SUCCESS, "comm_sync over the intercommunicator");
  CHECK(MPI_TryBlock_group_sync(ug, tb, secs(20)) == MPI_SUCCESS, "group_sync over both groups");
  exchange(inter, &out, &in, r);
  rc = MPI_TryBlock_waitall(tb, &flag, MPI_STATUS_IGNORE, MPI_INT, &inj, g, secs(20), 2, r, MPI_STATUSES_IGNORE, &nerr, NULL);
  CHECK(rc == MPI_SUCCESS && flag == 1, "block with syncs: class %d", check_class_of(rc));
  MPI_Request_free(&tb);
  MPI_Group_free(&lg);
  MPI_Group_free(&rg);
  MPI_Group_free(&ug);
  /* 3. an error raised at world rank 1 (odd side) reaches every member of both sides */
  CHECK_MPI(MPI_TryBlock_start(inter, MPI_INT, &inj, g, secs(20), &tb));
  if (rank == 1) CHECK_MPI(MPI_Request_raise_error(tb, MPI_Error_User_assertion));
  exchange(inter, &out, &in, r);
  rc = MPI_TryBlock_waitall(tb, &flag, MPI_STATUS_IGNORE, MPI_INT, &inj, g, secs(20), 2, r, MPI_STATUSES_IGNORE, &nerr, NULL);
  CHECK(check_class_of(rc) == MPI_LOCAL_ERROR_INJECTION && flag == 0, "raised error: class %d flag %d", check_class_of(rc), flag);
  MPI_Request_free(&tb);
  /* 4. the published names */
  CHECK_MPI(MPI_Tryblock_start(inter, MPI_TRYBLOCK_GLOBAL, &tb));
  exchange(inter, &out, &in, r);
  CHECK(MPI_Tryblock_finish(tb, 2, r) == MPI_SUCCESS, "MPI_Tryblock_finish on an intercommunicator");
  MPI_Request_free(&tb);
  MPI_Comm_free(&inter);
}

static void mode_kill(int victim, int stop) {
  MPI_Comm inter = make_inter();
  int inj = 0, g[128], flag = -1, out = rank, in = -1, nerr = 0;
  int pid = (int)getpid(), pids[128];
  MPI_Request tb, r[2];
  CHECK_MPI(MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD));
  int rc = MPI_TryBlock_start(inter, MPI_INT, &inj, g, secs(20), &tb);
  CHECK(rc == MPI_SUCCESS, "start: class %d", check_class_of(rc));
  if (rank == victim) {
    if (stop) raise(SIGSTOP); /* never comes back: a survivor kills it */
    ft_die();
  }
  exchange(inter, &out, &in, r);
  memset(g, 0, sizeof g);
  const double t0 = ft_now();
  rc = MPI_TryBlock_waitall(tb, &flag, MPI_STATUS_IGNORE, MPI_INT, &inj, g, secs(stop ? 1.0 : 30), 2, r,
                            MPI_STATUSES_IGNORE, &nerr, NULL);
  if (stop) {
    const double dt = ft_now() - t0;
    CHECK(check_class_of(rc) == MPI_TIMEOUT, "commit with a stopped member: class %d", check_class_of(rc));
    CHECK(dt >= 0.95 && dt < 4.0, "the timeout took %.2f s (1 s asked)", dt);
    const int killer = victim == 0 ? 1 : 0;
    if (rank == killer) {
      ft_sleep_ms(1000); /* every survivor has timed out by now (same 1 s timeout) */
      kill((pid_t)pids[victim], SIGKILL);
    }
    rc = MPI_TryBlock_waitall(tb, &flag, MPI_STATUS_IGNORE, MPI_INT, &inj, g, MPI_TIMEOUT_ZERO, 2, r,
                              MPI_STATUSES_IGNORE, &nerr, NULL);
  }
  CHECK(check_class_of(rc) == MPI_TASK_FAULT || check_class_of(rc) == MPI_MULTIPLE_FAULTS,
        "commit after a death: class %d flag %d", check_class_of(rc), flag);
  CHECK(flag == 0, "try_flag %d after a death", flag);
  struct digest d = digest_of(inter, rc, flag, tb, g, victim);
  CHECK(d.victim_in_failed, "the failed group does not name the victim");
  check_uniform(&d, stop ? "hang" : "kill");
  for (int i = 0; i < 2; i++)
    if (r[i] != MPI_REQUEST_NULL) MPI_Request_free(&r[i]);
  MPI_Request_free(&tb);
}

int main(int argc, char** argv) {
  ft_init(&argc, &argv, &rank, &size);
  const char* mode = argc > 1 ? argv[1] : "basic";
  const int victim = argc > 2 ? atoi(argv[2]) : -1;
  CHECK(size % 2 == 0 && size <= 64, "run with an even number of ranks (got %d)", size);
  if (strcmp(mode, "basic") == 0) {
    mode_basic();
  } else if (strcmp(mode, "kill") == 0) {
    mode_kill(victim, 0);
  } else if (strcmp(mode, "hang") == 0) {
    mode_kill(victim, 1);
  } else {
    CHECK(0, "unknown mode %s", mode);
  }
  ft_pass(MPI_COMM_WORLD, mode);
  MPI_Finalize();
  return 0;
}
