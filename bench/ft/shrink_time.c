/* shrink_time.c — MPIX_Comm_shrink time, without a failure and (with -k) after one rank was killed.
 *
 * Without -k: `trials` times, barrier, then every rank times MPIX_Comm_shrink(MPI_COMM_WORLD); a trial's time
 * is the slowest rank's. Prints
 *   <ranks> shrink_nofail <median_us> <min_us> <max_us> <trials>
 *
 * With -k (needs mpiexec's fault-tolerant mode, e.g. --with-ft ulfm): the last rank kills itself with
 * raise(SIGKILL) at an instant rank 0 chose (about 50 ms ahead, on the host-wide monotonic clock, see
 * ft_bench.h), while the survivors are already inside MPIX_Comm_shrink(MPI_COMM_WORLD). Then the survivors
 * shrink MPI_COMM_WORLD again `trials` times, now that the failure is known everywhere. Prints
 *   <ranks> shrink_kill_last  <us from the kill until the last survivor returned> - - 1
 *   <ranks> shrink_kill_first <us from the kill until the first survivor returned> - - 1
 *   <ranks> shrink_known      <median_us> <min_us> <max_us> <trials>     (failure already known)
 * The first two include the detection of the crash by mpiexec and its notice. The new communicator must
 * have size - 1 ranks. Options: -t TRIALS (default 20), -k. */
#include <signal.h>

#include "ft_bench.h"

/* `trials` timed shrinks of `parent` (after a barrier on `sync`); fills times[] (µs, slowest rank). */
static void time_shrinks(MPI_Comm parent, MPI_Comm sync, long trials, int expect_size, double *times) {
  for (long t = 0; t < trials; t++) {
    ftb_check(MPI_Barrier(sync), "MPI_Barrier");
    const double start = ftb_now();
    MPI_Comm fresh;
    ftb_check(MPIX_Comm_shrink(parent, &fresh), "MPIX_Comm_shrink");
    double mine = (ftb_now() - start) * 1e6, slowest = 0.0;
    int n = 0;
    MPI_Comm_size(fresh, &n);
    if (n != expect_size) {
      fprintf(stderr, "shrink made a communicator of %d ranks, expected %d\n", n, expect_size);
      MPI_Abort(MPI_COMM_WORLD, 4);
    }
    ftb_check(MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, sync), "MPI_Allreduce(max)");
    times[t] = slowest;
    ftb_check(MPI_Comm_free(&fresh), "MPI_Comm_free");
  }
}

static void print_stats(int size, const char *what, double *v, long n) {
  const double med = ftb_median(v, (int)n);
  printf("%d %s %.1f %.1f %.1f %ld\n", size, what, med, v[0], v[n - 1], n);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  long trials = 20;
  int kill_one = 0, c;
  while ((c = getopt(argc, argv, "t:k")) != -1) {
    switch (c) {
      case 't': trials = ftb_long_arg(argv[0], c, optarg); break;
      case 'k': kill_one = 1; break;
      default:
        if (rank == 0) fprintf(stderr, "usage: %s [-t TRIALS] [-k]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (trials < 1) trials = 1;
  if (kill_one && size < 2) {
    if (rank == 0) fprintf(stderr, "shrink_time -k: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double *times = calloc((size_t)trials, sizeof(double));
  if (!times) MPI_Abort(MPI_COMM_WORLD, 3);

  if (!kill_one) {
    time_shrinks(MPI_COMM_WORLD, MPI_COMM_WORLD, trials, size, times);
    if (rank == 0) {
      printf("# shrink_time: MPIX_Comm_shrink(MPI_COMM_WORLD), no failure\n");
      ftb_print_library();
      printf("# ranks what median_us min_us max_us trials\n");
      print_stats(size, "shrink_nofail", times, trials);
    }
  } else {
    const int victim = size - 1;
    double kill_at = ftb_now() + 0.05;
    ftb_check(MPI_Bcast(&kill_at, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    ftb_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (rank == victim) {
      ftb_sleep_until(kill_at);
      raise(SIGKILL);
    }
    MPI_Comm survivors;
    ftb_check(MPIX_Comm_shrink(MPI_COMM_WORLD, &survivors), "MPIX_Comm_shrink (victim dying)");
    const double back_at = ftb_now();
    MPI_Comm_set_errhandler(survivors, MPI_ERRORS_RETURN);
    int n = 0;
    MPI_Comm_size(survivors, &n);
    if (n != size - 1) {
      fprintf(stderr, "rank %d: shrink made %d ranks, expected %d\n", rank, n, size - 1);
      MPI_Abort(MPI_COMM_WORLD, 4);
    }
    double last = 0.0, first = 0.0;
    ftb_check(MPI_Allreduce(&back_at, &last, 1, MPI_DOUBLE, MPI_MAX, survivors), "MPI_Allreduce(max)");
    ftb_check(MPI_Allreduce(&back_at, &first, 1, MPI_DOUBLE, MPI_MIN, survivors), "MPI_Allreduce(min)");
    time_shrinks(MPI_COMM_WORLD, survivors, trials, size - 1, times);
    if (rank == 0) {
      printf("# shrink_time -k: rank %d killed by raise(SIGKILL) while the others shrink MPI_COMM_WORLD\n", victim);
      ftb_print_library();
      printf("# ranks what median_us min_us max_us trials\n");
      printf("%d shrink_kill_last %.1f - - 1\n", size, (last - kill_at) * 1e6);
      printf("%d shrink_kill_first %.1f - - 1\n", size, (first - kill_at) * 1e6);
      print_stats(size, "shrink_known", times, trials);
    }
    MPI_Comm_free(&survivors);
  }
  fflush(stdout);
  free(times);
  MPI_Finalize();
  return 0;
}
