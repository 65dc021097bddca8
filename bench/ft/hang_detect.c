/* hang_detect.c — hang detection by heartbeats (needs mpiexec --with-ft ulfm with --detector-period/-timeout).
 *
 * Three modes:
 *  -s         (default) the last rank stops itself with raise(SIGSTOP) at an instant rank 0 chose (200 ms
 *             ahead plus a random 0 .. -j ms, default 100, so that the stop falls anywhere between two
 *             heartbeats; host-wide monotonic clock, see ft_bench.h). A stopped process sends no heartbeats, so
 *             mpiexec must declare it hung after the detector timeout and kill it. The survivors poll
 *             MPIX_Comm_get_failed every millisecond and note when the failure appears; then they shrink
 *             and reduce. Prints
 *               <ranks> hang_first <ms from SIGSTOP to the first survivor's notice> <timeout_ms>
 *               <ranks> hang_last  <ms from SIGSTOP to the last survivor's notice>  <timeout_ms>
 *  -e SECONDS the victim (-v RANK, default the last) is stopped from outside, by
 *             mpiexec --inject rank=R,after=SECONDS,signal=STOP. Times are measured from the instant every
 *             rank had left MPI_Init (a barrier) plus SECONDS, so they are too small by the launch time
 *             (mpiexec starts its injection clock before it spawns the ranks). Prints hang_inject_first/last.
 *  -l SECONDS load run: all ranks do MPI_Allreduce(1 int) back to back for SECONDS (optionally sleeping -g µs
 *             between calls) and count errors and failures noticed; a healthy run has none. Prints
 *               <ranks> load <seconds> <allreduces> <failed_ranks_seen> <errors>
 *             and a rank that saw a failure or an error exits with status 1.
 * Other options: -j JITTER_MS (see -s), -T MS (the configured detector timeout, only printed), -W SECONDS (give up waiting for a
 * detection after this long, default 20). */
#include <signal.h>

#include "ft_bench.h"

/* Number of failed processes of `comm` this process knows of. */
static int failed_count(MPI_Comm comm) {
  MPI_Group g;
  int n = 0;
  if (MPIX_Comm_get_failed(comm, &g) != MPI_SUCCESS) return -1;
  MPI_Group_size(g, &n);
  if (g != MPI_GROUP_EMPTY) MPI_Group_free(&g);
  return n;
}

/* Polls every millisecond until a failure is known or `give_up` (monotonic seconds) passes; returns the
 * instant of the notice, or 0 when none came. */
static double wait_for_failure(double give_up) {
  for (;;) {
    const int n = failed_count(MPI_COMM_WORLD);
    const double now = ftb_now();
    if (n > 0) return now;
    if (n < 0 || now > give_up) return 0.0;
    ftb_sleep(0.001);
  }
}

