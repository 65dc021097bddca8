/* p2p_cancel: cancelling receives that nothing matches.
 *
 * Covers MPI_Cancel of an unmatched MPI_Irecv (named source, ANY_SOURCE, ANY_TAG, and a persistent receive)
 * and MPI_Test_cancelled; also that a cancelled receive does not swallow a later message.
 * PASS: each cancelled request completes with Test_cancelled true, a completed receive reports false, and the
 * message sent afterwards is received intact by a fresh receive. */
#include "../common/check.h"

static void cancel_one(MPI_Request *r) {
  MPI_Status st;
  int flag = -1;
  CHECK_MPI(MPI_Cancel(r));
  CHECK_MPI(MPI_Wait(r, &st));
  CHECK(*r == MPI_REQUEST_NULL, "Wait after Cancel must free the request");
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag, "Test_cancelled false for a cancelled unmatched receive");
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  int peer = (rank + 1) % size;
  int buf[4];
  MPI_Request r;

  CHECK_MPI(MPI_Irecv(buf, 4, MPI_INT, peer, 777, MPI_COMM_WORLD, &r));
  cancel_one(&r);
  CHECK_MPI(MPI_Irecv(buf, 4, MPI_INT, MPI_ANY_SOURCE, 778, MPI_COMM_WORLD, &r));
  cancel_one(&r);
  CHECK_MPI(MPI_Irecv(buf, 4, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_SELF, &r));
  cancel_one(&r);

  /* Cancel then Test (instead of Wait) until complete. */
  {
    MPI_Status st;
    int flag = 0, cancelled = 0;
    CHECK_MPI(MPI_Irecv(buf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Cancel(&r));
    while (!flag) CHECK_MPI(MPI_Test(&r, &flag, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "Test_cancelled after Cancel+Test");
  }

  /* Persistent receive: start, cancel, the request stays usable; free it afterwards. */
  {
    MPI_Request p;
    CHECK_MPI(MPI_Recv_init(buf, 4, MPI_INT, peer, 779, MPI_COMM_WORLD, &p));
    CHECK_MPI(MPI_Start(&p));
    MPI_Status st;
    int flag = -1;
    CHECK_MPI(MPI_Cancel(&p));
    CHECK_MPI(MPI_Wait(&p, &st));
    CHECK(p != MPI_REQUEST_NULL, "Wait must not free a persistent request");
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "persistent receive not cancelled");
    CHECK_MPI(MPI_Request_free(&p));
  }

  /* The cancelled receives must not have consumed anything: a real message on tag 777 arrives here.
   * The barrier keeps every send after every cancel (otherwise a wildcard receive may match legally). */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  {
    int v = rank * 3 + 1, got = -1, flag = 1;
    MPI_Status st;
    int left = (rank + size - 1) % size;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, left, 777, &got, 1, MPI_INT, peer, 777, MPI_COMM_WORLD, &st));
    CHECK(got == peer * 3 + 1, "got %d after cancellations", got);
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "Test_cancelled true for a completed receive");
  }

  check_pass("p2p_cancel");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
