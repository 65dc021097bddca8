/* ft_rndv_split_stream — a stream of split rendezvous messages (p2p/rndv_split.h) cut by a revoke or a kill
 * at a random instant, so that the end lands anywhere in the protocol: before the sender claimed a gate,
 * while it writes its part, after (issue 13 target 3). 3 ranks, --with-ft ulfm, meant for
 * FTMPI_RNDV_PATH=split; portable otherwise.
 *
 * argv[1] = "revoke" or "kill"; argv[2] (optional) the window, default 8, and argv[3] the message size in
 * KiB, default 2048 (a window above the 16 gate words per pair makes the receiver give back the words of
 * receives whose sender's write returned while they wait for its answer: rndv_gate.h returned()).
 * Rank 1 sends rank 0 messages of MSG bytes on a duplicate of MPI_COMM_WORLD, in
 * windows of WIN (MPI_Isend + MPI_Waitall: it stays in MPI, so it handles every clear-to-send at once and
 * its writes race the receiver's end of the receive). Rank 0 receives each window into 8 distinct buffers.
 * After a random 5-60 ms (seeded by the time): revoke — rank 2 revokes the duplicate; kill — rank 1 dies
 * by SIGKILL.
 * PASS when every receive ends with MPI_SUCCESS and the right bytes, or with MPI_ERR_REVOKED (revoke) /
 * MPI_ERR_PROC_FAILED or MPI_ERR_REVOKED (kill); the buffer of every receive that failed does not change
 * from its end until 100 ms after the last receive ended (nothing was written into a buffer given back),
 * the stream ends (no receive hangs), and ranks 0 and 2 then exchange a checked 2 MiB message. */
#include "ft_check.h"

#define MAXWIN 64
static size_t MSG = 2 << 20;
static int WIN = 8;

static unsigned long sum_of(const unsigned char *p, size_t n) {
  unsigned long s = 0;
  for (size_t i = 0; i < n; i += 64) s = s * 31 + p[i] + p[i + 63];
  return s;
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size >= 3, "needs 3 ranks");
  CHECK(argc >= 2 && (strcmp(argv[1], "kill") == 0 || strcmp(argv[1], "revoke") == 0), "usage: kill|revoke");
  const int kill_mode = strcmp(argv[1], "kill") == 0;
  if (argc >= 3) WIN = atoi(argv[2]);
  if (argc >= 4) MSG = (size_t)atoi(argv[3]) << 10;
  CHECK(WIN >= 1 && WIN <= MAXWIN && MSG >= 64 << 10, "window 1..%d, size >= 64 KiB", MAXWIN);
  unsigned char *buf = malloc((size_t)MSG * WIN);
  CHECK(buf != NULL);
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));

  double t_cut = 0;
  if (rank == 0) {
    srand((unsigned)(ft_now() * 1e6));
    t_cut = ft_now() + 0.2 + (5 + rand() % 56) * 1e-3;
  }
  CHECK_MPI(MPI_Bcast(&t_cut, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
  ft_barrier_before_death(MPI_COMM_WORLD);
  const double t_start = ft_now();

  if (rank == 1) {
    for (int w = 0; w < WIN; w++) check_fill(buf + (size_t)w * MSG, MSG, 40 + w);
    MPI_Request req[MAXWIN];
    int rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && ft_now() < t_start + 10) {
      for (int w = 0; w < WIN; w++) MPI_Isend(buf + (size_t)w * MSG, MSG, MPI_BYTE, 0, w, dup, &req[w]);
      if (kill_mode && ft_now() >= t_cut) ft_die(); /* mid-window: clear-to-sends unanswered, writes cut */
      rc = MPI_Waitall(WIN, req, MPI_STATUSES_IGNORE);
    }
    CHECK(rc != MPI_SUCCESS, "sender: the stream was never cut");
  }
  if (rank == 2 && !kill_mode) {
    while (ft_now() < t_cut) ft_sleep_ms(1);
    CHECK_MPI(MPIX_Comm_revoke(dup));
  }
  if (rank == 0) {
    MPI_Request req[MAXWIN];
    unsigned long sums[MAXWIN];
    int failed[MAXWIN] = {0}, any_failed = 0, windows = 0, nfailed = 0;
    double t_last = 0;
    while (!any_failed && ft_now() < t_start + 10) {
      memset(buf, 0, (size_t)MSG * WIN);
      for (int w = 0; w < WIN; w++) MPI_Irecv(buf + (size_t)w * MSG, MSG, MPI_BYTE, 1, w, dup, &req[w]);
      for (int w = 0; w < WIN; w++) {
        const int rc = MPI_Wait(&req[w], MPI_STATUS_IGNORE);
        const int cls = check_class_of(rc);
        if (cls == MPI_SUCCESS) {
          CHECK_PATTERN(buf + (size_t)w * MSG, MSG, 40 + w);
          continue;
        }
        CHECK(cls == MPI_ERR_REVOKED || (kill_mode && cls == MPI_ERR_PROC_FAILED), "receive %d: %s", w,
              ft_class_name(rc));
        failed[w] = 1;
        any_failed = 1;
        nfailed++;
        sums[w] = sum_of(buf + (size_t)w * MSG, MSG);
      }
      t_last = ft_now();
      windows++;
    }
    CHECK(any_failed, "the stream was never cut");
    while (ft_now() < t_last + 0.1) ft_sleep_ms(5); /* past any late write of the sender */
    for (int w = 0; w < WIN; w++)
      if (failed[w]) CHECK(sum_of(buf + (size_t)w * MSG, MSG) == sums[w], "buffer %d changed after its receive failed", w);
    printf("rank 0 (%s): cut after %d windows, %d of %d receives of the last failed, %.1f ms after the cut\n",
           argv[1], windows, nfailed, WIN, (t_last - t_cut) * 1e3);
  }
  if (kill_mode) ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  if (rank == 0 || rank == 2) {
    const int other = 2 - rank;
    if (rank == 0) {
      check_fill(buf, MSG, 7);
      CHECK_MPI(MPI_Send(buf, MSG, MPI_BYTE, other, 6, MPI_COMM_WORLD));
    } else {
      memset(buf, 0, MSG);
      CHECK_MPI(MPI_Recv(buf, MSG, MPI_BYTE, other, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_PATTERN(buf, MSG, 7);
    }
  }
  MPI_Comm_free(&dup);
  free(buf);
  ft_pass(MPI_COMM_WORLD, "ft_rndv_split_stream");
  MPI_Finalize();
  return 0;
}
