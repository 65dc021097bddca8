/* MPI-IO views with every derived filetype shape the datatype chapter offers, against a hand-computed reference of
 * the whole file (read back by every rank through a plain view), 1-8 ranks, collective and independent:
 *  1. subarray: a 2-D block decomposition of a global NR x NC int array (MPI_Dims_create grid, uneven blocks), the
 *     memory buffer a local array with a halo (a subarray memory type): write_all, read_all of the block;
 *  2. darray: rows block-cyclic (cyclic(2)) and columns block over the same grid: write_at_all, read_at (each
 *     rank's local array, in darray order);
 *  3. indexed: irregular blocks (lengths 1-4 ints, owners round-robin): write_at_all, read_all;
 *  4. hindexed: the same blocks in byte displacements, written independently (data sieving), read_at;
 *  5. indexed_block: pairs of ints round-robin: split collective write_all_begin/end, read_all_begin/end;
 *  6. hvector of doubles (one per rank, cyclic): non-blocking iwrite then iread with the individual pointer.
 * Passes with Open MPI and MPICH too. */
#include "io_common.h"

enum { NR = 12, NC = 10, NB = 40 };
static int rank, size, dims[2];
static MPI_File fh;

static int gval(int i, int j) { return i * 1000 + j; }

/* block decomposition of n among p: the start and length of part k (the first n % p parts one longer) */
static void part(int n, int p, int k, int *start, int *len) {
  int q = n / p, r = n % p;
  *len = q + (k < r);
  *start = k * q + (k < r ? k : r);
}

static void whole_file_check(const int *want, int n, const char *what) {
  MPI_Offset fsize = -1;
  OK(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == (MPI_Offset)n * (MPI_Offset)sizeof(int), "%s: file size %lld, wanted %d ints", what, (long long)fsize, n);
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  int *got = calloc((size_t)n, sizeof(int));
  OK(MPI_File_read_at(fh, 0, got, n, MPI_INT, MPI_STATUS_IGNORE));
  for (int k = 0; k < n; k++) CHECK(got[k] == want[k], "%s: file int %d is %d, wanted %d", what, k, got[k], want[k]);
  free(got);
}
static void written(void) {
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
}
static void fresh_file(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  OK(MPI_File_set_size(fh, 0));
  MPI_Barrier(MPI_COMM_WORLD);
}

static void subarray(void) {
  fresh_file();
  const int pr = rank / dims[1], pc = rank % dims[1];
  int r0, lr, c0, lc;
  part(NR, dims[0], pr, &r0, &lr);
  part(NC, dims[1], pc, &c0, &lc);
  int gs[2] = {NR, NC}, ls[2] = {lr, lc}, st[2] = {r0, c0};
  MPI_Datatype ftype, mtype;
  OK(MPI_Type_create_subarray(2, gs, ls, st, MPI_ORDER_C, MPI_INT, &ftype));
  OK(MPI_Type_commit(&ftype));
  int hs[2] = {lr + 2, lc + 2}, one[2] = {1, 1};
  OK(MPI_Type_create_subarray(2, hs, ls, one, MPI_ORDER_C, MPI_INT, &mtype));
  OK(MPI_Type_commit(&mtype));
  int *halo = calloc((size_t)(lr + 2) * (size_t)(lc + 2), sizeof(int));
  for (int i = 0; i < lr + 2; i++)
    for (int j = 0; j < lc + 2; j++) halo[i * (lc + 2) + j] = -1;
  for (int i = 0; i < lr; i++)
    for (int j = 0; j < lc; j++) halo[(i + 1) * (lc + 2) + j + 1] = gval(r0 + i, c0 + j);
  OK(MPI_File_set_view(fh, 0, MPI_INT, ftype, "native", MPI_INFO_NULL));
  OK(MPI_File_write_all(fh, halo, 1, mtype, MPI_STATUS_IGNORE));
  written();
  OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  int *blk = calloc((size_t)(lr * lc) + 1, sizeof(int));
  MPI_Status s;
  OK(MPI_File_read_all(fh, blk, lr * lc, MPI_INT, &s));
  int cnt = -1;
  MPI_Get_count(&s, MPI_INT, &cnt);
  CHECK(cnt == lr * lc, "subarray read_all count %d, wanted %d", cnt, lr * lc);
  for (int i = 0; i < lr; i++)
    for (int j = 0; j < lc; j++)
      CHECK(blk[i * lc + j] == gval(r0 + i, c0 + j), "subarray block (%d,%d) is %d", i, j, blk[i * lc + j]);
  int want[NR * NC];
  for (int i = 0; i < NR; i++)
    for (int j = 0; j < NC; j++) want[i * NC + j] = gval(i, j);
  MPI_Barrier(MPI_COMM_WORLD);
  whole_file_check(want, NR * NC, "subarray");
  free(halo);
  free(blk);
  MPI_Type_free(&ftype);
  MPI_Type_free(&mtype);
}

