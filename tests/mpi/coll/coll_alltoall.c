/* coll_alltoall: MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw against a sequential reference.
 *
 * Alltoall with small blocks (every send posted at once) and 40 KB blocks (pairwise exchange), with
 * MPI_IN_PLACE, and with a derived send type (2 ints as one element) against plain ints; Alltoallv with
 * irregular counts (some zero) at displacements with gaps, and in place (symmetric counts); Alltoallw
 * with byte displacements and a different type per peer; on MPI_COMM_WORLD and a split communicator.
 * Bad input on every rank must fail with its class (recvbuf = MPI_IN_PLACE, negative count, NULL arrays,
 * null datatype) and leave the communicator usable.
 * PASS: every element equals the reference and gaps are untouched. */
#include "common/check.h"

static int val(int from, int to, int k) { return from * 1000000 + to * 10000 + k % 10000; }

static void alltoall(MPI_Comm comm, int n) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *sb = malloc(sizeof(int) * (size * n + 1)), *rb = malloc(sizeof(int) * (size * n + 1));
  for (int mode = 0; mode < 3; mode++) { /* 0 plain, 1 in place, 2 derived send type */
    for (int j = 0; j < size; j++)
      for (int k = 0; k < n; k++) sb[j * n + k] = val(rank, j, k);
    for (int i = 0; i < size * n; i++) rb[i] = mode == 1 ? sb[i] : -1;
    if (mode == 0) {
      CHECK_MPI(MPI_Alltoall(sb, n, MPI_INT, rb, n, MPI_INT, comm));
    } else if (mode == 1) {
      CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, n, MPI_INT, comm));
    } else {
      if (n % 2) continue;
      MPI_Datatype two;
      CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &two));
      CHECK_MPI(MPI_Type_commit(&two));
      CHECK_MPI(MPI_Alltoall(sb, n / 2, two, rb, n, MPI_INT, comm));
      CHECK_MPI(MPI_Type_free(&two));
    }
    for (int j = 0; j < size; j++)
      for (int k = 0; k < n; k++)
        CHECK(rb[j * n + k] == val(j, rank, k), "alltoall n=%d mode %d from %d elem %d: %d", n, mode, j, k,
              rb[j * n + k]);
  }
  free(sb);
  free(rb);
}

/* Ints that rank `from` sends to rank `to` (zero for some pairs). */
static int cnt(int from, int to, int scale) { return ((from + 2 * to) % 3) * scale; }

