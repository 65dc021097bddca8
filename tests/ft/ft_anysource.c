/* ft_anysource — ANY_SOURCE receives and process failures (seed 000 §1.2.1, API.md). 4 ranks, --with-ft ulfm.
 *
 * Phase 1: rank 0 posts Irecv(ANY_SOURCE, tag 5); rank 2 dies (raise(SIGKILL)) after a barrier.
 * Phase 2: rank 3 sends one message (tag 11) to rank 0, then dies.
 *
 * PASS when:
 *  - phase 1, rank 0: after the notice, Wait on the pending ANY_SOURCE Irecv returns
 *    MPI_ERR_PROC_FAILED_PENDING and the request stays valid (not MPI_REQUEST_NULL; Test reports the same
 *    class and flag 0); after MPIX_Comm_failure_ack a message from live rank 1 completes that same request
 *    (MPI_SUCCESS, MPI_SOURCE 1, right payload);
 *  - phase 2, rank 0: Recv(ANY_SOURCE, tag 11) still receives the message rank 3 sent before it died (it was
 *    fully sent: matched receives behave like named ones); a blocking Recv(ANY_SOURCE, tag 9) with the failure
 *    of rank 3 not acknowledged returns MPI_ERR_PROC_FAILED; a non-blocking one returns PENDING at Wait;
 *    after another ack the blocking Recv(ANY_SOURCE, tag 9) receives rank 1's message;
 *  - get_acked names exactly the acknowledged ranks; nothing hangs. */
#include "ft_check.h"

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 4, "needs 4 ranks");

  /* ---- phase 1 ---- */
  MPI_Request req = MPI_REQUEST_NULL;
  int in = -1;
  if (rank == 0) CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &req));
  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == 2) ft_die();
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);

  if (rank == 0) {
    MPI_Status st;
    CHECK_CLASS(MPI_Wait(&req, &st), MPI_ERR_PROC_FAILED_PENDING);
    CHECK(req != MPI_REQUEST_NULL, "a PENDING request stays valid");
    int flag = 1;
    CHECK_CLASS(MPI_Test(&req, &flag, &st), MPI_ERR_PROC_FAILED_PENDING);
    CHECK(req != MPI_REQUEST_NULL && flag == 0, "Test: request still pending");
    CHECK_MPI(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
    MPI_Group acked;
    int n = 0, two = 2, w = -1;
    CHECK_MPI(MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &acked));
    CHECK_MPI(MPI_Group_size(acked, &n));
    CHECK(n == 1, "acked group has %d members, expected 1", n);
    MPI_Group world;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int zero = 0;
    CHECK_MPI(MPI_Group_translate_ranks(acked, 1, &zero, world, &w));
    CHECK(w == two, "acked rank is %d, expected 2", w);
    MPI_Group_free(&acked);
    MPI_Group_free(&world);
    int go = 1;
    CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 1, 4, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(req == MPI_REQUEST_NULL);
    CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 5 && in == 105, "got %d from %d tag %d", in, st.MPI_SOURCE,
          st.MPI_TAG);
  } else if (rank == 1) {
    int go = 0, v = 105;
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
  }

  /* ---- phase 2 (rank 3 waits until rank 0 is done with phase 1, so its death is not acked early) ---- */
  if (rank == 0) {
    int go = 3;
    CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 3, 3, MPI_COMM_WORLD));
  }
  if (rank == 3) {
    int v = 311, go = 0;
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 11, MPI_COMM_WORLD));
    ft_die();
  }
  ft_wait_failed(MPI_COMM_WORLD, 2, 10.0);
  if (rank == 0) {
    MPI_Status st;
    in = -1;
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &st));
    CHECK(in == 311 && st.MPI_SOURCE == 3, "message sent before the death: got %d from %d", in, st.MPI_SOURCE);
    CHECK_CLASS(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st), MPI_ERR_PROC_FAILED);
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &req));
    CHECK_CLASS(MPI_Wait(&req, &st), MPI_ERR_PROC_FAILED_PENDING);
    CHECK(req != MPI_REQUEST_NULL);
    CHECK_MPI(MPI_Cancel(&req));
    CHECK_MPI(MPI_Wait(&req, &st));
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled, "a pending ANY_SOURCE receive can be cancelled");
    CHECK_MPI(MPIX_Comm_failure_ack(MPI_COMM_WORLD));
    int go = 2;
    CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 1, 4, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &st));
    CHECK(in == 109 && st.MPI_SOURCE == 1, "after ack: got %d from %d", in, st.MPI_SOURCE);
  } else if (rank == 1) {
    int go = 0, v = 109;
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(go == 2);
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
  }

  ft_pass(MPI_COMM_WORLD, "ft_anysource");
  MPI_Finalize();
  return 0;
}
