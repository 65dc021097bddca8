/* icount_late [iters] [sleep_us] — instructions of MPI_Allreduce (8 B), MPIX_Comm_agree and an empty TryBlock commit
 * (MPI_Tryblock_start + finish + MPI_Request_free) at a rank whose calls never wait: every rank but 0 sleeps
 * `sleep_us` outside MPI before each call (bench/famp/icount_late.sh runs it under callgrind). LATE_OP=0|1|2
 * runs one operation only (after the Allreduce warm-up that sets the shared-memory area up); LATE_PRINT=1
 * prints per-call times. */
#include <mpi.h>
#include <mpi-ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static void pause_us(long us) { struct timespec t = {0, us * 1000}; nanosleep(&t, NULL); }
#define OPS(sfx) \
__attribute__((noinline)) void allreduce##sfx(void) { double x = 1, y; MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); } \
__attribute__((noinline)) void agree##sfx(void) { int f = 1; if (MPIX_Comm_agree(MPI_COMM_WORLD, &f) != MPI_SUCCESS) abort(); } \
__attribute__((noinline)) void commit##sfx(void) { \
  MPI_Request tb; \
  MPI_Tryblock_start(MPI_COMM_WORLD, MPI_TRYBLOCK_GLOBAL, &tb); \
  if (MPI_Tryblock_finish(tb, 0, NULL) != MPI_SUCCESS) abort(); \
  MPI_Request_free(&tb); \
}
OPS(_warm)
OPS(_timed)
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long it = argc > 1 ? atol(argv[1]) : 200, us = argc > 2 ? atol(argv[2]) : 2000;
  void (*warm[3])(void) = {allreduce_warm, agree_warm, commit_warm};
  void (*timed[3])(void) = {allreduce_timed, agree_timed, commit_timed};
  const char *only = getenv("LATE_OP");
  for (long i = 0; i < 20; i++) warm[0]();  /* the shm area is set up by small collectives */
  for (int w = 0; w < 3; w++) {
    if (only && atoi(only) != w) continue;
    for (long i = 0; i < 20; i++) warm[w]();
    double t = 0, mx = 0;
    for (long i = 0; i < it; i++) { if (rank != 0) pause_us(us); double t0 = MPI_Wtime(); timed[w](); double d = MPI_Wtime() - t0; t += d; if (d > mx) mx = d; }
    if (getenv("LATE_PRINT")) printf("rank %d op %d mean %.2f us max %.2f us\n", rank, w, t / it * 1e6, mx * 1e6);
  }
  MPI_Finalize();
  return 0;
}
