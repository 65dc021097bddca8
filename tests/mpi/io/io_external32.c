/* external32 views (MPI-3.1 §13.5.2) of types whose external32 size differs from the native one, against a
 * hand-computed reference of the file's bytes (big-endian, the standard's sizes: MPI_LONG and
 * MPI_UNSIGNED_LONG 4 bytes, MPI_LONG_DOUBLE 16 (IEEE binary128), MPI_WCHAR 2, MPI_AINT/MPI_OFFSET/MPI_COUNT 8),
 * every access kind, 1-4 ranks:
 *  1. MPI_LONG blocks per rank: write_at (independent), read_at_all; MPI_File_get_size;
 *  2. a portable strided filetype (MPI_Type_vector of MPI_UNSIGNED_LONG, scaled to the 4-byte file size):
 *     write_all with two-phase buffering forced (romio_cb_write=enable), individual pointer, get_position,
 *     get_byte_offset; read back with iread (non-blocking) and read_all;
 *  3. records {char, long, double} (a native struct in memory, a 13-byte file record built from
 *     MPI_File_get_type_extent): an interleaved view, write_at_all / read_at_all / read_at;
 *  4. MPI_LONG_DOUBLE through the shared pointer: write_ordered / read_ordered, get_position_shared;
 *  5. records {MPI_Aint, wchar_t, short} (8 + 2 + 2 bytes in the file): split collective write_at_all_begin/end,
 *     iread_at;
 *  6. subarray and darray filetypes of MPI_LONG (write_all, read_at_all);
 *  7. MPI_File_get_type_extent of basic and derived types; (ftmpi) a long beyond 32 bits is MPI_ERR_CONVERSION.
 * The raw bytes are read back through a native MPI_BYTE view and compared with the reference. */
#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "io_common.h"

enum { N = 40 };
static int rank, size;
static MPI_File fh;

static void put_be(unsigned char *p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i, v >>= 8) p[i] = (unsigned char)(v & 0xff);
}
/* IEEE binary128, big-endian, of a double value (exactly representable; normal or zero) */
static void put_quad(unsigned char *p, double x) {
  uint64_t b;
  memcpy(&b, &x, 8);
  uint64_t sign = b >> 63, exp = (b >> 52) & 0x7ff, frac = b & ((UINT64_C(1) << 52) - 1);
  uint64_t hi = sign << 63, lo = 0;
  if (exp != 0) {
    hi |= (exp - 1023 + 16383) << 48;
    hi |= frac >> 4;          /* the top 48 of the 112 fraction bits */
    lo = (frac & 0xf) << 60;  /* the next 4 */
  }
  put_be(p, hi, 8);
  put_be(p + 8, lo, 8);
}
static void put_double(unsigned char *p, double x) {
  uint64_t b;
  memcpy(&b, &x, 8);
  put_be(p, b, 8);
}

static long lval(int r, int i) { return (long)(r * 1000 + i) * (i % 3 == 0 ? -1 : 1); }
static unsigned long ulval(int r, int i) { return 0xF0000000ul + (unsigned long)(r * 1000 + i); }

/* The whole file through a native byte view, compared with `want` (`len` bytes; the file must be that long). */
static void check_raw(const unsigned char *want, int len, const char *what) {
  MPI_Offset fsize = -1;
  OK(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == len, "%s: file size %lld, wanted %d", what, (long long)fsize, len);
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  unsigned char *got = calloc((size_t)len + 1, 1);
  MPI_Status st;
  OK(MPI_File_read_at(fh, 0, got, len, MPI_BYTE, &st));
  for (int i = 0; i < len; i++)
    CHECK(got[i] == want[i], "%s: file byte %d is %02x, wanted %02x", what, i, got[i], want[i]);
  free(got);
}

static void fresh_file(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  OK(MPI_File_set_size(fh, 0));
  MPI_Barrier(MPI_COMM_WORLD);
}

static void written(void) { /* make every rank's writes visible to every rank (§13.6.1: sync-barrier-sync) */
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
}

static MPI_Aint file_extent(MPI_Datatype t) {
  MPI_Aint e = -1;
  OK(MPI_File_get_type_extent(fh, t, &e));
  return e;
}

