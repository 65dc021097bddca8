/* MPI_Comm_spawn over a communicator with a dead parent (4 ranks, rank 3 SIGKILLed). Modes (argv[1]):
 *
 *  old  Rank 3 dies and every survivor knows it (ft_wait_failed) before the spawn: the spawn fails at every
 *       survivor with MPI_ERR_PROC_FAILED (the parents agree first, so no child is started for parents that
 *       give up), MPI_Comm_spawn returns no intercommunicator.
 *  new  Rank 3 dies right before the spawn, without waiting for the notice: each survivor's spawn succeeds or
 *       fails with MPI_ERR_PROC_FAILED; the survivors that got an intercommunicator use it with the children.
 *
 * In both modes the survivors then agree, shrink, spawn two children on the shrunk communicator (must work),
 * exchange a token with them, and the job must end: before the fix, children started for the failed spawn
 * waited in MPI_Init for parents that had given up (the job hung), or aborted the whole job when the port
 * closed (the ulfm-testing stress program spawn.c). A child is this program with argv "child".
 * PASS: "PASS ft_spawn_dead_parent" from one survivor. */
#include "ft_check.h"

#include <string.h>

static void child(void) {
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  CHECK(parent != MPI_COMM_NULL, "a child without a parent");
  MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  int token = 0;
  if (r == 0) CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 0, 5, parent, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK(token == 42, "child got token %d", token);
  CHECK_MPI(MPI_Barrier(parent));
  CHECK_MPI(MPI_Comm_disconnect(&parent));
}

/* The children of a spawn that worked: token to child 0, a barrier over the intercommunicator, disconnect. */
static int use_children(MPI_Comm inter, int am_root) {
  int token = 42, rc = MPI_SUCCESS;
  if (am_root) rc = MPI_Send(&token, 1, MPI_INT, 0, 5, inter);
  if (rc == MPI_SUCCESS) rc = MPI_Barrier(inter);
  MPI_Comm_disconnect(&inter);
  return rc;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1 && strcmp(argv[1], "child") == 0) {
    child();
    MPI_Finalize();
    return 0;
  }
  CHECK(argc > 1 && (strcmp(argv[1], "old") == 0 || strcmp(argv[1], "new") == 0), "usage: old|new");
  const int known = strcmp(argv[1], "old") == 0;
  int rank, size;
  MPI_Comm comm, inter = MPI_COMM_NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 4, "run with 4 ranks");
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  CHECK(ft_sync_all(comm) == MPI_SUCCESS);
  if (rank == 3) ft_die();
  if (known) ft_wait_failed(comm, 1, 20.0);

  char* args[] = {"child", NULL};
  int codes[2];
  int rc = MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, comm, &inter, codes);
  if (known) {
    CHECK(check_class_of(rc) == MPI_ERR_PROC_FAILED, "spawn with a known dead parent: %s", ft_class_name(rc));
    CHECK(inter == MPI_COMM_NULL, "a failed spawn returned an intercommunicator");
  } else {
    CHECK(rc == MPI_SUCCESS || check_class_of(rc) == MPI_ERR_PROC_FAILED, "spawn: %s", ft_class_name(rc));
    if (rc == MPI_SUCCESS) {
      CHECK(inter != MPI_COMM_NULL);
      MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
      CHECK_CLASS2(use_children(inter, rank == 0), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
    }
  }
  printf("rank %d: spawn with a dead parent (%s): %s\n", rank, argv[1], ft_class_name(rc));

  int flag = 1;
  CHECK_CLASS2(MPIX_Comm_agree(comm, &flag), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
  MPI_Comm shrunk;
  CHECK_MPI(MPIX_Comm_shrink(comm, &shrunk));
  MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
  int ns = 0, sr = 0;
  MPI_Comm_size(shrunk, &ns);
  MPI_Comm_rank(shrunk, &sr);
  CHECK(ns == 3, "shrunk to %d", ns);
  CHECK_MPI(MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, shrunk, &inter, MPI_ERRCODES_IGNORE));
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  CHECK_MPI(use_children(inter, sr == 0));
  MPI_Comm_free(&shrunk);

  ft_pass(comm, "ft_spawn_dead_parent");
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
