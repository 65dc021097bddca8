/* File views whose filetype has overlapping regions (MPI-3.1 §13.3: displacements non-negative and
 * monotonically nondecreasing; "if the file is opened for writing, neither the etype nor the filetype is
 * permitted to contain overlapping regions" — so a file opened read-only may have them).
 *   1. a file opened MPI_MODE_RDWR: set_view with an overlapping filetype fails, as does one with decreasing
 *      displacements (ftmpi: MPI_ERR_TYPE; Open MPI also MPI_ERR_TYPE, ROMIO MPI_ERR_IO);
 *   2. the same file opened MPI_MODE_RDONLY: decreasing displacements still fail, the overlapping filetype
 *      {3 ints at 0, 1 int at 1} is accepted, and reads through it return every int of each region, also
 *      twice: independent MPI_File_read_at (data sieving on and off), and collective MPI_File_read_all with
 *      every rank's view at another displacement, with two-phase collective buffering forced on and off.
 * Found by the MPICH suite's io/tst_fileview (ftmpi refused the overlapping filetype of a read-only file).
 * Portable MPI; Open MPI 4.1 refuses the read-only overlapping view (part 2 fails there). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_common.h"

enum { NINT = 4096, ELEMS = 1024 };

static int rank, size;

static MPI_Datatype indexed2(int d0, int b0, int d1, int b1) {
  int disp[2] = {d0, d1}, blen[2] = {b0, b1};
  MPI_Datatype t;
  OK(MPI_Type_indexed(2, blen, disp, MPI_INT, &t));
  OK(MPI_Type_commit(&t));
  return t;
}

/* The ints element e of the overlapping view {3 at 0, 1 at 1} (extent 3 ints) reads, from int `first` on. */
static void expect(int first, const int* got, int elems, const char* what) {
  for (int e = 0; e < elems; e++) {
    const int base = first + 3 * e;
    const int want[4] = {base, base + 1, base + 2, base + 1};
    for (int k = 0; k < 4; k++)
      CHECK(got[4 * e + k] == want[k], "%s: element %d int %d is %d, wanted %d", what, e, k, got[4 * e + k], want[k]);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[512];
  io_path(MPI_COMM_WORLD, "ftmpi-io-view-overlap", path, sizeof path);
  MPI_Datatype over = indexed2(0, 3, 1, 1), decr = indexed2(3, 1, 0, 1);

  /* 1. writable file: both views refused; the file gets ints 0..NINT-1 */
  MPI_File fh;
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, over, "native", MPI_INFO_NULL) != MPI_SUCCESS,
        "an overlapping filetype was accepted on a file open for writing");
  CHECK(MPI_File_set_view(fh, 0, MPI_INT, decr, "native", MPI_INFO_NULL) != MPI_SUCCESS,
        "a filetype with decreasing displacements was accepted");
  if (rank == 0) {
    int* all = malloc(NINT * sizeof(int));
    for (int i = 0; i < NINT; i++) all[i] = i;
    OK(MPI_File_write_at(fh, 0, all, NINT, MPI_INT, MPI_STATUS_IGNORE));
    free(all);
  }
  OK(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);

  /* 2. read-only file */
  int* got = malloc(4 * ELEMS * sizeof(int));
  const char* hints[2][2] = {{"romio_ds_read", "enable"}, {"romio_ds_read", "disable"}};
  for (int h = 0; h < 2; h++) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, hints[h][0], hints[h][1]);
    MPI_Info_set(info, "romio_cb_read", h == 0 ? "enable" : "disable");
    if (h == 0) MPI_Info_set(info, "cb_buffer_size", "4096"); /* several two-phase windows */
    OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
    MPI_Info_free(&info);
    OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, decr, "native", MPI_INFO_NULL) != MPI_SUCCESS,
          "a filetype with decreasing displacements was accepted on a read-only file");
    /* every rank starts 7 ints further: the ranks' ranges interleave */
    const int first = 7 * rank;
    OK(MPI_File_set_view(fh, (MPI_Offset)first * (MPI_Offset)sizeof(int), MPI_INT, over, "native", MPI_INFO_NULL));
    memset(got, 0xff, 4 * ELEMS * sizeof(int));
    OK(MPI_File_read_at(fh, 0, got, 4 * ELEMS, MPI_INT, MPI_STATUS_IGNORE));
    expect(first, got, ELEMS, h == 0 ? "read_at (sieving)" : "read_at (no sieving)");
    memset(got, 0xff, 4 * ELEMS * sizeof(int));
    MPI_Status st;
    OK(MPI_File_read_all(fh, got, 4 * ELEMS, MPI_INT, &st));
    int n = -1;
    MPI_Get_count(&st, MPI_INT, &n);
    CHECK(n == 4 * ELEMS, "read_all count %d, wanted %d", n, 4 * ELEMS);
    expect(first, got, ELEMS, h == 0 ? "read_all (two-phase)" : "read_all (independent)");
    OK(MPI_File_close(&fh));
  }
  free(got);
  MPI_Type_free(&over);
  MPI_Type_free(&decr);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  check_pass("io_view_overlap");
  MPI_Finalize();
  return 0;
}
