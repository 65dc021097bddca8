/* p2p_part_errors — bad input to partitioned communication gives clear MPI errors (MPI_ERRORS_RETURN). 2 ranks.
 *
 * PASS when:
 *  - Psend_init/Precv_init refuse MPI_ANY_SOURCE (MPI_ERR_RANK), MPI_ANY_TAG and negative tags (MPI_ERR_TAG), an
 *    out-of-range rank (MPI_ERR_RANK), negative partitions (MPI_ERR_ARG), a negative count (MPI_ERR_COUNT), a
 *    NULL buffer with data (MPI_ERR_BUFFER), an invalid info (MPI_ERR_INFO), a bad communicator (MPI_ERR_COMM);
 *  - Pready* on an inactive request, on a receive request, and Parrived on a send request fail with
 *    MPI_ERR_REQUEST; Parrived on MPI_REQUEST_NULL, before MPI_Start and after completion (inactive) gives
 *    flag = true (MPI-4.0 §4.2.2); a partition index out of range (Pready, Pready_range with
 *    low > high or high too large, Pready_list, Parrived) and a partition readied twice fail with MPI_ERR_ARG
 *    and mark nothing; MPI_Start on an active request fails with MPI_ERR_REQUEST;
 *  - MPI_Cancel of an active (started, not completed) partitioned send or receive, and MPI_Request_free of an
 *    active send with partitions not marked ready, fail with MPI_ERR_REQUEST (erroneous, MPI-4.0 §4.2.2) and
 *    leave the request working; MPI_Cancel of an inactive one succeeds; an active receive freed before its
 *    data arrived is released when it completes (the buffer is still filled: the last part below);
 *  - after all of that the pair still works (every partition delivered intact);
 *  - a send longer than its receive gives MPI_ERR_TRUNCATE at the receiver (the partitions that fit are
 *    delivered, nothing is written beyond the buffer) while the sender completes, round after round. */
