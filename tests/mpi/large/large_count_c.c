/* large_count_c [big] — the MPI-4.0 large-count (_c) functions. 2+ ranks.
 *
 * PASS when (small counts, any MPI-4.0 library):
 *  - point-to-point: Send_c/Recv_c, Isend_c/Irecv_c, Ssend_c, Sendrecv_c, Sendrecv_replace_c, Isendrecv_c,
 *    Send_init_c/Recv_init_c deliver the data; Get_count_c and Get_elements_c give the count;
 *  - datatypes: Type_contiguous_c, Type_vector_c, Type_create_hvector_c, Type_indexed_c, Type_create_struct_c,
 *    Type_create_resized_c build the type maps the int forms build (same size / extent, same data moved);
 *    Type_size_c / Type_get_extent_c / Type_get_true_extent_c agree with the int forms; Pack_c / Unpack_c /
 *    Pack_size_c round-trip;
 *  - collectives: Bcast_c, Allreduce_c, Allgatherv_c (MPI_Count counts, MPI_Aint displacements), Alltoallw_c,
 *    Reduce_scatter_c, Ibcast_c, Allreduce_init_c (restarted) give the blocking int forms' results;
 *  - bad input: negative counts -> MPI_ERR_COUNT;
 *  - counts beyond INT_MAX that cost no memory: Type_vector_c / Type_contiguous_c / Type_indexed_c /
 *    Type_create_hindexed_c / Type_create_subarray_c / Type_create_darray_c / Type_create_struct_c with
 *    3e9-element counts or
 *    displacements give the exact Type_size_c / Type_get_extent_c, and Type_get_envelope_c /
 *    Type_get_contents_c give them back as large counts; Reduce_local_c of 2^31 + 5 elements of a
 *    zero-extent type with a user op calls the function with the user's type for exactly that many
 *    elements in all (MPI_Op_create, ftmpi only: pieces of at most INT_MAX; MPI_Op_create_c: any); (ftmpi) the int
 *    Type_get_envelope refuses such a type with MPI_ERR_TYPE.
 * With the argument "big" (RUN_SERIAL, ~4.3 GB): a Send_c / Recv_c of 2^31 + 5 MPI_BYTEs arrives intact
 * (count beyond INT_MAX, no derived type), Get_count_c reports it; then Bcast_c of the same 2^31 + 5 bytes
 * from rank 1 (a collective count beyond INT_MAX; ftmpi moves it as one element of a contiguous stand-in
 * type, as large_count_p2p moves one 2050 MiB element) arrives intact. */
#include "common/check.h"

static int rank, size;

