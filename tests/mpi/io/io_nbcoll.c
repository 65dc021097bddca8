/* Non-blocking collective file accesses (MPI-3.1 §13.4.3-5: MPI_File_iwrite_all, iread_all, iwrite_at_all,
 * iread_at_all) against a hand-computed reference, and the property that they do not block at initiation:
 *   1. interleaved (two-phase) iwrite_all through a strided view and contiguous iwrite_at_all, read back with
 *      iread_all / iread_at_all (completion by MPI_Wait and by an MPI_Test loop), byte for byte;
 *   2. initiation does not block: rank 0 initiates, then MPI_Ssends to rank 1, which initiates only after
 *      receiving it (a blocking initiation deadlocks here: rank 0 would wait in the initiation for rank 1);
 *   3. two accesses pending together with a blocking collective access between them (Waitall; Open MPI 4.1
 *      fails this one: its pending accesses write back stale bytes over the blocking one's disjoint range);
 *   4. the individual file pointer moves at initiation;
 *   5. bad input: a negative offset MPI_ERR_ARG (at initiation or completion; ftmpi: also when only one
 *      member passes it, at every member), an iwrite on a read-only file MPI_ERR_READ_ONLY / MPI_ERR_ACCESS,
 *      (ftmpi) MPI_File_close with an access pending MPI_ERR_REQUEST.
 * Portable MPI (runs with Open MPI and MPICH too). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_common.h"

enum { B = 1000 }; /* ints per rank per access */

static int rank, size;

static int cls_of(int rc) {
  int c = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
  return c;
}

