/* tests/mpi/io/io_sync.c — MPI_File_sync after every kind of write and after none, in the patterns of the
 * Intel MPI Benchmarks' IMB-IO (write + sync + barrier + sync per sample, 0-byte samples, a private file per rank
 * opened on MPI_COMM_SELF with MPI_MODE_UNIQUE_OPEN, a shared file whose collective writes go through one
 * aggregator). Any number of ranks.
 *
 * ftmpi's MPI_File_sync fsyncs only when the calling process wrote (or resized the file) since its last sync,
 * as ROMIO does: this program checks every path that must mark the file written, by syncing after each and
 * reading the bytes back through a fresh open at another rank:
 *  1. private files: 50 rounds of a 0-byte write + sync/barrier/sync (nothing written: must succeed), then
 *     50 rounds of an 8-int write at the individual pointer + sync/barrier/sync; reopened read-only by the next
 *     rank, which checks all 400 ints.
 *  2. shared file: only even ranks write (independent write_at), all sync (mixed written / not written ranks
 *     in one collective sync); then a collective write_all through a strided view with cb_nodes=1 (rank 0
 *     writes every rank's bytes as the aggregator), all sync; then rank-0-only MPI_File_set_size growth, all
 *     sync; then 20 syncs without writes. Every rank reopens the file and checks the whole image and the size.
 * Passes with Open MPI and MPICH too. */
#include "io/io_common.h"

static int rank, size;

enum { ROUNDS = 50, K = 8, NI = 64 };

static void private_files(void) {
  char base[256], path[300];
  io_path(MPI_COMM_WORLD, "io_sync_priv", base, sizeof base);
  snprintf(path, sizeof path, "%s_%d", base, rank);
  MPI_File fh;
  OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_UNIQUE_OPEN, MPI_INFO_NULL, &fh));
  OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  OK(MPI_File_set_size(fh, 0));
  int buf[K];
  for (int i = 0; i < ROUNDS; i++) { /* 0-byte samples: nothing to flush, the syncs must still succeed */
    OK(MPI_File_write(fh, buf, 0, MPI_BYTE, MPI_STATUS_IGNORE));
    OK(MPI_File_sync(fh));
    OK(MPI_Barrier(MPI_COMM_SELF));
    OK(MPI_File_sync(fh));
  }
  for (int i = 0; i < ROUNDS; i++) {
    for (int k = 0; k < K; k++) buf[k] = rank * 100000 + i * K + k;
    OK(MPI_File_write(fh, buf, (int)sizeof buf, MPI_BYTE, MPI_STATUS_IGNORE));
    OK(MPI_File_sync(fh));
    OK(MPI_Barrier(MPI_COMM_SELF));
    OK(MPI_File_sync(fh));
  }
  OK(MPI_File_close(&fh));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  /* the next rank reads this rank's file */
  int src = (rank + 1) % size;
  snprintf(path, sizeof path, "%s_%d", base, src);
  OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  MPI_Offset sz = -1;
  OK(MPI_File_get_size(fh, &sz));
  CHECK(sz == (MPI_Offset)(ROUNDS * sizeof buf), "private file of rank %d: size %lld, wanted %lld", src,
        (long long)sz, (long long)(ROUNDS * sizeof buf));
  int all[ROUNDS * K];
  OK(MPI_File_read_at(fh, 0, all, ROUNDS * K, MPI_INT, MPI_STATUS_IGNORE));
  for (int j = 0; j < ROUNDS * K; j++)
    CHECK(all[j] == src * 100000 + j, "private file of rank %d: int %d is %d, wanted %d", src, j, all[j],
          src * 100000 + j);
  OK(MPI_File_close(&fh));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  snprintf(path, sizeof path, "%s_%d", base, rank);
  OK(MPI_File_delete(path, MPI_INFO_NULL));
}

static void shared_file(void) {
  char path[256];
  io_path(MPI_COMM_WORLD, "io_sync_shared", path, sizeof path);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_nodes", "1");
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_File fh;
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  OK(MPI_File_set_size(fh, 0));
  /* region A: ints [0, size*NI): rank r's NI ints at r*NI, written by even ranks only (independently) */
  int a[NI];
  for (int k = 0; k < NI; k++) a[k] = 1000000 + rank * NI + k;
  if (rank % 2 == 0) OK(MPI_File_write_at(fh, (MPI_Offset)rank * NI * sizeof(int), a, NI, MPI_INT, MPI_STATUS_IGNORE));
  OK(MPI_File_sync(fh));
  /* region B: ints [size*NI, 2*size*NI): interleaved one int per rank (strided view), collective write */
  MPI_Datatype ftype, resized;
  OK(MPI_Type_vector(NI, 1, size, MPI_INT, &ftype));
  OK(MPI_Type_create_resized(ftype, 0, (MPI_Aint)(size * NI * sizeof(int)), &resized));
  OK(MPI_Type_commit(&resized));
  OK(MPI_File_set_view(fh, (MPI_Offset)(size * NI + rank) * sizeof(int), MPI_INT, resized, "native", info));
  int b[NI];
  for (int k = 0; k < NI; k++) b[k] = 2000000 + k * size + rank;
  OK(MPI_File_write_all(fh, b, NI, MPI_INT, MPI_STATUS_IGNORE));
  OK(MPI_File_sync(fh));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_File_sync(fh));
  /* growth by MPI_File_set_size (rank 0 does it in ftmpi), then syncs without any write */
  const MPI_Offset grown = (MPI_Offset)(3 * size * NI) * sizeof(int);
  OK(MPI_File_set_size(fh, grown));
  OK(MPI_File_sync(fh));
  for (int i = 0; i < 20; i++) OK(MPI_File_sync(fh));
  OK(MPI_File_close(&fh));
  OK(MPI_Type_free(&ftype));
  OK(MPI_Type_free(&resized));

  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  MPI_Offset sz = -1;
  OK(MPI_File_get_size(fh, &sz));
  CHECK(sz == grown, "shared file size %lld, wanted %lld", (long long)sz, (long long)grown);
  const int n = 3 * size * NI;
  int *img = malloc(sizeof(int) * (size_t)n);
  CHECK(img != NULL, "malloc");
  OK(MPI_File_read_at(fh, 0, img, n, MPI_INT, MPI_STATUS_IGNORE));
  for (int i = 0; i < n; i++) {
    int want;
    if (i < size * NI) {
      int owner = i / NI;
      want = owner % 2 == 0 ? 1000000 + i : 0; /* odd ranks wrote nothing: a hole reads as zeros */
    } else if (i < 2 * size * NI) {
      want = 2000000 + (i - size * NI);
    } else {
      want = 0; /* grown by set_size */
    }
    CHECK(img[i] == want, "shared file int %d is %d, wanted %d", i, img[i], want);
  }
  free(img);
  OK(MPI_File_close(&fh));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) OK(MPI_File_delete(path, MPI_INFO_NULL));
  MPI_Info_free(&info);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
  private_files();
  shared_file();
  if (rank == 0) printf("PASS io_sync\n");
  MPI_Finalize();
  return 0;
}