/* darray: rows cyclic(2) over dims[0], columns block over dims[1] */
static void darray(void) {
  fresh_file();
  int gs[2] = {NR, NC}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK}, darg[2] = {2, MPI_DISTRIBUTE_DFLT_DARG};
  MPI_Datatype ftype;
  OK(MPI_Type_create_darray(size, rank, 2, gs, dist, darg, dims, MPI_ORDER_C, MPI_INT, &ftype));
  OK(MPI_Type_commit(&ftype));
  const int pr = rank / dims[1], pc = rank % dims[1];
  const int bs = (NC + dims[1] - 1) / dims[1]; /* MPI's default block size: ceil(NC / p) */
  int local[NR * NC], n = 0;
  for (int i = 0; i < NR; i++) {
    if ((i / 2) % dims[0] != pr) continue;
    for (int j = pc * bs; j < (pc + 1) * bs && j < NC; j++) local[n++] = gval(i, j) + 7;
  }
  int tsize = 0;
  MPI_Type_size(ftype, &tsize);
  CHECK(tsize == n * (int)sizeof(int), "darray type size %d, wanted %d ints", tsize, n);
  OK(MPI_File_set_view(fh, 0, MPI_INT, ftype, "native", MPI_INFO_NULL));
  OK(MPI_File_write_at_all(fh, 0, local, n, MPI_INT, MPI_STATUS_IGNORE));
  written();
  int back[NR * NC + 1];
  memset(back, 0, sizeof back);
  OK(MPI_File_read_at(fh, 0, back, n, MPI_INT, MPI_STATUS_IGNORE));
  for (int k = 0; k < n; k++) CHECK(back[k] == local[k], "darray local %d is %d, wanted %d", k, back[k], local[k]);
  int want[NR * NC];
  for (int i = 0; i < NR; i++)
    for (int j = 0; j < NC; j++) want[i * NC + j] = gval(i, j) + 7;
  MPI_Barrier(MPI_COMM_WORLD);
  whole_file_check(want, NR * NC, "darray");
  MPI_Type_free(&ftype);
}

/* irregular blocks: block b has b % 4 + 1 ints and belongs to rank b % size */
static int block_len(int b) { return b % 4 + 1; }
static int blocks_of_rank(int *bl, int *disp) { /* in ints; returns the block count */
  int n = 0, at = 0;
  for (int b = 0; b < NB; b++) {
    if (b % size == rank) bl[n] = block_len(b), disp[n] = at, n++;
    at += block_len(b);
  }
  return n;
}
static int total_ints(void) {
  int t = 0;
  for (int b = 0; b < NB; b++) t += block_len(b);
  return t;
}
static void indexed(int bytes) {
  fresh_file();
  int bl[NB], disp[NB];
  const int nb = blocks_of_rank(bl, disp);
  MPI_Datatype ftype;
  if (bytes) {
    MPI_Aint hd[NB];
    for (int k = 0; k < nb; k++) hd[k] = (MPI_Aint)disp[k] * (MPI_Aint)sizeof(int);
    OK(MPI_Type_create_hindexed(nb, bl, hd, MPI_INT, &ftype));
  } else {
    OK(MPI_Type_indexed(nb, bl, disp, MPI_INT, &ftype));
  }
  OK(MPI_Type_commit(&ftype));
  const int salt = bytes ? 5 : 1;
  int mine[4 * NB], n = 0;
  for (int k = 0; k < nb; k++)
    for (int e = 0; e < bl[k]; e++) mine[n++] = (disp[k] + e) * 3 + salt;
  /* the filetype's extent ends at this rank's last block: the whole pattern is one filetype element */
  OK(MPI_File_set_view(fh, 0, MPI_INT, ftype, "native", MPI_INFO_NULL));
  if (bytes) {
    OK(MPI_File_write_at(fh, 0, mine, n, MPI_INT, MPI_STATUS_IGNORE));
  } else {
    OK(MPI_File_write_at_all(fh, 0, mine, n, MPI_INT, MPI_STATUS_IGNORE));
  }
  written();
  int back[4 * NB];
  memset(back, 0, sizeof back);
  if (bytes) {
    OK(MPI_File_read_at(fh, 0, back, n, MPI_INT, MPI_STATUS_IGNORE));
  } else {
    OK(MPI_File_read_all(fh, back, n, MPI_INT, MPI_STATUS_IGNORE));
  }
  for (int k = 0; k < n; k++) CHECK(back[k] == mine[k], "%s int %d is %d", bytes ? "hindexed" : "indexed", k, back[k]);
  const int t = total_ints();
  int *want = malloc(sizeof(int) * (size_t)t);
  for (int k = 0; k < t; k++) want[k] = k * 3 + salt;
  MPI_Barrier(MPI_COMM_WORLD);
  /* with fewer blocks than ranks' turns the file ends at the last block written */
  whole_file_check(want, t, bytes ? "hindexed" : "indexed");
  free(want);
  MPI_Type_free(&ftype);
}

