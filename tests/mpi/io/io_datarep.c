/* MPI_Register_datarep (MPI-3.1 §13.5.3): a user representation "swap32" that stores 4-byte integers
 * byte-swapped. Views with it (etype MPI_INT, a strided filetype of MPI_INT) write swapped bytes (checked raw
 * through a native view) and read back the original values, collectively and independently; a short read
 * converts the whole elements it got. A conversion function's error fails the access; registering a name
 * twice (or a predefined one) is MPI_ERR_DUP_DATAREP; an unknown name at set_view MPI_ERR_UNSUPPORTED_DATAREP;
 * (ftmpi) a representation with null conversion functions (MPI_CONVERSION_FN_NULL: the file holds native bytes)
 * whose file extent differs from the native size MPI_ERR_UNSUPPORTED_DATAREP at set_view. Representations with
 * other file sizes and conversion functions: io_datarep_wide.c. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_common.h"

enum { N = 100 };
static int rank, size;
static int fail_next = 0;

static unsigned swap32(unsigned v) { return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24); }

static int extent_fn(MPI_Datatype t, MPI_Aint* ext, void* extra) {
  (void)extra;
  int sz = 0;
  MPI_Type_size(t, &sz);
  *ext = sz;
  return MPI_SUCCESS;
}
static int wide_extent_fn(MPI_Datatype t, MPI_Aint* ext, void* extra) {
  (void)t, (void)extra;
  *ext = 8;
  return MPI_SUCCESS;
}
/* userbuf holds `count` MPI_INTs (contiguous in these tests) */
static int write_fn(void* userbuf, MPI_Datatype t, int count, void* filebuf, MPI_Offset pos, void* extra) {
  (void)t;
  CHECK(extra == (void*)&rank, "extra_state not passed through");
  if (fail_next) return MPI_ERR_CONVERSION;
  const unsigned* u = (const unsigned*)userbuf + pos;
  unsigned* f = (unsigned*)filebuf;
  for (int i = 0; i < count; i++) f[i] = swap32(u[i]);
  return MPI_SUCCESS;
}
static int read_fn(void* userbuf, MPI_Datatype t, int count, void* filebuf, MPI_Offset pos, void* extra) {
  (void)t, (void)extra;
  unsigned* u = (unsigned*)userbuf + pos;
  const unsigned* f = (const unsigned*)filebuf;
  for (int i = 0; i < count; i++) u[i] = swap32(f[i]);
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[512];
  io_path(MPI_COMM_WORLD, "ftmpi-io-datarep", path, sizeof path);
  OK(MPI_Register_datarep("swap32", read_fn, write_fn, extent_fn, &rank));
  EXPECT_CLASS(MPI_Register_datarep("swap32", read_fn, write_fn, extent_fn, NULL), MPI_ERR_DUP_DATAREP);
  EXPECT_CLASS(MPI_Register_datarep("external32", read_fn, write_fn, extent_fn, NULL), MPI_ERR_DUP_DATAREP);

  MPI_File fh;
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  MPI_Datatype vec, ftype;
  MPI_Type_vector(N, 1, size, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)sizeof(int) * size * N, &ftype);
  MPI_Type_commit(&ftype);
  OK(MPI_File_set_view(fh, (MPI_Offset)rank * (MPI_Offset)sizeof(int), MPI_INT, ftype, "swap32", MPI_INFO_NULL));
  char rep[MPI_MAX_DATAREP_STRING];
  MPI_Offset disp;
  MPI_Datatype et, ft;
  OK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
  CHECK(strcmp(rep, "swap32") == 0, "get_view datarep '%s'", rep);
  if (ft != MPI_INT && ft != MPI_DATATYPE_NULL) MPI_Type_free(&ft);
  int w[N], r[N];
  for (int i = 0; i < N; i++) w[i] = 0x01020300 + i + rank * 1000;
  OK(MPI_File_write_all(fh, w, N, MPI_INT, MPI_STATUS_IGNORE));
  OK(MPI_File_sync(fh));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  /* Raw bytes through a native view: swapped. */
  OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  int raw[N];
  OK(MPI_File_read_at(fh, 0, raw, N, MPI_INT, MPI_STATUS_IGNORE)); /* the first N ints of the file */
  for (int i = 0; i < N; i++) {
    const int owner = i % size, k = i / size;
    CHECK((unsigned)raw[i] == swap32((unsigned)(0x01020300 + k + owner * 1000)), "raw int %d = %08x", i, (unsigned)raw[i]);
  }
  /* Back through the representation, collective and independent. */
  OK(MPI_File_set_view(fh, (MPI_Offset)rank * (MPI_Offset)sizeof(int), MPI_INT, ftype, "swap32", MPI_INFO_NULL));
  memset(r, 0, sizeof r);
  OK(MPI_File_read_at_all(fh, 0, r, N, MPI_INT, MPI_STATUS_IGNORE));
  for (int i = 0; i < N; i++) CHECK(r[i] == w[i], "read_at_all int %d = %d, wanted %d", i, r[i], w[i]);
  memset(r, 0, sizeof r);
  MPI_Status st;
  OK(MPI_File_read_at(fh, N - 10, r, N, MPI_INT, &st)); /* 10 ints before the end: a short read */
  int cnt = -1;
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == 10, "short read count %d, wanted 10", cnt);
  for (int i = 0; i < cnt && i < N; i++) CHECK(r[i] == w[N - 10 + i], "short read int %d = %d", i, r[i]);
  /* A conversion function's error fails the write. */
  fail_next = 1;
  int rc = MPI_File_write_at(fh, 0, w, 1, MPI_INT, MPI_STATUS_IGNORE);
  CHECK(rc != MPI_SUCCESS, "a failing write conversion did not fail the write");
  fail_next = 0;
  /* An unknown representation. */
  EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
#ifdef FTMPI
  OK(MPI_Register_datarep("wide", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, wide_extent_fn, NULL));
  EXPECT_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "wide", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
#else
  (void)wide_extent_fn;
#endif
  OK(MPI_File_close(&fh));
  MPI_Type_free(&vec);
  MPI_Type_free(&ftype);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  check_pass("io_datarep");
  MPI_Finalize();
  return 0;
}
