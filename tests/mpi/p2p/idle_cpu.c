/* idle_cpu.c — a rank blocked for long in MPI uses (almost) no CPU, also when the job has more ranks than
 * cores (issue 13 target 5: the oversubscribed back-off yields at once, but must end in a sleep, not spin).
 *
 * Phase 1: rank 0 sleeps SLEEP_MS outside MPI, then sends one int to every other rank, which waits in MPI_Recv.
 * Phase 2: the same with every other rank waiting in MPI_Bcast from rank 0.
 * Each waiting rank measures its process CPU time (getrusage, user + system, all threads) and the wall time
 * of its wait; the test fails when a wait used more than MAX_SHARE of its wall time in CPU.
 * Portable MPI + POSIX (runs with any MPI). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

enum { SLEEP_MS = 1500 };
static const double MAX_SHARE = 0.25;

static double cpu_seconds(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec * 1e-6;
}

static int check(const char *what, int rank, double cpu, double wall, int value) {
  double share = wall > 0 ? cpu / wall : 1.0;
  printf("rank %d %s: wall %.3f s, cpu %.3f s (%.1f %%)\n", rank, what, wall, cpu, 100.0 * share);
  if (value != 42) {
    printf("FAIL rank %d %s: got %d, expected 42\n", rank, what, value);
    return 1;
  }
  if (wall < SLEEP_MS * 1e-3 * 0.5) {
    printf("FAIL rank %d %s: the wait lasted only %.3f s\n", rank, what, wall);
    return 1;
  }
  if (share > MAX_SHARE) {
    printf("FAIL rank %d %s: a blocked rank used %.1f %% of a core (limit %.0f %%)\n", rank, what, 100.0 * share,
           100.0 * MAX_SHARE);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, errors = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct timespec nap = {SLEEP_MS / 1000, (SLEEP_MS % 1000) * 1000000L};
  for (int phase = 0; phase < 2; phase++) {
    MPI_Barrier(MPI_COMM_WORLD);
    int value = 0;
    if (rank == 0) {
      nanosleep(&nap, NULL);
      value = 42;
      if (phase == 0)
        for (int r = 1; r < size; r++) MPI_Send(&value, 1, MPI_INT, r, 7, MPI_COMM_WORLD);
      else
        MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
      double c0 = cpu_seconds(), t0 = MPI_Wtime();
      if (phase == 0)
        MPI_Recv(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else
        MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
      errors += check(phase == 0 ? "MPI_Recv" : "MPI_Bcast", rank, cpu_seconds() - c0, MPI_Wtime() - t0, value);
    }
  }
  int total = 0;
  MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf(total == 0 ? "PASS\n" : "FAIL: %d waits\n", total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
