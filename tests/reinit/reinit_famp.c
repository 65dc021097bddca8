/* Reinit (seed 003) with FA-MPI TryBlocks (seed 001): nothing of the FA-MPI state of the old epoch reaches
 * the blocks of the next one. After a rollback only MPI_COMM_WORLD, MPI_COMM_SELF and MPI_COMM_NULL are
 * valid (seed 003 section 1.3); the blocks left open, the errors raised on communicators (irreversible
 * within an epoch, seed 001) and the requests marked bad belong to the epoch that was left.
 *
 * Usage: reinit_famp CKPT_DIR   (4 ranks or more, mpiexec --with-ft reinit)
 *
 * Epoch 0: every rank opens a block on MPI_COMM_WORLD and leaves it open (and a nested one on rank 1, with
 * its try request marked bad by MPI_Request_raise_error); rank 0 raises an error on MPI_COMM_WORLD and on
 * MPI_COMM_SELF (MPI_Comm_raise_error: every later commit on them would fail), rank 1 declares rank 2
 * failed for every communicator (MPI_Comm_rank_raise_forall). Then the last rank kills itself (SIGKILL)
 * while the others wait in a barrier.
 * Next epoch: every rank commits an empty block on MPI_COMM_WORLD and one on MPI_COMM_SELF (must succeed:
 * the raised errors and the declared rank are gone),
 * then a nested pair (both must succeed: the new outer block is nobody's child), then an inner block with a
 * raised error inside an outer one (the inner fails and its failure counts against the new outer block,
 * not against a block of the old epoch).
 *
 * PASS (rank 0 prints "PASS reinit_famp"): every check on every rank, one rollback. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static int rank, size;

static void fail(const char *what, int rc) {
  printf("FAIL reinit_famp rank %d: %s (rc %d)\n", rank, what, rc);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static void resilient(void *arg) {
  (void)arg;
  int state, restarts;
  MPIX_Reinit_state(&state, &restarts);
  if (state == MPIX_REINIT_NEW) {
    MPI_Request outer, inner;
    int rc = MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &outer);
    if (rc != MPI_SUCCESS) fail("epoch 0: MPI_Tryblock_start", rc);
    if (rank == 1) {
      rc = MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &inner);
      if (rc != MPI_SUCCESS) fail("epoch 0: nested MPI_Tryblock_start", rc);
      rc = MPI_Request_raise_error(inner, MPI_Error_User_assertion);
      if (rc != MPI_SUCCESS) fail("epoch 0: MPI_Request_raise_error", rc);
    }
    if (rank == 0) {
      rc = MPI_Comm_raise_error(MPI_COMM_WORLD, MPI_Error_Invalidate_Collective);
      if (rc == MPI_SUCCESS) rc = MPI_Comm_raise_error(MPI_COMM_SELF, MPI_Error_Invalidate_Collective);
      if (rc != MPI_SUCCESS) fail("epoch 0: MPI_Comm_raise_error", rc);
    }
    if (rank == 1 && (rc = MPI_Comm_rank_raise_forall(MPI_COMM_WORLD, 2, MPI_Error_task_down)) != MPI_SUCCESS)
      fail("epoch 0: MPI_Comm_rank_raise_forall", rc);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) raise(SIGKILL);
    MPI_Barrier(MPI_COMM_WORLD); /* the rollback comes while the survivors wait here */
    fail("epoch 0: the barrier after the kill returned", 0);
  }
  MPI_Request tb, outer, inner;
  int rc = MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &tb);
  if (rc != MPI_SUCCESS) fail("MPI_Tryblock_start after the rollback", rc);
  rc = MPI_Tryblock_finish(tb, 0, NULL);
  if (rc != MPI_SUCCESS) fail("an empty block after the rollback (an old epoch's raised error?)", rc);
  MPI_Request_free(&tb);
  rc = MPI_Tryblock_start(MPI_COMM_SELF, MPI_TRYBLOCK_GLOBAL, &tb);
  if (rc == MPI_SUCCESS) rc = MPI_Tryblock_finish(tb, 0, NULL);
  if (rc != MPI_SUCCESS) fail("an empty block on MPI_COMM_SELF after the rollback", rc);
  MPI_Request_free(&tb);
  rc = MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &outer);
  if (rc == MPI_SUCCESS) rc = MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &inner);
  if (rc != MPI_SUCCESS) fail("nested MPI_Tryblock_start after the rollback", rc);
  rc = MPI_Tryblock_finish(inner, 0, NULL);
  if (rc != MPI_SUCCESS) fail("nested inner block after the rollback", rc);
  MPI_Request_free(&inner);
  rc = MPI_Tryblock_finish(outer, 0, NULL);
  if (rc != MPI_SUCCESS) fail("nested outer block after the rollback", rc);
  MPI_Request_free(&outer);
  rc = MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &outer);
  if (rc == MPI_SUCCESS) rc = MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &inner);
  if (rc != MPI_SUCCESS) fail("second nested MPI_Tryblock_start", rc);
  if (rank == 0 && (rc = MPI_Request_raise_error(inner, MPI_Error_User_assertion)) != MPI_SUCCESS)
    fail("MPI_Request_raise_error after the rollback", rc);
  rc = MPI_Tryblock_finish(inner, 0, NULL);
  if (rc != MPI_ERR_TRYBLOCK_FOUND_ERRORS) fail("inner block with a raised error after the rollback", rc);
  MPI_Request_free(&inner);
  rc = MPI_Tryblock_finish(outer, 0, NULL);
  if (rc != MPI_ERR_TRYBLOCK_FOUND_ERRORS) fail("outer block after a failed inner one", rc);
  MPI_Request_free(&outer);
  MPIX_Reinit_state(&state, &restarts);
  if (restarts != 1) fail("expected exactly one rollback", restarts);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    printf("PASS reinit_famp\n");
    fflush(stdout);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  mkdir(argv[1], 0700);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_REINIT_ASYNC);
  MPI_Reinit(resilient, NULL);
  MPI_Finalize();
  return 0;
}