/* 1. MPI_LONG blocks, explicit offsets */
static void longs(void) {
  fresh_file();
  OK(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL));
  long w[N], r[N];
  for (int i = 0; i < N; i++) w[i] = lval(rank, i);
  MPI_Status st;
  OK(MPI_File_write_at(fh, (MPI_Offset)rank * N, w, N, MPI_LONG, &st));
  int cnt = -1;
  MPI_Get_count(&st, MPI_LONG, &cnt);
  CHECK(cnt == N, "write_at count %d", cnt);
  written();
  memset(r, 0, sizeof r);
  OK(MPI_File_read_at_all(fh, (MPI_Offset)rank * N, r, N, MPI_LONG, &st));
  MPI_Get_count(&st, MPI_LONG, &cnt);
  CHECK(cnt == N, "read_at_all count %d", cnt);
  for (int i = 0; i < N; i++) CHECK(r[i] == w[i], "long %d read back %ld, wanted %ld", i, r[i], w[i]);
  const int len = size * N * 4;
  unsigned char *want = malloc((size_t)len);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < N; i++) put_be(want + (q * N + i) * 4, (uint64_t)(uint32_t)lval(q, i), 4);
  MPI_Barrier(MPI_COMM_WORLD);
  check_raw(want, len, "MPI_LONG blocks");
  free(want);
}

/* 2. a strided portable filetype of MPI_UNSIGNED_LONG, collective with two-phase buffering */
static void strided(void) {
  fresh_file();
  OK(MPI_File_set_view(fh, 0, MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG, "external32", MPI_INFO_NULL));
  const MPI_Aint e = file_extent(MPI_UNSIGNED_LONG);
  CHECK(e == 4, "file extent of MPI_UNSIGNED_LONG %ld", (long)e);
  MPI_Datatype vec;
  OK(MPI_Type_vector(N, 1, size, MPI_UNSIGNED_LONG, &vec));
  OK(MPI_Type_commit(&vec));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  OK(MPI_File_set_view(fh, (MPI_Offset)rank * e, MPI_UNSIGNED_LONG, vec, "external32", info));
  MPI_Info_free(&info);
  CHECK(file_extent(vec) == (MPI_Aint)((N - 1) * size + 1) * 4, "file extent of the vector %ld", (long)file_extent(vec));
  MPI_Offset off = -1;
  OK(MPI_File_get_byte_offset(fh, 1, &off));
  CHECK(off == (MPI_Offset)(rank + size) * 4, "byte offset of etype 1: %lld", (long long)off);
  unsigned long w[N], r[N];
  for (int i = 0; i < N; i++) w[i] = ulval(rank, i);
  OK(MPI_File_write_all(fh, w, N / 2, MPI_UNSIGNED_LONG, MPI_STATUS_IGNORE));
  OK(MPI_File_write_all(fh, w + N / 2, N - N / 2, MPI_UNSIGNED_LONG, MPI_STATUS_IGNORE));
  OK(MPI_File_get_position(fh, &off));
  CHECK(off == N, "position after write_all %lld", (long long)off);
  written();
  OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  memset(r, 0, sizeof r);
  MPI_Request req;
  MPI_Status st;
  OK(MPI_File_iread(fh, r, N, MPI_UNSIGNED_LONG, &req));
  OK(MPI_Wait(&req, &st));
  int cnt = -1;
  MPI_Get_count(&st, MPI_UNSIGNED_LONG, &cnt);
  CHECK(cnt == N, "iread count %d", cnt);
  for (int i = 0; i < N; i++) CHECK(r[i] == w[i], "iread unsigned long %d is %lx", i, r[i]);
  OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  memset(r, 0, sizeof r);
  OK(MPI_File_read_all(fh, r, N, MPI_UNSIGNED_LONG, MPI_STATUS_IGNORE));
  for (int i = 0; i < N; i++) CHECK(r[i] == w[i], "read_all unsigned long %d is %lx", i, r[i]);
  const int len = size * N * 4; /* the last rank's last value ends the file */
  unsigned char *want = malloc((size_t)len);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < N; i++) put_be(want + (i * size + q) * 4, (uint64_t)ulval(q, i), 4);
  MPI_Barrier(MPI_COMM_WORLD);
  check_raw(want, len, "strided MPI_UNSIGNED_LONG");
  free(want);
  MPI_Type_free(&vec);
}

