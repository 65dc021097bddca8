/* MPI_Register_datarep (MPI-3.1 §13.5.3) with file sizes other than the native ones: "wide64" stores an int as an
 * 8-byte big-endian integer, a double as 8 big-endian bytes, a char as one byte XOR 0x55. Checked against a
 * hand-computed reference of the file's bytes (read through a native view), collective and independent:
 *  A. ints through a portable strided filetype (MPI_Type_vector of MPI_INT: its stride scales with the 8-byte file
 *     extent), write_all / read_all / read_at (a short read converts the whole items it got) / iwrite_at;
 *  B. records {char, int, double} (a native struct in memory, a 17-byte file record built from
 *     MPI_File_get_type_extent), interleaved by rank: write_at_all / read_at_all / read_at.
 * Every call of the conversion functions is logged: within one access the positions are consecutive from 0 and
 * the counts (in data items, i.e. type map entries, not elements) add up to the access's items; the functions
 * handle a position in the middle of an element. (ftmpi) the accesses are converted in chunks of 64 KiB of file
 * bytes, so these ones take several calls, one of which starts mid-record; MPI_CONVERSION_FN_NULL with wide
 * extents is MPI_ERR_UNSUPPORTED_DATAREP at set_view. Open MPI 4.1 and MPICH 4.0 refuse conversion functions at
 * registration (MPI_ERR_CONVERSION): the program then prints SKIP. */
#include <stddef.h>
#include <stdint.h>

#include "io_common.h"

enum { M = 20000, K = 5000 };
static int rank, size;
static MPI_File fh;
static MPI_Datatype rec_type = MPI_DATATYPE_NULL; /* the memory record type */

struct rec {
  char c;
  int a;
  double b;
};

/* --- the representation --- */
static int extent_fn(MPI_Datatype t, MPI_Aint *ext, void *extra) {
  (void)extra;
  if (t == MPI_INT || t == MPI_DOUBLE) *ext = 8;
  else if (t == MPI_CHAR || t == MPI_BYTE) *ext = 1;
  else return MPI_ERR_TYPE;
  return MPI_SUCCESS;
}
static void put_be(unsigned char *p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i, v >>= 8) p[i] = (unsigned char)(v & 0xff);
}
static uint64_t get_be(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}
/* The kind (0 char, 1 int, 2 double) and the memory address of data item `item` of the tiled type `t`. */
static int item_at(void *buf, MPI_Datatype t, long long item, char **addr) {
  if (t == MPI_INT) {
    *addr = (char *)buf + item * (long long)sizeof(int);
    return 1;
  }
  struct rec *r = (struct rec *)buf + item / 3;
  switch (item % 3) {
    case 0: *addr = &r->c; return 0;
    case 1: *addr = (char *)&r->a; return 1;
    default: *addr = (char *)&r->b; return 2;
  }
}
enum { LOG = 64 };
static struct call {
  long long pos;
  int count;
} wlog[LOG], rlog[LOG];
static int nw, nr;
static int write_fn(void *userbuf, MPI_Datatype t, int count, void *filebuf, MPI_Offset pos, void *extra) {
  CHECK(extra == (void *)&rank, "extra_state not passed through");
  CHECK(t == MPI_INT || t == rec_type, "write conversion called with another datatype");
  if (nw < LOG) wlog[nw].pos = pos, wlog[nw].count = count;
  nw++;
  unsigned char *f = filebuf;
  for (int i = 0; i < count; i++) {
    char *m;
    switch (item_at(userbuf, t, pos + i, &m)) {
      case 0: *f++ = (unsigned char)(*m ^ 0x55); break;
      case 1: {
        int v;
        memcpy(&v, m, sizeof v);
        put_be(f, (uint64_t)(int64_t)v, 8);
        f += 8;
        break;
      }
      default: {
        uint64_t v;
        memcpy(&v, m, 8);
        put_be(f, v, 8);
        f += 8;
      }
    }
  }
  return MPI_SUCCESS;
}
static int read_fn(void *userbuf, MPI_Datatype t, int count, void *filebuf, MPI_Offset pos, void *extra) {
  (void)extra;
  CHECK(t == MPI_INT || t == rec_type, "read conversion called with another datatype");
  if (nr < LOG) rlog[nr].pos = pos, rlog[nr].count = count;
  nr++;
  const unsigned char *f = filebuf;
  for (int i = 0; i < count; i++) {
    char *m;
    switch (item_at(userbuf, t, pos + i, &m)) {
      case 0: *m = (char)(*f++ ^ 0x55); break;
      case 1: {
        int v = (int)(int64_t)get_be(f, 8);
        memcpy(m, &v, sizeof v);
        f += 8;
        break;
      }
      default: {
        uint64_t v = get_be(f, 8);
        memcpy(m, &v, 8);
        f += 8;
      }
    }
  }
  return MPI_SUCCESS;
}
/* The calls of one access: consecutive positions from 0, `items` in all; how many started mid-record. */
static void check_calls(const struct call *log, int n, long long items, const char *what, int *mid) {
  CHECK(n >= 1 && n <= LOG, "%s: %d conversion calls", what, n);
  long long next = 0;
  for (int i = 0; i < n; i++) {
    CHECK(log[i].pos == next && log[i].count > 0, "%s: call %d at position %lld count %d, wanted position %lld", what,
          i, log[i].pos, log[i].count, next);
    if (mid && log[i].pos % 3 != 0) (*mid)++;
    next += log[i].count;
  }
  CHECK(next == items, "%s: the calls converted %lld items, wanted %lld", what, next, items);
#ifdef FTMPI
  if (items * 8 > (64 << 10)) CHECK(n > 1, "%s: %lld items converted in one call (chunks of 64 KiB)", what, items);
#endif
}