static void test_roundtrip(const char* path) {
  MPI_File fh;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", "4096"); /* several two-phase rounds */
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  /* Strided view: rank r owns ints r, r+size, r+2*size, ... of the first region (interleaved spans). */
  MPI_Datatype vec, ftype;
  MPI_Type_vector(B, 1, size, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)sizeof(int) * size * B, &ftype);
  MPI_Type_commit(&ftype);
  OK(MPI_File_set_view(fh, (MPI_Offset)rank * (MPI_Offset)sizeof(int), MPI_INT, ftype, "native", MPI_INFO_NULL));
  int* w = malloc(sizeof(int) * B);
  int* r = malloc(sizeof(int) * B);
  for (int i = 0; i < B; i++) w[i] = rank * 100000 + i;
  MPI_Request rq;
  MPI_Status st;
  OK(MPI_File_iwrite_all(fh, w, B, MPI_INT, &rq));
  OK(MPI_Wait(&rq, &st));
  int cnt = -1;
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == B, "iwrite_all status count %d, wanted %d", cnt, B);
  MPI_Offset pos = -1;
  OK(MPI_File_get_position(fh, &pos));
  CHECK(pos == B, "individual pointer %lld after iwrite_all, wanted %d", (long long)pos, B);
  /* The second region, contiguous per rank, by explicit offset in a byte view. */
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  const MPI_Offset region2 = (MPI_Offset)sizeof(int) * size * B;
  for (int i = 0; i < B; i++) w[i] = -(rank * 100000 + i);
  OK(MPI_File_iwrite_at_all(fh, region2 + (MPI_Offset)rank * B * (MPI_Offset)sizeof(int), w, B, MPI_INT, &rq));
  int flag = 0;
  while (!flag) OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
  OK(MPI_File_sync(fh));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  /* Reference read of the whole file by rank 0 (independent), then the non-blocking collective reads. */
  if (rank == 0) {
    int* all = malloc(sizeof(int) * (size_t)(2 * size * B));
    OK(MPI_File_read_at(fh, 0, all, 2 * size * B, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < size * B; i++)
      CHECK(all[i] == (i % size) * 100000 + i / size, "region 1 int %d = %d", i, all[i]);
    for (int i = 0; i < size * B; i++)
      CHECK(all[size * B + i] == -((i / B) * 100000 + i % B), "region 2 int %d = %d", i, all[size * B + i]);
    free(all);
  }
  OK(MPI_File_set_view(fh, (MPI_Offset)rank * (MPI_Offset)sizeof(int), MPI_INT, ftype, "native", MPI_INFO_NULL));
  memset(r, 0, sizeof(int) * B);
  OK(MPI_File_iread_all(fh, r, B, MPI_INT, &rq));
  OK(MPI_Wait(&rq, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == B, "iread_all status count %d", cnt);
  for (int i = 0; i < B; i++) CHECK(r[i] == rank * 100000 + i, "iread_all int %d = %d", i, r[i]);
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  memset(r, 0, sizeof(int) * B);
  /* Read a neighbour's block (so the data crosses ranks). */
  const int nb = (rank + 1) % size;
  OK(MPI_File_iread_at_all(fh, region2 + (MPI_Offset)nb * B * (MPI_Offset)sizeof(int), r, B, MPI_INT, &rq));
  OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  for (int i = 0; i < B; i++) CHECK(r[i] == -(nb * 100000 + i), "iread_at_all int %d = %d", i, r[i]);
  MPI_Type_free(&vec);
  MPI_Type_free(&ftype);
  OK(MPI_File_close(&fh));
  free(w);
  free(r);
}

/* Rank 0 initiates and then needs rank 1 (Ssend); rank 1 initiates only after that. */
static void test_no_block(const char* path) {
  MPI_File fh;
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  int v = 4242 + rank, token = 7;
  MPI_Request rq;
  if (rank == 0) {
    OK(MPI_File_iwrite_at_all(fh, (MPI_Offset)rank * 4, &v, 1, MPI_INT, &rq));
    OK(MPI_Ssend(&token, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
  } else if (rank == 1) {
    OK(MPI_Recv(&token, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_File_iwrite_at_all(fh, (MPI_Offset)rank * 4, &v, 1, MPI_INT, &rq));
  } else {
    OK(MPI_File_iwrite_at_all(fh, (MPI_Offset)rank * 4, &v, 1, MPI_INT, &rq));
  }
  OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  int back = -1;
  OK(MPI_File_read_at_all(fh, (MPI_Offset)rank * 4, &back, 1, MPI_INT, MPI_STATUS_IGNORE));
  CHECK(back == v, "rank %d read back %d, wanted %d", rank, back, v);
  OK(MPI_File_close(&fh));
}

/* Two pending together, a blocking collective between, completion in any order; the pointer at initiation. */
static void test_overlap(const char* path) {
  MPI_File fh;
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  int a = 10 + rank, b = 20 + rank, c = 30 + rank;
  MPI_Request rq[2];
  OK(MPI_File_seek(fh, rank, MPI_SEEK_SET));
  OK(MPI_File_iwrite_all(fh, &a, 1, MPI_INT, &rq[0]));
  MPI_Offset pos = -1;
  OK(MPI_File_get_position(fh, &pos));
  CHECK(pos == rank + 1, "pointer %lld right after iwrite_all's initiation, wanted %d", (long long)pos, rank + 1);
  OK(MPI_File_iwrite_at_all(fh, size + rank, &b, 1, MPI_INT, &rq[1]));
  OK(MPI_File_write_at_all(fh, 2 * size + rank, &c, 1, MPI_INT, MPI_STATUS_IGNORE));
  MPI_Status sts[2];
  OK(MPI_Waitall(2, rq, sts));
  int got[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++) OK(MPI_File_read_at(fh, k * size + rank, &got[k], 1, MPI_INT, MPI_STATUS_IGNORE));
  CHECK(got[0] == a && got[1] == b && got[2] == c, "overlapped accesses read back %d %d %d", got[0], got[1], got[2]);
  OK(MPI_File_close(&fh));
}

static void test_errors(const char* path) {
  MPI_File fh;
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  int x = rank;
  MPI_Request rq = MPI_REQUEST_NULL;
  /* A negative offset everywhere: MPI_ERR_ARG at initiation or completion. */
  int rc = MPI_File_iwrite_at_all(fh, -4, &x, 1, MPI_INT, &rq);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
  CHECK(cls_of(rc) == MPI_ERR_ARG, "negative offset: %s", check_errstr(rc));
#ifdef FTMPI
  /* At the last rank only: ftmpi agrees on argument errors, so every member's access fails with that class
   * and nobody waits (MPICH returns at the bad member at once and the others hang: erroneous program). */
  rc = MPI_File_iwrite_at_all(fh, rank == size - 1 ? -4 : rank * 4, &x, 1, MPI_INT, &rq);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
  CHECK(cls_of(rc) == MPI_ERR_ARG, "a member's negative offset gave %s here", check_errstr(rc));
#endif
  OK(MPI_File_close(&fh));
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  rc = MPI_File_iwrite_at_all(fh, rank * 4, &x, 1, MPI_INT, &rq);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&rq, MPI_STATUS_IGNORE);
  CHECK(cls_of(rc) == MPI_ERR_READ_ONLY || cls_of(rc) == MPI_ERR_ACCESS, "iwrite on a read-only file: %s",
        check_errstr(rc));
#ifdef FTMPI
  /* Closing with an access pending is refused (and changes nothing). */
  int expect = -1;
  OK(MPI_File_read_at(fh, rank * 4, &expect, 1, MPI_INT, MPI_STATUS_IGNORE));
  rc = MPI_File_iread_at_all(fh, rank * 4, &x, 1, MPI_INT, &rq);
  CHECK(rc == MPI_SUCCESS, "iread_at_all: %s", check_errstr(rc));
  MPI_File keep = fh;
  CHECK(cls_of(MPI_File_close(&fh)) == MPI_ERR_REQUEST, "close with a pending access was not refused");
  CHECK(fh == keep, "a refused close changed the handle");
  OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  CHECK(x == expect, "iread_at_all read %d, wanted %d", x, expect);
#endif
  OK(MPI_File_close(&fh));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(size >= 2, "run with at least 2 ranks");
  char path[512];
  io_path(MPI_COMM_WORLD, "ftmpi-io-nbcoll", path, sizeof path);
  test_roundtrip(path);
  test_no_block(path);
  test_overlap(path);
  test_errors(path);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  check_pass("io_nbcoll");
  MPI_Finalize();
  return 0;
}
