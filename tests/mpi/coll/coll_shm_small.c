/* coll_shm_small — small Bcast / Allreduce / Reduce / Barrier, repeated, as ftmpi runs them through its
 * shared-memory collective area once every rank is on one host (coll/shm_area.h; from the third small
 * collective on a communicator). Portable MPI.
 * Checks, for every root and payloads of 1 ... 300 bytes (across the 256-byte limit of the area):
 *  - Bcast of MPI_BYTE and of a non-contiguous vector type (the gaps stay untouched);
 *  - Allreduce and Reduce with MPI_SUM on ints, MPI_IN_PLACE, and a non-commutative user op (2x2 integer
 *    matrix product: the result must be the product in rank order);
 *  - more collectives in flight than the area has slots (a Bcast root runs ahead of its readers), then a
 *    Barrier; back-to-back Allreduces of 4-16 bytes and Barriers, one rank late in turn (the area's counted
 *    line, coll/shm_area.h "In the line"); the same on a duplicated communicator interleaved with
 *    MPI_COMM_WORLD, and on a split.
 * PASS: every value right at every rank. */
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

static void matmul(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  int *a = in, *b = inout;
  for (int i = 0; i < *len; i++, a += 4, b += 4) {
    int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                a[2] * b[1] + a[3] * b[3]};
    memcpy(b, c, sizeof c);
  }
}

/* (a, b) stands for x -> a x + b; in o inout = in after inout: not commutative */
static void compose(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  int *f = in, *g = inout;
  for (int i = 0; i < *len; i++, f += 2, g += 2) {
    int a = f[0] * g[0], b = f[0] * g[1] + f[1];
    g[0] = a; g[1] = b;
  }
}

static void mine_matrix(int rank, int k, int m[4]) {
  m[0] = 1; m[1] = (rank + k) % 3; m[2] = rank % 2; m[3] = 1;
}

/* want = M_0 * M_1 * ... * M_{size-1}, the rank-order product of mine_matrix(q, k) */
static void rank_order_product(int size, int k, int want[4]) {
  want[0] = 1; want[1] = 0; want[2] = 0; want[3] = 1;
  for (int q = 0; q < size; q++) {
    int b[4], c[4];
    mine_matrix(q, k, b);
    c[0] = want[0] * b[0] + want[1] * b[2]; c[1] = want[0] * b[1] + want[1] * b[3];
    c[2] = want[2] * b[0] + want[3] * b[2]; c[3] = want[2] * b[1] + want[3] * b[3];
    memcpy(want, c, sizeof c);
  }
}

