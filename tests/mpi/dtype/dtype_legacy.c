/* dtype_legacy — datatype corners the conformance suites hit (issue 14 items 4 and 7):
 *  - zero-length blocks do not move the bounds of indexed, hindexed, struct types (and an all-zero
 *    indexed type is empty: lb 0, extent 0);
 *  - the MPI-1 names both peers still export: MPI_Address, MPI_Type_extent/lb/ub, MPI_Type_hvector,
 *    MPI_Type_hindexed, MPI_Type_struct (with MPI_LB/MPI_UB markers where the peer header has them),
 *    MPI_Errhandler_create/set/get;
 *  - MPI_Type_create_f90_integer/real/complex: sizes, envelope MPI_COMBINER_F90_*, same handle again,
 *    out-of-range requests fail;
 *  - MPI_CXX_BOOL / MPI_CXX_FLOAT_COMPLEX / MPI_CXX_DOUBLE_COMPLEX / MPI_CXX_LONG_DOUBLE_COMPLEX: sizes,
 *    a send/receive, and the reductions the standard allows (LAND/LOR/LXOR on bool, SUM/PROD on complex).
 * 1+ ranks (rank 0 sends to the last rank when there are two or more). */
#define OMPI_OMIT_MPI1_COMPAT_DECLS 0 /* Open MPI 4.1 hides the MPI-1 names it still exports without this */
#include <complex.h>
#include <stdbool.h>

#include "common/check.h"

static void bounds(MPI_Datatype t, MPI_Aint lb, MPI_Aint extent, int size, const char *what) {
  MPI_Aint l, e;
  int s;
  CHECK_MPI(MPI_Type_get_extent(t, &l, &e));
  CHECK_MPI(MPI_Type_size(t, &s));
  CHECK(l == lb && e == extent && s == size, "%s: lb %ld extent %ld size %d, want %ld %ld %d", what, (long)l,
        (long)e, s, (long)lb, (long)extent, size);
}

static void zero_blocks(void) {
  MPI_Datatype t;
  int bl[3] = {0, 2, 0}, d[3] = {-5, 3, 20}, z[2] = {0, 0};
  MPI_Aint hd[3] = {-20, 12, 80};
  MPI_Datatype ty[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
  CHECK_MPI(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
  bounds(t, 12, 8, 8, "indexed {0,2,0}");
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Type_create_hindexed(3, bl, hd, MPI_INT, &t));
  bounds(t, 12, 8, 8, "hindexed {0,2,0}");
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Type_create_struct(3, bl, hd, ty, &t));
  bounds(t, 12, 8, 8, "struct {0,2,0}");
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Type_indexed(2, z, d, MPI_INT, &t));
  bounds(t, 0, 0, 0, "indexed all zero");
  CHECK_MPI(MPI_Type_free(&t));
#ifndef MPICH /* MPICH 4.0 gives a zero-blocklength indexed_block the span of its displacements */
  CHECK_MPI(MPI_Type_create_indexed_block(3, 0, d, MPI_INT, &t));
  bounds(t, 0, 0, 0, "indexed_block blocklength 0");
  CHECK_MPI(MPI_Type_free(&t));
