/* MPI-4.0 large-count (_c) MPI-IO functions (§14.4): every _c data access and MPI_File_get_type_extent_c on a
 * small file, checked against a hand-computed reference, with MPI_Get_count_c on the statuses; a negative
 * count is MPI_ERR_COUNT. MPI-4 programs only: built for ftmpi (Open MPI 4.1 and MPICH 4.0 have no File _c). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_common.h"

enum { N = 64 };
static int rank, size;

static void expect_count(const MPI_Status* st, MPI_Count want, const char* what) {
  MPI_Count c = -1;
  OK(MPI_Get_count_c(st, MPI_INT, &c));
  CHECK(c == want, "%s: MPI_Get_count_c %lld, wanted %lld", what, (long long)c, (long long)want);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[512];
  io_path(MPI_COMM_WORLD, "ftmpi-io-large-count", path, sizeof path);
  MPI_File fh;
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
  int w[N], r[N];
  MPI_Status st;
  MPI_Request rq;
  const MPI_Offset blk = (MPI_Offset)N * (MPI_Offset)sizeof(int);
  /* Region k (k = 0..5) holds every rank's block written by the k-th write form. */
  for (int k = 0; k < 6; k++) {
    for (int i = 0; i < N; i++) w[i] = k * 1000000 + rank * 1000 + i;
    const MPI_Offset off = ((MPI_Offset)k * size + rank) * blk;
    switch (k) {
      case 0: OK(MPI_File_write_at_c(fh, off, w, N, MPI_INT, &st)); expect_count(&st, N, "write_at_c"); break;
      case 1: OK(MPI_File_write_at_all_c(fh, off, w, N, MPI_INT, &st)); expect_count(&st, N, "write_at_all_c"); break;
      case 2: OK(MPI_File_iwrite_at_c(fh, off, w, N, MPI_INT, &rq)); OK(MPI_Wait(&rq, &st)); break;
      case 3: OK(MPI_File_iwrite_at_all_c(fh, off, w, N, MPI_INT, &rq)); OK(MPI_Wait(&rq, &st)); break;
      case 4:
        OK(MPI_File_seek(fh, off / (MPI_Offset)sizeof(int) * (MPI_Offset)sizeof(int), MPI_SEEK_SET));
        OK(MPI_File_write_all_c(fh, w, N, MPI_INT, &st));
        expect_count(&st, N, "write_all_c");
        break;
      case 5:
        OK(MPI_File_seek(fh, off, MPI_SEEK_SET));
        OK(MPI_File_write_at_all_begin_c(fh, off, w, N, MPI_INT));
        OK(MPI_File_write_at_all_end(fh, w, &st));
        break;
    }
  }
  OK(MPI_File_sync(fh));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  for (int k = 0; k < 6; k++) {
    const MPI_Offset off = ((MPI_Offset)k * size + rank) * blk;
    memset(r, 0, sizeof r);
    switch (k % 4) {
      case 0: OK(MPI_File_read_at_c(fh, off, r, N, MPI_INT, &st)); expect_count(&st, N, "read_at_c"); break;
      case 1: OK(MPI_File_read_at_all_c(fh, off, r, N, MPI_INT, &st)); expect_count(&st, N, "read_at_all_c"); break;
      case 2: OK(MPI_File_iread_at_c(fh, off, r, N, MPI_INT, &rq)); OK(MPI_Wait(&rq, &st)); expect_count(&st, N, "iread_at_c"); break;
      case 3: OK(MPI_File_iread_at_all_c(fh, off, r, N, MPI_INT, &rq)); OK(MPI_Wait(&rq, &st)); expect_count(&st, N, "iread_at_all_c"); break;
    }
    for (int i = 0; i < N; i++) CHECK(r[i] == k * 1000000 + rank * 1000 + i, "region %d int %d = %d", k, i, r[i]);
  }
  /* Individual pointer forms. */
  OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  OK(MPI_File_read_c(fh, r, N, MPI_INT, &st));
  expect_count(&st, N, "read_c");
  CHECK(r[0] == 0 && r[N - 1] == N - 1, "read_c got %d..%d", r[0], r[N - 1]);
  OK(MPI_File_seek(fh, rank * blk, MPI_SEEK_SET));
  OK(MPI_File_read_all_c(fh, r, N, MPI_INT, &st));
  CHECK(r[1] == rank * 1000 + 1, "read_all_c got %d", r[1]);
  OK(MPI_File_seek(fh, (size + rank) * blk, MPI_SEEK_SET));
  OK(MPI_File_iread_c(fh, r, N, MPI_INT, &rq));
  OK(MPI_Wait(&rq, &st));
  CHECK(r[2] == 1000000 + rank * 1000 + 2, "iread_c got %d", r[2]);
  OK(MPI_File_seek(fh, (2 * size + rank) * blk, MPI_SEEK_SET));
  OK(MPI_File_iread_all_c(fh, r, N, MPI_INT, &rq));
  OK(MPI_Wait(&rq, &st));
  CHECK(r[3] == 2000000 + rank * 1000 + 3, "iread_all_c got %d", r[3]);
  OK(MPI_File_seek(fh, (3 * size + rank) * blk, MPI_SEEK_SET));
  OK(MPI_File_read_all_begin_c(fh, r, N, MPI_INT));
  OK(MPI_File_read_all_end(fh, r, &st));
  CHECK(r[4] == 3000000 + rank * 1000 + 4, "read_all_begin_c got %d", r[4]);
  OK(MPI_File_seek(fh, (4 * size + rank) * blk, MPI_SEEK_SET));
  OK(MPI_File_write_c(fh, w, N, MPI_INT, &st));
  OK(MPI_File_iwrite_c(fh, w, N, MPI_INT, &rq));
  OK(MPI_Wait(&rq, &st));
  OK(MPI_File_iwrite_all_c(fh, w, N, MPI_INT, &rq));
  OK(MPI_Wait(&rq, &st));
  OK(MPI_File_write_all_begin_c(fh, w, N, MPI_INT));
  OK(MPI_File_write_all_end(fh, w, &st));
  /* Shared and ordered forms: each rank's block lands somewhere after the first 7 regions; count them. */
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_File_seek_shared(fh, 7 * size * blk, MPI_SEEK_SET));
  OK(MPI_File_write_shared_c(fh, w, N, MPI_INT, &st));
  OK(MPI_File_iwrite_shared_c(fh, w, N, MPI_INT, &rq));
  OK(MPI_Wait(&rq, &st));
  OK(MPI_File_write_ordered_c(fh, w, N, MPI_INT, &st));
  OK(MPI_File_write_ordered_begin_c(fh, w, N, MPI_INT));
  OK(MPI_File_write_ordered_end(fh, w, &st));
  OK(MPI_File_seek_shared(fh, 7 * size * blk, MPI_SEEK_SET));
  OK(MPI_File_read_shared_c(fh, r, N, MPI_INT, &st));
  expect_count(&st, N, "read_shared_c");
  OK(MPI_File_iread_shared_c(fh, r, N, MPI_INT, &rq));
  OK(MPI_Wait(&rq, &st));
  OK(MPI_File_read_ordered_c(fh, r, N, MPI_INT, &st));
  expect_count(&st, N, "read_ordered_c");
  OK(MPI_File_read_ordered_begin_c(fh, r, N, MPI_INT));
  OK(MPI_File_read_ordered_end(fh, r, &st));
  expect_count(&st, N, "read_ordered_begin_c");
  MPI_Offset fsize = 0;
  OK(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == 11 * size * blk, "file size %lld, wanted %lld", (long long)fsize, (long long)(11 * size * blk));
  MPI_Count ext = 0;
  OK(MPI_File_get_type_extent_c(fh, MPI_DOUBLE, &ext));
  CHECK(ext == (MPI_Count)sizeof(double), "get_type_extent_c %lld", (long long)ext);
  /* Bad input. */
  EXPECT_CLASS(MPI_File_write_at_c(fh, 0, w, -1, MPI_INT, &st), MPI_ERR_COUNT);
  EXPECT_CLASS(MPI_File_read_at_all_c(fh, 0, r, -5, MPI_INT, &st), MPI_ERR_COUNT);
  OK(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL, "close");
  check_pass("io_large_count");
  MPI_Finalize();
  return 0;
}