/* Survivors: shrink, then reduce the notice instants; rank 0 prints them relative to `stopped_at`. */
static void report_detection(int size, const char *what, double noticed_at, double stopped_at, long timeout_ms) {
  MPI_Comm survivors;
  ftb_check(MPIX_Comm_shrink(MPI_COMM_WORLD, &survivors), "MPIX_Comm_shrink");
  double first = 0.0, last = 0.0, missing = noticed_at == 0.0 ? 1.0 : 0.0, any_missing = 0.0;
  ftb_check(MPI_Allreduce(&noticed_at, &last, 1, MPI_DOUBLE, MPI_MAX, survivors), "MPI_Allreduce(max)");
  ftb_check(MPI_Allreduce(&noticed_at, &first, 1, MPI_DOUBLE, MPI_MIN, survivors), "MPI_Allreduce(min)");
  ftb_check(MPI_Allreduce(&missing, &any_missing, 1, MPI_DOUBLE, MPI_MAX, survivors), "MPI_Allreduce(missing)");
  int r = 0;
  MPI_Comm_rank(survivors, &r);
  if (r == 0) {
    printf("# ranks what ms_after_stop configured_timeout_ms\n");
    if (any_missing > 0) {
      printf("%d %s_first - %ld\n%d %s_last - %ld\n", size, what, timeout_ms, size, what, timeout_ms);
    } else {
      printf("%d %s_first %.1f %ld\n", size, what, (first - stopped_at) * 1e3, timeout_ms);
      printf("%d %s_last %.1f %ld\n", size, what, (last - stopped_at) * 1e3, timeout_ms);
    }
    fflush(stdout);
  }
  MPI_Comm_free(&survivors);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  char mode = 's';
  int false_positive = 0;  // -l: a failure was seen or an error returned (the rank then exits with 1)
  double external_after = 0.0, load_seconds = 0.0, give_up = 20.0;
  long timeout_ms = 0, gap_us = 0, victim = size - 1, jitter_ms = 100;
  int c;
  while ((c = getopt(argc, argv, "se:l:T:W:g:v:j:")) != -1) {
    switch (c) {
      case 's': mode = 's'; break;
      case 'e': mode = 'e'; external_after = ftb_double_arg(argv[0], c, optarg); break;
      case 'l': mode = 'l'; load_seconds = ftb_double_arg(argv[0], c, optarg); break;
      case 'T': timeout_ms = ftb_long_arg(argv[0], c, optarg); break;
      case 'W': give_up = ftb_double_arg(argv[0], c, optarg); break;
      case 'g': gap_us = ftb_long_arg(argv[0], c, optarg); break;
      case 'v': victim = ftb_long_arg(argv[0], c, optarg); break;
      case 'j': jitter_ms = ftb_long_arg(argv[0], c, optarg); break;
      default:
        if (rank == 0)
          fprintf(stderr, "usage: %s [-s [-j JITTER_MS] | -e SECONDS [-v RANK] | -l SECONDS [-g GAP_US]] [-T MS] [-W SECONDS]\n",
                  argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (mode != 'l' && (size < 2 || victim >= size)) {
    if (rank == 0) fprintf(stderr, "hang_detect: needs at least 2 ranks and a victim among them\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  if (mode == 's') {
    srand((unsigned)getpid() ^ (unsigned)(ftb_now() * 1e6));
    double stop_at = ftb_now() + 0.2 + (jitter_ms > 0 ? (double)(rand() % (int)jitter_ms) * 1e-3 : 0.0);
    ftb_check(MPI_Bcast(&stop_at, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    ftb_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (rank == victim) {
      ftb_sleep_until(stop_at);
      raise(SIGSTOP);  // the whole process stops, its service thread too; mpiexec kills it after the timeout
      for (;;) pause();
    }
    if (rank == 0) {
      printf("# hang_detect -s: rank %ld raises SIGSTOP; survivors poll MPIX_Comm_get_failed every 1 ms\n", victim);
      ftb_print_library();
    }
    const double noticed = wait_for_failure(stop_at + give_up);
    report_detection(size, "hang", noticed, stop_at, timeout_ms);
  } else if (mode == 'e') {
    ftb_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    double started = ftb_now(), latest = 0.0;
    ftb_check(MPI_Allreduce(&started, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    if (rank == 0) {
      printf("# hang_detect -e %.3f: rank %ld is stopped by mpiexec --inject; times from init + %.3f s\n",
             external_after, victim, external_after);
      ftb_print_library();
    }
    const double noticed = wait_for_failure(latest + external_after + give_up);
    report_detection(size, "hang_inject", noticed, latest + external_after, timeout_ms);
  } else {
    long calls = 0, errors = 0;
    const double start = ftb_now();
    for (;;) {
      int stop = rank == 0 && ftb_now() - start >= load_seconds, any_stop = 0;
      const int rc = MPI_Allreduce(&stop, &any_stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      calls++;
      if (rc != MPI_SUCCESS) {
        errors++;
        break;  // a failure was declared (a false positive in this mode): stop, report below
      }
      if (any_stop) break;
      if (gap_us > 0) ftb_sleep((double)gap_us * 1e-6);
    }
    const int failed = failed_count(MPI_COMM_WORLD);
    false_positive = errors > 0 || failed != 0;
    if (errors > 0 || failed != 0) {
      fprintf(stderr, "rank %d: %ld error(s), %d failed rank(s) known after %.1f s\n", rank, errors, failed,
              ftb_now() - start);
    }
    if (errors == 0 && failed == 0) {
      long total = 0;
      ftb_check(MPI_Reduce(&calls, &total, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD), "MPI_Reduce");
      if (rank == 0) {
        printf("# hang_detect -l: MPI_Allreduce back to back for %.0f s (gap %ld us)\n", load_seconds, gap_us);
        ftb_print_library();
        printf("# ranks what seconds allreduces failed_ranks_seen errors\n");
        printf("%d load %.1f %ld 0 0\n", size, ftb_now() - start, total);
      }
    } else if (rank == 0 || failed != 0) {
      printf("%d load %.1f %ld %d %ld\n", size, ftb_now() - start, calls, failed, errors);
    }
    fflush(stdout);
  }
  MPI_Finalize();
  return false_positive ? 1 : 0;
}
