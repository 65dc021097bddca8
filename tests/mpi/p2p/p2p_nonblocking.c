/* p2p_nonblocking: non-blocking sends/receives and every completion call.
 *
 * Covers MPI_Isend, MPI_Irecv, MPI_Issend, MPI_Irsend, MPI_Ibsend, MPI_Wait, MPI_Waitall, MPI_Waitany,
 * MPI_Waitsome, MPI_Test, MPI_Testall, MPI_Testany, MPI_Testsome, MPI_Request_free, MPI_Request_get_status,
 * MPI_STATUSES_IGNORE and completion calls on arrays holding MPI_REQUEST_NULL.
 * Runs between ranks 0 and 1 (other ranks only join the final barrier).  PASS: all data and statuses are
 * right, an Issend does not complete before its receive is posted, completed requests are set to
 * MPI_REQUEST_NULL, and Request_get_status leaves the request alive. */
#include "../common/check.h"

#define N 8
static const int kSizes[N] = {0, 1, 100, 8 << 10, 64 << 10, 1 << 20, 4 << 20, 3};

static unsigned char *bufs[N];

/* Rank 0 sends message k (tag base+k) with the given start function; rank 1 receives them. */
typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

static void post_sends(isend_fn fn, int base, MPI_Request *reqs) {
  for (int k = 0; k < N; k++) {
    check_fill(bufs[k], kSizes[k], base + k);
    CHECK_MPI(fn(bufs[k], kSizes[k], MPI_BYTE, 1, base + k, MPI_COMM_WORLD, &reqs[k]));
  }
}
static void post_recvs(int base, MPI_Request *reqs) {
  for (int k = 0; k < N; k++) {
    memset(bufs[k], 0, kSizes[k]);
    CHECK_MPI(MPI_Irecv(bufs[k], kSizes[k], MPI_BYTE, 0, base + k, MPI_COMM_WORLD, &reqs[k]));
  }
}
static void verify_recv(int k, int base, const MPI_Status *st) {
  int c = -1;
  CHECK(st->MPI_SOURCE == 0 && st->MPI_TAG == base + k, "message %d: source %d tag %d", k, st->MPI_SOURCE,
        st->MPI_TAG);
  CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &c));
  CHECK(c == kSizes[k], "message %d: count %d expected %d", k, c, kSizes[k]);
  CHECK_PATTERN(bufs[k], kSizes[k], base + k);
}
static void all_null(const MPI_Request *reqs, int n) {
  for (int k = 0; k < n; k++) CHECK(reqs[k] == MPI_REQUEST_NULL, "request %d not MPI_REQUEST_NULL after completion", k);
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2, "needs at least 2 ranks");
  for (int k = 0; k < N; k++) CHECK((bufs[k] = malloc(kSizes[k] + 1)) != NULL);
  MPI_Request reqs[N];
  MPI_Status sts[N], st;
  int base;

  if (rank <= 1) {
    /* 1. Isend + Irecv, completed with Waitall (statuses on the receiver, STATUSES_IGNORE on the sender). */
    base = 100;
    if (rank == 0) {
      post_sends(MPI_Isend, base, reqs);
      CHECK_MPI(MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE));
    } else {
      post_recvs(base, reqs);
      CHECK_MPI(MPI_Waitall(N, reqs, sts));
      for (int k = 0; k < N; k++) verify_recv(k, base, &sts[k]);
    }
    all_null(reqs, N);

    /* 2. Wait one by one in reverse order. */
    base = 200;
    if (rank == 0) {
      post_sends(MPI_Isend, base, reqs);
      for (int k = N - 1; k >= 0; k--) CHECK_MPI(MPI_Wait(&reqs[k], MPI_STATUS_IGNORE));
    } else {
      post_recvs(base, reqs);
      for (int k = N - 1; k >= 0; k--) {
        CHECK_MPI(MPI_Wait(&reqs[k], &st));
        verify_recv(k, base, &st);
      }
    }
    all_null(reqs, N);

    /* 3. Waitany until everything is done, then once more on an all-null array. */
    base = 300;
    if (rank == 0) post_sends(MPI_Isend, base, reqs); else post_recvs(base, reqs);
    {
      char done[N] = {0};
      for (int left = N; left > 0; left--) {
        int idx = -1;
        CHECK_MPI(MPI_Waitany(N, reqs, &idx, &st));
        CHECK(idx >= 0 && idx < N && !done[idx], "Waitany index %d", idx);
        done[idx] = 1;
        if (rank == 1) verify_recv(idx, base, &st);
      }
      int idx = 0;
      CHECK_MPI(MPI_Waitany(N, reqs, &idx, &st));
      CHECK(idx == MPI_UNDEFINED, "Waitany on null requests gave index %d", idx);
    }

    /* 4. Waitsome until everything is done; all-null array gives outcount MPI_UNDEFINED. */
    base = 400;
    if (rank == 0) post_sends(MPI_Isend, base, reqs); else post_recvs(base, reqs);
    {
      int done = 0, out = 0, idx[N];
      while (done < N) {
        CHECK_MPI(MPI_Waitsome(N, reqs, &out, idx, sts));
        CHECK(out >= 1 && out <= N - done, "Waitsome outcount %d", out);
        for (int j = 0; j < out; j++) {
          CHECK(reqs[idx[j]] == MPI_REQUEST_NULL);
          if (rank == 1) verify_recv(idx[j], base, &sts[j]);
        }
        done += out;
      }
      CHECK_MPI(MPI_Waitsome(N, reqs, &out, idx, sts));
      CHECK(out == MPI_UNDEFINED, "Waitsome on null requests gave outcount %d", out);
    }

    /* 5. Test in a loop on each request; Testall; Testany; Testsome. */
    base = 500;
    if (rank == 0) post_sends(MPI_Isend, base, reqs); else post_recvs(base, reqs);
    for (int k = 0; k < N; k++) {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Test(&reqs[k], &flag, &st));
      if (rank == 1) verify_recv(k, base, &st);
    }
    all_null(reqs, N);
    {
      int flag = 0;
      CHECK_MPI(MPI_Test(&reqs[0], &flag, &st)); /* null request: flag true, empty status */
      CHECK(flag, "Test on MPI_REQUEST_NULL must set flag");
    }

    base = 600;
    if (rank == 0) post_sends(MPI_Isend, base, reqs); else post_recvs(base, reqs);
    {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Testall(N, reqs, &flag, sts));
      all_null(reqs, N);
      if (rank == 1)
        for (int k = 0; k < N; k++) verify_recv(k, base, &sts[k]);
      CHECK_MPI(MPI_Testall(N, reqs, &flag, MPI_STATUSES_IGNORE));
      CHECK(flag, "Testall on null requests must set flag");
    }

    base = 700;
    if (rank == 0) post_sends(MPI_Isend, base, reqs); else post_recvs(base, reqs);
    {
      int done = 0, flag, idx;
      char seen[N] = {0};
      while (done < N) {
        CHECK_MPI(MPI_Testany(N, reqs, &idx, &flag, &st));
        if (!flag) continue;
        CHECK(idx >= 0 && idx < N && !seen[idx], "Testany index %d", idx);
        seen[idx] = 1;
        if (rank == 1) verify_recv(idx, base, &st);
        done++;
      }
      CHECK_MPI(MPI_Testany(N, reqs, &idx, &flag, &st));
      CHECK(flag && idx == MPI_UNDEFINED, "Testany on null requests: flag %d index %d", flag, idx);
    }

    base = 800;
    if (rank == 0) post_sends(MPI_Isend, base, reqs); else post_recvs(base, reqs);
    {
      int done = 0, out, idx[N];
      while (done < N) {
        CHECK_MPI(MPI_Testsome(N, reqs, &out, idx, sts));
        CHECK(out >= 0 && out <= N - done, "Testsome outcount %d", out);
        for (int j = 0; j < out; j++)
          if (rank == 1) verify_recv(idx[j], base, &sts[j]);
        done += out;
      }
      CHECK_MPI(MPI_Testsome(N, reqs, &out, idx, sts));
      CHECK(out == MPI_UNDEFINED, "Testsome on null requests gave outcount %d", out);
    }

    /* 6. Issend must not complete before the matching receive is posted. */
    if (rank == 0) {
      MPI_Request r;
      int flag = 0;
      check_fill(bufs[3], kSizes[3], 900);
      CHECK_MPI(MPI_Issend(bufs[3], kSizes[3], MPI_BYTE, 1, 900, MPI_COMM_WORLD, &r));
      double t0 = MPI_Wtime();
      while (MPI_Wtime() - t0 < 0.05) {
        CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Issend completed before the receive was posted");
      }
      CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 1, 901, MPI_COMM_WORLD)); /* "now post it" */
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
      CHECK(r == MPI_REQUEST_NULL);
    } else {
      CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 0, 901, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Recv(bufs[3], kSizes[3], MPI_BYTE, 0, 900, MPI_COMM_WORLD, &st));
      CHECK_PATTERN(bufs[3], kSizes[3], 900);
    }

    /* 7. Irsend after the receiver said its receives are posted; Issend for every size. */
    base = 1000;
    if (rank == 0) {
      CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 1, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      post_sends(MPI_Irsend, base, reqs);
      CHECK_MPI(MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE));
    } else {
      post_recvs(base, reqs);
      CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 0, 999, MPI_COMM_WORLD));
      CHECK_MPI(MPI_Waitall(N, reqs, sts));
      for (int k = 0; k < N; k++) verify_recv(k, base, &sts[k]);
    }
    base = 1100;
    if (rank == 0) post_sends(MPI_Issend, base, reqs); else post_recvs(base, reqs);
    CHECK_MPI(MPI_Waitall(N, reqs, sts));
    if (rank == 1)
      for (int k = 0; k < N; k++) verify_recv(k, base, &sts[k]);

    /* 8. Ibsend with an attached buffer big enough for all messages. */
    {
      int total = 0;
      for (int k = 0; k < N; k++) total += kSizes[k] + MPI_BSEND_OVERHEAD;
      char *attach = malloc(total);
      CHECK_MPI(MPI_Buffer_attach(attach, total));
      base = 1200;
      if (rank == 0) {
        post_sends(MPI_Ibsend, base, reqs);
        CHECK_MPI(MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE)); /* local completion */
        for (int k = 0; k < N; k++) memset(bufs[k], 0, kSizes[k]);
      } else {
        post_recvs(base, reqs);
        CHECK_MPI(MPI_Waitall(N, reqs, sts));
        for (int k = 0; k < N; k++) verify_recv(k, base, &sts[k]);
      }
      void *got;
      int got_size;
      CHECK_MPI(MPI_Buffer_detach(&got, &got_size));
      CHECK(got == attach && got_size == total);
      free(attach);
    }

    /* 9. Request_free on an active send; Request_get_status keeps the request alive. */
    if (rank == 0) {
      MPI_Request r;
      check_fill(bufs[4], kSizes[4], 1300);
      CHECK_MPI(MPI_Isend(bufs[4], kSizes[4], MPI_BYTE, 1, 1300, MPI_COMM_WORLD, &r));
      CHECK_MPI(MPI_Request_free(&r));
      CHECK(r == MPI_REQUEST_NULL, "Request_free must set the handle to MPI_REQUEST_NULL");
      /* the receiver acknowledges: only then may the buffer be reused */
      CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, 1, 1301, MPI_COMM_WORLD, MPI_STATUS_IGNORE));

      int v = 77;
      CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, 1, 1302, MPI_COMM_WORLD, &r));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Recv(bufs[4], kSizes[4], MPI_BYTE, 0, 1300, MPI_COMM_WORLD, &st));
      CHECK_PATTERN(bufs[4], kSizes[4], 1300);
      CHECK_MPI(MPI_Send(NULL, 0, MPI_BYTE, 0, 1301, MPI_COMM_WORLD));

      MPI_Request r;
      int v = 0, flag = 0;
      CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, 0, 1302, MPI_COMM_WORLD, &r));
      while (!flag) CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
      CHECK(r != MPI_REQUEST_NULL, "Request_get_status must not free the request");
      CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 1302, "get_status: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
      CHECK(v == 77, "value %d", v);
      CHECK_MPI(MPI_Wait(&r, &st)); /* still completes normally */
      CHECK(r == MPI_REQUEST_NULL);
      CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 1302);
      CHECK_MPI(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
      CHECK(flag, "Request_get_status on MPI_REQUEST_NULL must set flag");
    }
    (void)0;
  }

  for (int k = 0; k < N; k++) free(bufs[k]);
  check_pass("p2p_nonblocking");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
