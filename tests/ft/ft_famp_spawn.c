/* FA-MPI spawn and spawn+merge forms (seed 001 §7.5.2, src/api/famp_spawn.cpp) with real SIGKILLs.
 * Modes (argv[1]; argv[2] = the victim rank where one dies):
 *
 *  ok           nobody dies: MPI_Comm_ispawn_sync, MPI_Comm_spawn_local and MPI_Comm_ispawn_merge_sync give
 *               MPI_SUCCESS; the children see every parent (remote size n); the merged communicator has
 *               n + 2 members and an Allreduce over it counts them.
 *  parent_dead  rank V is killed before the calls: MPI_Comm_ispawn_sync ends with MPI_GROUP_SHRUNK at every
 *               survivor and its intercommunicator's local group is the n-1 survivors (the children see
 *               remote size n-1); MPI_Comm_spawn_local gives MPI_SUCCESS with the same group;
 *               MPI_Comm_ispawn_merge_sync gives MPI_GROUP_SHRUNK and a merged communicator of n-1+2.
 *               With V = -1 nobody kills itself: mpiexec --inject kills a rank as it enters the first call
 *               (while the others are inside it).
 *  root_dead    list_of_roots = {V, other}; V is killed before the call: the next root spawns
 *               (MPI_GROUP_SHRUNK, children answer).
 *  child_dies   the children are killed before MPI_Init: MPI_Comm_ispawn_sync gives the same error class at
 *               every parent (MPI_ERR_SPAWN or MPI_ERR_PROC_FAILED), every errcode that class and no
 *               communicator; MPI_Comm_spawn_local gives an error and no communicator; a later spawn works.
 *               Never a hang (each call well under the time limit).
 *  threads      MPI_THREAD_MULTIPLE: a second thread dups a duplicate of MPI_COMM_WORLD (then an Allreduce over
 *               the copy) in a loop while the main thread runs MPI_Comm_spawn_merge_local rounds: step 1's
 *               agreement on a context id must not collide with the dups' (MPI_ERR_INTERN "context id already
 *               in use" before it took its ids from the non-blocking pool, ishrinkid).
 *  bad          bad input: no roots, a root out of range, a negative timeout, a NULL request: clear errors;
 *               MPI_Comm_isplit_multi_sync over two input communicators: MPI_ERR_UNSUPPORTED_OPERATION.
 *
 * Children are this program with argv "child <kind>" (kind: plain, merge, die). */
#include "ft_check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static MPI_Timeout no_limit(void) {
  MPI_Timeout t;
  MPI_Timeout_set_seconds(&t, 0.0);
  return t;
}

/* Parent side of a plain spawn: rank 0 of the local group hears from child 0 how many parents it sees. */
static void check_children(MPI_Comm inter, int expect_parents) {
  int lsize = 0, rsize = 0, lrank = -1;
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Comm_rank(inter, &lrank);
  CHECK(lsize == expect_parents, "intercommunicator local size %d, expected %d", lsize, expect_parents);
  CHECK(rsize == 2, "remote size %d, expected 2 children", rsize);
  if (lrank == 0) {
    int seen = -1;
    CHECK_MPI(MPI_Recv(&seen, 1, MPI_INT, 0, 77, inter, MPI_STATUS_IGNORE));
    CHECK(seen == expect_parents, "child 0 sees %d parents, expected %d", seen, expect_parents);
  }
  CHECK_MPI(MPI_Comm_disconnect(&inter));
}

static void check_merged(MPI_Comm merged, int expect) {
  int n = 0, sum = 0, one = 1;
  MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
  MPI_Comm_size(merged, &n);
  CHECK(n == expect, "merged size %d, expected %d", n, expect);
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged));
  CHECK(sum == expect, "Allreduce over the merged communicator counted %d", sum);
  CHECK_MPI(MPI_Comm_free(&merged));
}

/* Every survivor got the same class (gathered over the shrunk WORLD). */
static void check_uniform(int cls, const char* what) {
  MPI_Comm s;
  int n;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
  MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN);
  MPI_Comm_size(s, &n);
  int* all = malloc(sizeof(int) * (size_t)n);
  CHECK(all != NULL);
  CHECK_MPI(MPI_Allgather(&cls, 1, MPI_INT, all, 1, MPI_INT, s));
  for (int i = 0; i < n; ++i) CHECK(all[i] == cls, "%s: survivor %d got class %d, I got %d", what, i, all[i], cls);
  free(all);
  MPI_Comm_free(&s);
}

