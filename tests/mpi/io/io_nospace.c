/* io_nospace: a full file system and a read-only one (run by io_nospace.sh inside a private mount namespace:
 * DIR is a 1 MiB tmpfs, DIR/ro a read-only tmpfs holding the file f).
 * PASS when writing 2 MiB per rank fails with MPI_ERR_NO_SPACE, and opening DIR/ro/f for writing or creating a
 * file in DIR/ro fails with MPI_ERR_READ_ONLY. */
#include "io_common.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  CHECK(argc > 1, "usage: io_nospace DIR");
  char path[600];
  snprintf(path, sizeof path, "%s/full", argv[1]);
  MPI_File fh;
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  const int n = 2 << 20;
  char *buf = malloc((size_t)n);
  memset(buf, 'x', (size_t)n);
  EXPECT_CLASS(MPI_File_write_at(fh, (MPI_Offset)rank * n, buf, n, MPI_BYTE, MPI_STATUS_IGNORE), MPI_ERR_NO_SPACE);
  free(buf);
  MPI_File_close(&fh); /* a write failed: close may report it */
  snprintf(path, sizeof path, "%s/ro/f", argv[1]);
  EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh), MPI_ERR_READ_ONLY);
  snprintf(path, sizeof path, "%s/ro/new", argv[1]);
  EXPECT_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
               MPI_ERR_READ_ONLY);
  if (rank == 0) printf("PASS io_nospace\n");
  MPI_Finalize();
  return 0;
}
