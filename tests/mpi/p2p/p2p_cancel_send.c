/* p2p_cancel_send: cancelling sends that the receiver has not matched (MPICH test/mpi/pt2pt/scancel, pscancel).
 *
 * MPI-3.1 §3.8.4: after MPI_Cancel, MPI_Wait returns whatever the other processes do: either the send is
 * cancelled (the message is never received) or it completes (the message is received). A synchronous send
 * and a rendezvous-sized send need their receiver to complete, so the library must really cancel them.
 * Covers MPI_Issend (eager size and large), a large MPI_Isend, a persistent MPI_Ssend_init, a synchronous
 * send to self, and a send the receiver had already matched (cancel refused, data delivered intact).
 * PASS: every Wait after Cancel returns; synchronous and large sends to a receiver that has not posted are
 * cancelled; whatever Test_cancelled says, the receiver gets exactly the messages that were not cancelled
 * (a later message with the same tag is received intact, never a cancelled one's bytes). */
#include "../common/check.h"

#define BIG (1 << 20)

enum { MODE_ISEND, MODE_ISSEND, MODE_PERSISTENT_SSEND };

/* Rank 0 starts a send of n bytes (value `fill`) to rank 1, cancels it and waits; then tells rank 1 whether
 * the message is still to be received (n, or 0) and sends a marker message with the same tag. */
static void one_case(int rank, int mode, int n, int must_cancel, char fill) {
  const int tag = 100 + mode;
  char *buf = malloc(n > 0 ? n : 1);
  CHECK(buf != NULL);
  if (rank == 0) {
    MPI_Request r;
    MPI_Status st;
    int cancelled = -1, left;
    memset(buf, fill, n);
    if (mode == MODE_ISEND)
      CHECK_MPI(MPI_Isend(buf, n, MPI_CHAR, 1, tag, MPI_COMM_WORLD, &r));
    else if (mode == MODE_ISSEND)
      CHECK_MPI(MPI_Issend(buf, n, MPI_CHAR, 1, tag, MPI_COMM_WORLD, &r));
    else {
      CHECK_MPI(MPI_Ssend_init(buf, n, MPI_CHAR, 1, tag, MPI_COMM_WORLD, &r));
      CHECK_MPI(MPI_Start(&r));
    }
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    if (must_cancel) CHECK(cancelled, "mode %d, %d bytes: an unmatched send was not cancelled", mode, n);
    if (mode == MODE_PERSISTENT_SSEND) {
      CHECK(r != MPI_REQUEST_NULL, "Wait freed a persistent request");
      CHECK_MPI(MPI_Request_free(&r));
    }
    left = cancelled ? 0 : n;
    CHECK_MPI(MPI_Send(&left, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
    buf[0] = 'M';
    CHECK_MPI(MPI_Send(buf, 1, MPI_CHAR, 1, tag, MPI_COMM_WORLD));
  } else if (rank == 1) {
    int left = -1, count = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&left, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (left > 0) {
      memset(buf, 0, n);
      CHECK_MPI(MPI_Recv(buf, n, MPI_CHAR, 0, tag, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Get_count(&st, MPI_CHAR, &count));
      CHECK(count == n && buf[0] == fill && buf[n - 1] == fill, "uncancelled message: %d bytes", count);
    }
    CHECK_MPI(MPI_Recv(buf, n, MPI_CHAR, 0, tag, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_CHAR, &count));
    CHECK(count == 1 && buf[0] == 'M', "a cancelled message was delivered: %d bytes, first '%c'", count, buf[0]);
  }
  free(buf);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2, "needs 2 ranks");

  one_case(rank, MODE_ISSEND, 1, 1, 'a');
  one_case(rank, MODE_ISSEND, 100, 1, 'b');
  one_case(rank, MODE_ISSEND, BIG, 1, 'c');
  one_case(rank, MODE_ISEND, 1, 0, 'd');  /* eager: completes locally, may be delivered instead */
  one_case(rank, MODE_ISEND, BIG, 1, 'e'); /* rendezvous: waits for the receiver, so cancelled */
  one_case(rank, MODE_PERSISTENT_SSEND, 10, 1, 'f');
  one_case(rank, MODE_PERSISTENT_SSEND, BIG, 1, 'g');

  /* Already matched: the cancel must fail and the data arrive intact. */
  {
    char *buf = malloc(BIG);
    MPI_Request r;
    MPI_Status st;
    int cancelled = -1, i;
    CHECK(buf != NULL);
    if (rank == 1) {
      CHECK_MPI(MPI_Irecv(buf, BIG, MPI_CHAR, 0, 200, MPI_COMM_WORLD, &r));
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      CHECK_MPI(MPI_Wait(&r, &st));
      for (i = 0; i < BIG; i += 4096) CHECK(buf[i] == 'h', "matched message corrupted at %d", i);
    } else {
      CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
      if (rank == 0) {
        memset(buf, 'h', BIG);
        /* the receive was posted before the barrier: rank 1 matches the message when it arrives */
        CHECK_MPI(MPI_Issend(buf, BIG, MPI_CHAR, 1, 200, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Cancel(&r));
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
        CHECK(!cancelled, "a send the receiver had posted for was reported cancelled");
      }
    }
    free(buf);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }

  /* To self: nobody will ever receive it unless cancelled. */
  {
    int x = 5, cancelled = -1, flag = 0;
    MPI_Request r;
    MPI_Status st;
    CHECK_MPI(MPI_Issend(&x, 1, MPI_INT, 0, 300, MPI_COMM_SELF, &r));
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "a synchronous send to self was not cancelled");
    CHECK_MPI(MPI_Iprobe(0, 300, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "the cancelled message to self can still be probed");
  }

  check_pass("p2p_cancel_send");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
