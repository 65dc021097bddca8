/* A Reinit++ program (LLNL's Open MPI fork), unchanged: mpi-ext.h, OMPI_Reinit right after MPI_Init, a
 * three-parameter restart point (reinit_pp5.c: five parameters, with the failed ranks), run with the
 * Reinit++ run line (--mca orte_enable_recovery 1 --mca pml ^cm ...). Rank 1 kills itself at step 4 of its
 * first run; the launcher restarts it (RESTARTED) and the others roll back (REINITED).
 * PASS (rank 0 prints "PASS reinit_pp"): the restart point sees NEW, then REINITED (survivors) or RESTARTED
 * (rank 1), OMPI_Reinit_state agrees, the five-parameter form gets exactly {1} as failed ranks, and every
 * step's Allreduce is right. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define STEPS 8
static int rank, size;

static void fail(const char *what) {
  printf("FAIL reinit_pp rank %d: %s\n", rank, what);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static int body(char **argv, OMPI_reinit_state_t state) {
  char path[512];
  snprintf(path, sizeof path, "%s/pp.%d", argv[1], rank);
  int q = -1;
  OMPI_Reinit_state(&q);
  if (q != (int)state) fail("OMPI_Reinit_state disagrees with the restart point's state");
  if (rank == 1 && state == OMPI_REINIT_REINITED) fail("the killed rank came back as REINITED");
  if (rank != 1 && state == OMPI_REINIT_RESTARTED) fail("a survivor came back as RESTARTED");
  int step = 0;
  if (state != OMPI_REINIT_NEW) {
    FILE *f = fopen(path, "r");
    if (!f || fscanf(f, "%d", &step) != 1) fail("no checkpoint");
    fclose(f);
  }
  int from = step;
  MPI_Allreduce(&step, &from, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  for (step = from; step < STEPS; ++step) {
    if (rank == 1 && step == 4 && state == OMPI_REINIT_NEW) raise(SIGKILL);
    int v = step + rank, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * step + size * (size - 1) / 2) fail("wrong Allreduce");
    FILE *f = fopen(path, "w");
    if (f) {
      fprintf(f, "%d\n", step + 1);
      fclose(f);
    }
  }
  if (rank == 0 && state == OMPI_REINIT_NEW) fail("finished without any rollback");
  return 0;
}

#ifdef FIVE
static int resilient_main(int argc, char **argv, OMPI_reinit_state_t state, int num_failed_procs, int *failed_procs) {
  (void)argc;
  if (state == OMPI_REINIT_NEW && num_failed_procs != 0) fail("failed ranks on the first run");
  if (state != OMPI_REINIT_NEW && (num_failed_procs != 1 || failed_procs[0] != 1)) fail("failed ranks are not {1}");
  return body(argv, state);
}
#else
static int resilient_main(int argc, char **argv, OMPI_reinit_state_t state) {
  (void)argc;
  return body(argv, state);
}
#endif

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) fail("usage: reinit_pp CKPT_DIR");
  mkdir(argv[1], 0700);
  int rc = OMPI_Reinit(argc, argv, resilient_main);
  if (rc != 0) fail("OMPI_Reinit did not return the restart point's value");
  if (rank == 0) printf("PASS reinit_pp\n");
  MPI_Finalize();
  return 0;
}
