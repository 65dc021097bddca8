/* ft_iagree_overlap — MPIX_Comm_iagree overlapping computation. 4 ranks, --with-ft ulfm.
 *
 * Round 1 (no failure): each rank starts iagree, then computes (a few thousand floating-point operations per
 * step) calling MPI_Test between steps until the agreement completes; rank r waits r*20 ms before starting,
 * so early ranks must keep computing while late ones join.
 * Round 2: same, and rank 3 dies right after starting its iagree.
 *
 * PASS when: round 1 completes with MPI_SUCCESS and the AND on every rank, and the early ranks computed
 * while waiting (rank 0 did at least one step); round 2 completes on every survivor through Test (success or
 * MPI_ERR_PROC_FAILED) with every survivor's bit cleared, all survivors deciding the same flag; nothing hangs. */
#include "ft_check.h"

static double work_step(double x) {
  for (int i = 0; i < 2000; i++) x = 0.999 * x + 0.5 / (1.0 + x * x);
  return x;
}

/* Start iagree with `flag` and compute until Test says done. Returns the code; *steps the steps done. */
static int overlap(int *flag, long *steps, double *acc) {
  MPI_Request req;
  CHECK_MPI(MPIX_Comm_iagree(MPI_COMM_WORLD, flag, &req));
  int done = 0, rc = MPI_SUCCESS;
  double t0 = ft_now();
  *steps = 0;
  while (!done) {
    *acc = work_step(*acc);
    (*steps)++;
    rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) break; /* an error completes (and frees) the request */
    CHECK(ft_now() - t0 < 20.0, "iagree did not complete in 20 s");
  }
  return rc;
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 4, "needs 4 ranks");
  double acc = rank;
  long steps = 0;

  ft_sleep_ms(20 * rank);
  int flag = ~(1 << rank);
  CHECK_MPI(overlap(&flag, &steps, &acc));
  CHECK(flag == ~0xf, "round 1 flag %#x", flag);
  if (rank == 0) CHECK(steps >= 1, "rank 0 computed %ld steps while agreeing", steps);
  ft_barrier_before_death(MPI_COMM_WORLD);

  flag = ~(1 << rank);
  if (rank == 3) {
    MPI_Request req;
    CHECK_MPI(MPIX_Comm_iagree(MPI_COMM_WORLD, &flag, &req));
    ft_die();
  }
  CHECK_CLASS2(overlap(&flag, &steps, &acc), MPI_SUCCESS, MPI_ERR_PROC_FAILED);
  CHECK((flag & 0x7) == 0 && (flag & ~0xf) == ~0xf, "round 2 flag %#x", flag);
  MPI_Comm s;
  CHECK_MPI(MPIX_Comm_shrink(MPI_COMM_WORLD, &s));
  int flags[3] = {0};
  CHECK_MPI(MPI_Allgather(&flag, 1, MPI_INT, flags, 1, MPI_INT, s));
  for (int i = 0; i < 3; i++) CHECK(flags[i] == flag, "survivors disagree: %#x vs %#x", flags[i], flag);
  CHECK_MPI(MPI_Comm_free(&s));
  if (rank == 0) printf("rank 0: %ld compute steps overlapped the last agreement (acc %.3f)\n", steps, acc);

  ft_pass(MPI_COMM_WORLD, "ft_iagree_overlap");
  MPI_Finalize();
  return 0;
}
