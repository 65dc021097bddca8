/* coll_nonblocking: every non-blocking collective (Ibarrier ... Iexscan) against a sequential reference.
 *
 * 1. All seventeen started back to back on one communicator (many outstanding at once), completed with one
 *    MPI_Waitall, every result checked.
 * 2. Overlap: a large Iallreduce and an Ialltoall progress while the rank computes, polling with MPI_Test.
 * 3. Ibarrier semantics: rank 0 enters 50 ms late; nobody's Ibarrier completes before rank 0 entered
 *    (checked with MPI_Test loops and a timestamp Bcast from rank 0).
 * 4. 64 outstanding Iallreduce with different buffers and a blocking collective in the middle, Waitall.
 * 5. Bad input returns its class at initiation (NULL request, invalid root, invalid op) and the request
 *    handle is left alone.
 * Runs on MPI_COMM_WORLD and a split communicator.
 * PASS: every result equals the reference. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "common/check.h"

static double now(void) { return MPI_Wtime(); }

static int v(int r, int k) { return r * 1000 + k; }

static void all_at_once(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  enum { n = 5 };
  const int root = size / 2;
  MPI_Request req[17];
  int nreq = 0;
  int bc[n], mine[n], gat[n * 64], gatv[n * 64], sca_src[n * 64], sca[n], scav[n], allg[n * 64], allgv[n * 64];
  int a2a_s[n * 64], a2a_r[n * 64], a2av_r[n * 64], a2aw_r[n * 64], red[n], allred[n], rs[n], rsb[n], scan[n],
      exscan[n];
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
  MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * size);
  int *bdispls = malloc(sizeof(int) * size);
  CHECK(size <= 64);
  for (int i = 0; i < size; i++) counts[i] = n, displs[i] = i * n, bdispls[i] = i * n * (int)sizeof(int), types[i] = MPI_INT;
  for (int k = 0; k < n; k++) mine[k] = v(rank, k), bc[k] = rank == root ? v(99, k) : -1;
  for (int i = 0; i < size * n; i++) sca_src[i] = 7 * i, a2a_s[i] = v(rank, i);
  exscan[0] = -42;

  CHECK_MPI(MPI_Ibarrier(comm, &req[nreq++]));
  CHECK_MPI(MPI_Ibcast(bc, n, MPI_INT, root, comm, &req[nreq++]));
  CHECK_MPI(MPI_Igather(mine, n, MPI_INT, gat, n, MPI_INT, root, comm, &req[nreq++]));
  CHECK_MPI(MPI_Igatherv(mine, n, MPI_INT, gatv, counts, displs, MPI_INT, root, comm, &req[nreq++]));
  CHECK_MPI(MPI_Iscatter(sca_src, n, MPI_INT, sca, n, MPI_INT, root, comm, &req[nreq++]));
  CHECK_MPI(MPI_Iscatterv(sca_src, counts, displs, MPI_INT, scav, n, MPI_INT, root, comm, &req[nreq++]));
  CHECK_MPI(MPI_Iallgather(mine, n, MPI_INT, allg, n, MPI_INT, comm, &req[nreq++]));
  CHECK_MPI(MPI_Iallgatherv(mine, n, MPI_INT, allgv, counts, displs, MPI_INT, comm, &req[nreq++]));
  CHECK_MPI(MPI_Ialltoall(a2a_s, n, MPI_INT, a2a_r, n, MPI_INT, comm, &req[nreq++]));
  CHECK_MPI(MPI_Ialltoallv(a2a_s, counts, displs, MPI_INT, a2av_r, counts, displs, MPI_INT, comm, &req[nreq++]));
  CHECK_MPI(MPI_Ialltoallw(a2a_s, counts, bdispls, types, a2aw_r, counts, bdispls, types, comm, &req[nreq++]));
  CHECK_MPI(MPI_Ireduce(mine, red, n, MPI_INT, MPI_SUM, root, comm, &req[nreq++]));
  CHECK_MPI(MPI_Iallreduce(mine, allred, n, MPI_INT, MPI_MAX, comm, &req[nreq++]));
  CHECK_MPI(MPI_Ireduce_scatter(a2a_s, rs, counts, MPI_INT, MPI_SUM, comm, &req[nreq++]));
  CHECK_MPI(MPI_Ireduce_scatter_block(a2a_s, rsb, n, MPI_INT, MPI_SUM, comm, &req[nreq++]));
  CHECK_MPI(MPI_Iscan(mine, scan, n, MPI_INT, MPI_SUM, comm, &req[nreq++]));
  CHECK_MPI(MPI_Iexscan(mine, exscan, n, MPI_INT, MPI_SUM, comm, &req[nreq++]));
  CHECK_MPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
  for (int i = 0; i < nreq; i++) CHECK(req[i] == MPI_REQUEST_NULL, "request %d not freed by Waitall", i);

  for (int k = 0; k < n; k++) {
    CHECK(bc[k] == v(99, k), "ibcast");
    CHECK(sca[k] == 7 * (rank * n + k) && scav[k] == sca[k], "iscatter(v)");
    int sum = 0, pre = 0;
    for (int r = 0; r < size; r++) {
      sum += v(r, rank * n + k);
      if (r < rank) pre += v(r, k);
    }
    CHECK(rs[k] == sum && rsb[k] == sum, "ireduce_scatter(_block) elem %d: %d %d want %d", k, rs[k], rsb[k], sum);
    CHECK(scan[k] == pre + v(rank, k), "iscan");
    if (rank > 0) CHECK(exscan[k] == pre, "iexscan");
    CHECK(allred[k] == v(size - 1, k), "iallreduce");
  }
  if (rank == 0) CHECK(exscan[0] == -42, "iexscan wrote rank 0's recvbuf");
  int tot = 0;
  for (int r = 0; r < size; r++) tot += r;
  for (int i = 0; i < size; i++)
    for (int k = 0; k < n; k++) {
      CHECK(allg[i * n + k] == v(i, k) && allgv[i * n + k] == v(i, k), "iallgather(v)");
      if (rank == root) {
        CHECK(gat[i * n + k] == v(i, k) && gatv[i * n + k] == v(i, k), "igather(v)");
        if (i == 0) CHECK(red[k] == tot * 1000 + size * k, "ireduce");
      }
      CHECK(a2a_r[i * n + k] == v(i, rank * n + k), "ialltoall");
      CHECK(a2av_r[i * n + k] == a2a_r[i * n + k] && a2aw_r[i * n + k] == a2a_r[i * n + k], "ialltoall(v,w)");
    }
  free(counts);
  free(displs);
  free(types);
  free(bdispls);
}

static void overlap(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = 1 << 16, m = 4096;
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
  int *s = malloc(sizeof(int) * m * size), *r = malloc(sizeof(int) * m * size);
  for (int i = 0; i < n; i++) x[i] = (double)((rank + i) % 100);
  for (int i = 0; i < m * size; i++) s[i] = rank * 7 + i;
  MPI_Request req[2];
  CHECK_MPI(MPI_Iallreduce(x, y, n, MPI_DOUBLE, MPI_SUM, comm, &req[0]));
  CHECK_MPI(MPI_Ialltoall(s, m, MPI_INT, r, m, MPI_INT, comm, &req[1]));
  int done = 0, polls = 0;
  volatile double work = 0;
  while (!done) {
    for (int i = 0; i < 2000; i++) work += i * 0.5; /* computation between polls */
    CHECK_MPI(MPI_Testall(2, req, &done, MPI_STATUSES_IGNORE));
    polls++;
  }
  (void)work;
  for (int i = 0; i < n; i++) {
    double acc = 0;
    for (int q = 0; q < size; q++) acc += (double)((q + i) % 100);
    CHECK(y[i] == acc, "overlapped iallreduce elem %d", i);
  }
  for (int q = 0; q < size; q++)
    for (int k = 0; k < m; k++) CHECK(r[q * m + k] == q * 7 + rank * m + k, "overlapped ialltoall");
  CHECK(polls >= 1);
  free(x);
  free(y);
  free(s);
  free(r);
}