static void run(MPI_Comm comm, int rounds) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Op noncomm;
  CHECK_MPI(MPI_Op_create(matmul, 0, &noncomm));
  MPI_Datatype mat, vec;
  CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &mat));
  CHECK_MPI(MPI_Type_commit(&mat));
  MPI_Op affop;
  MPI_Datatype aff;
  CHECK_MPI(MPI_Op_create(compose, 0, &affop));
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &aff));
  CHECK_MPI(MPI_Type_commit(&aff));
  CHECK_MPI(MPI_Type_vector(8, 1, 2, MPI_INT, &vec)); /* 8 ints, every other one: 32 bytes of data */
  CHECK_MPI(MPI_Type_commit(&vec));
  unsigned char buf[300];
  for (int k = 0; k < rounds; k++) {
    for (int root = 0; root < size; root++) {
      const int len = 1 + (k * 37 + root * 11) % 300;
      for (int i = 0; i < len; i++) buf[i] = rank == root ? (unsigned char)(i * 7 + k + root) : 0xee;
      CHECK_MPI(MPI_Bcast(buf, len, MPI_BYTE, root, comm));
      for (int i = 0; i < len; i++) CHECK(buf[i] == (unsigned char)(i * 7 + k + root), "Bcast byte %d of %d", i, len);

      int v[16];
      for (int i = 0; i < 16; i++) v[i] = rank == root ? 100 * i + k : -1;
      if (rank != root) for (int i = 1; i < 16; i += 2) v[i] = -7;
      CHECK_MPI(MPI_Bcast(v, 1, vec, root, comm));
      for (int i = 0; i < 16; i++)
        CHECK(v[i] == (i % 2 == 0 || rank == root ? 100 * i + k : -7), "vector Bcast int %d", i);

      const int n = 1 + (k + root) % 64; /* up to 256 bytes of ints, sometimes more with +8 */
      const int m = n + (k % 3 == 0 ? 8 : 0);
      int s[72], r[72];
      for (int i = 0; i < m; i++) s[i] = rank * (i + 1) + k;
      CHECK_MPI(MPI_Allreduce(s, r, m, MPI_INT, MPI_SUM, comm));
      for (int i = 0; i < m; i++) CHECK(r[i] == size * (size - 1) / 2 * (i + 1) + size * k, "Allreduce %d", i);
      for (int i = 0; i < m; i++) r[i] = rank + i;
      CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, r, m, MPI_INT, MPI_MAX, comm));
      for (int i = 0; i < m; i++) CHECK(r[i] == size - 1 + i, "Allreduce in place %d", i);
      for (int i = 0; i < m; i++) { s[i] = rank + k; r[i] = -1; }
      CHECK_MPI(MPI_Reduce(rank == root ? MPI_IN_PLACE : s, rank == root ? s : r, m, MPI_INT, MPI_SUM, root, comm));
      if (rank == root) for (int i = 0; i < m; i++) CHECK(s[i] == size * (size - 1) / 2 + size * k, "Reduce %d", i);

      int a[8], out[8], want[4];
      mine_matrix(rank, k, a);
      mine_matrix(rank, k, a + 4);
      rank_order_product(size, k, want);
      CHECK_MPI(MPI_Allreduce(a, out, 2, mat, noncomm, comm));
      for (int i = 0; i < 8; i++) CHECK(out[i] == want[i % 4], "non-commutative Allreduce %d", i);
      memset(out, 0, sizeof out);
      CHECK_MPI(MPI_Reduce(a, out, 2, mat, noncomm, root, comm));
      if (rank == root) for (int i = 0; i < 8; i++) CHECK(out[i] == want[i % 4], "non-commutative Reduce %d", i);
    }
    /* a root far ahead of its readers: more Bcasts than the area's slots, readers late */
    if (rank != 0 && k % 5 == 0) {
      volatile double x = 0;
      for (int i = 0; i < 200000; i++) x += i;
    }
    for (int j = 0; j < 40; j++) {
      int x = rank == 0 ? j * 3 + k : -1;
      CHECK_MPI(MPI_Bcast(&x, 1, MPI_INT, 0, comm));
      CHECK(x == j * 3 + k, "run-ahead Bcast %d", j);
    }
    /* contributors far ahead of a late root: more Reduces than the area's slots (the root's ack is
       published every 16th op only: coll/shm_area.h "Buffer reuse"); a count that is no multiple of 16 */
    if (rank == 0 && k % 5 == 1) {
      volatile double x = 0;
      for (int i = 0; i < 200000; i++) x += i;
    }
    for (int j = 0; j < 53; j++) {
      int v = rank + j + k, sum = -1;
      CHECK_MPI(MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 0, comm));
      if (rank == 0) CHECK(sum == size * (size - 1) / 2 + size * (j + k), "run-ahead Reduce %d", j);
    }
    /* the counted line (coll/shm_area.h "In the line": Allreduces of size * bytes <= 24 and every
       Barrier): back to back, one rank late in turn, each result checked, rank order for non-commutative
       ops (8 bytes: in the line at 2 and 3 ranks; 16 bytes: never), sizes mixed */
    for (int j = 0; j < 40; j++) {
      if (j % 7 == 0 && rank == (j + k) % size) {
        volatile double x = 0;
        for (int i = 0; i < 100000; i++) x += i;
      }
      int v = rank * 3 + j, sum = -1;
      CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm));
      CHECK(sum == 3 * size * (size - 1) / 2 + size * j, "line Allreduce %d: %d", j, sum);
      double d = rank + 0.5 + j;
      CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_MAX, comm));
      CHECK(d == size - 0.5 + j, "line Allreduce in place %d", j);
      int three[3] = {rank - j, rank, -rank}, least[3];
      CHECK_MPI(MPI_Allreduce(three, least, 3, MPI_INT, MPI_MIN, comm)); /* 12 bytes: in the line at 2 ranks */
      CHECK(least[0] == -j && least[1] == 0 && least[2] == 1 - size, "line Allreduce of 3 ints %d", j);
      int f[2] = {1 + (rank + j) % 2, rank + 1}, g[2] = {1, 0}, fw[2] = {1, 0};
      for (int q = 0; q < size; q++) { /* fw = f_0 o f_1 o ... o f_{size-1}, built as fw o f_q */
        int a0 = 1 + (q + j) % 2, b0 = q + 1;
        fw[1] = fw[0] * b0 + fw[1];
        fw[0] = fw[0] * a0;
      }
      CHECK_MPI(MPI_Allreduce(f, g, 1, aff, affop, comm));
      CHECK(g[0] == fw[0] && g[1] == fw[1], "line non-commutative Allreduce %d: (%d, %d) want (%d, %d)", j, g[0],
            g[1], fw[0], fw[1]);
      int a[4], o[4] = {0, 0, 0, 0}, want[4];
      mine_matrix(rank, j, a);
      rank_order_product(size, j, want);
      CHECK_MPI(MPI_Allreduce(a, o, 1, mat, noncomm, comm));
      for (int i = 0; i < 4; i++) CHECK(o[i] == want[i], "line non-commutative Allreduce %d", j);
      if (j % 3 == 0) CHECK_MPI(MPI_Barrier(comm));
    }
    CHECK_MPI(MPI_Barrier(comm));
  }
  MPI_Type_free(&vec);
  MPI_Type_free(&aff);
  MPI_Op_free(&affop);
  MPI_Type_free(&mat);
  MPI_Op_free(&noncomm);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  run(MPI_COMM_WORLD, 12);
  MPI_Comm dup, half;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
  for (int k = 0; k < 4; k++) {
    run(dup, 2);
    run(MPI_COMM_WORLD, 1);
    run(half, 2);
  }
  CHECK_MPI(MPI_Comm_free(&half));
  CHECK_MPI(MPI_Comm_free(&dup));
  if (rank == 0) printf("PASS coll_shm_small\n");
  MPI_Finalize();
  return 0;
}
