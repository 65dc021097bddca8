/* Reinit (seed 003) with real SIGKILLs: a bulk-synchronous loop (ring exchange + Allreduce per step) that
 * checkpoints to files every step, run inside MPI_Reinit. Ranks kill themselves according to a plan; the
 * launcher restarts them (mpiexec --with-ft reinit) and every rank rolls back into the resilient function.
 *
 * Usage: reinit_loop async|sync SCENARIO CKPT_DIR [mpmd=K]
 *   mpmd=K (5th argument): the job is two programs (mpiexec -n K prog ... : -n N-K prog2 ...); every process,
 *            restarted ones included, must see MPI_APPNUM 0 at ranks below K and 1 from rank K on
 *   single   rank 1 dies at step 5
 *   two      ranks 1 and 2 die at step 5 (two failures at once)
 *   during   rank 1 dies at step 5; its restarted process kills rank 3 while the survivors are in the
 *            middle of the epoch change (a failure during recovery)
 *   three    rank 1 at step 3, rank 2 at step 6, rank 0 at step 9 (three failures in a row)
 *   comm     rank 1 dies at step 5; after the rollback, a communicator made before it must be refused with
 *            a clear error (only WORLD, SELF and NULL are valid after a rollback)
 *   before   rank 1 dies before MPI_Reinit (the others are not inside it): the job must end (fatal)
 *   early    rank 1 dies at step 0, right after the first collective of the resilient function: every rank
 *            is inside MPI_Reinit, and MPI_Reinit returns to the program only once mpiexec confirmed its
 *            location, so this must roll back (never be taken for a failure outside MPI_Reinit)
 *   libc     as single, but every rank spends most of its time in malloc/free/snprintf/write between MPI
 *            calls: an asynchronous rollback must never jump out of libc half-way (a later malloc would
 *            deadlock on the arena lock it left held)
 *
 * PASS (rank 0 prints "PASS reinit_loop"): every step's Allreduce and ring message carry exactly the values
 * of that step (a message or collective of an older epoch would corrupt them), the final sum equals the
 * failure-free result, MPIX_Reinit_state reports NEW/REINITED/RESTARTED as expected and the number of
 * rollbacks the scenario implies. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1
#include <errno.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STEPS 12

static const char *scenario;
static const char *dir;
static int sync_mode;
static MPI_Comm old_dup = MPI_COMM_NULL;
static int rank, size;

static void fail(const char *what) {
  printf("FAIL reinit_loop rank %d: %s\n", rank, what);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static void path_of(char *buf, size_t n, const char *kind, int r) { snprintf(buf, n, "%s/%s.%d", dir, kind, r); }

/* Checkpoint: step and accumulated sum, written then renamed (a rank killed while writing leaves the
 * previous checkpoint intact). */
static void store(int step, long sum) {
  char p[512], tmp[520];
  path_of(p, sizeof p, "ckpt", rank);
  snprintf(tmp, sizeof tmp, "%s.tmp", p);
  FILE *f = fopen(tmp, "w");
  if (!f) fail("cannot write the checkpoint");
  fprintf(f, "%d %ld\n", step, sum);
  fclose(f);
  rename(tmp, p);
}

static int load(int *step, long *sum) {
  char p[512];
  path_of(p, sizeof p, "ckpt", rank);
  FILE *f = fopen(p, "r");
  if (!f) return 0;
  int ok = fscanf(f, "%d %ld", step, sum) == 2;
  fclose(f);
  return ok;
}

static void die_if(int victim, int at_step, int step, int restarts, int at_restarts) {
  if (rank == victim && step == at_step && restarts == at_restarts) raise(SIGKILL);
}