#include "common/check.h"

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int buf[16];
  MPI_Request r = MPI_REQUEST_NULL;
  const int peer = 1 - (rank & 1);

  if (rank < 2) {
    CHECK_CLASS(MPI_Precv_init(buf, 4, 4, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Precv_init(buf, 4, 4, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_ERR_TAG);
    CHECK_CLASS(MPI_Psend_init(buf, 4, 4, MPI_INT, peer, -5, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_ERR_TAG);
    CHECK_CLASS(MPI_Psend_init(buf, 4, 4, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Psend_init(buf, -1, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Psend_init(buf, 4, -4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Psend_init(NULL, 4, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Precv_init(buf, 4, 4, MPI_INT, peer, 0, MPI_COMM_NULL, MPI_INFO_NULL, &r), MPI_ERR_COMM);
    MPI_Info info;
    CHECK_MPI(MPI_Info_create(&info));
    MPI_Info dead = info;
    CHECK_MPI(MPI_Info_free(&info));
    CHECK_CLASS(MPI_Psend_init(buf, 4, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, dead, &r), MPI_ERR_INFO);
    CHECK(r == MPI_REQUEST_NULL, "a failed init leaves the request alone");
  }

  /* The request life cycle: a real pair with an info argument (hints are accepted, none is interpreted). */
  MPI_Info hints;
  CHECK_MPI(MPI_Info_create(&hints));
  CHECK_MPI(MPI_Info_set(hints, "some_hint", "value"));
  int flag = 0;
  if (rank == 0) {
    CHECK_MPI(MPI_Psend_init(buf, 4, 4, MPI_INT, 1, 3, MPI_COMM_WORLD, hints, &r));
    CHECK_CLASS(MPI_Pready(0, r), MPI_ERR_REQUEST); /* inactive */
    CHECK_CLASS(MPI_Pready_range(0, 3, r), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Parrived(r, 0, &flag), MPI_ERR_REQUEST); /* a send request */
    CHECK_MPI(MPI_Start(&r));
    CHECK_CLASS(MPI_Start(&r), MPI_ERR_REQUEST); /* already active */
    MPI_Request keep = r;
    CHECK_CLASS(MPI_Cancel(&r), MPI_ERR_REQUEST);       /* active partitioned: erroneous */
    CHECK_CLASS(MPI_Request_free(&r), MPI_ERR_REQUEST); /* likewise */
    CHECK(r == keep, "a refused MPI_Request_free changed the handle");
    CHECK_CLASS(MPI_Pready(4, r), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready(-1, r), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready_range(2, 1, r), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pready_range(0, 4, r), MPI_ERR_ARG);
    int bad[2] = {1, 9};
    CHECK_CLASS(MPI_Pready_list(2, bad, r), MPI_ERR_ARG); /* partition 1 is not marked by this */
    CHECK_CLASS(MPI_Parrived(r, 0, &flag), MPI_ERR_REQUEST);
    for (int i = 0; i < 16; i++) buf[i] = 100 + i;
    CHECK_MPI(MPI_Pready(1, r));
    CHECK_CLASS(MPI_Pready(1, r), MPI_ERR_ARG); /* twice */
    int rest[3] = {3, 0, 2};
    CHECK_MPI(MPI_Pready_list(3, rest, r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_CLASS(MPI_Pready(0, r), MPI_ERR_REQUEST); /* inactive again */
    CHECK_MPI(MPI_Request_free(&r));
  } else if (rank == 1) {
    CHECK_MPI(MPI_Precv_init(buf, 2, 8, MPI_INT, 0, 3, MPI_COMM_WORLD, hints, &r));
    flag = 0;
    CHECK_MPI(MPI_Parrived(r, 0, &flag)); /* before MPI_Start: inactive, flag = true */
    CHECK(flag == 1, "Parrived on an inactive request gave flag %d", flag);
    flag = 0;
    CHECK_MPI(MPI_Parrived(MPI_REQUEST_NULL, 0, &flag));
    CHECK(flag == 1, "Parrived on MPI_REQUEST_NULL gave flag %d", flag);
    CHECK_CLASS(MPI_Pready(0, r), MPI_ERR_REQUEST);          /* a receive request */
    for (int i = 0; i < 16; i++) buf[i] = -1;
    CHECK_MPI(MPI_Cancel(&r)); /* inactive: nothing to cancel */
    CHECK_MPI(MPI_Start(&r));
    CHECK_CLASS(MPI_Cancel(&r), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Pready(0, r), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Parrived(r, 2, &flag), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Parrived(r, -1, &flag), MPI_ERR_ARG);
    int got = 0;
    while (got < 2) {
      got = 0;
      for (int p = 0; p < 2; p++) {
        CHECK_MPI(MPI_Parrived(r, p, &flag));
        got += flag;
      }
    }
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < 16; i++) CHECK(buf[i] == 100 + i, "buf[%d] = %d", i, buf[i]);
    flag = 0;
    CHECK_MPI(MPI_Parrived(r, 0, &flag)); /* inactive after completion: flag = true */
    CHECK(flag == 1, "Parrived after completion gave flag %d", flag);
    CHECK_MPI(MPI_Request_free(&r));
  }
  CHECK_MPI(MPI_Info_free(&hints));

  /* A send longer than the receive: MPI_ERR_TRUNCATE at the receiver (what fits is delivered), the sender
   * completes, and the pair's next round (a send that fits is not possible: same request) still ends. */
  if (rank == 0) {
    for (int i = 0; i < 16; i++) buf[i] = 200 + i;
    CHECK_MPI(MPI_Psend_init(buf, 4, 4, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int round = 0; round < 2; round++) {
      CHECK_MPI(MPI_Start(&r));
      CHECK_MPI(MPI_Pready_range(0, 3, r));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Request_free(&r));
  } else if (rank == 1) {
    CHECK_MPI(MPI_Precv_init(buf, 2, 5, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_INFO_NULL, &r)); /* 10 of 16 ints */
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 16; i++) buf[i] = -1;
      CHECK_MPI(MPI_Start(&r));
      CHECK_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
      for (int i = 0; i < 8; i++) CHECK(buf[i] == 200 + i, "the partitions that fit are delivered");
      for (int i = 10; i < 16; i++) CHECK(buf[i] == -1, "nothing written beyond the receive buffer");
    }
    CHECK_MPI(MPI_Request_free(&r));
  }
  /* An active receive freed before the data came: released when it completes, the data still lands. */
  if (rank == 1) {
    volatile int *vb = buf;
    for (int i = 0; i < 16; i++) buf[i] = -1;
    CHECK_MPI(MPI_Precv_init(buf, 4, 4, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL, "freed request handle not MPI_REQUEST_NULL");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    int flag2 = 0;
    while (vb[15] != 300 + 15 && MPI_Wtime() - t0 < 20)
      MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag2, MPI_STATUS_IGNORE); /* progress */
    for (int i = 0; i < 16; i++) CHECK(vb[i] == 300 + i, "freed receive: buf[%d] = %d", i, vb[i]);
  } else if (rank == 0) {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 16; i++) buf[i] = 300 + i;
    CHECK_MPI(MPI_Psend_init(buf, 2, 8, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Pready_range(0, 1, r));
    CHECK_MPI(MPI_Request_free(&r)); /* all partitions ready: released when it completes */
  } else {
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_CLASS(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST);
  check_pass("p2p_part_errors");
  MPI_Finalize();
  return 0;
}