static void alltoallv(MPI_Comm comm, int scale) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size), *rc = malloc(sizeof(int) * size),
      *rd = malloc(sizeof(int) * size);
  for (int in_place = 0; in_place < 2; in_place++) {
    int so = 0, ro = 1;
    for (int j = 0; j < size; j++) {
      /* in place needs sendcount(me->j) == recvcount(j->me): use a symmetric pattern */
      sc[j] = in_place ? cnt(rank < j ? rank : j, rank < j ? j : rank, scale) : cnt(rank, j, scale);
      rc[j] = in_place ? sc[j] : cnt(j, rank, scale);
      sd[j] = so, so += sc[j];
      rd[j] = ro, ro += rc[j] + 1;
    }
    int *sb = malloc(sizeof(int) * (so + 1)), *rb = malloc(sizeof(int) * (ro + 1));
    for (int j = 0; j < size; j++)
      for (int k = 0; k < sc[j]; k++) sb[sd[j] + k] = val(rank, j, k);
    for (int i = 0; i < ro; i++) rb[i] = -1;
    if (in_place) {
      for (int j = 0; j < size; j++)
        for (int k = 0; k < rc[j]; k++) rb[rd[j] + k] = val(rank, j, k);
      CHECK_MPI(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rb, rc, rd, MPI_INT, comm));
    } else {
      CHECK_MPI(MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm));
    }
    for (int j = 0; j < size; j++) {
      CHECK(rb[rd[j] - 1] == -1, "alltoallv wrote into a gap");
      for (int k = 0; k < rc[j]; k++) CHECK(rb[rd[j] + k] == val(j, rank, k), "alltoallv from %d elem %d", j, k);
    }
    free(sb);
    free(rb);
  }
  /* Alltoallw: to even peers send pairs (a 2-int type), receive plain ints; byte displacements. */
  MPI_Datatype two;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &two));
  CHECK_MPI(MPI_Type_commit(&two));
  MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * size), *rt = malloc(sizeof(MPI_Datatype) * size);
  int so = 0, ro = 1;
  for (int j = 0; j < size; j++) {
    const int ns = 2 * cnt(rank, j, scale), nr = 2 * cnt(j, rank, scale);
    st[j] = (j % 2 == 0) ? two : MPI_INT;
    sc[j] = (j % 2 == 0) ? ns / 2 : ns;
    rt[j] = MPI_INT;
    rc[j] = nr;
    sd[j] = so * (int)sizeof(int), so += ns;
    rd[j] = ro * (int)sizeof(int), ro += nr + 1;
  }
  int *sb = malloc(sizeof(int) * (so + 1)), *rb = malloc(sizeof(int) * (ro + 1));
  for (int j = 0; j < size; j++)
    for (int k = 0; k < 2 * cnt(rank, j, scale); k++) sb[sd[j] / (int)sizeof(int) + k] = val(rank, j, k);
  for (int i = 0; i < ro; i++) rb[i] = -1;
  CHECK_MPI(MPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm));
  for (int j = 0; j < size; j++) {
    const int base = rd[j] / (int)sizeof(int);
    CHECK(rb[base - 1] == -1, "alltoallw wrote into a gap");
    for (int k = 0; k < rc[j]; k++) CHECK(rb[base + k] == val(j, rank, k), "alltoallw from %d elem %d", j, k);
  }
  CHECK_MPI(MPI_Type_free(&two));
  free(st);
  free(rt);
  free(sb);
  free(rb);
  free(sc);
  free(sd);
  free(rc);
  free(rd);
}

static void bad_input(MPI_Comm comm) {
  int size;
  MPI_Comm_size(comm, &size);
  int *c = calloc(size, sizeof(int)), *d = calloc(size, sizeof(int));
  MPI_Datatype *t = malloc(sizeof(MPI_Datatype) * size);
  for (int i = 0; i < size; i++) t[i] = MPI_INT;
  int buf[64] = {0}, out[64];
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  CHECK_CLASS(MPI_Alltoall(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_Alltoall(buf, -1, MPI_INT, out, 1, MPI_INT, comm), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Alltoall(buf, 1, MPI_DATATYPE_NULL, out, 1, MPI_INT, comm), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Alltoallv(buf, NULL, d, MPI_INT, out, c, d, MPI_INT, comm), MPI_ERR_ARG);
  c[0] = -3;
  CHECK_CLASS(MPI_Alltoallv(buf, c, d, MPI_INT, out, c, d, MPI_INT, comm), MPI_ERR_COUNT);
  c[0] = 0;
  CHECK_CLASS(MPI_Alltoallw(buf, c, d, t, out, c, d, NULL, comm), MPI_ERR_ARG);
  c[0] = 1;
  t[0] = MPI_DATATYPE_NULL;
  CHECK_CLASS(MPI_Alltoallw(buf, c, d, t, out, c, d, t, comm), MPI_ERR_TYPE);
  int rank;
  MPI_Comm_rank(comm, &rank);
  for (int i = 0; i < size; i++) buf[i] = rank * 100 + i;
  CHECK_MPI(MPI_Alltoall(buf, 1, MPI_INT, out, 1, MPI_INT, comm));
  for (int i = 0; i < size; i++) CHECK(out[i] == i * 100 + rank);
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
  free(c);
  free(d);
  free(t);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
  for (int c = 0; c < 2; c++) {
    MPI_Comm comm = c ? half : MPI_COMM_WORLD;
    alltoall(comm, 0);
    alltoall(comm, 1);
    alltoall(comm, 6);
    alltoall(comm, 10000); /* 40 KB blocks: pairwise */
    alltoallv(comm, 1);
    alltoallv(comm, 5000);
    bad_input(comm);
  }
  CHECK_MPI(MPI_Comm_free(&half));
  check_pass("coll_alltoall");
  MPI_Finalize();
  return 0;
}