static void resilient(void *arg) {
  (void)arg;
  int state, restarts;
  MPIX_Reinit_state(&state, &restarts);
  if (state != MPIX_REINIT_NEW && state != MPIX_REINIT_REINITED && state != MPIX_REINIT_RESTARTED)
    fail("MPIX_Reinit_state gave an unknown state");
  if (state == MPIX_REINIT_NEW && restarts != 0) fail("NEW with restarts != 0");
  if (state != MPIX_REINIT_NEW && restarts == 0) fail("rolled back or restarted with restarts == 0");

  if (!strcmp(scenario, "comm") && state == MPIX_REINIT_REINITED) {
    int rc = MPI_Barrier(old_dup);
    int cls = MPI_SUCCESS;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    if (cls != MPI_ERR_COMM) fail("a communicator of the old epoch was not refused with MPI_ERR_COMM");
    if (rank == 0) printf("old communicator refused: %s\n", msg);
  }
  if (!strcmp(scenario, "comm") && state == MPIX_REINIT_NEW) MPI_Comm_dup(MPI_COMM_WORLD, &old_dup);

  int step = 0;
  long sum = 0;
  if (state == MPIX_REINIT_NEW) {
    store(0, 0);
  } else if (!load(&step, &sum)) {
    fail("no checkpoint to resume from");
  }
  /* Checkpoints are global: resume from the oldest step any rank saved (a rank killed between the
   * Allreduce and its store is one step behind). */
  int from = step;
  MPI_Allreduce(&step, &from, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (from != step) {
    /* recompute: sum is a function of the step (rank-independent) */
    sum = 0;
    for (int s = 0; s < from; ++s) sum += (long)size * (size - 1) / 2 + (long)size * s;
    step = from;
  }
  for (; step < STEPS; ++step) {
    if (!strcmp(scenario, "libc")) {
      /* ~5 ms of libc per step: lock-taking allocations, formatting, a system call */
      char *keep[64];
      for (int round = 0; round < 40; ++round) {
        for (int i = 0; i < 64; ++i) {
          keep[i] = malloc(64 + (size_t)(i * 97 + round) % 4000);
          snprintf(keep[i], 64, "%d %d %f", round, i, round * 0.5);
        }
        for (int i = 0; i < 64; ++i) free(keep[i]);
      }
      FILE *null = fopen("/dev/null", "w");
      if (null) {
        fprintf(null, "step %d\n", step);
        fclose(null);
      }
    }
    if (!strcmp(scenario, "single") || !strcmp(scenario, "comm") || !strcmp(scenario, "during") ||
        !strcmp(scenario, "libc"))
      die_if(1, 5, step, restarts, 0);
    if (!strcmp(scenario, "early")) die_if(1, 0, step, restarts, 0);
    if (!strcmp(scenario, "two")) {
      die_if(1, 5, step, restarts, 0);
      die_if(2, 5, step, restarts, 0);
    }
    if (!strcmp(scenario, "three")) {
      die_if(1, 3, step, restarts, 0);
      die_if(2, 6, step, restarts, 1);
      die_if(0, 9, step, restarts, 2);
    }
    /* ring: send (step, rank) right, receive from the left */
    int out[2] = {step, rank}, in[2] = {-1, -1};
    int rc = MPI_Sendrecv(out, 2, MPI_INT, (rank + 1) % size, step, in, 2, MPI_INT, (rank + size - 1) % size, step,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long contrib = rank + step, total = -1;
    if (rc == MPI_SUCCESS) rc = MPI_Allreduce(&contrib, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sync_mode) {
      MPI_Test_failure(); /* jumps back when a failure was detected */
      if (rc != MPI_SUCCESS) {
        /* the error arrived before the failure notice: wait for it (seed 003: errors return until
         * MPI_Test_failure jumps) */
        for (int i = 0; i < 20000; ++i) {
          MPI_Test_failure();
          usleep(500);
        }
        fail("an operation failed but MPI_Test_failure never rolled back");
      }
    } else if (rc != MPI_SUCCESS) {
      fail("an operation returned an error under MPI_ERRORS_REINIT_ASYNC");
    }
    if (in[0] != step || in[1] != (rank + size - 1) % size) fail("ring message of another step or epoch");
    if (total != (long)size * (size - 1) / 2 + (long)size * step) fail("Allreduce of another step or epoch");
    sum += total;
    store(step + 1, sum);
  }
  long expect = 0;
  for (int s = 0; s < STEPS; ++s) expect += (long)size * (size - 1) / 2 + (long)size * s;
  if (sum != expect) fail("wrong final sum");
  int want = 0;
  if (!strcmp(scenario, "single") || !strcmp(scenario, "comm") || !strcmp(scenario, "libc") ||
      !strcmp(scenario, "early"))
    want = 1;
  if (!strcmp(scenario, "during")) want = 2;
  if (!strcmp(scenario, "three")) want = 3;
  if (!strcmp(scenario, "two") ? (restarts < 1 || restarts > 2) : restarts != want) {
    char m[96];
    snprintf(m, sizeof m, "%d rollbacks, expected %d", restarts, want);
    fail(m);
  }
  if (rank == 0) printf("finished %d steps after %d rollback(s), sum %ld\n", STEPS, restarts, sum);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s async|sync SCENARIO CKPT_DIR\n", argv[0]);
    return 2;
  }
  sync_mode = !strcmp(argv[1], "sync");
  scenario = argv[2];
  dir = argv[3];
  MPI_Init(&argc, &argv);
  /* set in a restarted process: by mpiexec, or inside MPI_Init when a warm spare (--spares) took the rank */
  const char *epoch = getenv("FTMPI_REINIT_EPOCH");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mkdir(dir, 0700);
  char p[512];
  path_of(p, sizeof p, "pid", rank);
  FILE *f = fopen(p, "w");
  if (f) {
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
  }
  if (!strcmp(scenario, "during") && rank == 1 && epoch && atoi(epoch) == 1) {
    /* restarted rank 1: the survivors are rolling back into epoch 1 now; kill rank 3 in the middle */
    path_of(p, sizeof p, "pid", 3);
    f = fopen(p, "r");
    int pid = 0;
    if (f && fscanf(f, "%d", &pid) == 1 && pid > 0) kill(pid, SIGKILL);
    if (f) fclose(f);
  }
  if (argc > 4 && !strncmp(argv[4], "mpmd=", 5)) {
    int flag = 0, *appnum = NULL;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    if (!flag || *appnum != (rank >= atoi(argv[4] + 5) ? 1 : 0)) fail("MPI_APPNUM is not this rank's program's position");
    if (epoch) printf("restarted rank %d: appnum %d\n", rank, *appnum);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, sync_mode ? MPI_ERRORS_REINIT_SYNC : MPI_ERRORS_REINIT_ASYNC);
  if (!strcmp(scenario, "before")) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) raise(SIGKILL);
    sleep(5); /* the launcher ends the job before this returns */
    printf("FAIL reinit_loop rank %d: a failure before MPI_Reinit did not end the job\n", rank);
    MPI_Finalize();
    return 1;
  }
  MPI_Reinit(resilient, NULL);
  if (rank == 0) printf("PASS reinit_loop %s %s\n", argv[1], scenario);
  MPI_Finalize();
  return 0;
}
