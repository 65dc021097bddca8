/* p2p_probe: probing and matched probes.
 *
 * Covers MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv with MPI_ANY_SOURCE and
 * MPI_ANY_TAG, MPI_PROC_NULL (MPI_MESSAGE_NO_PROC), and the rule that a message matched by Mprobe is no
 * longer visible to other probes or receives.  Every rank > 0 sends to rank 0.
 * PASS: probes report the right source, tag and size before the receive, and each message arrives once. */
#include "../common/check.h"

static const int kSizes[] = {0, 1, 100, 8 << 10, 64 << 10, 1 << 20};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))

/* Sender `src` sends message i of round `round` with tag round*100+i and pattern seed. */
static unsigned seed_of(int src, int round, int i) { return (unsigned)(src * 10000 + round * 100 + i); }

static void send_round(int round) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  unsigned char *buf = malloc(1 << 20);
  for (int i = 0; i < NSIZES; i++) {
    check_fill(buf, kSizes[i], seed_of(rank, round, i));
    CHECK_MPI(MPI_Send(buf, kSizes[i], MPI_BYTE, 0, round * 100 + i, MPI_COMM_WORLD));
  }
  free(buf);
}

/* Check what a probe said and prepare a buffer of the announced size. */
static unsigned char *probed(const MPI_Status *st, int round, int *n_out) {
  int n = -1;
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &n));
  int i = st->MPI_TAG - round * 100;
  CHECK(i >= 0 && i < NSIZES, "probe: unexpected tag %d in round %d", st->MPI_TAG, round);
  CHECK(n == kSizes[i], "probe: size %d for tag %d, expected %d", n, st->MPI_TAG, kSizes[i]);
  *n_out = n;
  return malloc(n + 1);
}

static void received(unsigned char *buf, int n, const MPI_Status *st, int src, int tag, int round) {
  int c = -1;
  CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag, "recv: source %d tag %d, probed %d/%d", st->MPI_SOURCE,
        st->MPI_TAG, src, tag);
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &c));
  CHECK(c == n, "recv: count %d, probed %d", c, n);
  CHECK_PATTERN(buf, n, seed_of(src, round, tag - round * 100));
  free(buf);
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2, "needs at least 2 ranks");
  const int total = (size - 1) * NSIZES;
  MPI_Status st, st2;

  /* Round 1: Probe(ANY_SOURCE, ANY_TAG) then Recv from exactly what was probed. */
  if (rank == 0) {
    for (int k = 0; k < total; k++) {
      int n;
      CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      unsigned char *buf = probed(&st, 1, &n);
      CHECK_MPI(MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2));
      received(buf, n, &st2, st.MPI_SOURCE, st.MPI_TAG, 1);
    }
  } else {
    send_round(1);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Round 2: Iprobe(ANY_SOURCE, tag) polling, one tag at a time. */
  if (rank == 0) {
    for (int i = 0; i < NSIZES; i++)
      for (int s = 1; s < size; s++) {
        int flag = 0, n;
        while (!flag) CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 200 + i, MPI_COMM_WORLD, &flag, &st));
        unsigned char *buf = probed(&st, 2, &n);
        CHECK_MPI(MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, 200 + i, MPI_COMM_WORLD, &st2));
        received(buf, n, &st2, st.MPI_SOURCE, 200 + i, 2);
      }
  } else {
    send_round(2);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Round 3: Mprobe + Mrecv, and Improbe + Imrecv, alternating. */
  if (rank == 0) {
    for (int k = 0; k < total; k++) {
      MPI_Message msg = MPI_MESSAGE_NULL;
      int n;
      if (k % 2 == 0) {
        CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
      } else {
        int flag = 0;
        while (!flag) CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
      }
      CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "no message handle");
      unsigned char *buf = probed(&st, 3, &n);
      if (k % 3 == 0) {
        CHECK_MPI(MPI_Mrecv(buf, n, MPI_BYTE, &msg, &st2));
      } else {
        MPI_Request r;
        CHECK_MPI(MPI_Imrecv(buf, n, MPI_BYTE, &msg, &r));
        CHECK_MPI(MPI_Wait(&r, &st2));
      }
      CHECK(msg == MPI_MESSAGE_NULL, "Mrecv/Imrecv must set the message to MPI_MESSAGE_NULL");
      received(buf, n, &st2, st.MPI_SOURCE, st.MPI_TAG, 3);
    }
  } else {
    send_round(3);
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* Round 4: a matched (mprobed) message is invisible to Iprobe and Recv.  Rank 1 sends A (4 bytes) then
   * B (8 bytes) with the same tag; rank 0 mprobes A, then Iprobe/Recv must see B, then Mrecv gets A. */
  if (rank == 0) {
    MPI_Message msg;
    int a[1] = {0}, b[2] = {0}, flag = 0, n = -1;
    CHECK_MPI(MPI_Mprobe(1, 400, MPI_COMM_WORLD, &msg, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == 4, "Mprobe saw %d bytes, expected the first message (4)", n);
    while (!flag) CHECK_MPI(MPI_Iprobe(1, 400, MPI_COMM_WORLD, &flag, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == 8, "Iprobe after Mprobe saw %d bytes, expected the second message (8)", n);
    CHECK_MPI(MPI_Recv(b, 2, MPI_INT, 1, 400, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(b[0] == 2 && b[1] == 3, "second message %d %d", b[0], b[1]);
    CHECK_MPI(MPI_Mrecv(a, 1, MPI_INT, &msg, MPI_STATUS_IGNORE));
    CHECK(a[0] == 1, "first message %d", a[0]);
  } else if (rank == 1) {
    int a[1] = {1}, b[2] = {2, 3};
    CHECK_MPI(MPI_Send(a, 1, MPI_INT, 0, 400, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(b, 2, MPI_INT, 0, 400, MPI_COMM_WORLD));
  }

  /* Iprobe with nothing there says no; PROC_NULL probes complete at once. */
  {
    int flag = 1;
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "Iprobe found a message nobody sent");
    CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "Probe(PROC_NULL): source %d tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL, "Iprobe(PROC_NULL): flag %d source %d", flag, st.MPI_SOURCE);
    MPI_Message msg = MPI_MESSAGE_NULL;
    CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) must give MPI_MESSAGE_NO_PROC");
    int v = 5, c = -1;
    CHECK_MPI(MPI_Mrecv(&v, 1, MPI_INT, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NULL && v == 5 && st.MPI_SOURCE == MPI_PROC_NULL, "Mrecv(NO_PROC)");
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &c));
    CHECK(c == 0, "Mrecv(NO_PROC) count %d", c);
    flag = 0;
    CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, 1, MPI_COMM_WORLD, &flag, &msg, &st));
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL)");
    MPI_Request r;
    CHECK_MPI(MPI_Imrecv(&v, 1, MPI_INT, &msg, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv(NO_PROC) source %d", st.MPI_SOURCE);
  }

  check_pass("p2p_probe");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
