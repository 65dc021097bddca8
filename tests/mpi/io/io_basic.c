/* io_basic: every MPI-IO access kind against a hand-written reference of the file's bytes.
 *
 * Any number of ranks (1-8 in CTest). Each phase writes a pattern whose every byte the program can compute,
 * then reads the file back (with another access kind and, where it matters, another view) and compares:
 *  1. explicit offsets: write_at of a block per rank, read_at of the neighbour's block, get_size;
 *  2. individual pointers through a strided view (vector filetype resized, displacement per rank): two
 *     writes, get_position, the whole file read in bytes by one rank; seek/SEEK_END, get_byte_offset;
 *  3. collective write_all/read_all through the same interleaved view, with cb_buffer_size 4096 and cb_nodes 2
 *     (two-phase in many rounds), and write_at_all/read_at_all with romio_cb_write=enable;
 *  4. a non-contiguous memory type (every other int) into a contiguous view;
 *  5. shared pointer: write_shared of a block per rank (blocks in any order, each whole), seek_shared,
 *     read_shared; ordered write/read (rank order, sizes differ per rank), get_position_shared;
 *  6. non-blocking (iwrite_at/iread_at/iwrite_all/iread_at_all) and split collectives (_begin/_end);
 *  7. external32: big-endian ints in the file; set_size/preallocate/get_size; atomicity; get_amode,
 *     get_group, get_info, get_view, get_type_extent; MPI_MODE_DELETE_ON_CLOSE. */
#include "io_common.h"

static int rank, size;

static int val(int r, int i) { return r * 100000 + i; }

static void reset_view(MPI_File fh) { OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL)); }

/* the strided view: rank r sees ints [k*B*size + r*B, ... + B) for k = 0, 1, ... */
enum { B = 4 };
static MPI_Datatype strided_filetype(void) {
  MPI_Datatype v, t;
  OK(MPI_Type_contiguous(B, MPI_INT, &v));
  OK(MPI_Type_create_resized(v, 0, (MPI_Aint)(B * size * (int)sizeof(int)), &t));
  OK(MPI_Type_commit(&t));
  MPI_Type_free(&v);
  return t;
}
/* the rank and index owning global int g of a file written through the strided view */
static void strided_owner(int g, int *r, int *i) {
  int blk = g / B;
  *r = blk % size;
  *i = (blk / size) * B + g % B;
}