/* 3. records {char, long, double}: native struct in memory, 13-byte records in the file, interleaved by rank */
struct rec {
  char c;
  long l;
  double d;
};
static void records(void) {
  fresh_file();
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
  const MPI_Aint ec = file_extent(MPI_CHAR), el = file_extent(MPI_LONG), ed = file_extent(MPI_DOUBLE);
  CHECK(ec == 1 && el == 4 && ed == 8, "file extents char %ld long %ld double %ld", (long)ec, (long)el, (long)ed);
  int bl[3] = {1, 1, 1};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_LONG, MPI_DOUBLE};
  MPI_Aint mdisp[3] = {offsetof(struct rec, c), offsetof(struct rec, l), offsetof(struct rec, d)};
  MPI_Aint fdisp[3] = {0, ec, ec + el};
  const MPI_Aint frec = ec + el + ed; /* 13 */
  MPI_Datatype ms, mtype, fs, etype, ftype;
  OK(MPI_Type_create_struct(3, bl, mdisp, types, &ms));
  OK(MPI_Type_create_resized(ms, 0, (MPI_Aint)sizeof(struct rec), &mtype));
  OK(MPI_Type_commit(&mtype));
  OK(MPI_Type_create_struct(3, bl, fdisp, types, &fs));
  OK(MPI_Type_create_resized(fs, 0, frec, &etype));
  OK(MPI_Type_commit(&etype));
  OK(MPI_Type_create_resized(etype, 0, frec * size, &ftype));
  OK(MPI_Type_commit(&ftype));
  OK(MPI_File_set_view(fh, (MPI_Offset)rank * frec, etype, ftype, "external32", MPI_INFO_NULL));
  CHECK(file_extent(etype) == frec, "file extent of the record %ld", (long)file_extent(etype));
  struct rec w[N], r[N];
  memset(w, 0, sizeof w);
  for (int i = 0; i < N; i++) {
    w[i].c = (char)('a' + (i + rank) % 26);
    w[i].l = lval(rank, i);
    w[i].d = rank + i / 8.0;
  }
  OK(MPI_File_write_at_all(fh, 0, w, N, mtype, MPI_STATUS_IGNORE));
  written();
  memset(r, 0, sizeof r);
  MPI_Status st;
  OK(MPI_File_read_at_all(fh, 0, r, N, mtype, &st));
  int cnt = -1;
  MPI_Get_count(&st, mtype, &cnt);
  CHECK(cnt == N, "read_at_all records %d", cnt);
  for (int i = 0; i < N; i++)
    CHECK(r[i].c == w[i].c && r[i].l == w[i].l && r[i].d == w[i].d, "record %d read back {%c %ld %g}", i, r[i].c,
          r[i].l, r[i].d);
  memset(r, 0, sizeof r);
  OK(MPI_File_read_at(fh, 3, r, 5, mtype, MPI_STATUS_IGNORE));
  for (int i = 0; i < 5; i++) CHECK(r[i].l == w[3 + i].l && r[i].d == w[3 + i].d, "read_at record %d", i);
  const int len = (int)frec * size * N;
  unsigned char *want = malloc((size_t)len);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < N; i++) {
      unsigned char *p = want + (i * size + q) * frec;
      p[0] = (unsigned char)('a' + (i + q) % 26);
      put_be(p + 1, (uint64_t)(uint32_t)lval(q, i), 4);
      put_double(p + 5, q + i / 8.0);
    }
  MPI_Barrier(MPI_COMM_WORLD);
  check_raw(want, len, "records {char, long, double}");
  free(want);
  MPI_Type_free(&ms);
  MPI_Type_free(&mtype);
  MPI_Type_free(&fs);
  MPI_Type_free(&etype);
  MPI_Type_free(&ftype);
}

/* 4. long double through the shared file pointer, in rank order */
static void long_doubles(void) {
  fresh_file();
  OK(MPI_File_set_view(fh, 0, MPI_LONG_DOUBLE, MPI_LONG_DOUBLE, "external32", MPI_INFO_NULL));
  CHECK(file_extent(MPI_LONG_DOUBLE) == 16, "file extent of MPI_LONG_DOUBLE %ld", (long)file_extent(MPI_LONG_DOUBLE));
  long double w[8], r[8];
  const int n = rank + 1;
  for (int i = 0; i < n; i++) w[i] = (long double)(rank * 10 + i) + 0.25L;
  OK(MPI_File_write_ordered(fh, w, n, MPI_LONG_DOUBLE, MPI_STATUS_IGNORE));
  MPI_Offset pos = -1;
  OK(MPI_File_get_position_shared(fh, &pos));
  const int total = size * (size + 1) / 2;
  CHECK(pos == total, "shared position %lld, wanted %d", (long long)pos, total);
  written();
  OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  memset(r, 0, sizeof r);
  MPI_Status st;
  OK(MPI_File_read_ordered(fh, r, n, MPI_LONG_DOUBLE, &st));
  int cnt = -1;
  MPI_Get_count(&st, MPI_LONG_DOUBLE, &cnt);
  CHECK(cnt == n, "read_ordered count %d", cnt);
  for (int i = 0; i < n; i++) CHECK(r[i] == w[i], "long double %d read back %Lg", i, r[i]);
  const int len = total * 16;
  unsigned char *want = malloc((size_t)len);
  int k = 0;
  for (int q = 0; q < size; q++)
    for (int i = 0; i <= q; i++, k++) put_quad(want + k * 16, (double)(q * 10 + i) + 0.25);
  MPI_Barrier(MPI_COMM_WORLD);
  check_raw(want, len, "MPI_LONG_DOUBLE ordered");
  free(want);
}