static void spawn_round(char* self, int n_parents, int shrunk, const int* roots, int nroots) {
  char* plain[] = {"child", "plain", NULL};
  char* merge[] = {"child", "merge", NULL};
  int codes[2] = {-1, -1};
  MPI_Comm inter = MPI_COMM_NULL, merged = MPI_COMM_NULL;
  MPI_Request req = MPI_REQUEST_NULL;
  const int expect = shrunk ? MPI_GROUP_SHRUNK : MPI_SUCCESS;
  /* sync, nonblocking form */
  CHECK_MPI(MPI_Comm_ispawn_sync(self, plain, 2, MPI_INFO_NULL, nroots, (int*)roots, MPI_COMM_WORLD, &inter, no_limit(),
                                 codes, &req));
  int rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(check_class_of(rc) == expect, "ispawn_sync: class %d, expected %d", check_class_of(rc), expect);
  CHECK(codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS, "ispawn_sync errcodes %d %d", codes[0], codes[1]);
  CHECK(inter != MPI_COMM_NULL, "ispawn_sync: no intercommunicator");
  check_children(inter, n_parents);
  check_uniform(check_class_of(rc), "ispawn_sync");
  /* local, blocking form: best effort, MPI_SUCCESS with the survivors */
  rc = MPI_Comm_spawn_local(self, plain, 2, MPI_INFO_NULL, nroots, (int*)roots, MPI_COMM_WORLD, &inter, no_limit(), codes);
  CHECK(rc == MPI_SUCCESS, "spawn_local: class %d", check_class_of(rc));
  CHECK(inter != MPI_COMM_NULL, "spawn_local: no intercommunicator");
  check_children(inter, n_parents);
  /* spawn + merge, sync */
  CHECK_MPI(MPI_Comm_ispawn_merge_sync(self, merge, 2, MPI_INFO_NULL, nroots, (int*)roots, MPI_COMM_WORLD, &merged,
                                       no_limit(), codes, &req));
  rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(check_class_of(rc) == expect, "ispawn_merge_sync: class %d, expected %d", check_class_of(rc), expect);
  CHECK(merged != MPI_COMM_NULL, "ispawn_merge_sync: no communicator");
  check_merged(merged, n_parents + 2);
}

static void child_dies(char* self) {
  char* die[] = {"child", "die", NULL};
  char* plain[] = {"child", "plain", NULL};
  int codes[2] = {-1, -1};
  int root = 0;
  MPI_Comm inter = MPI_COMM_NULL;
  MPI_Request req = MPI_REQUEST_NULL;
  double t0 = ft_now();
  CHECK_MPI(MPI_Comm_ispawn_sync(self, die, 2, MPI_INFO_NULL, 1, &root, MPI_COMM_WORLD, &inter, no_limit(), codes, &req));
  int rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  int cls = check_class_of(rc);
  CHECK(cls == MPI_ERR_SPAWN || cls == MPI_ERR_PROC_FAILED, "ispawn_sync of dying children: class %d", cls);
  CHECK(codes[0] == cls && codes[1] == cls, "errcodes %d %d, expected the outcome %d", codes[0], codes[1], cls);
  CHECK(inter == MPI_COMM_NULL, "an intercommunicator after a failed sync spawn");
  CHECK(ft_now() - t0 < 20, "the failed spawn took %.1f s", ft_now() - t0);
  check_uniform(cls, "ispawn_sync with dying children");
  t0 = ft_now();
  rc = MPI_Comm_spawn_local(self, die, 2, MPI_INFO_NULL, 1, &root, MPI_COMM_WORLD, &inter, no_limit(), codes);
  CHECK(rc != MPI_SUCCESS, "spawn_local of dying children succeeded");
  CHECK(inter == MPI_COMM_NULL, "an intercommunicator after a failed local spawn");
  CHECK(ft_now() - t0 < 20, "the failed local spawn took %.1f s", ft_now() - t0);
  /* the processes are fine: a later spawn works */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Comm_ispawn_sync(self, plain, 2, MPI_INFO_NULL, 1, &root, MPI_COMM_WORLD, &inter, no_limit(), codes, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_children(inter, size);
}

static void bad(char* self) {
  char* plain[] = {"child", "plain", NULL};
  MPI_Comm inter = MPI_COMM_NULL;
  MPI_Request req;
  int roots[1] = {0}, far[1] = {1000};
  MPI_Timeout neg;
  neg.ftmpi_ns = -1;
  CHECK_CLASS(MPI_Comm_spawn_local(self, plain, 2, MPI_INFO_NULL, 0, roots, MPI_COMM_WORLD, &inter, no_limit(), NULL), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Comm_spawn_local(self, plain, 2, MPI_INFO_NULL, 1, far, MPI_COMM_WORLD, &inter, no_limit(), NULL), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Comm_spawn_local(self, plain, 2, MPI_INFO_NULL, 1, roots, MPI_COMM_WORLD, &inter, neg, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_ispawn_sync(self, plain, 2, MPI_INFO_NULL, 1, roots, MPI_COMM_WORLD, &inter, no_limit(), NULL, NULL), MPI_ERR_ARG);
  CHECK(inter == MPI_COMM_NULL, "an intercommunicator after bad input");
  /* not spawn, but the other form of docs/famp.md that is refused by design: several input communicators */
  MPI_Comm in2[2] = {MPI_COMM_WORLD, MPI_COMM_SELF}, outs[1];
  int color = 0, key = 0;
  CHECK_CLASS(MPI_Comm_isplit_multi_sync(2, in2, 1, &color, &key, no_limit(), outs, 0, &req), MPI_ERR_UNSUPPORTED_OPERATION);
}

#define THREAD_DUPS 150
#define THREAD_SPAWNS 4

static void* dup_loop(void* arg) {
  MPI_Comm base = *(MPI_Comm*)arg;
  int n = 0;
  MPI_Comm_size(base, &n);
  for (int i = 0; i < THREAD_DUPS; i++) {
    MPI_Comm d = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_dup(base, &d));
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    int v = i + 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, d));
    CHECK(sum == v * n, "dup %d: allreduce gave %d, want %d", i, sum, v * n);
    CHECK_MPI(MPI_Comm_free(&d));
  }
  return NULL;
}

