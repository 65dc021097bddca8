/* bench/io_sieve.c — independent I/O through a strided view (data sieving), portable MPI.
 *   io_sieve <dir> [MiB per rank] [block bytes]
 * Each rank's view: blocks of <block> bytes (default 256) dealt round-robin to the ranks (holes = the other ranks'
 * blocks). Every rank writes its <MiB> (default 16) with ONE MPI_File_write_at, then reads it back with one
 * MPI_File_read_at (page cache, no fsync), twice: with data sieving disabled (romio_ds_write/romio_ds_read =
 * disable: one system call per block) and with the defaults (ftmpi and ROMIO: sieving on). The time is the
 * slowest rank's, from a barrier. Prints "ind_write|ind_read ds_off|ds_default MB/s" (aggregate data bytes, holes
 * not counted). Deletes its file. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static void run(const char *path, long long mine, int blk, int sieve) {
  MPI_Info info;
  MPI_Info_create(&info);
  if (!sieve) {
    MPI_Info_set(info, "romio_ds_write", "disable");
    MPI_Info_set(info, "romio_ds_read", "disable");
  }
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  MPI_Datatype c, ft;
  MPI_Type_contiguous(blk, MPI_BYTE, &c);
  MPI_Type_create_resized(c, 0, (MPI_Aint)blk * size, &ft);
  MPI_Type_commit(&ft);
  MPI_File_set_view(fh, (MPI_Offset)rank * blk, MPI_BYTE, ft, "native", info);
  char *buf = malloc((size_t)mine);
  memset(buf, rank + 1, (size_t)mine);
  for (int phase = 0; phase < 2; phase++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (phase == 0) MPI_File_write_at(fh, 0, buf, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
    else MPI_File_read_at(fh, 0, buf, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
      printf("%s %s %.1f\n", phase == 0 ? "ind_write" : "ind_read", sieve ? "ds_default" : "ds_off",
             (double)mine * size / tmax / 1e6);
    if (phase == 1)
      for (long long i = 0; i < mine; i++)
        if (buf[i] != (char)(rank + 1)) {
          printf("ERROR rank %d byte %lld\n", rank, i);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
  }
  MPI_File_close(&fh);
  MPI_Type_free(&ft);
  MPI_Type_free(&c);
  MPI_Info_free(&info);
  free(buf);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *dir = argc > 1 ? argv[1] : "/tmp";
  long long mine = (argc > 2 ? atoll(argv[2]) : 16) << 20;
  int blk = argc > 3 ? atoi(argv[3]) : 256;
  char path[512];
  snprintf(path, sizeof path, "%s/ftmpi-bench-sieve-%d", dir, (int)getpid());
  MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
  run(path, mine, blk, 0);
  run(path, mine, blk, 1);
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Finalize();
  return 0;
}
