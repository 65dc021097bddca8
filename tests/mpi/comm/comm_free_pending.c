/* comm_free_pending — a request on a freed communicator completes with that communicator's error handler
 * (MPI-3.1 §6.4.3: MPI_Comm_free only marks the communicator; pending operations complete normally; issue
 * 12 item 5). 2 or more ranks (ranks beyond 1 only take part in the barriers). Portable MPI.
 *
 * MPI_COMM_WORLD keeps MPI_ERRORS_ARE_FATAL. Three rounds, each on a fresh dup c of MPI_COMM_WORLD:
 *  1. c has MPI_ERRORS_RETURN. Rank 0 posts an Irecv of 1 int from rank 1 on c and frees c; rank 1 sends
 *     2 ints on c and frees c. Rank 0's MPI_Wait must return an error of class MPI_ERR_TRUNCATE.
 *  2. Same with a user error handler on c (freed with MPI_Errhandler_free right after it is set): Waitall
 *     must return MPI_ERR_IN_STATUS, the status MPI_ERR_TRUNCATE, and the handler must have run once,
 *     with MPI_ERR_IN_STATUS.
 *  3. Same with Test in a loop.
 * Before the fix, rank 0 aborted the job through MPI_COMM_WORLD's handler. PASS: every check holds. */
#include "common/check.h"

static int handler_calls = 0, handler_code = 0;
static void count_errors(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  handler_calls++;
  handler_code = *code;
}

static void round_trip(int round, int rank) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  if (round == 2) {
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_create_errhandler(count_errors, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(c, eh));
    CHECK_MPI(MPI_Errhandler_free(&eh));
  } else {
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  }
  int buf[2] = {7, 8};
  MPI_Request r = MPI_REQUEST_NULL;
  if (rank == 0) CHECK_MPI(MPI_Irecv(buf, 1, MPI_INT, 1, 10 + round, c, &r));
  CHECK_MPI(MPI_Barrier(c)); /* the receive is posted before the message leaves */
  if (rank == 1) CHECK_MPI(MPI_Send(buf, 2, MPI_INT, 0, 10 + round, c));
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK(c == MPI_COMM_NULL);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank != 0) return;
  if (round == 1) {
    int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(check_class_of(rc) == MPI_ERR_TRUNCATE, "round 1: Wait returned %d", rc);
  } else if (round == 2) {
    MPI_Status st;
    int rc = MPI_Waitall(1, &r, &st);
    CHECK(check_class_of(rc) == MPI_ERR_IN_STATUS, "round 2: Waitall returned %d", rc);
    CHECK(check_class_of(st.MPI_ERROR) == MPI_ERR_TRUNCATE, "round 2: status error %d", st.MPI_ERROR);
    CHECK(handler_calls == 1, "round 2: the communicator's handler ran %d times", handler_calls);
    CHECK(check_class_of(handler_code) == MPI_ERR_IN_STATUS, "round 2: handler got %d", handler_code);
  } else {
    int flag = 0, rc = MPI_SUCCESS;
    while (!flag && rc == MPI_SUCCESS) rc = MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    CHECK(check_class_of(rc) == MPI_ERR_TRUNCATE, "round 3: Test returned %d", rc);
  }
  CHECK(r == MPI_REQUEST_NULL, "round %d: the request is released", round);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs at least 2 ranks");
  for (int round = 1; round <= 3; round++) round_trip(round, rank);
  check_pass("comm_free_pending");
  MPI_Finalize();
  return 0;
}