/* 5. records {MPI_Aint, wchar_t, short}: split collective, then iread_at */
struct rec2 {
  MPI_Aint a;
  wchar_t w;
  short s;
};
static void aint_wchar(void) {
  fresh_file();
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
  CHECK(file_extent(MPI_AINT) == 8 && file_extent(MPI_OFFSET) == 8 && file_extent(MPI_COUNT) == 8,
        "file extents of MPI_AINT/OFFSET/COUNT %ld %ld %ld", (long)file_extent(MPI_AINT), (long)file_extent(MPI_OFFSET),
        (long)file_extent(MPI_COUNT));
  CHECK(file_extent(MPI_WCHAR) == 2 && file_extent(MPI_SHORT) == 2, "file extents of MPI_WCHAR/SHORT %ld %ld",
        (long)file_extent(MPI_WCHAR), (long)file_extent(MPI_SHORT));
  int bl[3] = {1, 1, 1};
  MPI_Datatype types[3] = {MPI_AINT, MPI_WCHAR, MPI_SHORT};
  MPI_Aint disp[3] = {offsetof(struct rec2, a), offsetof(struct rec2, w), offsetof(struct rec2, s)};
  MPI_Datatype s0, mtype;
  OK(MPI_Type_create_struct(3, bl, disp, types, &s0));
  OK(MPI_Type_create_resized(s0, 0, (MPI_Aint)sizeof(struct rec2), &mtype));
  OK(MPI_Type_commit(&mtype));
  enum { R = 12 }; /* bytes of one record in the file */
  struct rec2 w[N], r[N];
  memset(w, 0, sizeof w);
  for (int i = 0; i < N; i++) {
    w[i].a = ((MPI_Aint)(rank + 1) << 33) + i;
    w[i].w = (wchar_t)(0x3b1 + i); /* Greek letters: U+03B1 ... */
    w[i].s = (short)(-rank * 100 - i);
  }
  OK(MPI_File_write_at_all_begin(fh, (MPI_Offset)rank * N * R, w, N, mtype));
  OK(MPI_File_write_at_all_end(fh, w, MPI_STATUS_IGNORE));
  written();
  memset(r, 0, sizeof r);
  MPI_Request req;
  OK(MPI_File_iread_at(fh, (MPI_Offset)rank * N * R, r, N, mtype, &req));
  OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  for (int i = 0; i < N; i++)
    CHECK(r[i].a == w[i].a && r[i].w == w[i].w && r[i].s == w[i].s, "record2 %d read back {%ld %x %d}", i,
          (long)r[i].a, (unsigned)r[i].w, r[i].s);
  const int len = size * N * R;
  unsigned char *want = malloc((size_t)len);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < N; i++) {
      unsigned char *p = want + (q * N + i) * R;
      put_be(p, ((uint64_t)(q + 1) << 33) + (uint64_t)i, 8);
      put_be(p + 8, (uint64_t)(0x3b1 + i), 2);
      put_be(p + 10, (uint64_t)(uint16_t)(short)(-q * 100 - i), 2);
    }
  MPI_Barrier(MPI_COMM_WORLD);
  check_raw(want, len, "records {MPI_Aint, wchar_t, short}");
  free(want);
  MPI_Type_free(&s0);
  MPI_Type_free(&mtype);
}

