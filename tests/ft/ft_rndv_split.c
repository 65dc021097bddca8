/* ft_rndv_split — the split rendezvous (p2p/rndv_split.h) ended early: its sender killed, or its communicator
 * revoked, after the receiver asked the sender to write its half and before the sender did (issue 13
 * target 3). 3 ranks, --with-ft ulfm, meant for FTMPI_RNDV_PATH=split; portable otherwise.
 *
 * argv[1] = "kill" or "revoke". Rank 0 receives 4 MiB from rank 1 on a duplicate of MPI_COMM_WORLD. Rank 1
 * sends rank 0 the instant T (250 ms ahead) at which it will next act, posts the MPI_Isend (ftmpi sends the
 * request-to-send inside it) and stays out of MPI until T. Rank 0 gets T, then tests its receive for 80 ms:
 * with ftmpi's split way it matches the request-to-send, sends its clear-to-send and reads its half, and the
 * sender's half stays unwritten until T.
 *   kill:   at T rank 1 dies by SIGKILL.
 *   revoke: rank 0, after its 80 ms of tests, tells rank 2 to revoke the duplicate; rank 2 does so at once; at
 *           T rank 1 calls MPI again (MPI_Wait on its send: success or MPI_ERR_REVOKED).
 * Rank 0 waits on its receive.
 * PASS when: kill — the receive ends with MPI_ERR_PROC_FAILED, or MPI_SUCCESS with the right bytes (an MPI
 * that moved it all before the death); revoke — it ends with MPI_ERR_REVOKED or MPI_SUCCESS with the right
 * bytes; with ftmpi and FTMPI_RNDV_PATH=split additionally: kill — the receive did not end before T (the
 * sender could still write until then); revoke — it ended before T, i.e. without waiting for the sender
 * to enter MPI again (the receiver closed the split's gate, p2p/rndv_gate.h, so the sender, handling the
 * clear-to-send at T, must not write); both — its buffer does not change from its end until 100 ms after
 * both its end and T (nothing was written into it afterwards); then ranks 0 and 2 exchange 4 MiB both ways
 * on MPI_COMM_WORLD with the data checked; no call hangs. */
#include "ft_check.h"

#define BIG (4 << 20)

static unsigned long sum_of(const unsigned char *p, size_t n) {
  unsigned long s = 0;
  for (size_t i = 0; i < n; i++) s = s * 31 + p[i];
  return s;
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size >= 3, "needs 3 ranks");
  CHECK(argc >= 2 && (strcmp(argv[1], "kill") == 0 || strcmp(argv[1], "revoke") == 0), "usage: kill|revoke");
  const int kill_mode = strcmp(argv[1], "kill") == 0;
  unsigned char *big = malloc(BIG);
  CHECK(big != NULL);
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));

  MPI_Request req = MPI_REQUEST_NULL;
  if (rank == 0) {
    memset(big, 0, BIG);
    CHECK_MPI(MPI_Irecv(big, BIG, MPI_BYTE, 1, 5, dup, &req));
  }
  if (rank == 1) check_fill(big, BIG, 11);
  ft_barrier_before_death(MPI_COMM_WORLD);

  double t_act = 0;
  if (rank == 1) {
    t_act = ft_now() + 0.25;
    CHECK_MPI(MPI_Send(&t_act, 1, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Isend(big, BIG, MPI_BYTE, 0, 5, dup, &req)); /* the request-to-send is the last thing it does */
    while (ft_now() < t_act) ft_sleep_ms(5); /* out of MPI: a clear-to-send waits unanswered */
    if (kill_mode) ft_die();
    const int rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    const int cls = check_class_of(rc);
    CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_REVOKED, "sender: %s", ft_class_name(rc));
  }

  if (rank == 0) {
    CHECK_MPI(MPI_Recv(&t_act, 1, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int flag = 0, rc = MPI_SUCCESS;
    const double t0 = ft_now(); /* let the request-to-send arrive and be matched (ftmpi: the split starts) */
    while (!flag && rc == MPI_SUCCESS && ft_now() - t0 < 0.08) {
      rc = MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
      ft_sleep_ms(1);
    }
    int go = 1;
    if (!kill_mode) CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 2, 8, MPI_COMM_WORLD));
    if (!flag && rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    const double t_done = ft_now();
    const int cls = check_class_of(rc);
    const int bad = kill_mode ? MPI_ERR_PROC_FAILED : MPI_ERR_REVOKED;
    CHECK(cls == bad || cls == MPI_SUCCESS, "receive: %s", ft_class_name(rc));
    if (cls == MPI_SUCCESS) CHECK_PATTERN(big, BIG, 11);
    const unsigned long s0 = sum_of(big, BIG);
    while (ft_now() < t_done + 0.1 || ft_now() < t_act + 0.1) ft_sleep_ms(5); /* past any write of the sender */
    int split = 0;
#ifdef FTMPI
    const char *path = getenv("FTMPI_RNDV_PATH");
    split = path && strcmp(path, "split") == 0;
#endif
    printf("rank 0 (%s): receive ended %s, %.1f ms after the sender's instant%s\n", argv[1], ft_class_name(rc),
           (t_done - t_act) * 1e3, split ? " (split way forced)" : "");
    if (split) {
      CHECK(cls == bad, "split receive completed although the sender never wrote its half before %s",
            kill_mode ? "its death" : "the revoke");
      if (kill_mode)
        CHECK(t_done >= t_act, "split receive ended %.1f ms before its sender could no longer write",
              (t_act - t_done) * 1e3);
      else
        CHECK(t_done < t_act, "revoked split receive waited %.1f ms for its sender to enter MPI again",
              (t_done - t_act) * 1e3);
    }
    CHECK(sum_of(big, BIG) == s0, "the receive buffer changed after the receive had ended");
  }
  if (rank == 2 && !kill_mode) {
    int go = 0;
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPIX_Comm_revoke(dup));
  }
  if (kill_mode) ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);

  /* survivors: a large message each way, data checked */
  if (rank == 0 || rank == 2) {
    const int other = 2 - rank;
    for (int dir = 0; dir < 2; dir++) {
      const int sender = dir == 0 ? 0 : 2;
      if (rank == sender) {
        check_fill(big, BIG, 20 + dir);
        CHECK_MPI(MPI_Send(big, BIG, MPI_BYTE, other, 6, MPI_COMM_WORLD));
      } else {
        memset(big, 0, BIG);
        CHECK_MPI(MPI_Recv(big, BIG, MPI_BYTE, other, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_PATTERN(big, BIG, 20 + dir);
      }
    }
  }
  MPI_Comm_free(&dup);
  free(big);
  ft_pass(MPI_COMM_WORLD, "ft_rndv_split");
  MPI_Finalize();
  return 0;
}