static void written(void) {
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
}
static void check_raw(const unsigned char *want, long len, const char *what) {
  MPI_Offset fsize = -1;
  OK(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == len, "%s: file size %lld, wanted %ld", what, (long long)fsize, len);
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  unsigned char *got = calloc((size_t)len + 1, 1);
  OK(MPI_File_read_at(fh, 0, got, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
  for (long i = 0; i < len; i++)
    CHECK(got[i] == want[i], "%s: file byte %ld is %02x, wanted %02x", what, i, got[i], want[i]);
  free(got);
}
static void fresh_file(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  OK(MPI_File_set_size(fh, 0));
  MPI_Barrier(MPI_COMM_WORLD);
}

static int ival(int r, int i) { return (r * 100000 + i) * (i % 2 ? -1 : 1); }

static void ints(void) {
  fresh_file();
  MPI_Datatype vec;
  OK(MPI_Type_vector(M, 1, size, MPI_INT, &vec));
  OK(MPI_Type_commit(&vec));
  OK(MPI_File_set_view(fh, (MPI_Offset)rank * 8, MPI_INT, vec, "wide64", MPI_INFO_NULL));
  MPI_Aint e = -1;
  OK(MPI_File_get_type_extent(fh, MPI_INT, &e));
  CHECK(e == 8, "file extent of MPI_INT %ld", (long)e);
  OK(MPI_File_get_type_extent(fh, vec, &e));
  CHECK(e == (MPI_Aint)((M - 1) * size + 1) * 8, "file extent of the vector %ld", (long)e);
  int *w = malloc(sizeof(int) * M), *r = malloc(sizeof(int) * M);
  for (int i = 0; i < M; i++) w[i] = ival(rank, i);
  nw = 0;
  OK(MPI_File_write_all(fh, w, M, MPI_INT, MPI_STATUS_IGNORE));
  check_calls(wlog, nw, M, "write_all of ints", NULL);
  written();
  nr = 0;
  OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  memset(r, 0, sizeof(int) * M);
  MPI_Status st;
  OK(MPI_File_read_all(fh, r, M, MPI_INT, &st));
  check_calls(rlog, nr, M, "read_all of ints", NULL);
  int cnt = -1;
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == M, "read_all count %d", cnt);
  for (int i = 0; i < M; i++) CHECK(r[i] == w[i], "int %d read back %d, wanted %d", i, r[i], w[i]);
  /* a short read: 10 ints before the end of this rank's data */
  memset(r, 0, sizeof(int) * M);
  OK(MPI_File_read_at(fh, M - 10, r, 100, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  if (rank == size - 1) CHECK(cnt == 10, "short read count %d, wanted 10", cnt); /* the last rank ends the file */
  for (int i = 0; i < 10; i++) CHECK(r[i] == w[M - 10 + i], "short read int %d is %d", i, r[i]);
  /* a non-blocking independent rewrite of the first 3 ints */
  for (int i = 0; i < 3; i++) w[i] = -7 - i - rank;
  MPI_Request req;
  OK(MPI_File_iwrite_at(fh, 0, w, 3, MPI_INT, &req));
  OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  written();
  const long len = (long)M * size * 8;
  unsigned char *want = malloc((size_t)len);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < M; i++) put_be(want + ((long)i * size + q) * 8, (uint64_t)(int64_t)(i < 3 ? -7 - i - q : ival(q, i)), 8);
  MPI_Barrier(MPI_COMM_WORLD);
  check_raw(want, len, "wide ints");
  free(want);
  free(w);
  free(r);
  MPI_Type_free(&vec);
}

static void records(void) {
  fresh_file();
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "wide64", MPI_INFO_NULL));
  MPI_Aint ec, ei, ed;
  OK(MPI_File_get_type_extent(fh, MPI_CHAR, &ec));
  OK(MPI_File_get_type_extent(fh, MPI_INT, &ei));
  OK(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ed));
  CHECK(ec == 1 && ei == 8 && ed == 8, "file extents %ld %ld %ld", (long)ec, (long)ei, (long)ed);
  int bl[3] = {1, 1, 1};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_INT, MPI_DOUBLE};
  MPI_Aint mdisp[3] = {offsetof(struct rec, c), offsetof(struct rec, a), offsetof(struct rec, b)};
  MPI_Aint fdisp[3] = {0, ec, ec + ei};
  const MPI_Aint frec = ec + ei + ed; /* 17 */
  MPI_Datatype ms, fs, etype, ftype;
  OK(MPI_Type_create_struct(3, bl, mdisp, types, &ms));
  OK(MPI_Type_create_resized(ms, 0, (MPI_Aint)sizeof(struct rec), &rec_type));
  OK(MPI_Type_commit(&rec_type));
  OK(MPI_Type_create_struct(3, bl, fdisp, types, &fs));
  OK(MPI_Type_create_resized(fs, 0, frec, &etype));
  OK(MPI_Type_commit(&etype));
  OK(MPI_Type_create_resized(etype, 0, frec * size, &ftype));
  OK(MPI_Type_commit(&ftype));
  OK(MPI_File_set_view(fh, (MPI_Offset)rank * frec, etype, ftype, "wide64", MPI_INFO_NULL));
  struct rec *w = calloc(K, sizeof *w), *r = calloc(K, sizeof *r);
  for (int i = 0; i < K; i++) {
    w[i].c = (char)('A' + (i + rank) % 26);
    w[i].a = ival(rank, i);
    w[i].b = rank + i / 4.0;
  }
  nw = 0;
  int mid = 0;
  OK(MPI_File_write_at_all(fh, 0, w, K, rec_type, MPI_STATUS_IGNORE));
  check_calls(wlog, nw, 3LL * K, "write_at_all of records", &mid);
  written();
  nr = 0;
  MPI_Status st;
  OK(MPI_File_read_at_all(fh, 0, r, K, rec_type, &st));
  check_calls(rlog, nr, 3LL * K, "read_at_all of records", &mid);
