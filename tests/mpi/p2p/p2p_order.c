/* p2p_order: the non-overtaking rule.
 *
 * Every rank > 0 sends rank 0 a stream of messages on ONE tag whose sizes cycle through 0, 1, 100, 8 KiB,
 * 64 KiB, 1 MiB and 4 MiB (so eager and rendezvous messages interleave), first with blocking MPI_Send, then
 * all at once with MPI_Isend.  Rank 0 receives with MPI_ANY_SOURCE (phase 1) and with receives pre-posted per
 * sender (phase 2).  A message's size and payload encode its sequence number.
 * PASS: from each sender, messages arrive in exactly the order they were sent, intact. */
#include "../common/check.h"

static const int kSizes[] = {0, 1, 100, 8 << 10, 64 << 10, 1 << 20, 4 << 20};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))
#define MSGS (2 * NSIZES) /* per sender per phase */
#define MAXB (4 << 20)

/* Message `seq` from `src`: size kSizes[(seq + src) % NSIZES] so senders are out of phase. */
static int size_of(int src, int seq) { return kSizes[(seq + src) % NSIZES]; }
static unsigned seed_of(int phase, int src, int seq) { return (unsigned)(phase * 100000 + src * 1000 + seq); }

static void expect(int phase, int src, int seq, const unsigned char *buf, const MPI_Status *st) {
  int c = -1;
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &c));
  CHECK(c == size_of(src, seq), "phase %d: message %d from %d has %d bytes, expected %d (overtaken?)", phase, seq,
        src, c, size_of(src, seq));
  CHECK_PATTERN(buf, c, seed_of(phase, src, seq));
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2, "needs at least 2 ranks");
  const int tag = 7;

  /* Phase 1: blocking sends, ANY_SOURCE receives. */
  if (rank == 0) {
    unsigned char *buf = malloc(MAXB);
    int *next = calloc(size, sizeof(int));
    for (int k = 0; k < (size - 1) * MSGS; k++) {
      MPI_Status st;
      CHECK_MPI(MPI_Recv(buf, MAXB, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
      int src = st.MPI_SOURCE;
      CHECK(src > 0 && src < size && next[src] < MSGS, "unexpected source %d", src);
      expect(1, src, next[src], buf, &st);
      next[src]++;
    }
    free(next);
    free(buf);
  } else {
    unsigned char *buf = malloc(MAXB);
    for (int seq = 0; seq < MSGS; seq++) {
      check_fill(buf, size_of(rank, seq), seed_of(1, rank, seq));
      CHECK_MPI(MPI_Send(buf, size_of(rank, seq), MPI_BYTE, 0, tag, MPI_COMM_WORLD));
    }
    free(buf);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Phase 2: every send started at once (Isend), receives pre-posted in order per sender (Irecv), completed
   * in any order with Waitall. Plus a different-tag message that may legally be received first. */
  if (rank == 0) {
    int nsend = size - 1;
    unsigned char **bufs = malloc(sizeof(unsigned char *) * nsend * MSGS);
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * nsend * MSGS);
    MPI_Status *sts = malloc(sizeof(MPI_Status) * nsend * MSGS);
    for (int seq = 0; seq < MSGS; seq++)
      for (int s = 1; s < size; s++) {
        int i = seq * nsend + (s - 1);
        bufs[i] = malloc(size_of(s, seq) + 1);
        CHECK_MPI(MPI_Irecv(bufs[i], size_of(s, seq) + 1, MPI_BYTE, s, tag, MPI_COMM_WORLD, &reqs[i]));
      }
    int other = -1;
    CHECK_MPI(MPI_Recv(&other, 1, MPI_INT, 1, tag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(other == 12345, "other-tag message %d", other);
    CHECK_MPI(MPI_Waitall(nsend * MSGS, reqs, sts));
    for (int seq = 0; seq < MSGS; seq++)
      for (int s = 1; s < size; s++) {
        int i = seq * nsend + (s - 1);
        CHECK(sts[i].MPI_SOURCE == s, "source %d", sts[i].MPI_SOURCE);
        expect(2, s, seq, bufs[i], &sts[i]);
        free(bufs[i]);
      }
    free(bufs);
    free(reqs);
    free(sts);
  } else {
    unsigned char *bufs[MSGS];
    MPI_Request reqs[MSGS + 1];
    for (int seq = 0; seq < MSGS; seq++) {
      bufs[seq] = malloc(size_of(rank, seq) + 1);
      check_fill(bufs[seq], size_of(rank, seq), seed_of(2, rank, seq));
      CHECK_MPI(MPI_Isend(bufs[seq], size_of(rank, seq), MPI_BYTE, 0, tag, MPI_COMM_WORLD, &reqs[seq]));
    }
    int other = 12345;
    reqs[MSGS] = MPI_REQUEST_NULL;
    if (rank == 1) CHECK_MPI(MPI_Isend(&other, 1, MPI_INT, 0, tag + 1, MPI_COMM_WORLD, &reqs[MSGS]));
    CHECK_MPI(MPI_Waitall(MSGS + 1, reqs, MPI_STATUSES_IGNORE));
    for (int seq = 0; seq < MSGS; seq++) free(bufs[seq]);
  }

  check_pass("p2p_order");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
