/* heat_reinit — the heat demo in Reinit form (seed 003): a 1-D heat equation that survives the loss of a
 * rank by global restart.
 *
 *   mpiexec -n 6 --with-ft reinit --inject rank=2,at=MPI_Allreduce:150 ./heat_reinit CKPT_DIR [cells] [steps]
 *
 * The rod of `cells` cells (ends held at 0) is cut into one contiguous range per rank. Each step exchanges
 * halo cells with the neighbours, updates u += a (u[i-1] - 2 u[i] + u[i+1]) and computes the total heat with
 * MPI_Allreduce. Every CKPT_EVERY steps each rank writes its range to a file (write, then rename), and the
 * ranks agree (MPI_Allreduce MIN) on the newest step everybody has saved.
 *
 * Everything runs inside MPI_Reinit with MPI_ERRORS_REINIT_ASYNC: when a rank dies, mpiexec restarts it and
 * every rank — survivors and the new process — re-enters the resilient function, reads its newest
 * checkpoint, agrees on the step to resume from, and goes on, still on all ranks. The program has no error
 * handling at all. At the end rank 0 gathers the rod, recomputes the whole run sequentially and compares:
 * the results must be bit-identical. Output: a timeline (t = seconds since the start of this process), then
 * "PASS heat_reinit". */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define CKPT_EVERY 50
#define ALPHA 0.4

static int rank, size, cells = 3000, steps = 600, lo, hi;
static const char *dir;
static double t0;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double initial(int i) {
  double x = (i + 0.5) / cells;
  double u = 400.0 * x * (1.0 - x);
  if (i >= cells / 3 && i < cells / 3 + cells / 50 + 1) u += 500.0;
  return u;
}

static void update(const double *u, double *out, int n) {
  for (int i = 1; i <= n; i++) out[i] = u[i] + ALPHA * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

static void ckpt_path(char *p, size_t n, int step) { snprintf(p, n, "%s/heat.%d.%d", dir, rank, step); }

static void save(const double *u, int n, int step) {
  char p[512], tmp[520];
  ckpt_path(p, sizeof p, step);
  snprintf(tmp, sizeof tmp, "%s.tmp", p);
  FILE *f = fopen(tmp, "wb");
  if (!f) return;
  fwrite(u + 1, sizeof(double), (size_t)n, f);
  fclose(f);
  rename(tmp, p);
}

static int restore(double *u, int n, int step) {
  char p[512];
  ckpt_path(p, sizeof p, step);
  FILE *f = fopen(p, "rb");
  if (!f) return 0;
  int ok = fread(u + 1, sizeof(double), (size_t)n, f) == (size_t)n;
  fclose(f);
  return ok;
}

static void resilient(void *arg) {
  (void)arg;
  int state, restarts;
  MPIX_Reinit_state(&state, &restarts);
  int n = hi - lo;
  double *u = calloc((size_t)n + 2, sizeof(double)), *v = calloc((size_t)n + 2, sizeof(double));
  int step = 0;
  if (state == MPIX_REINIT_NEW) {
    char p[512];
    for (int s = 0; s <= steps; s += CKPT_EVERY) { /* checkpoints of an earlier run are not ours */
      ckpt_path(p, sizeof p, s);
      remove(p);
    }
    for (int i = 0; i < n; ++i) u[i + 1] = initial(lo + i);
    save(u, n, 0);
  } else {
    /* newest checkpoint this rank has (a rank killed while saving may be one behind) */
    int mine = 0;
    for (int s = steps; s >= 0; s -= CKPT_EVERY)
      if (s % CKPT_EVERY == 0 && restore(u, n, s)) {
        mine = s;
        break;
      }
    MPI_Allreduce(&mine, &step, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!restore(u, n, step)) {
      printf("FAIL heat_reinit: rank %d has no checkpoint of step %d\n", rank, step);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (rank == 0)
      printf("t=%6.3fs  %s after a failure (rollback %d): every rank resumes from the checkpoint of step %d\n",
             now() - t0, state == MPIX_REINIT_REINITED ? "rolled back" : "restarted", restarts, step);
  }
  for (; step < steps; ++step) {
    MPI_Status st;
    int left = rank - 1, right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    if (left < 0) left = MPI_PROC_NULL;
    u[0] = 0.0;
    u[n + 1] = 0.0;
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &st);
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 2, &u[0], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &st);
    update(u, v, n);
    double *t = u;
    u = v;
    v = t;
    double local = 0, total = 0;
    for (int i = 1; i <= n; ++i) local += u[i];
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if ((step + 1) % CKPT_EVERY == 0) save(u, n, step + 1);
  }
  /* gather and compare with a sequential run, bit for bit */
  double *all = rank == 0 ? malloc(sizeof(double) * (size_t)cells) : NULL;
  int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; ++r) {
    displs[r] = (int)((long)cells * r / size);
    counts[r] = (int)((long)cells * (r + 1) / size) - displs[r];
  }
  MPI_Gatherv(&u[1], n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double *a = calloc((size_t)cells + 2, sizeof(double)), *b = calloc((size_t)cells + 2, sizeof(double));
    for (int i = 0; i < cells; ++i) a[i + 1] = initial(i);
    for (int s = 0; s < steps; ++s) {
      update(a, b, cells);
      double *t = a;
      a = b;
      b = t;
    }
    int same = memcmp(a + 1, all, sizeof(double) * (size_t)cells) == 0;
    printf("t=%6.3fs  finished %d steps on %d ranks after %d rollback(s)\n", now() - t0, steps, size, restarts);
    printf("t=%6.3fs  %s\n", now() - t0,
           same ? "finished: result matches the sequential computation (bit for bit)"
                : "FAIL heat_reinit: the result differs from the sequential computation");
    if (same) printf("PASS heat_reinit\n");
    free(a);
    free(b);
    free(all);
  }
  free(counts);
  free(displs);
  free(u);
  free(v);
}

int main(int argc, char **argv) {
  t0 = now();
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) fprintf(stderr, "usage: heat_reinit CKPT_DIR [cells] [steps]\n");
    MPI_Finalize();
    return 2;
  }
  dir = argv[1];
  if (argc > 2) cells = atoi(argv[2]);
  if (argc > 3) steps = atoi(argv[3]);
  mkdir(dir, 0700);
  lo = (int)((long)cells * rank / size);
  hi = (int)((long)cells * (rank + 1) / size);
  int state;
  MPIX_Reinit_state(&state, NULL);
  if (rank == 0 && state == MPIX_REINIT_NEW)
    printf("t=%6.3fs  start: %d cells, %d steps, %d ranks, checkpoint every %d steps\n", now() - t0, cells, steps,
           size, CKPT_EVERY);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_REINIT_ASYNC);
  MPI_Reinit(resilient, NULL);
  MPI_Finalize();
  return 0;
}