#ifdef FTMPI
  CHECK(mid > 0, "no conversion call started in the middle of a record");
#endif
  int cnt = -1;
  MPI_Get_count(&st, rec_type, &cnt);
  CHECK(cnt == K, "read_at_all count %d", cnt);
  for (int i = 0; i < K; i++)
    CHECK(r[i].c == w[i].c && r[i].a == w[i].a && r[i].b == w[i].b, "record %d read back {%c %d %g}", i, r[i].c, r[i].a,
          r[i].b);
  memset(r, 0, sizeof *r * K);
  OK(MPI_File_read_at(fh, 7, r, 3, rec_type, MPI_STATUS_IGNORE));
  for (int i = 0; i < 3; i++) CHECK(r[i].a == w[7 + i].a && r[i].c == w[7 + i].c, "read_at record %d", i);
  const long len = (long)frec * size * K;
  unsigned char *want = malloc((size_t)len);
  for (int q = 0; q < size; q++)
    for (int i = 0; i < K; i++) {
      unsigned char *p = want + ((long)i * size + q) * frec;
      p[0] = (unsigned char)(('A' + (i + q) % 26) ^ 0x55);
      put_be(p + 1, (uint64_t)(int64_t)ival(q, i), 8);
      double d = q + i / 4.0;
      uint64_t b;
      memcpy(&b, &d, 8);
      put_be(p + 9, b, 8);
    }
  MPI_Barrier(MPI_COMM_WORLD);
  check_raw(want, len, "wide records");
  free(want);
  free(w);
  free(r);
  MPI_Type_free(&ms);
  MPI_Type_free(&fs);
  MPI_Type_free(&etype);
  MPI_Type_free(&ftype);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Register_datarep("wide64", read_fn, write_fn, extent_fn, &rank);
  if (rc != MPI_SUCCESS) {
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_CONVERSION || cls == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Register_datarep -> %s",
          check_errstr(rc));
    if (rank == 0) printf("SKIP io_datarep_wide: this MPI refuses conversion functions (%s)\n", check_errstr(rc));
    MPI_Finalize();
    return 0;
  }
  char path[512];
  io_path(MPI_COMM_WORLD, "ftmpi-io-datarep-wide", path, sizeof path);
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                   &fh));
  ints();
  if (rank == 0) printf("ok ints\n");
  records();
  if (rank == 0) printf("ok records\n");
#ifdef FTMPI
  OK(MPI_Register_datarep("wide64null", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, extent_fn, NULL));
  EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "wide64null", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
  /* the extent function's error (MPI_ERR_TYPE for MPI_FLOAT) fails the view */
  int setrc = MPI_File_set_view(fh, 0, MPI_FLOAT, MPI_FLOAT, "wide64", MPI_INFO_NULL);
  CHECK(setrc != MPI_SUCCESS, "a view of MPI_FLOAT with an extent function refusing it succeeded");
#endif
  OK(MPI_File_close(&fh));
  MPI_Type_free(&rec_type);
  check_pass("io_datarep_wide");
  MPI_Finalize();
  return 0;
}