static void check_whole_file_strided(MPI_File fh, int total_per_rank, int salt) {
  int n = total_per_rank * size;
  int *all = malloc((int)sizeof(int) * (size_t)n);
  MPI_Status st;
  OK(MPI_File_read_at(fh, 0, all, n, MPI_INT, &st));
  int cnt = -1;
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == n, "read %d ints of %d", cnt, n);
  for (int g = 0; g < n; ++g) {
    int r, i;
    strided_owner(g, &r, &i);
    CHECK(all[g] == val(r, i) + salt, "int %d is %d, wanted %d", g, all[g], val(r, i) + salt);
  }
  free(all);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[512];
  io_path(MPI_COMM_WORLD, "ftmpi-io-basic", path, sizeof path);
  MPI_File fh;
  MPI_Status st;
  int cnt;

  /* default file errhandler is MPI_ERRORS_RETURN */
  MPI_Errhandler eh;
  OK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "default file error handler is not MPI_ERRORS_RETURN");

  /* ---- 1. explicit offsets ---- */
  enum { N = 1000 };
  int buf[N], in[N];
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  OK(MPI_File_set_size(fh, 0));
  for (int i = 0; i < N; ++i) buf[i] = val(rank, i);
  OK(MPI_File_write_at(fh, (MPI_Offset)rank * N * (int)sizeof(int), buf, N, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == N, "write_at count %d", cnt);
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
  int nb = (rank + 1) % size;
  OK(MPI_File_read_at(fh, (MPI_Offset)nb * N * (int)sizeof(int), in, N, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == N, "read_at count %d", cnt);
  for (int i = 0; i < N; ++i) CHECK(in[i] == val(nb, i), "read_at: int %d is %d", i, in[i]);
  MPI_Offset fsize;
  OK(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == (MPI_Offset)size * N * (int)sizeof(int), "size %lld", (long long)fsize);
  /* a read past the end reads what there is */
  OK(MPI_File_read_at(fh, fsize - 2 * (MPI_Offset)(int)sizeof(int), in, 10, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == 2, "read at the end: count %d", cnt);
  MPI_Barrier(MPI_COMM_WORLD);

  /* ---- 2. individual pointers through a strided view ---- */
  OK(MPI_File_set_size(fh, 0));
  MPI_Datatype ft = strided_filetype();
  OK(MPI_File_set_view(fh, (MPI_Offset)rank * B * (int)sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL));
  enum { M = 4 * B + 2 }; /* not a whole number of filetypes */
  int mine[2 * M];
  for (int i = 0; i < 2 * M; ++i) mine[i] = val(rank, i);
  OK(MPI_File_write(fh, mine, M, MPI_INT, &st));
  MPI_Offset pos;
  OK(MPI_File_get_position(fh, &pos));
  CHECK(pos == M, "position %lld after %d ints", (long long)pos, M);
  OK(MPI_File_write(fh, mine + M, M, MPI_INT, &st));
  MPI_Offset boff;
  OK(MPI_File_get_byte_offset(fh, B + 1, &boff));
  CHECK(boff == (MPI_Offset)(rank * B + B * size + 1) * (MPI_Offset)(int)sizeof(int), "byte offset %lld", (long long)boff);
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
  /* read back through the view from the start */
  OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  OK(MPI_File_read(fh, in, 2 * M, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == 2 * M, "read through the view: %d", cnt);
  for (int i = 0; i < 2 * M; ++i) CHECK(in[i] == val(rank, i), "view read: int %d is %d", i, in[i]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (2 * M % B == 0 || size == 1) {
    OK(MPI_File_seek(fh, 0, MPI_SEEK_END));
    OK(MPI_File_get_position(fh, &pos));
#ifdef FTMPI /* Open MPI 4.1 (OMPIO) reports 4 here */
    if (size == 1) CHECK(pos == 2 * M, "SEEK_END position %lld", (long long)pos);
#endif
  }
  reset_view(fh);
  if (rank == 0 && (2 * M) % B == 0) check_whole_file_strided(fh, 2 * M, 0);
  MPI_Barrier(MPI_COMM_WORLD);

  /* ---- 3. collective through the interleaved view, two-phase in many rounds ---- */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", "4096");
  MPI_Info_set(info, "cb_nodes", "2");
  OK(MPI_File_set_size(fh, 0));
  OK(MPI_File_set_view(fh, (MPI_Offset)rank * B * (int)sizeof(int), MPI_INT, ft, "native", info));
  enum { C = 3 * B * 400 };
  int *cw = malloc((int)sizeof(int) * C), *cr = malloc((int)sizeof(int) * C);
  for (int i = 0; i < C; ++i) cw[i] = val(rank, i) + 7;
  OK(MPI_File_write_all(fh, cw, C / 2, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == C / 2, "write_all count %d", cnt);
  OK(MPI_File_write_all(fh, cw + C / 2, C - C / 2, MPI_INT, &st));
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
  OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  OK(MPI_File_read_all(fh, cr, C, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == C, "read_all count %d", cnt);
  for (int i = 0; i < C; ++i) CHECK(cr[i] == cw[i], "read_all int %d is %d, wanted %d", i, cr[i], cw[i]);
  reset_view(fh);
  if (rank == 0) check_whole_file_strided(fh, C, 7);
  MPI_Barrier(MPI_COMM_WORLD);
  /* explicit-offset collectives, forced two-phase, contiguous blocks */
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  OK(MPI_File_set_info(fh, info));
  for (int i = 0; i < C; ++i) cw[i] = val(rank, i) + 11;
  OK(MPI_File_write_at_all(fh, (MPI_Offset)rank * C * (int)sizeof(int), cw, C, MPI_INT, &st));
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
  OK(MPI_File_read_at_all(fh, (MPI_Offset)((rank + 1) % size) * C * (int)sizeof(int), cr, C, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == C, "read_at_all count %d", cnt);
  for (int i = 0; i < C; ++i) CHECK(cr[i] == val((rank + 1) % size, i) + 11, "read_at_all int %d is %d", i, cr[i]);
  /* a collective read past the end reports what exists */
  OK(MPI_File_read_at_all(fh, (MPI_Offset)(size * C - 5) * (int)sizeof(int), cr, 10, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
#ifdef FTMPI /* ROMIO's two-phase read (MPICH, Open MPI) reports the count asked for, not the count read */
  CHECK(cnt == 5, "read_at_all at the end: count %d", cnt);
#endif
  MPI_Info_free(&info);
  MPI_Barrier(MPI_COMM_WORLD);

  /* ---- 4. non-contiguous memory type ---- */
  MPI_Datatype every_other;
  OK(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other));
  OK(MPI_Type_commit(&every_other));
  for (int i = 0; i < N; ++i) buf[i] = val(rank, i);
  OK(MPI_File_write_at(fh, (MPI_Offset)rank * (N / 2) * (int)sizeof(int), buf, 1, every_other, &st));
  MPI_Get_count(&st, every_other, &cnt);
  CHECK(cnt == 1, "noncontig write count %d", cnt);
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
  OK(MPI_File_read_at(fh, (MPI_Offset)rank * (N / 2) * (int)sizeof(int), in, N / 2, MPI_INT, &st));
  for (int i = 0; i < N / 2; ++i) CHECK(in[i] == val(rank, 2 * i), "noncontig int %d is %d", i, in[i]);
  memset(in, 0, sizeof in);
  OK(MPI_File_read_at(fh, (MPI_Offset)rank * (N / 2) * (int)sizeof(int), in, 1, every_other, &st));
  for (int i = 0; i < N; ++i) CHECK(in[i] == (i % 2 ? 0 : val(rank, i)), "noncontig read int %d is %d", i, in[i]);
  MPI_Type_free(&every_other);
  MPI_Barrier(MPI_COMM_WORLD);

  /* ---- 5. shared file pointer and ordered ---- */
  OK(MPI_File_set_size(fh, 0));
  OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  enum { S = 10 };
  for (int i = 0; i < S; ++i) buf[i] = rank;
  OK(MPI_File_write_shared(fh, buf, S, MPI_INT, &st));
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
  OK(MPI_File_get_position_shared(fh, &pos));
  CHECK(pos == (MPI_Offset)S * size * (int)sizeof(int), "shared position %lld", (long long)pos);
  MPI_Barrier(MPI_COMM_WORLD); /* sync is collective but need not synchronise: read before rank 0 seeks */
  if (rank == 0) {
    int *all = malloc((int)sizeof(int) * S * (size_t)size), *seen = calloc((size_t)size, (int)sizeof(int));
    OK(MPI_File_read_at(fh, 0, all, S * size, MPI_INT, &st));
    for (int b = 0; b < size; ++b) {
      int r = all[b * S];
      CHECK(r >= 0 && r < size && !seen[r], "shared block %d belongs to %d", b, r);
      seen[r] = 1;
      for (int i = 0; i < S; ++i) CHECK(all[b * S + i] == r, "shared block %d torn", b);
    }
    free(all);
    free(seen);
  }
  OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  OK(MPI_File_read_shared(fh, in, S, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == S, "read_shared count %d", cnt);
  for (int i = 0; i < S; ++i) CHECK(in[i] == in[0], "read_shared block torn");
  MPI_Barrier(MPI_COMM_WORLD);
  /* ordered: rank r writes r + 1 ints of value r */
  OK(MPI_File_set_size(fh, 0));
  OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  for (int i = 0; i <= rank; ++i) buf[i] = rank;
  OK(MPI_File_write_ordered(fh, buf, rank + 1, MPI_INT, &st));
  OK(MPI_File_get_position_shared(fh, &pos));
  const int tri = size * (size + 1) / 2;
  CHECK(pos == (MPI_Offset)tri * (int)sizeof(int), "ordered shared position %lld", (long long)pos);
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
  OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  OK(MPI_File_read_ordered(fh, in, rank + 1, MPI_INT, &st));
  for (int i = 0; i <= rank; ++i) CHECK(in[i] == rank, "read_ordered int %d is %d", i, in[i]);
  if (rank == 0) {
    OK(MPI_File_read_at(fh, 0, in, tri, MPI_INT, &st));
    int k = 0;
    for (int r = 0; r < size; ++r)
      for (int i = 0; i <= r; ++i, ++k) CHECK(in[k] == r, "ordered file int %d is %d", k, in[k]);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* ---- 6. non-blocking and split collectives ---- */
  OK(MPI_File_set_size(fh, 0));
  MPI_Request rq[2];
  for (int i = 0; i < N; ++i) buf[i] = val(rank, i) + 3;
  OK(MPI_File_iwrite_at(fh, (MPI_Offset)rank * N * (int)sizeof(int), buf, N / 2, MPI_INT, &rq[0]));
  OK(MPI_File_iwrite_at_all(fh, (MPI_Offset)(rank * N + N / 2) * (int)sizeof(int), buf + N / 2, N / 2, MPI_INT, &rq[1]));
  OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
  OK(MPI_File_iread_at(fh, (MPI_Offset)nb * N * (int)sizeof(int), in, N, MPI_INT, &rq[0]));
  OK(MPI_Wait(&rq[0], &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == N, "iread_at count %d", cnt);
  for (int i = 0; i < N; ++i) CHECK(in[i] == val(nb, i) + 3, "iread_at int %d is %d", i, in[i]);
  memset(in, 0, sizeof in);
  OK(MPI_File_read_at_all_begin(fh, (MPI_Offset)nb * N * (int)sizeof(int), in, N, MPI_INT));
  OK(MPI_File_read_at_all_end(fh, in, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == N, "read_at_all_end count %d", cnt);
  for (int i = 0; i < N; ++i) CHECK(in[i] == val(nb, i) + 3, "split read int %d is %d", i, in[i]);
  OK(MPI_File_seek(fh, (MPI_Offset)rank * N * (int)sizeof(int), MPI_SEEK_SET));
  OK(MPI_File_write_all_begin(fh, buf, N, MPI_INT));
  OK(MPI_File_write_all_end(fh, buf, &st));
  OK(MPI_File_get_position(fh, &pos));
  CHECK(pos == (MPI_Offset)(rank + 1) * N * (int)sizeof(int), "position after split write %lld", (long long)pos);
  OK(MPI_File_seek(fh, (MPI_Offset)rank * N * (int)sizeof(int), MPI_SEEK_SET));
  OK(MPI_File_iread_all(fh, in, N, MPI_INT, &rq[0]));
  OK(MPI_Wait(&rq[0], &st));
  for (int i = 0; i < N; ++i) CHECK(in[i] == val(rank, i) + 3, "iread_all int %d is %d", i, in[i]);
  MPI_Barrier(MPI_COMM_WORLD);

  /* ---- 7. external32, sizes, atomicity, queries ---- */
  OK(MPI_File_set_size(fh, 0));
  OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
  int x = 0x01020304 + rank;
  OK(MPI_File_write_at(fh, rank, &x, 1, MPI_INT, &st));
  OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_sync(fh));
  int y = 0;
  OK(MPI_File_read_at(fh, rank, &y, 1, MPI_INT, &st));
  CHECK(y == x, "external32 round trip %x", y);
  reset_view(fh);
  unsigned char raw[4];
  OK(MPI_File_read_at(fh, (MPI_Offset)rank * 4, raw, 4, MPI_BYTE, &st));
  CHECK(raw[0] == 1 && raw[1] == 2 && raw[2] == 3 && raw[3] == 4 + rank, "external32 bytes %02x %02x %02x %02x", raw[0],
        raw[1], raw[2], raw[3]);
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_set_size(fh, 100));
  OK(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == 100, "set_size: %lld", (long long)fsize);
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_preallocate(fh, 4096));
  OK(MPI_File_get_size(fh, &fsize));
  CHECK(fsize == 4096, "preallocate: %lld", (long long)fsize);
  int flag = -1;
  OK(MPI_File_set_atomicity(fh, 1));
  OK(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 1, "atomicity %d", flag);
  OK(MPI_File_write_at(fh, (MPI_Offset)rank * 4, &x, 1, MPI_INT, &st));
  OK(MPI_File_write_at_all(fh, (MPI_Offset)rank * 4, &x, 1, MPI_INT, &st));
  OK(MPI_File_read_at(fh, (MPI_Offset)rank * 4, &y, 1, MPI_INT, &st));
  CHECK(y == x, "atomic read %x", y);
  OK(MPI_File_set_atomicity(fh, 0));
  int amode;
  OK(MPI_File_get_amode(fh, &amode));
  CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR), "amode %d", amode);
  MPI_Group g, wg;
  int cmp;
  OK(MPI_File_get_group(fh, &g));
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_compare(g, wg, &cmp);
  CHECK(cmp == MPI_IDENT, "group differs");
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  MPI_Info used;
  OK(MPI_File_get_info(fh, &used));
  MPI_Info_free(&used);
  MPI_Aint ext;
  OK(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
  CHECK(ext == 8, "type extent %ld", (long)ext);
  OK(MPI_File_set_view(fh, 16, MPI_INT, ft, "native", MPI_INFO_NULL));
  MPI_Offset d;
  MPI_Datatype e, f;
  char rep[MPI_MAX_DATAREP_STRING];
  OK(MPI_File_get_view(fh, &d, &e, &f, rep));
  CHECK(d == 16 && e == MPI_INT && strcmp(rep, "native") == 0, "get_view");
  int sz;
  MPI_Type_size(f, &sz);
  CHECK(sz == B * (int)(int)sizeof(int), "view filetype size %d", sz);
  MPI_Type_free(&f);
  MPI_Type_free(&ft);
  OK(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL, "close leaves a handle");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) OK(MPI_File_delete(path, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);

  /* delete on close */
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
  OK(MPI_File_write_at(fh, rank, "x", 1, MPI_CHAR, &st));
  OK(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(access(path, F_OK) != 0, "MPI_MODE_DELETE_ON_CLOSE left the file");
  free(cw);
  free(cr);
  if (rank == 0) printf("PASS io_basic\n");
  MPI_Finalize();
  return 0;
}
