/* Dynamic processes with failures (seed 000 §1.2.2), every failure a real SIGKILL. Modes (argv[1]):
 *
 *  respawn      The ULFM tutorial's respawn pattern: an iterative loop on a working communicator; ranks
 *               are killed (rank 2 at iteration 3, rank 1 at iteration 6); the survivors revoke, shrink,
 *               spawn the missing processes, merge (survivors low), tell each new process the rank it
 *               replaces, and split the merged communicator in old-rank order. At the end the working
 *               communicator has its original size, every process its original rank, and the iteration
 *               count agrees everywhere.
 *  die_at_start The children of a spawn are killed before MPI_Init: the spawn returns an error (never hangs),
 *               and a later spawn works.
 *  dead_port    Rank 1 opens a port, gives its name to rank 0 and is killed: rank 0's connect to it fails
 *               with an error, never hangs.
 *  parent_dies  After a spawn, parent rank 1 is killed: the children see MPI_ERR_PROC_FAILED when they
 *               receive from it over the parent intercommunicator.
 *  merge_failed After a spawn, child 1 is killed: MPI_Intercomm_merge returns an error at every survivor of
 *               both groups (no hang).
 *
 * Children are this program with argv "child <mode> ..." (respawn: "child respawn"). */
#include "ft_check.h"

#include <stdlib.h>
#include <string.h>

static int in_array(const int* a, int n, int v) {
  for (int i = 0; i < n; ++i)
    if (a[i] == v) return 1;
  return 0;
}

/* ---- respawn ---------------------------------------------------------------------------------------- */

/* Repair `*work` (revoked or with failures): returns the new working communicator (same size, same ranks). */
static MPI_Comm repair(MPI_Comm work, char* self, int* iter) {
  MPI_Comm shrunk, inter, merged, fresh;
  int old_size, old_rank, ns, nfailed;
  MPI_Comm_size(work, &old_size);
  MPI_Comm_rank(work, &old_rank);
  CHECK_MPI(MPIX_Comm_shrink(work, &shrunk));
  MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
  MPI_Comm_size(shrunk, &ns);
  nfailed = old_size - ns;
  /* Which old ranks failed: those of `work` not in `shrunk`. */
  MPI_Group gw, gs;
  MPI_Comm_group(work, &gw);
  MPI_Comm_group(shrunk, &gs);
  int failed[64], nf = 0;
  for (int r = 0; r < old_size; ++r) {
    int t = MPI_UNDEFINED;
    MPI_Group_translate_ranks(gw, 1, &r, gs, &t);
    if (t == MPI_UNDEFINED) failed[nf++] = r;
  }
  MPI_Group_free(&gw);
  MPI_Group_free(&gs);
  CHECK(nf == nfailed, "failed ranks %d vs size difference %d", nf, nfailed);
  char* args[] = {"child", "respawn", NULL};
  int codes[64];
  int rc = MPI_Comm_spawn(self, args, nfailed, MPI_INFO_NULL, 0, shrunk, &inter, codes);
  CHECK(rc == MPI_SUCCESS, "respawn of %d processes failed: %d", nfailed, rc);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int srank;
  MPI_Comm_rank(shrunk, &srank);
  if (srank == 0)
    for (int i = 0; i < nfailed; ++i) {
      int info[2] = {failed[i], *iter};
      CHECK_MPI(MPI_Send(info, 2, MPI_INT, i, 99, inter));
    }
  CHECK_MPI(MPI_Intercomm_merge(inter, 0, &merged));
  MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
  CHECK_MPI(MPI_Comm_split(merged, 0, old_rank, &fresh));
  MPI_Comm_set_errhandler(fresh, MPI_ERRORS_RETURN);
  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&shrunk);
  return fresh;
}

