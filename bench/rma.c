/* bench/rma.c — one-sided micro-benchmark, portable MPI (ftmpi, Open MPI, MPICH; bench/rma_run.sh).
 * 2 ranks: rank 0 is the origin, rank 1 the target (it waits in MPI_Barrier, so passive-target progress
 * comes from inside another MPI call). Passive target with MPI_Win_lock_all on a window of MPI_Win_allocate
 * (default, or argument "allocate"), of MPI_Win_create over malloc'ed memory ("create"), or of
 * MPI_Win_create_dynamic with one attached malloc'ed region ("dynamic"; target displacements are addresses).
 *   put_lat / get_lat <bytes>: one MPI_Put (MPI_Get) + MPI_Win_flush, microseconds per operation
 *   put_bw <bytes>: 16 puts then one flush, MB/s
 *   acc_rate: MPI_Accumulate(1 double, MPI_SUM) x 1000 then one flush, operations per second
 *   acc_int: MPI_Accumulate(1 int, MPI_SUM) x 1000 then one flush, operations per second
 *   fop_rate: MPI_Fetch_and_op(MPI_SUM, long) x 1000 then one flush, operations per second
 *   fadd_lat: MPI_Fetch_and_op(MPI_SUM, long) + flush, microseconds
 *   cas_lat: MPI_Compare_and_swap(long) + flush, microseconds */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXB (4 << 20)

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) printf("needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const char *flavor = argc > 1 ? argv[1] : "allocate";
  char *base = NULL;
  MPI_Win win;
  MPI_Aint tb = 0; /* target displacement of the window's first byte (an address for dynamic windows) */
  if (!strcmp(flavor, "create")) {
    base = malloc(MAXB);
    MPI_Win_create(base, MAXB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  } else if (!strcmp(flavor, "dynamic")) {
    base = malloc(MAXB);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, base, MAXB);
    MPI_Aint mine;
    MPI_Get_address(base, &mine);
    MPI_Bcast(&mine, 1, MPI_AINT, 1, MPI_COMM_WORLD);
    tb = mine;
  } else {
    MPI_Win_allocate(MAXB, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  }
  memset(base, 0, MAXB);
  char *buf = malloc(MAXB);
  memset(buf, 1, MAXB);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock_all(0, win);
    static const int lat_sizes[] = {8, 1024, 65536};
    for (int s = 0; s < 3; s++) {
      int n = lat_sizes[s], it = n > 4096 ? 300 : 2000;
      for (int k = 0; k < 50; k++) { MPI_Put(buf, n, MPI_BYTE, 1, tb, n, MPI_BYTE, win); MPI_Win_flush(1, win); }
      double t = MPI_Wtime();
      for (int k = 0; k < it; k++) { MPI_Put(buf, n, MPI_BYTE, 1, tb, n, MPI_BYTE, win); MPI_Win_flush(1, win); }
      printf("put_lat %d %.2f\n", n, (MPI_Wtime() - t) / it * 1e6);
      t = MPI_Wtime();
      for (int k = 0; k < it; k++) { MPI_Get(buf, n, MPI_BYTE, 1, tb, n, MPI_BYTE, win); MPI_Win_flush(1, win); }
      printf("get_lat %d %.2f\n", n, (MPI_Wtime() - t) / it * 1e6);
    }
    static const int bw_sizes[] = {65536, 1 << 20, 4 << 20};
    for (int s = 0; s < 3; s++) {
      int n = bw_sizes[s], it = n >= (1 << 20) ? 10 : 50;
      double t = MPI_Wtime();
      for (int k = 0; k < it; k++) {
        for (int w = 0; w < 16; w++) MPI_Put(buf, n, MPI_BYTE, 1, tb, n, MPI_BYTE, win);
        MPI_Win_flush(1, win);
      }
      printf("put_bw %d %.1f\n", n, (double)n * 16 * it / (MPI_Wtime() - t) / 1e6);
    }
    double one = 1.0;
    double t = MPI_Wtime();
    for (int r = 0; r < 20; r++) {
      for (int k = 0; k < 1000; k++) MPI_Accumulate(&one, 1, MPI_DOUBLE, 1, tb, 1, MPI_DOUBLE, MPI_SUM, win);
      MPI_Win_flush(1, win);
    }
    printf("acc_rate 8 %.0f\n", 20000.0 / (MPI_Wtime() - t));
    int ione = 1;
    t = MPI_Wtime();
    for (int r = 0; r < 20; r++) {
      for (int k = 0; k < 1000; k++) MPI_Accumulate(&ione, 1, MPI_INT, 1, tb + 128, 1, MPI_INT, MPI_SUM, win);
      MPI_Win_flush(1, win);
    }
    printf("acc_int 4 %.0f\n", 20000.0 / (MPI_Wtime() - t));
    long inc = 1, old, cmp = 0;
    t = MPI_Wtime();
    for (int r = 0; r < 20; r++) {
      for (int k = 0; k < 1000; k++) MPI_Fetch_and_op(&inc, &old, MPI_LONG, 1, tb + 64, MPI_SUM, win);
      MPI_Win_flush(1, win);
    }
    printf("fop_rate 8 %.0f\n", 20000.0 / (MPI_Wtime() - t));
    t = MPI_Wtime();
    for (int k = 0; k < 2000; k++) { MPI_Fetch_and_op(&inc, &old, MPI_LONG, 1, tb + 64, MPI_SUM, win); MPI_Win_flush(1, win); }
    printf("fadd_lat 8 %.2f\n", (MPI_Wtime() - t) / 2000 * 1e6);
    t = MPI_Wtime();
    for (int k = 0; k < 2000; k++) {
      MPI_Compare_and_swap(&inc, &cmp, &old, MPI_LONG, 1, tb + 192, win);
      MPI_Win_flush(1, win);
      cmp = old;
    }
    printf("cas_lat 8 %.2f\n", (MPI_Wtime() - t) / 2000 * 1e6);
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (!strcmp(flavor, "dynamic")) MPI_Win_detach(win, base);
  MPI_Win_free(&win);
  if (strcmp(flavor, "allocate")) free(base);
  free(buf);
  MPI_Finalize();
  return 0;
}
