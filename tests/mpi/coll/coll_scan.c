/* coll_scan: MPI_Scan, MPI_Exscan, MPI_Reduce_scatter, MPI_Reduce_scatter_block and large MPI_Allreduce
 * against a sequential reference.
 *
 * Commutative predefined ops (SUM, MAX on int, SUM on double with integer values so results are exact) and
 * a non-commutative user op (2x2 matrix product mod 1009, which catches any operand-order mistake), small and
 * large vectors (both Reduce_scatter algorithms, Rabenseifner's Allreduce), zero counts, MPI_IN_PLACE, on
 * MPI_COMM_WORLD and a split communicator. Bad input on every rank returns its class.
 * PASS: every result equals the reference; Exscan leaves rank 0's buffer untouched. */
#include "common/check.h"

/* inout = in * inout, per 4-int matrix. */
static void matmul(void *in_, void *inout_, int *len, MPI_Datatype *dt) {
  (void)dt;
  const int *a = in_;
  int *b = inout_;
  for (int k = 0; k + 4 <= *len; k += 4) {
    int c0 = (a[k] * b[k] + a[k + 1] * b[k + 2]) % 1009, c1 = (a[k] * b[k + 1] + a[k + 1] * b[k + 3]) % 1009;
    int c2 = (a[k + 2] * b[k] + a[k + 3] * b[k + 2]) % 1009, c3 = (a[k + 2] * b[k + 1] + a[k + 3] * b[k + 3]) % 1009;
    b[k] = c0, b[k + 1] = c1, b[k + 2] = c2, b[k + 3] = c3;
  }
}
static MPI_Op matop;

/* Matrix j of rank r's input (4 ints). */
static void mat(int r, int j, int *m) {
  m[0] = (r + 2 + j) % 1009, m[1] = 1 + j % 3, m[2] = 3, m[3] = (r * 5 + j) % 1009;
}
/* Product of the matrices j of ranks lo..hi-1, left to right. */
static void mat_range(int lo, int hi, int j, int *out) {
  int acc[4] = {1, 0, 0, 1}, x[4], four = 4;
  for (int r = lo; r < hi; r++) {
    mat(r, j, x);
    matmul(acc, x, &four, NULL); /* x = acc * x */
    memcpy(acc, x, sizeof acc);
  }
  memcpy(out, acc, sizeof acc);
}

static int ival(int r, int j) { return (r * 37 + j * 11) % 1000 - 500; }

static void scans(MPI_Comm comm, int nmat) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = 4 * nmat;
  int *in = malloc(sizeof(int) * (n + 1)), *out = malloc(sizeof(int) * (n + 1)), want[4];
  for (int ex = 0; ex < 2; ex++) {
    for (int in_place = 0; in_place < 2; in_place++) {
      /* non-commutative */
      for (int j = 0; j < nmat; j++) mat(rank, j, in + 4 * j);
      for (int i = 0; i < n; i++) out[i] = in_place ? in[i] : -77;
      const void *sb = in_place ? MPI_IN_PLACE : in;
      if (ex)
        CHECK_MPI(MPI_Exscan(sb, out, n, MPI_INT, matop, comm));
      else
        CHECK_MPI(MPI_Scan(sb, out, n, MPI_INT, matop, comm));
      if (!(ex && rank == 0)) {
        for (int j = 0; j < nmat; j++) {
          mat_range(0, ex ? rank : rank + 1, j, want);
          CHECK(memcmp(out + 4 * j, want, sizeof want) == 0, "%s matmul n=%d rank %d matrix %d",
                ex ? "exscan" : "scan", n, rank, j);
        }
      } else if (!in_place) {
        for (int i = 0; i < n; i++) CHECK(out[i] == -77, "exscan wrote rank 0's recvbuf");
      }
      /* commutative SUM and MAX */
      for (int op = 0; op < 2; op++) {
        for (int i = 0; i < n; i++) in[i] = ival(rank, i), out[i] = in_place ? in[i] : -77;
        CHECK_MPI(ex ? MPI_Exscan(sb, out, n, MPI_INT, op ? MPI_MAX : MPI_SUM, comm)
                     : MPI_Scan(sb, out, n, MPI_INT, op ? MPI_MAX : MPI_SUM, comm));
        if (ex && rank == 0) continue;
        for (int i = 0; i < n; i++) {
          int acc = op ? -1000000 : 0;
          for (int r = 0; r < (ex ? rank : rank + 1); r++) acc = op ? (ival(r, i) > acc ? ival(r, i) : acc) : acc + ival(r, i);
          CHECK(out[i] == acc, "%s %s elem %d: %d want %d", ex ? "exscan" : "scan", op ? "MAX" : "SUM", i, out[i], acc);
        }
      }
    }
  }
  free(in);
  free(out);
}