static void respawn(int argc, char** argv, MPI_Comm parent) {
  MPI_Comm work;
  int iter = 0, spawned = parent != MPI_COMM_NULL;
  const int kIters = 10;
  if (!spawned) {
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &work));
  } else {
    int info[2];
    MPI_Comm merged;
    MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Recv(info, 2, MPI_INT, 0, 99, parent, MPI_STATUS_IGNORE));
    iter = info[1];
    CHECK_MPI(MPI_Intercomm_merge(parent, 1, &merged));
    CHECK_MPI(MPI_Comm_split(merged, 0, info[0], &work));
    MPI_Comm_free(&merged);
    int r;
    MPI_Comm_rank(work, &r);
    CHECK(r == info[0], "respawned process got rank %d, replaces %d", r, info[0]);
  }
  MPI_Comm_set_errhandler(work, MPI_ERRORS_RETURN);
  int size0;
  MPI_Comm_size(work, &size0);
  while (iter < kIters) {
    int rank;
    MPI_Comm_rank(work, &rank);
    if (!spawned && ((iter == 3 && rank == 2) || (iter == 6 && rank == 1))) ft_die();
    int v = iter, sum = 0;
    int rc = MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, work);
    int ok = rc == MPI_SUCCESS && sum == iter * size0;
    /* Decide together whether this step worked (a survivor whose Allreduce succeeded must not run ahead). */
    int flag = ok;
    if (rc != MPI_SUCCESS) MPIX_Comm_revoke(work);
    int arc = MPIX_Comm_agree(work, &flag);
    if (arc == MPI_SUCCESS && flag) {
      ++iter;
      continue;
    }
    MPIX_Comm_revoke(work);
    char* self = argv[0];
    MPI_Comm fresh = repair(work, self, &iter);
    MPI_Comm_free(&work);
    work = fresh;
  }
  int size, rank, sum = 0;
  MPI_Comm_size(work, &size);
  MPI_Comm_rank(work, &rank);
  CHECK(size == size0, "working communicator has %d processes, expected %d", size, size0);
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, work));
  CHECK(sum == size * (size - 1) / 2, "ranks sum to %d", sum);
  int it_max = 0, it_min = 0;
  CHECK_MPI(MPI_Allreduce(&iter, &it_max, 1, MPI_INT, MPI_MAX, work));
  CHECK_MPI(MPI_Allreduce(&iter, &it_min, 1, MPI_INT, MPI_MIN, work));
  CHECK(it_max == kIters && it_min == kIters, "iterations %d..%d", it_min, it_max);
  CHECK_MPI(MPI_Barrier(work));
  if (rank == 0) {
    printf("PASS ft_dpm respawn (%d processes, original ranks restored)\n", size);
    fflush(stdout);
  }
  MPI_Comm_free(&work);
  (void)argc;
}

/* ---- the others ------------------------------------------------------------------------------------- */

static void die_at_start(char* self, int rank) {
  MPI_Comm inter = MPI_COMM_NULL;
  char* args[] = {"child", "die_at_start", NULL};
  int codes[2] = {-1, -1};
  double t0 = ft_now();
  int rc = MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
  int cls = check_class_of(rc);
  CHECK(rc != MPI_SUCCESS && (cls == MPI_ERR_SPAWN || cls == MPI_ERR_PROC_FAILED),
        "spawn of children that die at start: class %d", cls);
  CHECK(inter == MPI_COMM_NULL, "an intercommunicator after a failed spawn");
  CHECK(ft_now() - t0 < 20, "the failed spawn took %.1f s", ft_now() - t0);
  char* good[] = {"child", "ok", NULL};
  rc = MPI_Comm_spawn(self, good, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
  CHECK(rc == MPI_SUCCESS, "a spawn after the failed one: %d", rc);
  int v = 0;
  if (rank == 0) CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE));
  CHECK(rank != 0 || v == 42, "child said %d", v);
  MPI_Comm_disconnect(&inter);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS ft_dpm die_at_start\n");
}

static void dead_port(int rank, int size) {
  char port[MPI_MAX_PORT_NAME] = "";
  if (rank == 1) {
    CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
    CHECK_MPI(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 1, MPI_COMM_WORLD));
    ft_die();
  }
  if (rank == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    ft_wait_failed(MPI_COMM_WORLD, 1, 10);
    MPI_Comm inter = MPI_COMM_NULL;
    double t0 = ft_now();
    int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
    int cls = check_class_of(rc);
    CHECK(rc != MPI_SUCCESS && (cls == MPI_ERR_PORT || cls == MPI_ERR_PROC_FAILED), "connect to a dead port: class %d", cls);
    CHECK(ft_now() - t0 < 10, "connect took %.1f s", ft_now() - t0);
  }
  (void)size;
  ft_pass(MPI_COMM_WORLD, "ft_dpm dead_port");
}

