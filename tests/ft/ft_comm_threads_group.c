/* ft_comm_threads_group — communicator constructors that agree over a member set, not a parent, from
 * several threads at once (MPI_THREAD_MULTIPLE) in FT mode, over the same member set (every rank).
 * --with-ft ulfm. Argument: "nokill" or "kill".
 * NT = 4 threads per rank loop over, each on its own:
 *   0: MPI_Comm_create_group(base[0], world's group, tag 7);
 *   1: MPI_Comm_create_from_group(world's group, "ftctx.thread1");
 *   2: MPI_Intercomm_create(half[2], 0, base[2], other half's leader, tag 9) then MPI_Intercomm_merge;
 *   3: MPI_Comm_create_from_group(world's group, "ftctx.thread3");
 * each result checked with an Allreduce of (thread, 1) over it (a context clash mixes the threads' sums or
 * raises MPI_ERR_INTERN), then freed. "nokill": ROUNDS rounds, every creation succeeds. "kill": rank 2's
 * thread 0 kills the process after its 4th round; a creation then fails (its agreement has the dead member
 * in its failed set) with MPI_ERR_PROC_FAILED or MPI_ERR_REVOKED and the thread stops. Creation is uniform
 * (src/comm/comm_ops.h agree_context): every survivor thread stops at the same round with the same error
 * class — checked after a shrink of MPI_COMM_WORLD by an allgather of (round, class) per thread. Allreduces on
 * a created communicator with the dead member may fail anywhere (not uniform) and do not stop the loop.
 * PASS: no hang, no clash, the uniformity above. Needs an even number >= 4 of ranks. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>

#include "ft_check.h"

#define NT 4
#define ROUNDS 25
#define MAX_ROUNDS 5000
static int rank, size, kill_mode;
static MPI_Comm base[NT], half[NT];
static MPI_Group world_group;
static int stop_round[NT], stop_class[NT];

static int ok_class(int rc) {
  const int c = check_class_of(rc);
  return c == MPI_ERR_PROC_FAILED || c == MPI_ERR_REVOKED;
}

/* One creation by thread t; MPI_SUCCESS with *out set, or the error. */
static int create(int t, MPI_Comm *out) {
  *out = MPI_COMM_NULL;
  switch (t) {
    case 0: return MPI_Comm_create_group(base[0], world_group, 7, out);
    case 1: return MPI_Comm_create_from_group(world_group, "ftctx.thread1", MPI_INFO_NULL, MPI_ERRORS_RETURN, out);
    case 3: return MPI_Comm_create_from_group(world_group, "ftctx.thread3", MPI_INFO_NULL, MPI_ERRORS_RETURN, out);
    default: {
      MPI_Comm inter = MPI_COMM_NULL;
      int rc = MPI_Intercomm_create(half[2], 0, base[2], rank % 2 == 0 ? 1 : 0, 9, &inter);
      if (rc != MPI_SUCCESS) return rc;
      CHECK_MPI(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
      rc = MPI_Intercomm_merge(inter, rank % 2, out);
      CHECK_MPI(MPI_Comm_free(&inter));
      return rc;
    }
  }
}

static void *worker(void *arg) {
  const int t = (int)(intptr_t)arg;
  const int rounds = kill_mode ? MAX_ROUNDS : ROUNDS;
  stop_round[t] = rounds;
  stop_class[t] = MPI_SUCCESS;
  for (int r = 0; r < rounds; r++) {
    if (kill_mode && rank == 2 && t == 0 && r == 4) ft_die();
    MPI_Comm c;
    if (getenv("FT_TRACE")) fprintf(stderr, "rank %d thread %d round %d\n", rank, t, r);
    int rc = create(t, &c);
    if (rc != MPI_SUCCESS) {
      CHECK(kill_mode, "thread %d round %d: creation failed (%s) without a failure", t, r, ft_class_name(rc));
      CHECK(ok_class(rc), "thread %d round %d: %s (expected PROC_FAILED or REVOKED)", t, r, ft_class_name(rc));
      stop_round[t] = r;
      stop_class[t] = check_class_of(rc);
      return NULL;
    }
    int csize = 0;
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_size(c, &csize));
    CHECK(csize == size, "thread %d round %d: new communicator of size %d", t, r, csize);
    int in[2] = {t, 1}, sum[2] = {0, 0};
    rc = MPI_Allreduce(in, sum, 2, MPI_INT, MPI_SUM, c);
    if (rc == MPI_SUCCESS) {
      CHECK(sum[0] == t * size && sum[1] == size, "thread %d round %d: allreduce (%d, %d): contexts mixed", t, r,
            sum[0], sum[1]);
    } else {
      CHECK(kill_mode && ok_class(rc), "thread %d round %d: allreduce %s", t, r, ft_class_name(rc));
    }
    CHECK_MPI(MPI_Comm_free(&c));
  }
  CHECK(!kill_mode, "thread %d: %d rounds and no error, with rank 2 dead", t, MAX_ROUNDS);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(provided == MPI_THREAD_MULTIPLE, "thread level %d", provided);
  CHECK(size >= 4 && size % 2 == 0, "needs an even number >= 4 of ranks");
  CHECK(argc > 1, "usage: ft_comm_threads_group nokill|kill");
  kill_mode = strcmp(argv[1], "kill") == 0;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  MPI_Comm check;  /* made before the threads: the uniformity check runs on its shrink */
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &check));
  CHECK_MPI(MPI_Comm_set_errhandler(check, MPI_ERRORS_RETURN));
  for (int t = 0; t < NT; t++) {
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base[t]));
    CHECK_MPI(MPI_Comm_set_errhandler(base[t], MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_split(base[t], rank % 2, rank, &half[t]));
    CHECK_MPI(MPI_Comm_set_errhandler(half[t], MPI_ERRORS_RETURN));
  }
  pthread_t th[NT];
  for (int t = 0; t < NT; t++) CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < NT; t++) CHECK(pthread_join(th[t], NULL) == 0);

  /* Uniformity: every survivor's thread t stopped at the same round with the same class. */
  MPI_Comm alive = check;
  if (kill_mode) CHECK_MPI(MPIX_Comm_shrink(check, &alive));
  int n = 0;
  CHECK_MPI(MPI_Comm_size(alive, &n));
  CHECK(n == (kill_mode ? size - 1 : size), "%d survivors", n);
  int mine[2 * NT];
  for (int t = 0; t < NT; t++) {
    mine[2 * t] = stop_round[t];
    mine[2 * t + 1] = stop_class[t];
  }
  int *all = malloc(sizeof(int) * 2 * NT * (size_t)n);
  CHECK(all != NULL);
  CHECK_MPI(MPI_Allgather(mine, 2 * NT, MPI_INT, all, 2 * NT, MPI_INT, alive));
  for (int p = 1; p < n; p++)
    for (int t = 0; t < NT; t++)
      CHECK(all[p * 2 * NT + 2 * t] == all[2 * t] && all[p * 2 * NT + 2 * t + 1] == all[2 * t + 1],
            "thread %d: survivor %d stopped at round %d (%s), survivor 0 at round %d (%s): not uniform", t, p,
            all[p * 2 * NT + 2 * t], ft_class_name(all[p * 2 * NT + 2 * t + 1]), all[2 * t], ft_class_name(all[2 * t + 1]));
  if (rank == 0 || (kill_mode && rank == 1))
    for (int t = 0; t < NT; t++) printf("thread %d: stopped at round %d (%s)\n", t, stop_round[t], ft_class_name(stop_class[t]));
  free(all);
  for (int t = 0; t < NT; t++) {
    MPI_Comm_free(&half[t]);
    MPI_Comm_free(&base[t]);
  }
  MPI_Group_free(&world_group);
  if (alive != check) MPI_Comm_free(&alive);
  MPI_Comm_free(&check);
  ft_pass(MPI_COMM_WORLD, "ft_comm_threads_group");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
