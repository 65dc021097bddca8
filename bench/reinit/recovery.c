/* Reinit recovery time vs relaunching the job from a checkpoint (bench/reinit/run.sh drives it).
 *
 *   recovery reinit DIR   (mpiexec --with-ft reinit): a BSP loop with a file checkpoint every step; the last
 *                         rank kills itself at step 20 after writing the kill time; every rank notes when it
 *                         is back in its resilient function (and has read its checkpoint); rank 0 prints
 *                         "RECOVERY ms=<max back - kill>".
 *   recovery relaunch DIR T0   (plain mpiexec, started at CLOCK_REALTIME T0 by the script): MPI_Init, read
 *                         the checkpoint; rank 0 prints "RELAUNCH ms=<max ready - T0>".
 *   recovery prepare DIR  writes the checkpoints the relaunch reads. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CELLS 4096
static int rank, size;
static const char *dir;
static double field[CELLS];

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void store(int step) {
  char p[512], t[520];
  snprintf(p, sizeof p, "%s/ck.%d", dir, rank);
  snprintf(t, sizeof t, "%s.tmp", p);
  FILE *f = fopen(t, "wb");
  if (!f) return;
  fwrite(&step, sizeof step, 1, f);
  fwrite(field, sizeof field, 1, f);
  fclose(f);
  rename(t, p);
}

static int load(void) {
  char p[512];
  snprintf(p, sizeof p, "%s/ck.%d", dir, rank);
  FILE *f = fopen(p, "rb");
  int step = 0;
  if (!f) return 0;
  if (fread(&step, sizeof step, 1, f) != 1 || fread(field, sizeof field, 1, f) != 1) step = 0;
  fclose(f);
  return step;
}

static void resilient(void *arg) {
  (void)arg;
  int state, restarts;
  MPIX_Reinit_state(&state, &restarts);
  int step = 0;
  if (state != MPIX_REINIT_NEW) {
    step = load();
    double back = now(), latest = 0;
    MPI_Allreduce(&back, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* the asynchronous jump may have cut a rank's last store short (between write and rename): resume
     * from the oldest step anyone saved, or the ranks would run different numbers of steps */
    int mine = step;
    MPI_Allreduce(&mine, &step, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
      char p[512];
      snprintf(p, sizeof p, "%s/kill_time", dir);
      FILE *f = fopen(p, "r");
      double tk = 0;
      if (f && fscanf(f, "%lf", &tk) == 1) printf("RECOVERY n=%d ms=%.3f\n", size, (latest - tk) * 1e3);
      if (f) fclose(f);
    }
  } else {
    for (int i = 0; i < CELLS; ++i) field[i] = rank + i * 1e-3;
    store(0);
    /* RECOVERY_WAIT_MS: give the job's warm spares (--spares) time to reach MPI_Init before the kill
     * (bench/hosts/reinit_spares.sh) */
    const char *w = getenv("RECOVERY_WAIT_MS");
    if (w) {
      long ms = atol(w);
      struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
      nanosleep(&ts, NULL);
    }
  }
  for (; step < 30; ++step) {
    if (state == MPIX_REINIT_NEW && step == 20 && rank == size - 1) {
      char p[512];
      snprintf(p, sizeof p, "%s/kill_time", dir);
      FILE *f = fopen(p, "w");
      fprintf(f, "%.9f\n", now());
      fclose(f);
      raise(SIGKILL);
    }
    for (int i = 0; i < CELLS; ++i) field[i] = 0.5 * field[i] + 0.25;
    double s = field[0], t = 0;
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    store(step + 1);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  dir = argv[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  mkdir(dir, 0700);
  if (!strcmp(argv[1], "reinit")) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_REINIT_ASYNC);
    MPI_Reinit(resilient, NULL);
  } else if (!strcmp(argv[1], "prepare")) {
    for (int i = 0; i < CELLS; ++i) field[i] = rank;
    store(20);
  } else if (!strcmp(argv[1], "relaunch") && argc > 3) {
    double t0 = atof(argv[3]);
    int step = load();
    (void)step;
    double ready = now(), latest = 0;
    MPI_Allreduce(&ready, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) printf("RELAUNCH n=%d ms=%.3f\n", size, (latest - t0) * 1e3);
  }
  MPI_Finalize();
  return 0;
}