static void barrier_semantics(MPI_Comm comm) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  double entered = now();
  MPI_Request req;
  CHECK_MPI(MPI_Ibarrier(comm, &req));
  int flag = 0;
  while (!flag) CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
  double left = now();
  double root_entered = entered;
  CHECK_MPI(MPI_Bcast(&root_entered, 1, MPI_DOUBLE, 0, comm)); /* Wtime is global on one host */
  CHECK(left >= root_entered - 0.005, "Ibarrier completed %.3f s before rank 0 entered", root_entered - left);
}

static void many_outstanding(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  enum { K = 64 };
  MPI_Request req[K];
  int in[K][3], out[K][3];
  for (int i = 0; i < K; i++) {
    for (int k = 0; k < 3; k++) in[i][k] = rank * i + k;
    CHECK_MPI(MPI_Iallreduce(in[i], out[i], 3, MPI_INT, MPI_SUM, comm, &req[i]));
    if (i == K / 2) CHECK_MPI(MPI_Barrier(comm)); /* a blocking collective among pending ones */
  }
  /* complete in reverse order with Wait, except the first half with Waitall */
  for (int i = K - 1; i >= K / 2; i--) CHECK_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Waitall(K / 2, req, MPI_STATUSES_IGNORE));
  const int tot = size * (size - 1) / 2;
  for (int i = 0; i < K; i++)
    for (int k = 0; k < 3; k++) CHECK(out[i][k] == tot * i + size * k, "iallreduce #%d", i);
}

static void bad_input(MPI_Comm comm) {
  int size, x = 0, y;
  MPI_Comm_size(comm, &size);
  MPI_Request req = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_Ibarrier(comm, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Ibcast(&x, 1, MPI_INT, size, comm, &req), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, comm, &req), MPI_ERR_OP);
  CHECK_CLASS(MPI_Iscan(&x, &y, -1, MPI_INT, MPI_SUM, comm, &req), MPI_ERR_COUNT);
  CHECK(req == MPI_REQUEST_NULL, "a failed call set the request");
  CHECK_MPI(MPI_Ibarrier(comm, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
  for (int c = 0; c < 2; c++) {
    MPI_Comm comm = c ? half : MPI_COMM_WORLD;
    all_at_once(comm);
    overlap(comm);
    barrier_semantics(comm);
    many_outstanding(comm);
    bad_input(comm);
  }
  CHECK_MPI(MPI_Comm_free(&half));
  check_pass("coll_nonblocking");
  MPI_Finalize();
  return 0;
}
