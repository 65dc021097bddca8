/* A Reinit++ program (mpi-ext.h, OMPI_Reinit, three-parameter restart point) for host loss across hosts
 * (reinit_hosts_test.sh): a BSP loop of STEPS steps, each an Allreduce checked against its closed form
 * and a per-rank file checkpoint (step and running sum), with a short sleep per step so that the test
 * can take a host away mid-run.
 *   reinit_host CKPT_DIR wait            the host is killed from outside (netns.sh kill) once rank 0 wrote
 *                                        CKPT_DIR/started (step 5 of the first run)
 *   reinit_host CKPT_DIR getppid VICTIM  rank VICTIM does kill(getppid(), SIGTERM) at step 5 of the first
 *                                        run, as Reinit++ programs kill their node: its host daemon dies
 * Every entry into the restart point prints "rank R state S host H pid P restarts N" (the test checks that
 * the lost host's ranks came back RESTARTED on the spare host, the others REINITED where they were, and
 * with --spares, reinit_spares_test.sh, that the process that took a rank over was a warm spare: its pid).
 * REINIT_HOST_STEPS (default 40) sets the number of steps.
 * PASS (rank 0 prints "PASS reinit_host SUM"): every Allreduce right, the final running sum (the same for
 * every rank, agreed by an Allreduce MIN/MAX) equals the closed form, and at least one rollback happened. */
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

static long STEPS = 40;
static int rank, size;
static const char *mode = "wait";
static int victim = -1;

static void fail(const char *what) {
  printf("FAIL reinit_host rank %d: %s\n", rank, what);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static void nap(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static int resilient_main(int argc, char **argv, OMPI_reinit_state_t state) {
  (void)argc;
  char host[256] = "?", path[512];
  gethostname(host, sizeof host - 1);
  int st = 0, restarts = 0;
  MPIX_Reinit_state(&st, &restarts);
  printf("rank %d state %d host %s pid %d restarts %d\n", rank, (int)state, host, (int)getpid(), restarts);
  fflush(stdout);
  snprintf(path, sizeof path, "%s/ck.%d", argv[1], rank);
  long step = 0, acc = 0;
  if (state != OMPI_REINIT_NEW) {
    FILE *f = fopen(path, "r");
    if (f) {
      if (fscanf(f, "%ld %ld", &step, &acc) != 2) step = acc = 0;
      fclose(f);
    }
  }
  /* Every rank resumes from the oldest checkpoint of all (a rank may be one step ahead). */
  long from = step;
  MPI_Allreduce(&step, &from, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  if (from != step) { /* one step ahead: recompute the sum up to `from` */
    acc = 0;
    for (long s = 0; s < from; ++s) acc += (long)size * s + (long)size * (size - 1) / 2;
  }
  for (step = from; step < STEPS; ++step) {
    if (state == OMPI_REINIT_NEW && step == 5) {
      if (rank == 0) {
        char mark[512];
        snprintf(mark, sizeof mark, "%s/started", argv[1]);
        FILE *m = fopen(mark, "w");
        if (m) fclose(m);
      }
      if (strcmp(mode, "getppid") == 0 && rank == victim) {
        kill(getppid(), SIGTERM); /* Reinit++: this node is lost */
        for (;;) pause();
      }
    }
    long v = step + rank, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sum != (long)size * step + (long)size * (size - 1) / 2) fail("wrong Allreduce");
    acc += sum;
    FILE *f = fopen(path, "w");
    if (f) {
      fprintf(f, "%ld %ld\n", step + 1, acc);
      fclose(f);
    }
    nap(40);
  }
  long lo = 0, hi = 0;
  MPI_Allreduce(&acc, &lo, 1, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&acc, &hi, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  long want = 0;
  for (long s = 0; s < STEPS; ++s) want += (long)size * s + (long)size * (size - 1) / 2;
  if (lo != want || hi != want) fail("wrong final sum");
  if (rank == 0 && state == OMPI_REINIT_NEW) fail("finished without any rollback");
  if (rank == 0) printf("PASS reinit_host %ld\n", acc);
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) fail("usage: reinit_host CKPT_DIR wait|getppid [VICTIM]");
  mode = argv[2];
  if (getenv("REINIT_HOST_STEPS")) STEPS = atol(getenv("REINIT_HOST_STEPS"));
  if (argc > 3) victim = atoi(argv[3]);
  mkdir(argv[1], 0700);
  if (OMPI_Reinit(argc, argv, resilient_main) != 0) fail("OMPI_Reinit did not return the restart point's value");
  MPI_Finalize();
  return 0;
}
