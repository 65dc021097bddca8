/* A non-blocking collective access keeps the file view of its initiation.
 *
 * MPI-3.1 §13.3 makes MPI_File_set_view erroneous while non-blocking requests on the file are pending, yet
 * programs written for ROMIO (MPICH, Open MPI) do it and get the bytes where the view of each initiation put
 * them: MPICH's test suite io/i_hindexed initiates MPI_File_iwrite_all twice, with an MPI_File_set_view of
 * another displacement between the two, then waits for both. ftmpi ran the accesses' steps at progress time
 * through the file's *current* view, so both went to the second displacement and the first region stayed
 * empty. Here, each rank owns a strided slice (hindexed filetype) of two regions of the file:
 *   1. iwrite_all in region 0, set_view to region 1, iwrite_all there, Waitall: both regions hold the data;
 *   2. the same with iread_all (the file as written by 1.), each read checked;
 *   3. iwrite_at_all with a view change to a different etype between initiation and completion.
 * The whole file is read back by rank 0 through the default view and checked byte for byte.
 * Portable MPI (runs with Open MPI and MPICH too). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_common.h"

enum { PER = 6, BLK = 3 }; /* bytes per rank per region, in blocks of BLK */

static int rank, size;

/* The filetype of this rank: PER/BLK blocks of BLK bytes, block b at (b * size + rank) * BLK. */
static MPI_Datatype slice_type(void) {
  int nb = PER / BLK, len[PER / BLK];
  MPI_Aint disp[PER / BLK];
  for (int b = 0; b < nb; b++) len[b] = BLK, disp[b] = (MPI_Aint)(b * size + rank) * BLK;
  MPI_Datatype t, r;
  OK(MPI_Type_create_hindexed(nb, len, disp, MPI_BYTE, &t));
  OK(MPI_Type_create_resized(t, 0, (MPI_Aint)PER * size, &r));
  OK(MPI_Type_commit(&r));
  MPI_Type_free(&t);
  return r;
}

static char value(int region, int r, int i) { return (char)('A' + (region * 7 + r * 3 + i) % 50); }

static void check_file(const char* path, int regions) {
  if (rank != 0) return;
  MPI_File fh;
  const int region_bytes = PER * size;
  char* all = calloc((size_t)(regions * region_bytes), 1);
  OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  OK(MPI_File_read_at(fh, 0, all, regions * region_bytes, MPI_BYTE, MPI_STATUS_IGNORE));
  OK(MPI_File_close(&fh));
  for (int g = 0; g < regions; g++)
    for (int r = 0; r < size; r++)
      for (int i = 0; i < PER; i++) {
        const int off = g * region_bytes + ((i / BLK) * size + r) * BLK + i % BLK;
        CHECK(all[off] == value(g, r, i), "region %d rank %d byte %d: file has %d, wanted %d", g, r, i, all[off],
              value(g, r, i));
      }
  free(all);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[512];
  io_path(MPI_COMM_WORLD, "ftmpi-io-nbcoll-view", path, sizeof path);
  const MPI_Offset region_bytes = (MPI_Offset)PER * size;
  MPI_Datatype ft = slice_type();
  char buf[2][PER], in[2][PER];
  for (int g = 0; g < 2; g++)
    for (int i = 0; i < PER; i++) buf[g][i] = value(g, rank, i);
  MPI_File fh;
  MPI_Request rq[2];

  /* 1. two pending iwrite_all, the view moved between the initiations */
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  for (int g = 0; g < 2; g++) {
    OK(MPI_File_set_view(fh, g * region_bytes, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    OK(MPI_File_iwrite_all(fh, buf[g], PER, MPI_BYTE, &rq[g]));
  }
  OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  OK(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  check_file(path, 2);

  /* 2. two pending iread_all, the view moved between the initiations */
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  memset(in, 0, sizeof in);
  for (int g = 0; g < 2; g++) {
    OK(MPI_File_set_view(fh, g * region_bytes, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    OK(MPI_File_iread_all(fh, in[g], PER, MPI_BYTE, &rq[g]));
  }
  OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
  for (int g = 0; g < 2; g++)
    for (int i = 0; i < PER; i++)
      CHECK(in[g][i] == buf[g][i], "iread_all region %d byte %d: %d, wanted %d", g, i, in[g][i], buf[g][i]);
  OK(MPI_File_close(&fh));

  /* 3. iwrite_at_all into region 2, then a view of another etype and displacement before the wait */
  char third[PER];
  for (int i = 0; i < PER; i++) third[i] = value(2, rank, i);
  OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  OK(MPI_File_set_view(fh, 2 * region_bytes, MPI_BYTE, ft, "native", MPI_INFO_NULL));
  OK(MPI_File_iwrite_at_all(fh, 0, third, PER, MPI_BYTE, &rq[0]));
  OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
  OK(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  check_file(path, 3);

  MPI_Type_free(&ft);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  check_pass("io_nbcoll_view");
  MPI_Finalize();
  return 0;
}
