/* tryblock_bench [iters] — cost of FA-MPI TryBlocks (ftmpi only; run with bench/famp/run.sh).
 * Per iteration, averaged over `iters` (after iters/10 warm-up), every rank:
 *   allreduce8   MPI_Allreduce of one double (8 bytes)                        — the reference
 *   commit       MPI_Tryblock_start (local) + MPI_Tryblock_finish of 0 requests: the empty commit (one agreement)
 *   seed_block   MPI_TryBlock_start + MPI_TryBlock_waitall with an int injection (start + commit: two agreements)
 *   halo         ring halo exchange (2 Irecv + 2 Isend of 8 bytes, MPI_Waitall)
 *   halo_block   the same exchange inside a block (MPI_Tryblock_start .. MPI_Tryblock_finish of its 4 requests)
 *   agree        MPIX_Comm_agree of one int: the agreement a commit is built on (its floor)
 * The variants run interleaved in rounds (each round: every variant for `iters`/rounds iterations, after a
 * warm-up), so that a loaded machine hurts them alike; per round the figure is the maximum over ranks of the
 * per-iteration average. Rank 0 prints, per variant, the minimum and the median over the rounds and the
 * medians' ratio to allreduce8. */
#include <mpi.h>
#include <mpi-ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void halo(double *out, double *in, MPI_Request r[4]) {
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  MPI_Irecv(&in[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&in[1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(&out[0], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &r[2]);
  MPI_Isend(&out[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &r[3]);
}

static double run(int which, long iters) {
  double x = 1, y = 0, out[2] = {1, 2}, in[2];
  MPI_Request r[4], tb;
  int inj = 0, g[1024], f;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = 0;
  const long warm = iters / 10 + 1;
  for (long i = 0; i < warm + iters; i++) {
    if (i == warm) {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    switch (which) {
      case 0: MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); break;
      case 1:
        MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &tb);
        if (MPI_Tryblock_finish(tb, 0, NULL) != MPI_SUCCESS) abort();
        MPI_Request_free(&tb);
        break;
      case 2:
        MPI_TryBlock_start(MPI_COMM_WORLD, MPI_INT, &inj, g, MPI_TIMEOUT_ZERO, &tb);
        if (MPI_TryBlock_waitall(tb, &f, MPI_STATUS_IGNORE, MPI_INT, &inj, g, MPI_TIMEOUT_ZERO, 0, NULL, NULL, NULL,
                                 NULL) != MPI_SUCCESS)
          abort();
        MPI_Request_free(&tb);
        break;
      case 3:
        halo(out, in, r);
        MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        break;
      case 4:
        MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &tb);
        halo(out, in, r);
        if (MPI_Tryblock_finish(tb, 4, r) != MPI_SUCCESS) abort();
        MPI_Request_free(&tb);
        break;
      case 5: {
        int flag = 1;
        if (MPIX_Comm_agree(MPI_COMM_WORLD, &flag) != MPI_SUCCESS) abort();
        break;
      }
    }
  }
  double us = (MPI_Wtime() - t0) / (double)iters * 1e6, mx = 0;
  MPI_Allreduce(&us, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return mx;
}

#define NV 6
#define MAX_ROUNDS 64

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long iters = argc > 1 ? atol(argv[1]) : 2000;
  int rounds = argc > 2 ? atoi(argv[2]) : 10;
  if (rounds < 1) rounds = 1;
  if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
  long per = iters / rounds > 0 ? iters / rounds : 1;
  static const char *names[NV] = {"allreduce8", "commit", "seed_block", "halo", "halo_block", "agree"};
  static double t[NV][MAX_ROUNDS];
  for (int k = 0; k < rounds; k++)
    for (int w = 0; w < NV; w++) t[w][k] = run(w, per);
  if (rank == 0) {
    double med[NV], mn[NV];
    for (int w = 0; w < NV; w++) {
      qsort(t[w], (size_t)rounds, sizeof(double), cmp_double);
      mn[w] = t[w][0];
      med[w] = t[w][rounds / 2];
    }
    for (int w = 0; w < NV; w++)
      printf("%-11s %3d ranks  min %9.2f us  median %9.2f us  %6.2fx allreduce8 (median)  %6.2fx (min)\n", names[w], size,
             mn[w], med[w], med[w] / med[0], mn[w] / mn[0]);
  }
  MPI_Finalize();
  return 0;
}
