/* ft_async_progress — a rank dies while the others compute with non-blocking operations pending, with the
 * asynchronous progress thread on. 3 ranks, --with-ft ulfm --async-progress.
 *
 * Ranks 0 and 1 post, without knowing that rank 2 is about to die: an Irecv from rank 2, an Iallreduce of
 * 4 MiB on MPI_COMM_WORLD, and a 4 MiB message from 0 to 1 (Isend/Irecv). Rank 2 dies 50 ms after the
 * barrier. Rank 1 then computes for 1 s without calling MPI; rank 0 waits for its 4 MiB send.
 * PASS when: rank 0's send completes successfully in less than 0.5 s (rank 1's thread pulled the message
 * while rank 1 computed, with a failure being processed meanwhile); the data is right; on both survivors the
 * Irecv from rank 2 ends with MPI_ERR_PROC_FAILED and the Iallreduce with MPI_ERR_PROC_FAILED or success
 * (ULFM collectives are not uniform); the survivors shrink and an Allreduce on the shrunk communicator
 * gives 0 + 1; nothing hangs (mpiexec --timeout). */
#include "ft_check.h"

#include <stdlib.h>
#include <string.h>

#define BIG (4u << 20)

static volatile double sink;
static void compute(double secs) {
  double t0 = ft_now(), x = 1.0;
  while (ft_now() - t0 < secs)
    for (int i = 0; i < 10000; i++) x = 0.999 * x + 0.5 / (1.0 + x * x);
  sink = x;
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 3, "needs 3 ranks");
  const int nothread = argc > 1 && strcmp(argv[1], "nothread") == 0; /* the same run without the thread */
  const size_t n = BIG / sizeof(double);
  double *a = malloc(BIG), *b = malloc(BIG), *m = malloc(BIG);
  CHECK(a && b && m);
  for (size_t i = 0; i < n; i++) a[i] = (double)i + rank;

  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == 2) {
    ft_sleep_ms(50);
    ft_die();
  }
  int from2 = 0;
  MPI_Request rdead, rcoll, rbig;
  CHECK_MPI(MPI_Irecv(&from2, 1, MPI_INT, 2, 5, MPI_COMM_WORLD, &rdead));
  CHECK_MPI(MPI_Iallreduce(a, b, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rcoll));
  if (rank == 0) {
    for (size_t i = 0; i < n; i++) m[i] = 2.0 * (double)i;
    double t0 = ft_now();
    CHECK_MPI(MPI_Isend(m, (int)n, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD, &rbig));
    CHECK_MPI(MPI_Wait(&rbig, MPI_STATUS_IGNORE));
    double t = ft_now() - t0;
    printf("rank 0: 4 MiB send done in %.1f ms while rank 1 computed (rank 2 died meanwhile)\n", t * 1e3);
    if (!nothread) CHECK(t < 0.5, "rank 1 made no progress while computing: the send took %.3f s", t);
  } else {
    CHECK_MPI(MPI_Irecv(m, (int)n, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, &rbig));
    compute(1.0);
    CHECK_MPI(MPI_Wait(&rbig, MPI_STATUS_IGNORE));
    for (size_t i = 0; i < n; i++) CHECK(m[i] == 2.0 * (double)i, "data at %zu", i);
  }
  CHECK_CLASS(MPI_Wait(&rdead, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
  int rc = MPI_Wait(&rcoll, MPI_STATUS_IGNORE);
  CHECK(check_class_of(rc) == MPI_SUCCESS || check_class_of(rc) == MPI_ERR_PROC_FAILED,
        "Iallreduce ended with %s", ft_class_name(rc));
  printf("rank %d: Irecv from the dead rank: proc-failed, Iallreduce: %s\n", rank, ft_class_name(rc));

  MPI_Comm s;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
  printf("rank %d: shrunk\n", rank);
  fflush(stdout);
  int one = rank, sum = -1;
  CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s));
  CHECK(sum == 1, "Allreduce over the survivors: %d", sum);
  CHECK_MPI(MPI_Comm_free(&s));
  printf("rank %d: allreduce over the survivors done\n", rank);
  fflush(stdout);
  free(a);
  free(b);
  free(m);
  ft_pass(MPI_COMM_WORLD, "ft_async_progress");
  MPI_Finalize();
  return 0;
}