/* 6. subarray and darray filetypes of MPI_LONG (portable: their displacements scale to the 4-byte file size) */
static void arrays(void) {
  enum { NR = 8, NC = 6 };
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int pr = rank / dims[1], pc = rank % dims[1];
  unsigned char want[NR * NC * 4];
  for (int pass = 0; pass < 2; pass++) {
    fresh_file();
    MPI_Datatype ftype;
    long local[NR * NC];
    int n = 0;
    if (pass == 0) { /* a block of rows and columns per rank (uneven blocks) */
      int r0 = pr * NR / dims[0], r1 = (pr + 1) * NR / dims[0], c0 = pc * NC / dims[1], c1 = (pc + 1) * NC / dims[1];
      int gs[2] = {NR, NC}, ls[2] = {r1 - r0, c1 - c0}, st[2] = {r0, c0};
      OK(MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_LONG, &ftype));
      for (int i = r0; i < r1; i++)
        for (int j = c0; j < c1; j++) local[n++] = -(long)(i * 100 + j);
    } else { /* rows cyclic(1), columns block */
      int gs[2] = {NR, NC}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK}, darg[2] = {1, MPI_DISTRIBUTE_DFLT_DARG};
      OK(MPI_Type_create_darray(size, rank, 2, gs, dist, darg, dims, MPI_ORDER_C, MPI_LONG, &ftype));
      const int bs = (NC + dims[1] - 1) / dims[1];
      for (int i = pr; i < NR; i += dims[0])
        for (int j = pc * bs; j < (pc + 1) * bs && j < NC; j++) local[n++] = (long)(i * 100 + j) + 50000;
    }
    OK(MPI_Type_commit(&ftype));
    OK(MPI_File_set_view(fh, 0, MPI_LONG, ftype, "external32", MPI_INFO_NULL));
    MPI_Aint fe = file_extent(ftype);
    CHECK(fe == NR * NC * 4, "file extent of the %s %ld, wanted %d", pass ? "darray" : "subarray", (long)fe, NR * NC * 4);
    OK(MPI_File_write_all(fh, local, n, MPI_LONG, MPI_STATUS_IGNORE));
    written();
    long back[NR * NC];
    memset(back, 0, sizeof back);
    OK(MPI_File_read_at_all(fh, 0, back, n, MPI_LONG, MPI_STATUS_IGNORE));
    for (int k = 0; k < n; k++) CHECK(back[k] == local[k], "%s long %d is %ld", pass ? "darray" : "subarray", k, back[k]);
    for (int i = 0; i < NR; i++)
      for (int j = 0; j < NC; j++)
        put_be(want + (i * NC + j) * 4, (uint64_t)(uint32_t)(pass ? (long)(i * 100 + j) + 50000 : -(long)(i * 100 + j)), 4);
    MPI_Barrier(MPI_COMM_WORLD);
    check_raw(want, NR * NC * 4, pass ? "darray of MPI_LONG" : "subarray of MPI_LONG");
    MPI_Type_free(&ftype);
  }
}

/* 7. file extents of derived types; an out-of-range value */
static void extents(void) {
  fresh_file();
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
  MPI_Datatype v, c;
  OK(MPI_Type_vector(3, 1, 2, MPI_LONG, &v));
  OK(MPI_Type_contiguous(5, MPI_UNSIGNED_LONG, &c));
  CHECK(file_extent(v) == 20, "file extent of vector(3, 1, 2, MPI_LONG) %ld", (long)file_extent(v));
  CHECK(file_extent(c) == 20, "file extent of contiguous(5, MPI_UNSIGNED_LONG) %ld", (long)file_extent(c));
  CHECK(file_extent(MPI_INT) == 4 && file_extent(MPI_DOUBLE) == 8 && file_extent(MPI_C_BOOL) == 1,
        "file extents of MPI_INT/DOUBLE/C_BOOL");
  MPI_Type_free(&v);
  MPI_Type_free(&c);
#if defined(FTMPI) && LONG_MAX > 0x7fffffffL
  OK(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL));
  long big = 1L << 40;
  EXPECT_CLASS(MPI_File_write_at(fh, 0, &big, 1, MPI_LONG, MPI_STATUS_IGNORE), MPI_ERR_CONVERSION);
#endif
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *only = argc > 1 ? argv[1] : "";
  char path[512];
  io_path(MPI_COMM_WORLD, "ftmpi-io-external32", path, sizeof path);
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                   &fh));
  struct {
    const char *name;
    void (*fn)(void);
  } parts[] = {{"longs", longs},           {"strided", strided},       {"records", records},
               {"long_doubles", long_doubles}, {"aint_wchar", aint_wchar}, {"arrays", arrays},
               {"extents", extents}};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    if (*only && strcmp(only, parts[i].name) != 0) continue;
    parts[i].fn();
    if (rank == 0) printf("ok %s\n", parts[i].name);
  }
  OK(MPI_File_close(&fh));
  check_pass("io_external32");
  MPI_Finalize();
  return 0;
}