static void reduce_scatters(MPI_Comm comm, int scale) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *counts = malloc(sizeof(int) * size), total = 0;
  for (int i = 0; i < size; i++) total += (counts[i] = 4 * (((i * 7 + size) % 3) * scale)); /* some zero */
  int *displ = malloc(sizeof(int) * size);
  for (int i = 0, d = 0; i < size; i++) displ[i] = d, d += counts[i];
  int *in = malloc(sizeof(int) * (total + 4)), *out = malloc(sizeof(int) * (total + 4)), want[4];
  for (int in_place = 0; in_place < 2; in_place++) {
    for (int j = 0; j < total / 4; j++) mat(rank, j, in + 4 * j);
    for (int i = 0; i < total; i++) out[i] = in_place ? in[i] : -5;
    CHECK_MPI(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in, out, counts, MPI_INT, matop, comm));
    for (int m = 0; m < counts[rank] / 4; m++) {
      mat_range(0, size, displ[rank] / 4 + m, want);
      CHECK(memcmp(out + 4 * m, want, sizeof want) == 0, "reduce_scatter matmul scale %d matrix %d", scale, m);
    }
  }
  /* Reduce_scatter_block, SUM on doubles */
  const int b = 3 * scale + 1;
  double *din = malloc(sizeof(double) * b * size), *dout = malloc(sizeof(double) * b * size);
  for (int in_place = 0; in_place < 2; in_place++) {
    for (int i = 0; i < b * size; i++) din[i] = (double)ival(rank, i), dout[i] = in_place ? din[i] : -1.0;
    CHECK_MPI(MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : din, dout, b, MPI_DOUBLE, MPI_SUM, comm));
    for (int k = 0; k < b; k++) {
      double acc = 0;
      for (int r = 0; r < size; r++) acc += ival(r, rank * b + k);
      CHECK(dout[k] == acc, "reduce_scatter_block elem %d: %g want %g", k, dout[k], acc);
    }
  }
  free(din);
  free(dout);
  free(in);
  free(out);
  free(counts);
  free(displ);
}

/* Large allreduce: Rabenseifner for commutative ops, recursive doubling for the matrix op. */
static void big_allreduce(MPI_Comm comm, int n) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double *d = malloc(sizeof(double) * n), *dr = malloc(sizeof(double) * n);
  for (int in_place = 0; in_place < 2; in_place++) {
    for (int i = 0; i < n; i++) d[i] = (double)ival(rank, i), dr[i] = in_place ? d[i] : 0;
    CHECK_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : d, dr, n, MPI_DOUBLE, MPI_SUM, comm));
    for (int i = 0; i < n; i++) {
      double acc = 0;
      for (int r = 0; r < size; r++) acc += ival(r, i);
      CHECK(dr[i] == acc, "big allreduce n=%d elem %d: %g want %g", n, i, dr[i], acc);
    }
  }
  int *m = malloc(sizeof(int) * n), want[4];
  const int nm = n / 4;
  for (int j = 0; j < nm; j++) mat(rank, j, m + 4 * j);
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, m, 4 * nm, MPI_INT, matop, comm));
  for (int j = 0; j < nm; j++) {
    mat_range(0, size, j, want);
    CHECK(memcmp(m + 4 * j, want, sizeof want) == 0, "big allreduce matmul matrix %d", j);
  }
  free(m);
  free(d);
  free(dr);
}

static void bad_input(MPI_Comm comm) {
  int size;
  MPI_Comm_size(comm, &size);
  int a[8] = {0}, b[8];
  float f[8] = {0}, g[8];
  int *counts = calloc(size, sizeof(int));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_Scan(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Scan(a, b, -1, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Exscan(a, b, 1, MPI_INT, MPI_OP_NULL, comm), MPI_ERR_OP);
  CHECK_CLASS(MPI_Exscan(f, g, 1, MPI_FLOAT, MPI_BAND, comm), MPI_ERR_OP);
  CHECK_CLASS(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, comm), MPI_ERR_ARG);
  counts[0] = -1;
  CHECK_CLASS(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Reduce_scatter_block(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, comm), MPI_ERR_TYPE);
  a[0] = 1;
  CHECK_MPI(MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, comm));
  int rank;
  MPI_Comm_rank(comm, &rank);
  CHECK(b[0] == rank + 1);
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
  free(counts);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Op_create(matmul, 0, &matop));
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
  for (int c = 0; c < 2; c++) {
    MPI_Comm comm = c ? half : MPI_COMM_WORLD;
    scans(comm, 0);
    scans(comm, 1);
    scans(comm, 3000);
    reduce_scatters(comm, 0);
    reduce_scatters(comm, 1);
    reduce_scatters(comm, 1000);
    big_allreduce(comm, 20001);
    bad_input(comm);
  }
  CHECK_MPI(MPI_Comm_free(&half));
  CHECK_MPI(MPI_Op_free(&matop));
  check_pass("coll_scan");
  MPI_Finalize();
  return 0;
}
