/* ft_group_revoke — MPI_Comm_create_group / MPI_Comm_create_from_group released by a revoke of the parent or by
 * the death of a member, uniformly (ULFM: every pending and later operation on a revoked communicator returns
 * MPI_ERR_REVOKED, MPI_Comm_create_group included; a creation succeeds at every survivor or fails at every one).
 * --with-ft ulfm, 4 ranks or more. Argument: the mode.
 * TRIALS trials (one for the kill modes: the death is for good), each on a fresh parent (a dup of
 * MPI_COMM_WORLD, so its context id comes back trial after trial and the creations' agreement channels are
 * used again); the group G is the parent's group, or in odd trials the parent's group without one rank (the
 * outsider, which only waits). Every member of G loops MPI_Comm_create_group(parent, G, tag 5) (each new
 * communicator freed at once) until a call fails, counting its successes.
 *   skip:     member `who` of G revokes the parent instead of its j-th call and stops: it skipped the
 *             collective, what a revoke is for. The others must all fail exactly their j-th call with
 *             MPI_ERR_REVOKED (they wait in the creation's agreement when the revoke comes; before the fix
 *             nothing released them: the channel a create_group agrees on was not reached by a revoke).
 *   skip_free: the same, and the revoker frees the parent right after its revoke (it must still veto when
 *             the others ask, from its freed parent's channel). Hung ~1 run in 3 under load until skipfree2: a fast
 *             revoker that created, revoked and freed the next trial's parent (same context id, same channel key)
 *             before a slower member registered it had its veto taken by that member's zombie of the previous
 *             parent (ft/frame_route.h).
 *   thread:   (MPI_THREAD_MULTIPLE) a second thread of member `who` revokes the parent after a pseudo-random
 *             number of its main thread's calls and a pseudo-random pause: the revoke lands anywhere.
 *   outsider: (MPI_THREAD_MULTIPLE) the outsider (odd trials; in even trials a second thread of member `who`) revokes the parent after a
 *             pseudo-random pause while the members loop.
 *   kill:     (one trial) rank size-1 is killed by a second thread of its own after a pseudo-random number of
 *             its calls and a pause, landing anywhere in a call; every survivor must stop at the same call with
 *             MPI_ERR_PROC_FAILED.
 *   kill_from: the same with MPI_Comm_create_from_group(world's group, "ftgroup.kill") (no parent: a failure is
 *             the only thing that can end it).
 * Uniformity, checked by an allgather of (successes, error class) on a communicator that is not the revoked
 * parent (a dup of MPI_COMM_WORLD made at the start; after a kill, a shrink of it): every member of G made the
 * same number of creations and failed the next with the expected class.
 * PASS: that, every trial, no hang. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "ft_check.h"

#define TRIALS 30
#define MAX_CALLS 100000
static int rank, size;
static MPI_Comm parent;
static atomic_int calls_done, loop_done;
static int act_after, pause_us, kill_mode;

static void *actor(void *arg) {
  (void)arg;
  while (atomic_load(&calls_done) < act_after && !atomic_load(&loop_done)) ft_sleep_ms(0);
  ft_spin_us(pause_us);
  if (kill_mode) ft_die();
  CHECK_MPI(MPIX_Comm_revoke(parent));
  return NULL;
}

int main(int argc, char **argv) {
  CHECK(argc > 1, "usage: ft_group_revoke skip|skip_free|thread|outsider|kill|kill_from");
  const char *mode = argv[1];
  const int skip_free = strcmp(mode, "skip_free") == 0;
  const int skip = strcmp(mode, "skip") == 0 || skip_free, outsider = strcmp(mode, "outsider") == 0;
  kill_mode = strncmp(mode, "kill", 4) == 0;
  const int from_group = strcmp(mode, "kill_from") == 0;
  const int threaded = strcmp(mode, "thread") == 0 || kill_mode || outsider;
  CHECK(skip || outsider || threaded, "unknown mode %s", mode);
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, threaded ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 4, "needs 4 ranks or more");
  CHECK(!threaded || provided == MPI_THREAD_MULTIPLE, "thread level %d", provided);
  MPI_Comm check;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &check));
  CHECK_MPI(MPI_Comm_set_errhandler(check, MPI_ERRORS_RETURN));
  int *all = malloc(sizeof(int) * 3 * (size_t)size);
  CHECK(all != NULL);
  int total = 0;
  int *ranks_all = malloc(sizeof(int) * (size_t)size);
  CHECK(ranks_all != NULL);
  for (int i = 0; i < size; i++) ranks_all[i] = i;
  const int trials = kill_mode ? 1 : TRIALS;
  for (int trial = 0; trial < trials; trial++) {
    const unsigned h = ft_mix((unsigned)trial * 2654435761u + (unsigned)mode[0] * 7919u + 12345u);
    const int out_rank = (trial % 2 && !kill_mode) ? (int)((h >> 20) % (unsigned)size) : -1;
    int who = (int)((unsigned)trial % (unsigned)size);
    if (who == out_rank) who = (who + 1) % size;
    if (kill_mode) who = size - 1;
    const int j = 1 + (int)(h % 6u);  /* skip: the call the revoker skips; thread/kill: calls before acting */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
    CHECK_MPI(MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN));
    MPI_Group pg, g;
    CHECK_MPI(MPI_Comm_group(parent, &pg));
    if (out_rank >= 0)
      CHECK_MPI(MPI_Group_excl(pg, 1, &out_rank, &g));
    else
      CHECK_MPI(MPI_Group_incl(pg, size, ranks_all, &g));
    atomic_store(&calls_done, 0);
    atomic_store(&loop_done, 0);
    act_after = j;
    pause_us = (int)((h >> 8) % 400u);
    int ok = 0, cls = MPI_SUCCESS;
    const int member = rank != out_rank;
    if (!member) {
      if (outsider) {  /* the revoker, outside the group */
        ft_sleep_ms((int)((h >> 4) % 20u));
        CHECK_MPI(MPIX_Comm_revoke(parent));
      }
      cls = MPI_ERR_REVOKED;
    } else {
      pthread_t th;
      const int acts = (threaded && rank == who) || (outsider && out_rank < 0 && rank == who);
      if (acts && !skip) {
        if (outsider) act_after = 0;
        CHECK(pthread_create(&th, NULL, actor, NULL) == 0);
      }
      for (; ok < MAX_CALLS; ok++) {
        if (skip && rank == who && ok == j - 1) {
          CHECK_MPI(MPIX_Comm_revoke(parent));
          if (skip_free) CHECK_MPI(MPI_Comm_free(&parent));  /* gone here before the others ask it to veto */
          cls = MPI_ERR_REVOKED;  /* this rank's outcome of the call it skipped */
          break;
        }
        MPI_Comm d = MPI_COMM_NULL;
        const int rc = from_group ? MPI_Comm_create_from_group(g, "ftgroup.kill", MPI_INFO_NULL, MPI_ERRORS_RETURN, &d)
                                  : MPI_Comm_create_group(parent, g, 5, &d);
        if (rc != MPI_SUCCESS) {
          cls = check_class_of(rc);
          CHECK(d == MPI_COMM_NULL, "call %d failed (%s) but gave a communicator", ok, ft_class_name(rc));
          break;
        }
        CHECK(d != MPI_COMM_NULL, "call %d gave no communicator", ok);
        CHECK_MPI(MPI_Comm_free(&d));
        atomic_fetch_add(&calls_done, 1);
      }
      atomic_store(&loop_done, 1);  /* (a call failed before the actor acted: the check below reports it) */
      if (acts && !skip) CHECK(pthread_join(th, NULL) == 0);
    }
    CHECK(ok < MAX_CALLS, "trial %d: %d creations, no error", trial, MAX_CALLS);
    MPI_Comm on = check;
    if (kill_mode) CHECK_MPI(MPIX_Comm_shrink(check, &on));
    int n = 0;
    MPI_Comm_size(on, &n);
    int mine[3] = {ok, cls, member};
    CHECK_MPI(MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, on));
    const int want = kill_mode ? MPI_ERR_PROC_FAILED : MPI_ERR_REVOKED;
    int ref = -1;
    for (int p = 0; p < n; p++) {
      if (!all[3 * p + 2]) continue;
      if (ref < 0) ref = p;
      CHECK(all[3 * p] == all[3 * ref] && all[3 * p + 1] == want,
            "%s trial %d (actor %d, outsider %d): rank %d made %d creations then %s, rank %d made %d then %s: not uniform",
            mode, trial, who, out_rank, p, all[3 * p], ft_class_name(all[3 * p + 1]), ref, all[3 * ref],
            ft_class_name(all[3 * ref + 1]));
    }
    if (skip) CHECK(all[3 * ref] == j - 1, "trial %d: %d creations, the revoker skipped call %d", trial, all[3 * ref], j);
    total += all[3 * ref];
    if (kill_mode) CHECK_MPI(MPI_Comm_free(&on));
    MPI_Group_free(&g);
    MPI_Group_free(&pg);
    if (parent != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&parent));
  }
  if (rank == 0) printf("%s: %d trials, %d creations before the %s\n", mode, trials, total, kill_mode ? "kill" : "revokes");
  free(all);
  free(ranks_all);
  ft_pass(check, "ft_group_revoke");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
