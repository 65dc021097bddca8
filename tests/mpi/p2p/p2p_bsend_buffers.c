/* p2p_bsend_buffers — buffered-send buffers: the process's (MPI_Buffer_attach), and (MPI-4.1 §3.6) a
 * communicator's (MPI_Comm_attach_buffer), a session's (MPI_Session_attach_buffer), MPI_BUFFER_AUTOMATIC,
 * flush and iflush. 2+ ranks; rank r sends to r+1, receives from r-1.
 *
 * PASS when (any MPI):
 *  - Bsend through an attached process buffer delivers the data; MPI_Buffer_detach returns the buffer and
 *    waits for a pending message: a 1 MiB Bsend whose receiver posts its receive 300 ms late keeps detach
 *    blocked >= 150 ms, and the data arrives intact;
 *  - a Bsend that does not fit (64 ints into 100 bytes) fails with MPI_ERR_BUFFER; a second
 *    MPI_Buffer_attach fails with MPI_ERR_BUFFER (neither checked with Open MPI 4.1:
 *    it sends the message anyway and returns a raw -30 for the attach);
 * and with MPI-4.1 (ftmpi; MPICH 4.0 and Open MPI 4.1 have none of it):
 *  - a communicator's buffer is used by Bsend on that communicator only (MPI_COMM_WORLD, without a process
 *    buffer, fails with MPI_ERR_BUFFER), before the process buffer (a too small process buffer does not
 *    matter to it); MPI_Comm_flush_buffer / MPI_Comm_iflush_buffer complete once the messages are transmitted
 *    (an iflush of a 1 MiB message whose receiver is 300 ms late is not complete at once, then completes);
 *    MPI_Comm_detach_buffer waits for a pending message and returns the buffer; Bsend_c / Ibsend go the
 *    same way;
 *  - MPI_BUFFER_AUTOMATIC (communicator and process): 16 Bsends of 64 KiB with no size given all arrive;
 *    detach returns MPI_BUFFER_AUTOMATIC;
 *  - a session's buffer serves the communicators made from the session's process set (and their
 *    duplicates) without a buffer of their own; a communicator's own buffer comes first (a too small one
 *    makes Bsend fail although the session's is large); MPI_Session_iflush_buffer / _flush_buffer /
 *    _detach_buffer work; after the detach, Bsend on those communicators fails with MPI_ERR_BUFFER;
 *  - bad input: MPI_COMM_NULL or a freed communicator -> MPI_ERR_COMM, a second attach -> MPI_ERR_BUFFER,
 *    a negative size -> MPI_ERR_BUFFER, detach without a buffer -> MPI_ERR_BUFFER, NULL arguments ->
 *    MPI_ERR_ARG, MPI_SESSION_NULL -> MPI_ERR_SESSION. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <time.h>

#include "common/check.h"

#if defined(FTMPI) || MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
#define HAVE_MPI41_BUFFERS 1
#endif

static int rank, size, left, right;
#define BIG (1 << 18) /* ints: 1 MiB, beyond every eager limit */
static int big_out[BIG], big_in[BIG];

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Every rank: a 1 MiB buffered send to the right, `finish` (which must wait until it is transmitted) timed,
 * while the left neighbour's message is received 300 ms late. Returns the seconds `finish` took. */
static double late_receiver(MPI_Comm comm, int tag, void (*start)(MPI_Comm, int), double (*finish)(MPI_Comm)) {
  for (int i = 0; i < BIG; i++) big_out[i] = rank * 7 + i;
  start(comm, tag);
  /* even ranks time `finish` first, then receive 300 ms later; odd ranks receive 300 ms late, then finish:
   * so an even rank's message always waits >= 300 ms for its receiver (and nobody waits in a cycle) */
  MPI_Request rr;
  double took;
  if (rank % 2 == 0) {
    took = finish(comm);
    sleep_ms(300);
    CHECK_MPI(MPI_Irecv(big_in, BIG, MPI_INT, left, tag, comm, &rr));
  } else {
    sleep_ms(300);
    CHECK_MPI(MPI_Irecv(big_in, BIG, MPI_INT, left, tag, comm, &rr));
    took = finish(comm);
  }
  CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
  for (int i = 0; i < BIG; i += 4099) CHECK(big_in[i] == left * 7 + i, "1 MiB bsend: elt %d", i);
  CHECK(big_in[BIG - 1] == left * 7 + BIG - 1);
  return took;
}