#endif
  {
    MPI_Datatype r;
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, -4, 16, &r));
    CHECK_MPI(MPI_Type_indexed(3, bl, d, r, &t));
    bounds(t, 44, 32, 8, "indexed of resized {0,2,0}");
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_free(&r));
  }
  /* and the data goes where the non-empty block says */
  {
    int src[8] = {0, 1, 2, 3, 4, 5, 6, 7}, packed[2] = {-1, -1}, pos = 0;
    CHECK_MPI(MPI_Type_indexed(3, bl, d, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    CHECK_MPI(MPI_Pack(src, 1, t, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 8 && packed[0] == 3 && packed[1] == 4, "packed %d %d (%d bytes)", packed[0], packed[1], pos);
    CHECK_MPI(MPI_Type_free(&t));
  }
  { /* an empty first block, then 40 ints at 20: a pack/unpack round trip lands at 20..59 only */
    int dis[2] = {0, 20}, bl2[2] = {0, 40}, sendb[60], recvb[60], packb[100], pos = 0, size, i;
    for (i = 0; i < 60; i++) sendb[i] = i, recvb[i] = -1;
    CHECK_MPI(MPI_Type_indexed(2, bl2, dis, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    bounds(t, 80, 160, 160, "indexed {0,40} at {0,20}");
    CHECK_MPI(MPI_Pack(sendb, 1, t, packb, (int)sizeof packb, &pos, MPI_COMM_WORLD));
    size = pos;
    pos = 0;
    CHECK_MPI(MPI_Unpack(packb, size, &pos, recvb, 1, t, MPI_COMM_WORLD));
    for (i = 0; i < 60; i++) CHECK(recvb[i] == (i < 20 ? -1 : i), "element %d is %d", i, recvb[i]);
    CHECK_MPI(MPI_Type_free(&t));
  }
}

static int handler_calls = 0;
static void old_handler(MPI_Comm *comm, int *code, ...) {
  (void)comm;
  (void)code;
  handler_calls++;
}

static void legacy_names(void) {
  int a[10];
  MPI_Aint addr0, addr1, ext, lb, ub;
  MPI_Datatype t;
  CHECK_MPI(MPI_Address(&a[0], &addr0));
  CHECK_MPI(MPI_Address(&a[3], &addr1));
  CHECK(addr1 - addr0 == 3 * (MPI_Aint)sizeof(int));
  CHECK_MPI(MPI_Type_extent(MPI_DOUBLE, &ext));
  CHECK(ext == (MPI_Aint)sizeof(double));
  {
    MPI_Datatype r;
    CHECK_MPI(MPI_Type_create_resized(MPI_INT, -8, 32, &r));
    CHECK_MPI(MPI_Type_lb(r, &lb));
    CHECK_MPI(MPI_Type_ub(r, &ub));
    CHECK_MPI(MPI_Type_extent(r, &ext));
    CHECK(lb == -8 && ub == 24 && ext == 32, "lb %ld ub %ld extent %ld", (long)lb, (long)ub, (long)ext);
    CHECK_MPI(MPI_Type_free(&r));
  }
  CHECK_MPI(MPI_Type_hvector(3, 1, 16, MPI_INT, &t));
  bounds(t, 0, 36, 12, "MPI_Type_hvector");
  CHECK_MPI(MPI_Type_free(&t));
  {
    int bl[2] = {1, 2};
    MPI_Aint d[2] = {8, 24};
    CHECK_MPI(MPI_Type_hindexed(2, bl, d, MPI_INT, &t));
    bounds(t, 8, 24, 12, "MPI_Type_hindexed");
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    struct {
      char c;
      double x;
    } s;
    int bl[2] = {1, 1};
    MPI_Aint d[2];
    MPI_Datatype ty[2] = {MPI_CHAR, MPI_DOUBLE};
    MPI_Address(&s.c, &d[0]);
    MPI_Address(&s.x, &d[1]);
    d[1] -= d[0];
    d[0] = 0;
    CHECK_MPI(MPI_Type_struct(2, bl, d, ty, &t));
    bounds(t, 0, (MPI_Aint)sizeof s, 1 + (int)sizeof(double), "MPI_Type_struct {char, double}");
    CHECK_MPI(MPI_Type_free(&t));
  }
#ifndef OPEN_MPI /* Open MPI 4.1 removed MPI_LB/MPI_UB from its header */
  {
    int bl[3] = {1, 1, 1};
    MPI_Aint d[3] = {-4, 0, 20};
    MPI_Datatype ty[3] = {MPI_LB, MPI_INT, MPI_UB};
    CHECK_MPI(MPI_Type_struct(3, bl, d, ty, &t));
    bounds(t, -4, 24, (int)sizeof(int), "MPI_Type_struct {MPI_LB, int, MPI_UB}");
    CHECK_MPI(MPI_Type_lb(t, &lb));
    CHECK_MPI(MPI_Type_ub(t, &ub));
    CHECK(lb == -4 && ub == 20);
    {
      /* two of them back to back: the second int lands extent (24) bytes later */
      int buf[16], out[2] = {-1, -1}, pos = 0, i;
      for (i = 0; i < 16; i++) buf[i] = i;
      CHECK_MPI(MPI_Type_commit(&t));
      CHECK_MPI(MPI_Pack(&buf[1], 2, t, out, (int)sizeof out, &pos, MPI_COMM_WORLD));
      CHECK(out[0] == 1 && out[1] == 7, "packed %d %d", out[0], out[1]);
    }
    CHECK_MPI(MPI_Type_free(&t));
  }
#endif
  {
    MPI_Errhandler eh, got;
    int bad = -1;
    CHECK_MPI(MPI_Errhandler_create(old_handler, &eh));
    CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
    CHECK_MPI(MPI_Errhandler_get(MPI_COMM_WORLD, &got));
    CHECK(got == eh);
    MPI_Send(&bad, 1, MPI_INT, -77, 0, MPI_COMM_WORLD); /* invalid rank: the handler runs */
    CHECK(handler_calls == 1, "the MPI-1 error handler ran %d times", handler_calls);
    CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_Errhandler_free(&eh));
  }
}

static void f90_types(void) {
  MPI_Datatype t, t2;
  int size, ni, na, nd, comb, ints[2];
  MPI_Aint aints[1];
  MPI_Datatype types[1];
  CHECK_MPI(MPI_Type_create_f90_integer(9, &t));
  CHECK_MPI(MPI_Type_size(t, &size));
  CHECK(size == 4, "f90_integer(9): %d bytes", size);
  CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_F90_INTEGER && ni == 1 && na == 0 && nd == 0, "envelope %d %d %d %d", comb, ni, na, nd);
  CHECK_MPI(MPI_Type_get_contents(t, 1, 0, 0, ints, aints, types));
  CHECK(ints[0] == 9);
  CHECK_MPI(MPI_Type_create_f90_integer(9, &t2));
  CHECK(t2 == t, "the same parameters give the same handle");
  CHECK_MPI(MPI_Type_create_f90_integer(2, &t));
  CHECK_MPI(MPI_Type_size(t, &size));
  CHECK(size == 1);
  CHECK_MPI(MPI_Type_create_f90_integer(18, &t));
  CHECK_MPI(MPI_Type_size(t, &size));
  CHECK(size == 8);
  CHECK_MPI(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t));
  CHECK_MPI(MPI_Type_size(t, &size));
  CHECK(size == 4);
  CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_F90_REAL && ni == 2);
  CHECK_MPI(MPI_Type_get_contents(t, 2, 0, 0, ints, aints, types));
  CHECK(ints[0] == 6 && ints[1] == MPI_UNDEFINED);
  CHECK_MPI(MPI_Type_create_f90_real(15, 300, &t));
  CHECK_MPI(MPI_Type_size(t, &size));
  CHECK(size == 8);
  CHECK_MPI(MPI_Type_create_f90_complex(MPI_UNDEFINED, 300, &t));
  CHECK_MPI(MPI_Type_size(t, &size));
  CHECK(size == 16);
  CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_F90_COMPLEX);
  { /* usable in communication: a reduction on the f90 real type */
    double in = 1.5, out = 0;
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    CHECK_MPI(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &t));
    CHECK_MPI(MPI_Allreduce(&in, &out, 1, t, MPI_SUM, MPI_COMM_WORLD));
    CHECK(out == 1.5 * n);
  }
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(MPI_Type_create_f90_integer(40, &t) != MPI_SUCCESS);
  CHECK(MPI_Type_create_f90_real(60, MPI_UNDEFINED, &t) != MPI_SUCCESS);
