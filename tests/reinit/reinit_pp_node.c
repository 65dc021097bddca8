/* Reinit++'s simulated node failure on ONE host: a rank calls kill(getppid(), SIGTERM), as Reinit++ programs
 * do to kill their node's daemon. Run by mpiexec on one host, the rank's parent is mpiexec itself: the job
 * must go on as a lost host's would — every rank of the host fails at once and restarts there. Three such
 * losses (by rank size-1 at step 3, rank 0 at step 6, rank 1 at step 9); the signalling rank keeps running
 * after its kill (as Reinit++ programs do) until it is stopped, or with a second argument `raise` kills
 * itself at once (raise(SIGKILL)): mpiexec may then see its death before the signal.
 * PASS (rank 0 prints "PASS reinit_pp_node"; mpiexec exits 0): every incarnation after a loss starts
 * RESTARTED (OMPI_Reinit_state agrees) with all ranks 0..size-1 as failed ranks, resumes from the file
 * checkpoint, every step's Allreduce is right, and all three losses happened before the end. The job needs
 * three failures against --max-restarts, not 3 x size restarts (the default limit is 16). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STEPS 12
static int rank, size;
static const char *dir;
static int raise_after;

static void fail(const char *what) {
  printf("FAIL reinit_pp_node rank %d: %s\n", rank, what);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static int exists(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  struct stat st;
  return stat(path, &st) == 0;
}

static void touch(const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f) fclose(f);
}

/* The checkpoint is replaced atomically: the signalling rank and the others keep running for a moment
 * after the kill, and a rank stopped mid-write must not leave a torn file. */
static void save(int step) {
  char path[512], tmp[520];
  snprintf(path, sizeof path, "%s/node.%d", dir, rank);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  if (!f) fail("cannot write the checkpoint");
  fprintf(f, "%d\n", step);
  fclose(f);
  rename(tmp, path);
}

static int load(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/node.%d", dir, rank);
  int step = 0;
  FILE *f = fopen(path, "r");
  if (f) {
    if (fscanf(f, "%d", &step) != 1) step = 0;
    fclose(f);
  }
  return step;
}

static int resilient_main(int argc, char **argv, OMPI_reinit_state_t state, int num_failed, int *failed) {
  (void)argc;
  (void)argv;
  int q = -1;
  OMPI_Reinit_state(&q);
  if (q != (int)state) fail("OMPI_Reinit_state disagrees with the restart point's state");
  if (state == OMPI_REINIT_REINITED) fail("a rank survived the loss of the only host (REINITED)");
  if (state == OMPI_REINIT_NEW && num_failed != 0) fail("failed ranks on the first run");
  if (state == OMPI_REINIT_NEW) { /* a first run: what an earlier run left in the directory goes */
    char path[512];
    snprintf(path, sizeof path, "%s/node.%d", dir, rank);
    unlink(path);
    for (int k = 1; rank == 0 && k <= 3; ++k) {
      snprintf(path, sizeof path, "%s/loss.%d", dir, k);
      unlink(path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (state == OMPI_REINIT_RESTARTED) {
    if (num_failed != size) fail("the failed ranks are not every rank of the host");
    for (int i = 0; i < num_failed; ++i)
      if (failed[i] < 0 || failed[i] >= size) fail("a failed rank out of range");
    for (int i = 0; i < num_failed; ++i)
      for (int j = i + 1; j < num_failed; ++j)
        if (failed[i] == failed[j]) fail("a failed rank listed twice");
  }
  int step = load(), from = 0;
  MPI_Allreduce(&step, &from, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  static const int at[3] = {3, 6, 9};
  for (step = from; step < STEPS; ++step) {
    for (int k = 0; k < 3; ++k) {
      int killer = k == 0 ? size - 1 : k == 1 ? 0 : 1;
      char mark[32];
      snprintf(mark, sizeof mark, "loss.%d", k + 1);
      if (step == at[k] && rank == killer && !exists(mark)) {
        touch(mark);
        kill(getppid(), SIGTERM);  /* and go on, as Reinit++ programs do, until the launcher stops us */
        if (raise_after) raise(SIGKILL);
      }
    }
    int v = step + rank, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * step + size * (size - 1) / 2) fail("wrong Allreduce");
    save(step + 1);
    struct timespec pause = {0, 20000000};
    nanosleep(&pause, NULL);
  }
  if (!exists("loss.1") || !exists("loss.2") || !exists("loss.3")) fail("finished before the three losses");
  if (state != OMPI_REINIT_RESTARTED) fail("finished without a restart after the last loss");
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) fail("usage: reinit_pp_node CKPT_DIR");
  dir = argv[1];
  raise_after = argc > 2 && !strcmp(argv[2], "raise");
  mkdir(dir, 0700);
  int rc = OMPI_Reinit(argc, argv, resilient_main);
  if (rc != 0) fail("OMPI_Reinit did not return the restart point's value");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("PASS reinit_pp_node\n");
  MPI_Finalize();
  return 0;
}
