/* tests/mpi/io/io_sieve.c — independent noncontiguous reads and writes through views with holes, under every
 * data-sieving setting (ROMIO hints ind_rd_buffer_size / ind_wr_buffer_size, romio_ds_read / romio_ds_write),
 * checked against a hand-computed image of the file. 1-4 ranks (any number works).
 *
 * The view of rank r: blocks of B ints at stride P*B (P ranks), displacement r*B ints — the ranks' blocks
 * interleave, so every rank's sieved writes (read-modify-write of spans covering the others' blocks) run
 * concurrently with the others': a lost or stale update shows in the image.
 *  round "fill":  every rank writes its N blocks at once (MPI_File_write_at), then reads them back through
 *                 its view and the whole file through the default view.
 *  round "holes": rank 0 first writes a background over the whole file; then only even ranks write their
 *                 views: the odd ranks' blocks must keep the background (a sieved write restores the holes).
 *  round "atomic": as fill with MPI_File_set_atomicity(1).
 * Each round runs with: defaults; sieving forced with tiny buffers (64, 256 bytes); sieving disabled; and a
 * sparse view (B = 1 int, stride 64 P ints: "automatic" does separate calls). A read past the end of the
 * file returns the elements that exist (MPI_Get_count; not checked with MPICH, whose ROMIO counts the whole
 * request, and never-written bytes are not checked either: its sieved writes past the end of the file fill
 * them with whatever its buffer held). Under ftmpi the hints are checked in MPI_File_get_info. Passes with Open MPI and MPICH too. */
#include <stdlib.h>

#include "io/io_common.h"

static int rank, size;

struct setting {
  const char *name;
  const char *rd, *wr, *ds_rd, *ds_wr;
  int B, gap; /* block ints; stride = gap * P * B */
};

static const struct setting settings[] = {
    {"default", NULL, NULL, NULL, NULL, 3, 1},
    {"tiny-forced", "64", "64", "enable", "enable", 3, 1},
    {"small-forced", "256", "256", "enable", "enable", 5, 1},
    {"disabled", NULL, NULL, "disable", "disable", 3, 1},
    {"sparse-auto", "4096", "4096", NULL, NULL, 1, 64},
    {"sparse-forced", "4096", "4096", "enable", "enable", 1, 64},
};

enum { NB = 200 }; /* blocks per rank */

static int value(int round, int owner, int j) { return round * 1000000 + owner * 10000 + j; }

/* The image's int i after the round: owner of its block and its index in the owner's stream, or background. */
static int expect(int round, int i, int B, int gap, int holes) {
  int stride = gap * size * B;
  int elem = i / stride, in = i % stride;
  int owner = in / B;
  if (owner >= size || (holes && owner % 2 == 1)) return holes ? -1 - i : 0;
  return value(round, owner, elem * B + in % B);
}

static void run(const struct setting *s, int round, const char *mode, const char *path) {
  const int B = s->B, gap = s->gap, N = NB * B;
  const int holes = strcmp(mode, "holes") == 0, atomic = strcmp(mode, "atomic") == 0;
  const int total = NB * gap * size * B; /* ints in the file */
  MPI_Info info;
  MPI_Info_create(&info);
  if (s->rd) MPI_Info_set(info, "ind_rd_buffer_size", s->rd);
  if (s->wr) MPI_Info_set(info, "ind_wr_buffer_size", s->wr);
  if (s->ds_rd) MPI_Info_set(info, "romio_ds_read", s->ds_rd);
  if (s->ds_wr) MPI_Info_set(info, "romio_ds_write", s->ds_wr);
  MPI_File fh;
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL); /* a fresh file each round */
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  if (atomic) OK(MPI_File_set_atomicity(fh, 1));
#ifdef FTMPI
  {
    MPI_Info used;
    char v[64];
    int flag = 0;
    OK(MPI_File_get_info(fh, &used));
    if (s->wr) {
      MPI_Info_get(used, "ind_wr_buffer_size", sizeof v - 1, v, &flag);
      CHECK(flag && strcmp(v, s->wr) == 0, "ind_wr_buffer_size reported %s", flag ? v : "(none)");
    }
    if (s->ds_rd) {
      MPI_Info_get(used, "romio_ds_read", sizeof v - 1, v, &flag);
      CHECK(flag && strcmp(v, s->ds_rd) == 0, "romio_ds_read reported %s", flag ? v : "(none)");
    }
    MPI_Info_free(&used);
  }
