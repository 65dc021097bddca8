/* agree_latency.c — latency of MPIX_Comm_agree and MPIX_Comm_iagree (+ MPI_Wait) against MPI_Allreduce of
 * one int with MPI_BAND, on MPI_COMM_WORLD, fault-free.
 *
 * Each round times `iters` back-to-back calls of each operation (after `warmup` untimed ones), in an order
 * that rotates from round to round so a drift in machine load hits all three alike. The latency of one round
 * is the slowest rank's elapsed time / iters (a MAX reduction after the timing). Rank 0 prints, per
 * operation, the median over rounds, the best and the worst round:
 *   # ... header lines
 *   <ranks> <op> <median_us> <min_us> <max_us> <iters> <rounds>
 * op is allreduce, agree or iagree. Every result is checked (the AND of all-ones contributions is all-ones).
 * Options: -i ITERS (default 200), -w WARMUP (default 20), -r ROUNDS (default 5). */
#include "ft_bench.h"

enum { OP_ALLREDUCE, OP_AGREE, OP_IAGREE, N_OPS };
static const char *const op_name[N_OPS] = {"allreduce", "agree", "iagree"};

/* One call of operation `op` on `comm`; checks the result. */
static void run_once(int op, MPI_Comm comm) {
  int flag = 1, out = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  switch (op) {
    case OP_ALLREDUCE:
      ftb_check(MPI_Allreduce(&flag, &out, 1, MPI_INT, MPI_BAND, comm), "MPI_Allreduce");
      flag = out;
      break;
    case OP_AGREE:
      ftb_check(MPIX_Comm_agree(comm, &flag), "MPIX_Comm_agree");
      break;
    case OP_IAGREE:
      ftb_check(MPIX_Comm_iagree(comm, &flag, &req), "MPIX_Comm_iagree");
      ftb_check(MPI_Wait(&req, MPI_STATUS_IGNORE), "MPI_Wait(iagree)");
      break;
  }
  if (flag != 1) {
    fprintf(stderr, "%s returned flag %d, expected 1\n", op_name[op], flag);
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  long iters = 200, warmup = 20, rounds = 5;
  int c;
  while ((c = getopt(argc, argv, "i:w:r:")) != -1) {
    switch (c) {
      case 'i': iters = ftb_long_arg(argv[0], c, optarg); break;
      case 'w': warmup = ftb_long_arg(argv[0], c, optarg); break;
      case 'r': rounds = ftb_long_arg(argv[0], c, optarg); break;
      default:
        if (rank == 0) fprintf(stderr, "usage: %s [-i ITERS] [-w WARMUP] [-r ROUNDS]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (iters < 1) iters = 1;
  if (rounds < 1) rounds = 1;

  double *lat = calloc((size_t)(N_OPS * rounds), sizeof *lat);
  if (!lat) MPI_Abort(MPI_COMM_WORLD, 3);

  for (long r = 0; r < rounds; r++) {
    for (int k = 0; k < N_OPS; k++) {
      const int op = (int)((k + r) % N_OPS);
      for (long i = 0; i < warmup; i++) run_once(op, MPI_COMM_WORLD);
      ftb_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
      const double start = ftb_now();
      for (long i = 0; i < iters; i++) run_once(op, MPI_COMM_WORLD);
      double mine = (ftb_now() - start) / (double)iters, slowest = 0.0;
      ftb_check(MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce(max)");
      lat[op * rounds + r] = slowest * 1e6;
    }
  }

  if (rank == 0) {
    printf("# agree_latency: MPIX_Comm_agree / MPIX_Comm_iagree+MPI_Wait vs MPI_Allreduce(1 int, MPI_BAND)\n");
    ftb_print_library();
    printf("# ranks op median_us min_us max_us iters rounds\n");
    for (int op = 0; op < N_OPS; op++) {
      double *v = lat + op * rounds;
      const double med = ftb_median(v, (int)rounds);  // sorts v
      printf("%d %s %.3f %.3f %.3f %ld %ld\n", size, op_name[op], med, v[0], v[rounds - 1], iters, rounds);
    }
    fflush(stdout);
  }
  free(lat);
  MPI_Finalize();
  return 0;
}