static void bsend_big(MPI_Comm comm, int tag) { CHECK_MPI(MPI_Bsend(big_out, BIG, MPI_INT, right, tag, comm)); }
static void *g_detached;
static int g_detached_size;
static double detach_process(MPI_Comm comm) {
  (void)comm;
  double t = MPI_Wtime();
  CHECK_MPI(MPI_Buffer_detach(&g_detached, &g_detached_size));
  return MPI_Wtime() - t;
}

static void process_buffer(void) {
  const int bsize = 4 * (64 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  char *b = malloc((size_t)bsize);
  CHECK_MPI(MPI_Buffer_attach(b, bsize));
  int out[64], in[64];
  for (int i = 0; i < 64; i++) out[i] = rank * 1000 + i;
  CHECK_MPI(MPI_Bsend(out, 64, MPI_INT, right, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Recv(in, 64, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < 64; i++) CHECK(in[i] == left * 1000 + i);
  /* a second attach (Open MPI 4.1 returns its internal code -30, not an error class) */
#ifndef OPEN_MPI
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Buffer_attach(b, bsize), MPI_ERR_BUFFER);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
  void *d = NULL;
  int ds = 0;
  CHECK_MPI(MPI_Buffer_detach(&d, &ds));
  CHECK(d == b && ds == bsize);
  /* detach waits for a pending (rendezvous) message */
  const int big_bsize = BIG * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
  char *bb = malloc((size_t)big_bsize);
  CHECK_MPI(MPI_Buffer_attach(bb, big_bsize));
  const double took = late_receiver(MPI_COMM_WORLD, 2, bsend_big, detach_process);
  CHECK(g_detached == bb && g_detached_size == big_bsize);
  if (rank % 2 == 0) CHECK(took >= 0.15, "MPI_Buffer_detach returned after %.3f s with a message pending", took);
  free(bb);
  /* too small (Open MPI 4.1 sends such a small message anyway) */
#ifndef OPEN_MPI
  CHECK_MPI(MPI_Buffer_attach(b, 100));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Bsend(out, 64, MPI_INT, right, 3, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  CHECK_MPI(MPI_Buffer_detach(&d, &ds));
  CHECK(d == b && ds == 100);
#endif
  free(b);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

#ifdef HAVE_MPI41_BUFFERS
static double detach_comm(MPI_Comm comm) {
  double t = MPI_Wtime();
  CHECK_MPI(MPI_Comm_detach_buffer(comm, &g_detached, &g_detached_size));
  return MPI_Wtime() - t;
}
static int g_iflush_done_at_once;
static double iflush_comm(MPI_Comm comm) {
  MPI_Request r;
  double t = MPI_Wtime();
  CHECK_MPI(MPI_Comm_iflush_buffer(comm, &r));
  int flag = 1;
  CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
  if (rank % 2 == 0) g_iflush_done_at_once = flag;
  if (!flag) CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  return MPI_Wtime() - t;
}

static void check_in(const int *in, int from, int base) {
  for (int i = 0; i < 64; i++) CHECK(in[i] == from * 1000 + base + i, "got %d want %d", in[i], from * 1000 + base + i);
}

static void comm_buffer(void) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  const int bsize = 4 * (64 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  char *b = malloc((size_t)bsize);
  CHECK_MPI(MPI_Comm_attach_buffer(c, b, bsize));
  int out[64], in[64];
  for (int i = 0; i < 64; i++) out[i] = rank * 1000 + 10 + i;
  /* the communicator's buffer serves c only: MPI_COMM_WORLD has none (and no process buffer) */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Bsend(out, 64, MPI_INT, right, 4, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  /* ... and comes before a (too small) process buffer */
  char small[100];
  CHECK_MPI(MPI_Buffer_attach(small, sizeof small));
  for (int round = 0; round < 3; round++) {
    for (int m = 0; m < 3; m++) CHECK_MPI(MPI_Bsend(out, 64, MPI_INT, right, 10 + m, c));
    CHECK_MPI(MPI_Bsend_c(out, 64, MPI_INT, right, 13, c));
    if (round == 0) {
      CHECK_MPI(MPI_Comm_flush_buffer(c));
    } else {
      MPI_Request r;
      CHECK_MPI(MPI_Comm_iflush_buffer(c, &r));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    for (int m = 0; m < 4; m++) {
      CHECK_MPI(MPI_Recv(in, 64, MPI_INT, left, 10 + m, c, MPI_STATUS_IGNORE));
      check_in(in, left, 10);
    }
  }
  /* Ibsend through it too */
  MPI_Request r;
  CHECK_MPI(MPI_Ibsend(out, 64, MPI_INT, right, 14, c, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Recv(in, 64, MPI_INT, left, 14, c, MPI_STATUS_IGNORE));
  check_in(in, left, 10);
  void *d = NULL;
  int ds = 0;
  CHECK_MPI(MPI_Buffer_detach(&d, &ds));
  CHECK(d == small && ds == (int)sizeof small);
  CHECK_MPI(MPI_Comm_detach_buffer(c, &d, &ds));
  CHECK(d == b && ds == bsize);
  /* detach and iflush wait for a pending message */
  const int big_bsize = BIG * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
  char *bb = malloc((size_t)big_bsize);
  CHECK_MPI(MPI_Comm_attach_buffer(c, bb, big_bsize));
  double took = late_receiver(c, 5, bsend_big, iflush_comm);
  if (rank % 2 == 0) {
    CHECK(!g_iflush_done_at_once, "MPI_Comm_iflush_buffer complete at once with a message pending");
    CHECK(took >= 0.15, "MPI_Comm_iflush_buffer completed after %.3f s with a message pending", took);
  }
  took = late_receiver(c, 6, bsend_big, detach_comm);
  CHECK(g_detached == bb && g_detached_size == big_bsize);
  if (rank % 2 == 0) CHECK(took >= 0.15, "MPI_Comm_detach_buffer returned after %.3f s with a message pending", took);
  free(bb);
  free(b);
  CHECK_MPI(MPI_Comm_free(&c));
}

static void automatic(void) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  const int n = 16384; /* 64 KiB of ints per message */
  int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
  for (int pass = 0; pass < 2; pass++) {
    MPI_Comm on = pass == 0 ? c : MPI_COMM_WORLD;
    if (pass == 0)
      CHECK_MPI(MPI_Comm_attach_buffer(c, MPI_BUFFER_AUTOMATIC, 0));
    else
      CHECK_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    for (int m = 0; m < 16; m++) {
      for (int i = 0; i < n; i += 1000) out[i] = rank * 100 + m;
      out[n - 1] = m;
      CHECK_MPI(MPI_Bsend(out, n, MPI_INT, right, 20 + m, on));
    }
    for (int m = 0; m < 16; m++) {
      CHECK_MPI(MPI_Recv(in, n, MPI_INT, left, 20 + m, on, MPI_STATUS_IGNORE));
      CHECK(in[0] == left * 100 + m && in[n - 1] == m, "automatic buffer: message %d", m);
    }
    void *d = NULL;
    int ds = -1;
    if (pass == 0)
      CHECK_MPI(MPI_Comm_detach_buffer(c, &d, &ds));
    else
      CHECK_MPI(MPI_Buffer_detach(&d, &ds));
    CHECK(d == MPI_BUFFER_AUTOMATIC, "detach of an automatic buffer gave %p", d);
  }
  free(out);
  free(in);
  CHECK_MPI(MPI_Comm_free(&c));
}

static void session_buffer(void) {
  MPI_Session s;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  MPI_Group g;
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  MPI_Comm sc, sd;
  CHECK_MPI(MPI_Comm_create_from_group(g, "p2p_bsend_buffers", MPI_INFO_NULL, MPI_ERRORS_RETURN, &sc));
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Comm_dup(sc, &sd));
  int out[64], in[64];
  for (int i = 0; i < 64; i++) out[i] = rank * 1000 + 30 + i;
  CHECK_CLASS(MPI_Bsend(out, 64, MPI_INT, right, 30, sc), MPI_ERR_BUFFER); /* nothing attached anywhere */
  const int bsize = 8 * (64 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  char *b = malloc((size_t)bsize);
  CHECK_MPI(MPI_Session_attach_buffer(s, b, bsize));
  CHECK_CLASS(MPI_Session_attach_buffer(s, b, bsize), MPI_ERR_BUFFER);
  for (int round = 0; round < 2; round++) {
    CHECK_MPI(MPI_Bsend(out, 64, MPI_INT, right, 31, sc));
    CHECK_MPI(MPI_Bsend(out, 64, MPI_INT, right, 32, sd)); /* a duplicate uses the session's buffer too */
    if (round == 0) {
      MPI_Request r;
      CHECK_MPI(MPI_Session_iflush_buffer(s, &r));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Session_flush_buffer(s));
    }
    CHECK_MPI(MPI_Recv(in, 64, MPI_INT, left, 31, sc, MPI_STATUS_IGNORE));
    check_in(in, left, 30);
    CHECK_MPI(MPI_Recv(in, 64, MPI_INT, left, 32, sd, MPI_STATUS_IGNORE));
    check_in(in, left, 30);
  }
  /* a communicator's own buffer comes before the session's: a too small one makes Bsend fail */
  char small[100];
  CHECK_MPI(MPI_Comm_attach_buffer(sd, small, sizeof small));
  CHECK_CLASS(MPI_Bsend(out, 64, MPI_INT, right, 33, sd), MPI_ERR_BUFFER);
  void *d = NULL;
  int ds = 0;
  CHECK_MPI(MPI_Comm_detach_buffer(sd, &d, &ds));
  CHECK(d == small && ds == (int)sizeof small);
  CHECK_MPI(MPI_Session_detach_buffer(s, &d, &ds));
  CHECK(d == b && ds == bsize);
  CHECK_CLASS(MPI_Bsend(out, 64, MPI_INT, right, 34, sc), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Session_detach_buffer(s, &d, &ds), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Session_iflush_buffer(s, NULL), MPI_ERR_ARG);
  free(b);
  CHECK_MPI(MPI_Comm_free(&sd));
  CHECK_MPI(MPI_Comm_free(&sc));
  CHECK_MPI(MPI_Session_finalize(&s));
}

static void bad(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char b[1024];
  void *d = NULL;
  int ds = 0;
  MPI_Request r;
  CHECK_CLASS(MPI_Comm_attach_buffer(MPI_COMM_NULL, b, sizeof b), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_flush_buffer(MPI_COMM_NULL), MPI_ERR_COMM);
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  CHECK_CLASS(MPI_Comm_attach_buffer(c, b, -1), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Comm_detach_buffer(c, &d, &ds), MPI_ERR_BUFFER); /* none attached */
  CHECK_MPI(MPI_Comm_attach_buffer(c, b, sizeof b));
  CHECK_CLASS(MPI_Comm_attach_buffer(c, b, sizeof b), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Comm_detach_buffer(c, NULL, &ds), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_detach_buffer(c, &d, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Comm_iflush_buffer(c, NULL), MPI_ERR_ARG);
  CHECK_MPI(MPI_Comm_iflush_buffer(c, &r)); /* nothing buffered: completes */
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Comm_detach_buffer(c, &d, &ds));
  CHECK(d == b && ds == (int)sizeof b);
  CHECK_MPI(MPI_Comm_attach_buffer(c, b, sizeof b)); /* freeing the communicator drops its buffer */
#ifdef FTMPI /* a freed handle is erroneous MPI; ftmpi detects it */
  MPI_Comm stale = c;
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_CLASS(MPI_Comm_attach_buffer(stale, b, sizeof b), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_detach_buffer(stale, &d, &ds), MPI_ERR_COMM);
#else
  CHECK_MPI(MPI_Comm_free(&c));
#endif
  CHECK_CLASS(MPI_Session_attach_buffer(MPI_SESSION_NULL, b, sizeof b), MPI_ERR_SESSION);
  CHECK_CLASS(MPI_Session_flush_buffer(MPI_SESSION_NULL), MPI_ERR_SESSION);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size, left = (rank - 1 + size) % size;
  process_buffer();
#ifdef HAVE_MPI41_BUFFERS
  comm_buffer();
  automatic();
  session_buffer();
  bad();
#else
  if (rank == 0) printf("SKIP MPI-4.1 communicator / session buffers (not in this MPI)\n");
#endif
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  check_pass("p2p_bsend_buffers");
  MPI_Finalize();
  return 0;
}