static void threads(char* self, int size) {
  char* merge[] = {"child", "merge", NULL};
  MPI_Comm base;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base));
  MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, dup_loop, &base) == 0, "pthread_create");
  for (int i = 0; i < THREAD_SPAWNS; i++) {
    int root = i % size, codes[2] = {-1, -1};
    MPI_Comm merged = MPI_COMM_NULL;
    const int rc = MPI_Comm_spawn_merge_local(self, merge, 2, MPI_INFO_NULL, 1, &root, MPI_COMM_WORLD, &merged, no_limit(), codes);
    CHECK(rc == MPI_SUCCESS, "spawn_merge_local %d: %s (%d)", i, ft_class_name(rc), rc);
    check_merged(merged, size + 2);
  }
  CHECK(pthread_join(t, NULL) == 0, "pthread_join");
  CHECK_MPI(MPI_Comm_free(&base));
}

static void child(const char* kind, MPI_Comm parent) {
  MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
  int rank, rsize;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_remote_size(parent, &rsize);
  if (strcmp(kind, "merge") == 0) {
    MPI_Comm merged;
    CHECK_MPI(MPI_Intercomm_merge(parent, 1, &merged));
    check_merged(merged, rsize + 2);
    CHECK_MPI(MPI_Comm_free(&parent));
    return;
  }
  if (rank == 0) CHECK_MPI(MPI_Send(&rsize, 1, MPI_INT, 0, 77, parent));
  CHECK_MPI(MPI_Comm_disconnect(&parent));
}

int main(int argc, char** argv) {
  if (argc > 2 && strcmp(argv[1], "child") == 0 && strcmp(argv[2], "die") == 0) ft_die(); /* dies at start */
  int rank, size;
  if (argc > 1 && strcmp(argv[1], "threads") == 0) {  /* (its children take ft_init's plain MPI_Init) */
    int provided = 0;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided (%d)", provided);
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  } else {
    ft_init(&argc, &argv, &rank, &size);
  }
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    child(argc > 2 ? argv[2] : "plain", parent);
    MPI_Finalize();
    return 0;
  }
  const char* mode = argc > 1 ? argv[1] : "ok";
  const int victim = argc > 2 ? atoi(argv[2]) : -1;
  if (strcmp(mode, "ok") == 0) {
    int root = size - 1;
    spawn_round(argv[0], size, 0, &root, 1);
  } else if (strcmp(mode, "parent_dead") == 0) {
    if (rank == victim) ft_die();
    int root = 0;
    spawn_round(argv[0], size - 1, 1, &root, 1);
  } else if (strcmp(mode, "root_dead") == 0) {
    if (rank == victim) ft_die();
    int roots[2] = {victim, (victim + 1) % size};
    spawn_round(argv[0], size - 1, 1, roots, 2);
  } else if (strcmp(mode, "child_dies") == 0) {
    child_dies(argv[0]);
  } else if (strcmp(mode, "bad") == 0) {
    bad(argv[0]);
  } else if (strcmp(mode, "threads") == 0) {
    threads(argv[0], size);
  } else {
    CHECK(0, "unknown mode %s", mode);
  }
  ft_pass(MPI_COMM_WORLD, mode);
  MPI_Finalize();
  return 0;
}
