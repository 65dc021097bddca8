/* bench/io.c — collective write bandwidth of one file (default 1 GiB) at N ranks, portable MPI (ftmpi, Open MPI,
 * MPICH build it unchanged; bench/io_run.sh runs the three side by side).
 *   io <dir> [MiB]
 * Two patterns, each written once with MPI_File_write_at_all / write_all and timed from a barrier to the end of
 * the call at the slowest rank (page cache: no fsync), then again including MPI_File_sync:
 *   contig  — rank r writes the r-th contiguous block of size/N (no interleaving: independent I/O);
 *   strided — a view of 1 MiB blocks dealt round-robin to the ranks (interleaved: two-phase collective buffering).
 * Prints "pattern sync MB/s". Deletes its file. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static double run(const char *path, long long total, int strided, int sync) {
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  long long mine = total / size;
  char *buf = malloc((size_t)mine);
  memset(buf, rank + 1, (size_t)mine);
  MPI_Datatype ft = MPI_DATATYPE_NULL;
  const int blk = 1 << 20;
  if (strided) {
    MPI_Datatype c;
    MPI_Type_contiguous(blk, MPI_BYTE, &c);
    MPI_Type_create_resized(c, 0, (MPI_Aint)blk * size, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&c);
    MPI_File_set_view(fh, (MPI_Offset)rank * blk, MPI_BYTE, ft, "native", MPI_INFO_NULL);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int rc;
  if (strided) rc = MPI_File_write_all(fh, buf, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
  else rc = MPI_File_write_at_all(fh, (MPI_Offset)rank * mine, buf, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
  if (sync) MPI_File_sync(fh);
  double t = MPI_Wtime() - t0, tmax = 0;
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rc != MPI_SUCCESS && rank == 0) printf("write failed: %d\n", rc);
  MPI_File_close(&fh);
  if (ft != MPI_DATATYPE_NULL) MPI_Type_free(&ft);
  free(buf);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  return (double)total / tmax / 1e6;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[512];
  snprintf(path, sizeof path, "%s/ftmpi-bench-io-%d", argc > 1 ? argv[1] : "/tmp", 0);
  if (rank == 0) snprintf(path, sizeof path, "%s/ftmpi-bench-io-%ld", argc > 1 ? argv[1] : "/tmp", (long)getpid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  long long total = (argc > 2 ? atoll(argv[2]) : 1024) << 20;
  total -= total % ((long long)size << 20);
  for (int sync = 0; sync < 2; ++sync) {
    double c = run(path, total, 0, sync), s = run(path, total, 1, sync);
    if (rank == 0) {
      printf("contig %s %.0f\n", sync ? "sync" : "nosync", c);
      printf("strided %s %.0f\n", sync ? "sync" : "nosync", s);
    }
  }
  MPI_Finalize();
  return 0;
}