static void parent_dies(char* self, int rank) {
  MPI_Comm inter;
  char* args[] = {"child", "parent_dies", NULL};
  CHECK_MPI(MPI_Comm_spawn(self, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE));
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  /* After every parent's spawn returned (the spawn is a collective: a member dying inside it may fail it at
   * the others with MPI_ERR_PROC_FAILED, as any ULFM collective). */
  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == 1) ft_die();
  /* Parent 0 tells the children it is alive; the children then wait for parent 1, which is dead. */
  int v = 7;
  if (rank == 0)
    for (int c = 0; c < 2; ++c) CHECK_MPI(MPI_Send(&v, 1, MPI_INT, c, 3, inter));
  if (rank == 0) {
    int done = 0;
    for (int c = 0; c < 2; ++c) {
      CHECK_MPI(MPI_Recv(&done, 1, MPI_INT, c, 4, inter, MPI_STATUS_IGNORE));
      CHECK(done == 1, "child %d saw no failure of parent 1", c);
    }
  }
  ft_pass(MPI_COMM_WORLD, "ft_dpm parent_dies");
}

static void merge_failed(char* self, int rank) {
  MPI_Comm inter, merged = MPI_COMM_NULL;
  char* args[] = {"child", "merge_failed", NULL};
  CHECK_MPI(MPI_Comm_spawn(self, args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE));
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  /* Child 1 kills itself at once: a receive from it ends with MPI_ERR_PROC_FAILED once the notice is here. */
  int v = 0;
  CHECK_CLASS(MPI_Recv(&v, 1, MPI_INT, 1, 9, inter, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
  double t0 = ft_now();
  int rc = MPI_Intercomm_merge(inter, 0, &merged);
  CHECK(rc != MPI_SUCCESS, "merge with a failed member succeeded");
  CHECK(ft_now() - t0 < 10, "merge took %.1f s", ft_now() - t0);
  (void)rank;
  ft_pass(MPI_COMM_WORLD, "ft_dpm merge_failed");
}

static void child(int argc, char** argv, MPI_Comm parent) {
  const char* mode = argc > 2 ? argv[2] : "";
  MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (strcmp(mode, "ok") == 0) {
    int v = 42;
    if (rank == 0) CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 5, parent));
    MPI_Comm_disconnect(&parent);
  } else if (strcmp(mode, "parent_dies") == 0) {
    int v = 0;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 3, parent, MPI_STATUS_IGNORE));
    int rc = MPI_Recv(&v, 1, MPI_INT, 1, 3, parent, MPI_STATUS_IGNORE);
    int saw = check_class_of(rc) == MPI_ERR_PROC_FAILED;
    CHECK_MPI(MPI_Send(&saw, 1, MPI_INT, 0, 4, parent));
  } else if (strcmp(mode, "merge_failed") == 0) {
    /* After every child's MPI_Init (a sibling dying inside MPI_Init fails the others' MPI_Init instead). */
    ft_barrier_before_death(MPI_COMM_WORLD);
    if (rank == 1) ft_die();
    MPI_Comm merged = MPI_COMM_NULL;
    int rc = MPI_Intercomm_merge(parent, 1, &merged);
    CHECK(rc != MPI_SUCCESS, "child: merge with a failed member succeeded");
  }
}

int main(int argc, char** argv) {
  /* die_at_start's children die before MPI_Init (a crash during start-up). */
  if (argc > 2 && strcmp(argv[1], "child") == 0 && strcmp(argv[2], "die_at_start") == 0) ft_die();
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  const char* mode = argc > 1 ? argv[1] : "respawn";
  if (parent != MPI_COMM_NULL && !(argc > 2 && strcmp(argv[2], "respawn") == 0)) {
    child(argc, argv, parent);
  } else if (strcmp(mode, "respawn") == 0 || parent != MPI_COMM_NULL) {
    respawn(argc, argv, parent);
  } else if (strcmp(mode, "die_at_start") == 0) {
    die_at_start(argv[0], rank);
  } else if (strcmp(mode, "dead_port") == 0) {
    dead_port(rank, size);
  } else if (strcmp(mode, "parent_dies") == 0) {
    parent_dies(argv[0], rank);
  } else if (strcmp(mode, "merge_failed") == 0) {
    merge_failed(argv[0], rank);
  } else {
    CHECK(0, "unknown mode %s", mode);
  }
  (void)in_array;
  MPI_Finalize();
  return 0;
}