/* pairs of ints, round-robin by rank: indexed_block of M pairs */
static void indexed_block(void) {
  fresh_file();
  enum { M = 9 };
  int disp[M];
  for (int m = 0; m < M; m++) disp[m] = 2 * (rank + size * m);
  MPI_Datatype ftype;
  OK(MPI_Type_create_indexed_block(M, 2, disp, MPI_INT, &ftype));
  OK(MPI_Type_commit(&ftype));
  int mine[2 * M], back[2 * M];
  for (int m = 0; m < M; m++) mine[2 * m] = disp[m] * 11, mine[2 * m + 1] = (disp[m] + 1) * 11;
  OK(MPI_File_set_view(fh, 0, MPI_INT, ftype, "native", MPI_INFO_NULL));
  OK(MPI_File_write_all_begin(fh, mine, 2 * M, MPI_INT));
  OK(MPI_File_write_all_end(fh, mine, MPI_STATUS_IGNORE));
  written();
  OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  memset(back, 0, sizeof back);
  OK(MPI_File_read_all_begin(fh, back, 2 * M, MPI_INT));
  OK(MPI_File_read_all_end(fh, back, MPI_STATUS_IGNORE));
  for (int k = 0; k < 2 * M; k++) CHECK(back[k] == mine[k], "indexed_block int %d is %d", k, back[k]);
  const int t = 2 * size * M;
  int *want = malloc(sizeof(int) * (size_t)t);
  for (int k = 0; k < t; k++) want[k] = k * 11;
  MPI_Barrier(MPI_COMM_WORLD);
  whole_file_check(want, t, "indexed_block");
  free(want);
  MPI_Type_free(&ftype);
}

/* hvector of doubles: rank r owns doubles r, r + size, ... (a file of doubles, checked as ints) */
static void hvector(void) {
  fresh_file();
  enum { M = 16 };
  MPI_Datatype v, ftype;
  OK(MPI_Type_create_hvector(M, 1, (MPI_Aint)sizeof(double) * size, MPI_DOUBLE, &v));
  OK(MPI_Type_create_resized(v, 0, (MPI_Aint)sizeof(double) * size * M, &ftype));
  OK(MPI_Type_commit(&ftype));
  double mine[2 * M], back[2 * M];
  for (int m = 0; m < 2 * M; m++) mine[m] = (rank + size * m) + 0.5;
  OK(MPI_File_set_view(fh, (MPI_Offset)rank * (MPI_Offset)sizeof(double), MPI_DOUBLE, ftype, "native", MPI_INFO_NULL));
  MPI_Request req;
  OK(MPI_File_iwrite(fh, mine, M, MPI_DOUBLE, &req)); /* two filetype elements, in two accesses */
  OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  OK(MPI_File_iwrite(fh, mine + M, M, MPI_DOUBLE, &req));
  OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  written();
  OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  memset(back, 0, sizeof back);
  MPI_Status s;
  OK(MPI_File_iread(fh, back, 2 * M, MPI_DOUBLE, &req));
  OK(MPI_Wait(&req, &s));
  int cnt = -1;
  MPI_Get_count(&s, MPI_DOUBLE, &cnt);
  CHECK(cnt == 2 * M, "hvector iread count %d", cnt);
  for (int m = 0; m < 2 * M; m++) CHECK(back[m] == mine[m], "hvector double %d is %g", m, back[m]);
  const int t = 2 * size * M;
  double *wd = malloc(sizeof(double) * (size_t)t);
  for (int k = 0; k < t; k++) wd[k] = k + 0.5;
  MPI_Barrier(MPI_COMM_WORLD);
  whole_file_check((const int *)wd, t * (int)(sizeof(double) / sizeof(int)), "hvector");
  free(wd);
  MPI_Type_free(&v);
  MPI_Type_free(&ftype);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 2, dims);
  char path[512];
  io_path(MPI_COMM_WORLD, "ftmpi-io-shapes", path, sizeof path);
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                   &fh));
  subarray();
  if (rank == 0) printf("ok subarray\n");
  darray();
  if (rank == 0) printf("ok darray\n");
  indexed(0);
  if (rank == 0) printf("ok indexed\n");
  indexed(1);
  if (rank == 0) printf("ok hindexed\n");
  indexed_block();
  if (rank == 0) printf("ok indexed_block\n");
  hvector();
  if (rank == 0) printf("ok hvector\n");
  OK(MPI_File_close(&fh));
  check_pass("io_shapes");
  MPI_Finalize();
  return 0;
}