#ifdef FTMPI
  CHECK_CLASS(MPI_Type_create_f90_integer(-1, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t), MPI_ERR_ARG);
  CHECK_MPI(MPI_Type_create_f90_integer(4, &t));
  CHECK_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE); /* erroneous: ftmpi refuses it */
#endif
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void cxx_types(int rank, int size) {
  int s;
  CHECK_MPI(MPI_Type_size(MPI_CXX_BOOL, &s));
  CHECK(s == (int)sizeof(bool), "MPI_CXX_BOOL size %d", s);
  CHECK_MPI(MPI_Type_size(MPI_CXX_FLOAT_COMPLEX, &s));
  CHECK(s == (int)sizeof(float _Complex));
  CHECK_MPI(MPI_Type_size(MPI_CXX_DOUBLE_COMPLEX, &s));
  CHECK(s == (int)sizeof(double _Complex));
  CHECK_MPI(MPI_Type_size(MPI_CXX_LONG_DOUBLE_COMPLEX, &s));
  CHECK(s == (int)sizeof(long double _Complex));
  {
    bool mine = (rank % 2 == 0), all = false, any = false;
    CHECK_MPI(MPI_Allreduce(&mine, &all, 1, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(&mine, &any, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(all == (size == 1) && any == true);
  }
  {
    double _Complex z = 1.0 + 2.0 * I, sum = 0;
    CHECK_MPI(MPI_Allreduce(&z, &sum, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(creal(sum) == size && cimag(sum) == 2.0 * size);
    float _Complex f = 2.0f, prod = 0;
    CHECK_MPI(MPI_Allreduce(&f, &prod, 1, MPI_CXX_FLOAT_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
    CHECK(crealf(prod) == (float)(1 << size) && cimagf(prod) == 0.0f);
    long double _Complex l = 1.0L, lsum = 0;
    CHECK_MPI(MPI_Allreduce(&l, &lsum, 1, MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    CHECK(creall(lsum) == size);
  }
  if (size >= 2 && (rank == 0 || rank == size - 1)) {
    double _Complex z[2] = {3.0 + 4.0 * I, -1.0 * I};
    if (rank == 0) {
      CHECK_MPI(MPI_Send(z, 2, MPI_CXX_DOUBLE_COMPLEX, size - 1, 4, MPI_COMM_WORLD));
    } else {
      double _Complex r[2] = {0, 0};
      MPI_Status st;
      int n = 0;
      CHECK_MPI(MPI_Recv(r, 2, MPI_CXX_DOUBLE_COMPLEX, 0, 4, MPI_COMM_WORLD, &st));
      CHECK_MPI(MPI_Get_count(&st, MPI_CXX_DOUBLE_COMPLEX, &n));
      CHECK(n == 2 && r[0] == z[0] && r[1] == z[1]);
    }
  }
  /* what the standard forbids stays refused: MAX on a complex, BAND on a bool */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  {
    double _Complex z = 1, w = 0;
    bool b = true, c = false;
    CHECK_CLASS(MPI_Allreduce(&z, &w, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_MAX, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_CLASS(MPI_Allreduce(&b, &c, 1, MPI_CXX_BOOL, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
  }
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  zero_blocks();
  legacy_names();
  f90_types();
  cxx_types(rank, size);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS dtype_legacy\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