#endif
  int *img = malloc(sizeof(int) * (size_t)total);
  if (holes) {
    if (rank == 0) {
      for (int i = 0; i < total; i++) img[i] = -1 - i;
      OK(MPI_File_write_at(fh, 0, img, total, MPI_INT, MPI_STATUS_IGNORE));
    }
    OK(MPI_File_sync(fh));
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_File_sync(fh));
  }
  MPI_Datatype blk, ft;
  OK(MPI_Type_contiguous(B, MPI_INT, &blk));
  OK(MPI_Type_create_resized(blk, 0, (MPI_Aint)gap * size * B * (MPI_Aint)sizeof(int), &ft));
  OK(MPI_Type_commit(&ft));
  OK(MPI_File_set_view(fh, (MPI_Offset)rank * B * (MPI_Offset)sizeof(int), MPI_INT, ft, "native", info));
  int *mine = malloc(sizeof(int) * (size_t)N * 2);
  for (int j = 0; j < N; j++) mine[j] = value(round, rank, j);
  if (!holes || rank % 2 == 0) {
    /* two halves, the second from an explicit offset: several calls, as an application would do */
    OK(MPI_File_write_at(fh, 0, mine, N / 2, MPI_INT, MPI_STATUS_IGNORE));
    OK(MPI_File_write_at(fh, N / 2, mine + N / 2, N - N / 2, MPI_INT, MPI_STATUS_IGNORE));
  }
  OK(MPI_File_sync(fh));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_File_sync(fh));
  /* the file must be as long as the whole image: the last rank's last block ends it when it wrote, else
     the background did; with the sparse view the last stride's tail is a hole (not written, not counted) */
  int last_owner = size - 1;
  if (holes && last_owner % 2 == 1) last_owner--;
  /* read back through the view, asking for twice as much: the read stops at the end of the file */
  for (int j = 0; j < 2 * N; j++) mine[j] = -7;
  MPI_Status st;
  OK(MPI_File_read_at(fh, 0, mine, 2 * N, MPI_INT, &st));
  int got = -1;
  MPI_Get_count(&st, MPI_INT, &got);
  MPI_Offset fsize = 0;
  OK(MPI_File_get_size(fh, &fsize));
  /* elements of my view that lie before the end of the file */
  int want = 0;
  for (int e = 0; e < 2 * NB; e++)
    for (int b = 0; b < B; b++) {
      long off = ((long)e * gap * size * B + (long)rank * B + b) * (long)sizeof(int);
      if (off + (long)sizeof(int) <= (long)fsize) want++;
    }
#ifdef MPICH_VERSION
  /* ROMIO counts the whole request of a noncontiguous read that runs past the end of the file */
  if (got > want) got = want;
#endif
  CHECK(got == want, "[%s/%s] read past the end: %d elements, want %d (file %lld bytes)", s->name, mode, got, want,
        (long long)fsize);
  for (int j = 0; j < got; j++) {
    int e = j / B, b = j % B;
    int i = e * gap * size * B + rank * B + b;
    int w = i < total ? expect(round, i, B, gap, holes) : 0;
    CHECK(mine[j] == w, "[%s/%s] view read %d (file int %d): %d want %d", s->name, mode, j, i, mine[j], w);
  }
  /* the whole file through the default view */
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  const int have = (int)(fsize / (MPI_Offset)sizeof(int));
  for (int i = 0; i < total; i++) img[i] = -9;
  OK(MPI_File_read_at(fh, 0, img, have, MPI_INT, MPI_STATUS_IGNORE));
  for (int i = 0; i < have; i++) {
    int w = expect(round, i, B, gap, holes);
#ifdef MPICH_VERSION
    /* bytes nobody wrote: ROMIO's sieved writes past the end of the file write back whatever its buffer held */
    if (!holes && (i % (gap * size * B)) / B >= size) continue;
#endif
    CHECK(img[i] == w, "[%s/%s] file int %d: %d want %d", s->name, mode, i, img[i], w);
  }
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_File_close(&fh));
  MPI_Type_free(&ft);
  MPI_Type_free(&blk);
  MPI_Info_free(&info);
  free(mine);
  free(img);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[512];
  io_path(MPI_COMM_WORLD, "ftmpi-io-sieve", path, sizeof path);
  const char *modes[] = {"fill", "holes", "atomic"};
  int round = 1;
  for (size_t s = 0; s < sizeof settings / sizeof settings[0]; s++)
    for (int m = 0; m < 3; m++) run(&settings[s], round++, modes[m], path);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    MPI_File_delete(path, MPI_INFO_NULL);
    printf("PASS io_sieve\n");
  }
  MPI_Finalize();
  return 0;
}
