/* ft_p2p_dead — point-to-point with a dead rank (seed 000 §1.2.1). 4 ranks, --with-ft ulfm.
 *
 * Rank 1 sends one small message to rank 2 (tag 7), enters a barrier and dies by raise(SIGKILL).
 * Before that barrier rank 0 has initiated an Irecv from 1 and a large Isend to 1 (which rank 1 never
 * receives); both initiations must return MPI_SUCCESS.
 *
 * PASS when, on every survivor:
 *  - rank 0: Wait on the pending Irecv and on the pending large Isend returns MPI_ERR_PROC_FAILED;
 *  - after the notice: blocking Send/Recv with rank 1 return MPI_ERR_PROC_FAILED at once, and new Isend/Irecv
 *    with rank 1 return MPI_SUCCESS at initiation and MPI_ERR_PROC_FAILED at Wait (also through Test);
 *  - rank 2 still receives the message rank 1 sent before it died, intact (a message fully sent before the
 *    failure is delivered);
 *  - ranks 0, 2 and 3 keep exchanging messages among themselves on MPI_COMM_WORLD (only p2p with the dead
 *    process fails);
 *  - no call hangs (the test's timeout). */
#include "ft_check.h"

#define VICTIM 1
#define BIG (1 << 20) /* rendezvous-sized: cannot complete without the receiver */

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size >= 4, "needs 4 ranks");
  char *big = malloc(BIG);
  CHECK(big != NULL);
  check_fill(big, BIG, 3);

  MPI_Request rreq = MPI_REQUEST_NULL, sreq = MPI_REQUEST_NULL;
  int inbox = -1;
  if (rank == 0) {
    CHECK_MPI(MPI_Irecv(&inbox, 1, MPI_INT, VICTIM, 5, MPI_COMM_WORLD, &rreq));
    CHECK_MPI(MPI_Isend(big, BIG, MPI_BYTE, VICTIM, 6, MPI_COMM_WORLD, &sreq));
  }
  if (rank == VICTIM) {
    unsigned char last[256];
    check_fill(last, sizeof last, 77);
    CHECK_MPI(MPI_Send(last, sizeof last, MPI_BYTE, 2, 7, MPI_COMM_WORLD));
  }
  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == VICTIM) ft_die();

  /* pending operations initiated before the failure complete with the error */
  if (rank == 0) {
    MPI_Status st;
    CHECK_CLASS(MPI_Wait(&rreq, &st), MPI_ERR_PROC_FAILED);
    CHECK_CLASS(MPI_Wait(&sreq, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
  }
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  CHECK(ft_is_failed(MPI_COMM_WORLD, VICTIM), "get_failed does not name rank %d", VICTIM);

  /* the message sent before the death is delivered */
  if (rank == 2) {
    unsigned char last[256];
    MPI_Status st;
    CHECK_MPI(MPI_Recv(last, sizeof last, MPI_BYTE, VICTIM, 7, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == VICTIM && st.MPI_TAG == 7);
    CHECK_PATTERN(last, sizeof last, 77);
  }

  /* later p2p with the dead rank fails: blocking at the call, non-blocking at completion */
  int x = rank;
  CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, VICTIM, 1, MPI_COMM_WORLD), MPI_ERR_PROC_FAILED);
  CHECK_CLASS(MPI_Recv(&x, 1, MPI_INT, VICTIM, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
  CHECK_CLASS(MPI_Ssend(&x, 1, MPI_INT, VICTIM, 1, MPI_COMM_WORLD), MPI_ERR_PROC_FAILED);
  CHECK_CLASS(MPI_Send(big, BIG, MPI_BYTE, VICTIM, 1, MPI_COMM_WORLD), MPI_ERR_PROC_FAILED);
  MPI_Request r;
  CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, VICTIM, 2, MPI_COMM_WORLD, &r));
  CHECK_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
  CHECK(r == MPI_REQUEST_NULL, "a request completed in error is freed by Wait");
  CHECK_MPI(MPI_Isend(big, BIG, MPI_BYTE, VICTIM, 2, MPI_COMM_WORLD, &r));
  CHECK_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
  CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, VICTIM, 2, MPI_COMM_WORLD, &r));
  CHECK_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
  CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, VICTIM, 2, MPI_COMM_WORLD, &r));
  int flag = 0, rc = MPI_SUCCESS;
  double t0 = ft_now();
  while (!flag && rc == MPI_SUCCESS) {
    rc = MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    CHECK(ft_now() - t0 < 10.0, "Test never completed a receive from a dead rank");
  }
  CHECK_CLASS(rc, MPI_ERR_PROC_FAILED);

  /* the survivors still talk to each other on the same communicator */
  int live[3] = {0, 2, 3};
  for (int round = 0; round < 50; round++) {
    for (int i = 0; i < 3; i++) {
      if (live[i] != rank) continue;
      int right = live[(i + 1) % 3], left = live[(i + 2) % 3];
      int out = rank * 1000 + round, in = -1;
      CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, right, 9, &in, 1, MPI_INT, left, 9, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE));
      CHECK(in == left * 1000 + round, "round %d: got %d from %d", round, in, left);
    }
  }
  if (rank == 0) { /* a big message among survivors too */
    CHECK_MPI(MPI_Send(big, BIG, MPI_BYTE, 3, 10, MPI_COMM_WORLD));
  } else if (rank == 3) {
    memset(big, 0, BIG);
    CHECK_MPI(MPI_Recv(big, BIG, MPI_BYTE, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_PATTERN(big, BIG, 3);
  }

  free(big);
  ft_pass(MPI_COMM_WORLD, "ft_p2p_dead");
  MPI_Finalize();
  return 0;
}
