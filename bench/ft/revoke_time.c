/* revoke_time.c — revoke propagation time, fault-free.
 *
 * Each trial duplicates MPI_COMM_WORLD (errors return), synchronises with a barrier, and then every rank but
 * 0 blocks in MPI_Recv(ANY_SOURCE) on the duplicate while rank 0, after `delay` µs (so that the others are
 * really blocked, possibly asleep in their back-off), reads the clock and calls MPIX_Comm_revoke. Each other
 * rank reads the clock when its receive returns, which must be with an error of class MPI_ERR_REVOKED.
 * Instants are compared on the host-wide monotonic clock (see ft_bench.h): a MIN and a MAX reduction give
 * the first and the last return after the revoke. Rank 0 prints the median over trials, and the best and worst
 * trial of the last return:
 *   # ... header lines
 *   <ranks> revoke_first <median_us> <min_us> <max_us> <trials>
 *   <ranks> revoke_last  <median_us> <min_us> <max_us> <trials>
 *   <ranks> revoke_call  <median_us> <min_us> <max_us> <trials>     (time inside MPIX_Comm_revoke at rank 0)
 * Options: -t TRIALS (default 20), -d DELAY_US (default 2000). Needs at least 2 ranks. */
#include "ft_bench.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  long trials = 20, delay_us = 2000;
  int c;
  while ((c = getopt(argc, argv, "t:d:")) != -1) {
    switch (c) {
      case 't': trials = ftb_long_arg(argv[0], c, optarg); break;
      case 'd': delay_us = ftb_long_arg(argv[0], c, optarg); break;
      default:
        if (rank == 0) fprintf(stderr, "usage: %s [-t TRIALS] [-d DELAY_US]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "revoke_time: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (trials < 1) trials = 1;
  double *first = calloc((size_t)trials, sizeof(double));
  double *last = calloc((size_t)trials, sizeof(double));
  double *call = calloc((size_t)trials, sizeof(double));
  if (!first || !last || !call) MPI_Abort(MPI_COMM_WORLD, 3);

  for (long t = 0; t < trials; t++) {
    MPI_Comm comm;
    ftb_check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    ftb_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    double revoked_at = 0.0, returned_at = 0.0;
    if (rank == 0) {
      ftb_sleep((double)delay_us * 1e-6);
      revoked_at = ftb_now();
      ftb_check(MPIX_Comm_revoke(comm), "MPIX_Comm_revoke");
      call[t] = (ftb_now() - revoked_at) * 1e6;
    } else {
      int dummy = 0;
      const int rc = MPI_Recv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 0, comm, MPI_STATUS_IGNORE);
      returned_at = ftb_now();
      if (ftb_class(rc) != MPIX_ERR_REVOKED) {
        fprintf(stderr, "rank %d: MPI_Recv on the revoked communicator returned class %d, not MPI_ERR_REVOKED\n",
                rank, ftb_class(rc));
        MPI_Abort(MPI_COMM_WORLD, 4);
      }
    }
    // rank 0 contributes neutral values: nothing to MAX, +large to MIN
    double hi = returned_at, lo = rank == 0 ? 1e300 : returned_at, max_at = 0.0, min_at = 0.0;
    ftb_check(MPI_Allreduce(&hi, &max_at, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce(max)");
    ftb_check(MPI_Allreduce(&lo, &min_at, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce(min)");
    if (rank == 0) {
      first[t] = (min_at - revoked_at) * 1e6;
      last[t] = (max_at - revoked_at) * 1e6;
    }
    MPI_Comm_free(&comm);  // a revoked communicator can still be freed; an error here is not the point
  }

  if (rank == 0) {
    printf("# revoke_time: rank 0 revokes, the others are blocked in MPI_Recv(ANY_SOURCE); delay %ld us\n",
           delay_us);
    ftb_print_library();
    printf("# ranks what median_us min_us max_us trials\n");
    const char *names[3] = {"revoke_first", "revoke_last", "revoke_call"};
    double *vals[3] = {first, last, call};
    for (int k = 0; k < 3; k++) {
      const double med = ftb_median(vals[k], (int)trials);
      printf("%d %s %.1f %.1f %.1f %ld\n", size, names[k], med, vals[k][0], vals[k][trials - 1], trials);
    }
    fflush(stdout);
  }
  free(first);
  free(last);
  free(call);
  MPI_Finalize();
  return 0;
}