static void p2p(void) {
  if (size < 2 || rank > 1) return;
  const int peer = 1 - rank;
  double a[10], b[10];
  for (int i = 0; i < 10; i++) a[i] = rank * 10 + i + 0.5, b[i] = -1;
  MPI_Status st;
  MPI_Count n = -1;
  if (rank == 0) {
    CHECK_MPI(MPI_Send_c(a, (MPI_Count)10, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ssend_c(a, (MPI_Count)3, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD));
  } else {
    CHECK_MPI(MPI_Recv_c(b, (MPI_Count)10, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count_c(&st, MPI_DOUBLE, &n));
    CHECK(n == 10, "Get_count_c %lld", (long long)n);
    CHECK_MPI(MPI_Get_elements_c(&st, MPI_DOUBLE, &n));
    CHECK(n == 10);
    for (int i = 0; i < 10; i++) CHECK(b[i] == i + 0.5);
    CHECK_MPI(MPI_Recv_c(b, (MPI_Count)10, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count_c(&st, MPI_DOUBLE, &n));
    CHECK(n == 3);
  }
  MPI_Request r[2];
  CHECK_MPI(MPI_Irecv_c(b, (MPI_Count)10, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, &r[0]));
  CHECK_MPI(MPI_Isend_c(a, (MPI_Count)10, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, &r[1]));
  CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 10; i++) CHECK(b[i] == peer * 10 + i + 0.5);
  CHECK_MPI(MPI_Sendrecv_c(a, 4, MPI_DOUBLE, peer, 4, b, 10, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD, &st));
  CHECK_MPI(MPI_Get_count_c(&st, MPI_DOUBLE, &n));
  CHECK(n == 4);
  double c[5] = {rank, rank, rank, rank, rank};
  CHECK_MPI(MPI_Sendrecv_replace_c(c, 5, MPI_DOUBLE, peer, 5, peer, 5, MPI_COMM_WORLD, &st));
  for (int i = 0; i < 5; i++) CHECK(c[i] == peer);
  CHECK_MPI(MPI_Isendrecv_c(a, 10, MPI_DOUBLE, peer, 6, b, 10, MPI_DOUBLE, peer, 6, MPI_COMM_WORLD, &r[0]));
  CHECK_MPI(MPI_Wait(&r[0], &st));
  for (int i = 0; i < 10; i++) CHECK(b[i] == peer * 10 + i + 0.5);
  CHECK_MPI(MPI_Send_init_c(a, 10, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &r[0]));
  CHECK_MPI(MPI_Recv_init_c(b, 10, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, &r[1]));
  for (int it = 0; it < 5; it++) {
    a[0] = it;
    CHECK_MPI(MPI_Startall(2, r));
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(b[0] == it);
  }
  MPI_Request_free(&r[0]);
  MPI_Request_free(&r[1]);
}

static void types(void) {
  MPI_Datatype t1, t2;
  MPI_Count sz, lb, ext, tlb, text;
  MPI_Aint alb, aext;
  CHECK_MPI(MPI_Type_contiguous_c(7, MPI_INT, &t1));
  CHECK_MPI(MPI_Type_size_c(t1, &sz));
  CHECK(sz == 7 * (MPI_Count)sizeof(int));
  MPI_Type_free(&t1);
  CHECK_MPI(MPI_Type_vector_c(3, 2, 5, MPI_INT, &t1));
  CHECK_MPI(MPI_Type_vector(3, 2, 5, MPI_INT, &t2));
  CHECK_MPI(MPI_Type_get_extent_c(t1, &lb, &ext));
  CHECK_MPI(MPI_Type_get_extent(t2, &alb, &aext));
  CHECK(lb == alb && ext == aext && ext == 12 * (MPI_Count)sizeof(int), "vector_c extent %lld", (long long)ext);
  CHECK_MPI(MPI_Type_get_true_extent_c(t1, &tlb, &text));
  CHECK(tlb == 0 && text == ext);
  MPI_Type_free(&t1);
  MPI_Type_free(&t2);
  CHECK_MPI(MPI_Type_create_hvector_c(2, 1, 16, MPI_INT, &t1));
  CHECK_MPI(MPI_Type_get_extent_c(t1, &lb, &ext));
  CHECK(ext == 16 + (MPI_Count)sizeof(int));
  MPI_Type_free(&t1);
  MPI_Count bl[3] = {1, 2, 1}, dsp[3] = {0, 3, 7};
  CHECK_MPI(MPI_Type_indexed_c(3, bl, dsp, MPI_INT, &t1));
  CHECK_MPI(MPI_Type_size_c(t1, &sz));
  CHECK(sz == 4 * (MPI_Count)sizeof(int));
  CHECK_MPI(MPI_Type_commit(&t1));
  /* pack/unpack round trip through the indexed type */
  int src[8], dst[8];
  for (int i = 0; i < 8; i++) src[i] = 100 + i, dst[i] = -1;
  char packbuf[64];
  MPI_Count pos = 0, psz = 0;
  CHECK_MPI(MPI_Pack_size_c(1, t1, MPI_COMM_WORLD, &psz));
  CHECK(psz >= sz && psz <= 64);
  CHECK_MPI(MPI_Pack_c(src, 1, t1, packbuf, 64, &pos, MPI_COMM_WORLD));
  CHECK(pos == sz, "Pack_c position %lld", (long long)pos);
  pos = 0;
  CHECK_MPI(MPI_Unpack_c(packbuf, 64, &pos, dst, 1, t1, MPI_COMM_WORLD));
  CHECK(dst[0] == 100 && dst[3] == 103 && dst[4] == 104 && dst[7] == 107 && dst[1] == -1 && dst[5] == -1);
  MPI_Type_free(&t1);
  MPI_Count sbl[2] = {1, 1}, sdsp[2] = {0, 8};
  MPI_Datatype st[2] = {MPI_INT, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_create_struct_c(2, sbl, sdsp, st, &t1));
  CHECK_MPI(MPI_Type_size_c(t1, &sz));
  CHECK(sz == (MPI_Count)(sizeof(int) + sizeof(double)));
  CHECK_MPI(MPI_Type_create_resized_c(t1, 0, 32, &t2));
  CHECK_MPI(MPI_Type_get_extent_c(t2, &lb, &ext));
  CHECK(lb == 0 && ext == 32);
  MPI_Type_free(&t1);
  MPI_Type_free(&t2);
}

static void coll(void) {
  int x[4] = {0, 0, 0, 0};
  if (rank == 0) x[0] = 11, x[1] = 22, x[2] = 33, x[3] = 44;
  CHECK_MPI(MPI_Bcast_c(x, 4, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK(x[0] == 11 && x[3] == 44);
  long long v = rank + 1, s = 0;
  CHECK_MPI(MPI_Allreduce_c(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK(s == (long long)size * (size + 1) / 2);
  MPI_Count *cnt = malloc(sizeof(MPI_Count) * size);
  MPI_Aint *dsp = malloc(sizeof(MPI_Aint) * size);
  int *rcnt = malloc(sizeof(int) * size), *rdsp = malloc(sizeof(int) * size);
  MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * size);
  int total = 0;
  for (int i = 0; i < size; i++) {
    cnt[i] = i + 1;
    dsp[i] = total;
    total += i + 1;
    types[i] = MPI_INT;
  }
  int *mine = malloc(sizeof(int) * (rank + 1)), *all = malloc(sizeof(int) * total), *ref = malloc(sizeof(int) * total);
  for (int i = 0; i <= rank; i++) mine[i] = rank * 100 + i;
  CHECK_MPI(MPI_Allgatherv_c(mine, rank + 1, MPI_INT, all, cnt, dsp, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < size; i++) rcnt[i] = (int)cnt[i], rdsp[i] = (int)dsp[i];
  MPI_Allgatherv(mine, rank + 1, MPI_INT, ref, rcnt, rdsp, MPI_INT, MPI_COMM_WORLD);
  for (int i = 0; i < total; i++) CHECK(all[i] == ref[i], "allgatherv_c[%d]", i);
  /* alltoallw_c: one int to everyone, byte displacements as MPI_Aint */
  MPI_Count *one = malloc(sizeof(MPI_Count) * size);
  MPI_Aint *bd = malloc(sizeof(MPI_Aint) * size);
  int *so = malloc(sizeof(int) * size), *ro = malloc(sizeof(int) * size);
  for (int i = 0; i < size; i++) one[i] = 1, bd[i] = (MPI_Aint)(i * sizeof(int)), so[i] = rank * 1000 + i, ro[i] = -1;
  CHECK_MPI(MPI_Alltoallw_c(so, one, bd, types, ro, one, bd, types, MPI_COMM_WORLD));
  for (int i = 0; i < size; i++) CHECK(ro[i] == i * 1000 + rank, "alltoallw_c[%d] = %d", i, ro[i]);
  /* reduce_scatter_c */
  int *rsin = malloc(sizeof(int) * total), rsout[64];
  for (int i = 0; i < total; i++) rsin[i] = i;
  CHECK_MPI(MPI_Reduce_scatter_c(rsin, rsout, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i <= rank; i++) CHECK(rsout[i] == size * ((int)dsp[rank] + i));
  /* Ibcast_c, Allreduce_init_c restarted */
  MPI_Request r;
  int y = rank == 0 ? 77 : 0;
  CHECK_MPI(MPI_Ibcast_c(&y, 1, MPI_INT, 0, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK(y == 77);
  CHECK_MPI(MPI_Allreduce_init_c(&v, &s, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  for (int it = 0; it < 10; it++) {
    v = rank * it;
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(s == (long long)(size - 1) * it);
  }
  CHECK_MPI(MPI_Request_free(&r));
  free(cnt), free(dsp), free(rcnt), free(rdsp), free(types), free(mine), free(all), free(ref), free(one), free(bd),
      free(so), free(ro), free(rsin);
}

static void bad(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int x = 0;
  MPI_Datatype t;
  CHECK_CLASS(MPI_Send_c(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Bcast_c(&x, -5, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_contiguous_c(-2, MPI_INT, &t), MPI_ERR_COUNT);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Counts beyond INT_MAX in type constructors and in a local reduction, without gigabytes of memory. */
static long long g_elements;   /* elements the user functions were given, in all */
static int g_calls, g_bad_type;
static MPI_Datatype g_expect;
static void count_fn(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)in, (void)inout;
  g_elements += *len, g_calls++;
  if (*t != g_expect) g_bad_type++;
}
static void count_fn_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *t) {
  (void)in, (void)inout;
  g_elements += *len, g_calls++;
  if (*t != g_expect) g_bad_type++;
}

static void types_big(void) {
  const MPI_Count G = 3000000000LL; /* beyond INT_MAX */
  MPI_Datatype t;
  MPI_Count sz, lb, ext, ni, na, nc, nd, large[8];
  int comb, ints[4];
  MPI_Datatype dts[2];
  CHECK_MPI(MPI_Type_vector_c(G, 1, 2, MPI_BYTE, &t));
  CHECK_MPI(MPI_Type_size_c(t, &sz));
  CHECK_MPI(MPI_Type_get_extent_c(t, &lb, &ext));
  CHECK(sz == G && lb == 0 && ext == 2 * G - 1, "vector_c size %lld extent %lld", (long long)sz, (long long)ext);
  CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
  CHECK(comb == MPI_COMBINER_VECTOR && ni == 0 && na == 0 && nc == 3 && nd == 1, "vector_c envelope %lld %lld %lld %lld",
        (long long)ni, (long long)na, (long long)nc, (long long)nd);
  CHECK_MPI(MPI_Type_get_contents_c(t, 0, 0, 8, 1, ints, NULL, large, dts));
  CHECK(large[0] == G && large[1] == 1 && large[2] == 2 && dts[0] == MPI_BYTE);
#ifdef FTMPI
  {
    int i1, i2, i3, c1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_Type_get_envelope(t, &i1, &i2, &i3, &c1), MPI_ERR_TYPE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }
#endif
  CHECK_MPI(MPI_Type_commit(&t));
  CHECK_MPI(MPI_Type_free(&t));
  MPI_Datatype v3;
  CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &v3)); /* extent 3 ints, size 3 ints */
  CHECK_MPI(MPI_Type_contiguous_c(G, v3, &t));
  CHECK_MPI(MPI_Type_size_c(t, &sz));
  CHECK_MPI(MPI_Type_get_extent_c(t, &lb, &ext));
  CHECK(sz == G * 3 * (MPI_Count)sizeof(int) && ext == G * 5 * (MPI_Count)sizeof(int), "contiguous_c %lld %lld",
        (long long)sz, (long long)ext);
  MPI_Type_free(&t);
  MPI_Type_free(&v3);
  MPI_Count bl[2] = {1, 2}, dsp[2] = {0, G};
  CHECK_MPI(MPI_Type_indexed_c(2, bl, dsp, MPI_INT, &t));
  CHECK_MPI(MPI_Type_size_c(t, &sz));
  CHECK_MPI(MPI_Type_get_extent_c(t, &lb, &ext));
  CHECK(sz == 3 * (MPI_Count)sizeof(int) && ext == (G + 2) * (MPI_Count)sizeof(int), "indexed_c %lld", (long long)ext);
  CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
  CHECK(comb == MPI_COMBINER_INDEXED && nc == 5 && nd == 1);
  CHECK_MPI(MPI_Type_get_contents_c(t, 0, 0, 8, 1, ints, NULL, large, dts));
  CHECK(large[0] == 2 && large[1] == 1 && large[2] == 2 && large[3] == 0 && large[4] == G);
  MPI_Type_free(&t);
  CHECK_MPI(MPI_Type_create_hindexed_c(2, bl, dsp, MPI_BYTE, &t));
  CHECK_MPI(MPI_Type_get_extent_c(t, &lb, &ext));
  CHECK(ext == G + 2);
  MPI_Type_free(&t);
  MPI_Count gs[1] = {G}, ss[1] = {2}, st[1] = {G - 10};
  CHECK_MPI(MPI_Type_create_subarray_c(1, gs, ss, st, MPI_ORDER_C, MPI_BYTE, &t));
  CHECK_MPI(MPI_Type_size_c(t, &sz));
  CHECK_MPI(MPI_Type_get_extent_c(t, &lb, &ext));
  CHECK(sz == 2 && lb == 0 && ext == G, "subarray_c %lld %lld", (long long)sz, (long long)ext);
  CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
  CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 2 && nc == 3 && nd == 1);
  MPI_Type_free(&t);
  {
    MPI_Count g[1] = {G};
    int dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[1] = {2};
    CHECK_MPI(MPI_Type_create_darray_c(2, 1, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_BYTE, &t));
    CHECK_MPI(MPI_Type_size_c(t, &sz));
    CHECK_MPI(MPI_Type_get_extent_c(t, &lb, &ext));
    CHECK(sz == G / 2 && lb == 0 && ext == G, "darray_c %lld %lld", (long long)sz, (long long)ext);
    CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    CHECK(comb == MPI_COMBINER_DARRAY && ni == 7 && nc == 1 && nd == 1, "darray_c envelope %lld %lld", (long long)ni,
          (long long)nc);
    MPI_Type_free(&t);
  }
  MPI_Datatype two[2] = {MPI_INT, MPI_CHAR};
  MPI_Count sbl[2] = {1, G}, sdsp[2] = {0, 8};
  CHECK_MPI(MPI_Type_create_struct_c(2, sbl, sdsp, two, &t));
  CHECK_MPI(MPI_Type_size_c(t, &sz));
  CHECK(sz == G + (MPI_Count)sizeof(int));
  MPI_Type_free(&t);

  /* Reduce_local_c beyond INT_MAX with user ops: a zero-extent byte type keeps the buffers one byte long. */
  const MPI_Count n = (MPI_Count)INT32_MAX + 6;
  MPI_Datatype z;
  CHECK_MPI(MPI_Type_create_resized(MPI_BYTE, 0, 0, &z));
  CHECK_MPI(MPI_Type_commit(&z));
  g_expect = z;
  char a = 1, b = 2;
  MPI_Op op;
#ifdef FTMPI /* MPICH 4.0.2 asserts count <= INT_MAX for a user function of MPI_Op_create */
  CHECK_MPI(MPI_Op_create(count_fn, 1, &op));
  g_elements = 0, g_calls = 0, g_bad_type = 0;
  CHECK_MPI(MPI_Reduce_local_c(&a, &b, n, z, op));
  CHECK(g_elements == n && g_calls >= 2 && g_bad_type == 0, "Op_create: %lld elements in %d calls (%d wrong types)",
        g_elements, g_calls, g_bad_type);
  MPI_Op_free(&op);
#else
  (void)count_fn;
#endif
  CHECK_MPI(MPI_Op_create_c(count_fn_c, 1, &op));
  g_elements = 0, g_calls = 0, g_bad_type = 0;
  CHECK_MPI(MPI_Reduce_local_c(&a, &b, n, z, op));
  CHECK(g_elements == n && g_calls >= 1 && g_bad_type == 0, "Op_create_c: %lld elements in %d calls", g_elements,
        g_calls);
  /* MPI_Op_create_c also serves small counts, in collectives */
  int x = rank + 1, y = 0;
  g_expect = MPI_INT;
  CHECK_MPI(MPI_Allreduce_c(&x, &y, 1, MPI_INT, op, MPI_COMM_WORLD));
  MPI_Op_free(&op);
  MPI_Type_free(&z);
}

static void big(void) {
  const MPI_Count n = (MPI_Count)INT32_MAX + 6; /* 2^31 + 5 bytes */
  MPI_Comm pair;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair));
  if (rank < 2 && size >= 2) {
    unsigned char *buf = malloc((size_t)n);
    if (!buf) {
      printf("SKIP big: no memory for %lld bytes\n", (long long)n);
    } else {
      if (rank == 0) {
        for (MPI_Count i = 0; i < n; i += 4096) buf[i] = (unsigned char)(i / 4096);
        buf[n - 1] = 0xAB;
        CHECK_MPI(MPI_Send_c(buf, n, MPI_BYTE, 1, 9, MPI_COMM_WORLD));
      } else {
        memset(buf, 0, (size_t)n);
        MPI_Status st;
        CHECK_MPI(MPI_Recv_c(buf, n, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &st));
        MPI_Count got = 0;
        CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &got));
        CHECK(got == n, "Get_count_c %lld want %lld", (long long)got, (long long)n);
        for (MPI_Count i = 0; i < n; i += 4096) CHECK(buf[i] == (unsigned char)(i / 4096), "byte %lld", (long long)i);
        CHECK(buf[n - 1] == 0xAB);
      }
      /* Bcast_c of n bytes from rank 1 (a count beyond INT_MAX in a collective): rank 1 holds the pattern it
       * received, rank 0 clears it first */
      if (rank == 1) {
        buf[n / 2] = 0x22, buf[n - 1] = 0x33;
      } else {
        for (MPI_Count i = 0; i < n; i += 4096) buf[i] = 0;
        buf[n / 2] = buf[n - 1] = 0;
      }
      CHECK_MPI(MPI_Bcast_c(buf, n, MPI_BYTE, 1, pair));
      for (MPI_Count i = 0; i < n; i += 4096) CHECK(buf[i] == (unsigned char)(i / 4096), "Bcast_c byte %lld", (long long)i);
      CHECK(buf[n / 2] == 0x22 && buf[n - 1] == 0x33, "Bcast_c beyond INT_MAX");
      free(buf);
    }
  }
  if (pair != MPI_COMM_NULL) MPI_Comm_free(&pair);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1 && strcmp(argv[1], "big") == 0) {
    big();
  } else {
    p2p();
    types();
    types_big();
    coll();
    bad();
  }
  check_pass("large_count_c");
  MPI_Finalize();
  return 0;
}
