/* p2p_part_threads — MPI_Pready and MPI_Parrived from several threads at once (MPI_THREAD_MULTIPLE). 2 ranks.
 *
 * Rank 0: NT threads each fill and ready their share of the send partitions (one Pready per partition for
 * even threads, one Pready_range for odd ones), joined before MPI_Wait. Rank 1: NT threads each poll
 * MPI_Parrived on their share of the receive partitions (a different partition count) and check a partition's
 * data as soon as it says so. Several rounds, equal and differing partition counts, small and large partitions.
 * PASS when every partition is intact when Parrived first reports it and nothing hangs. */
#include <pthread.h>

#include "common/check.h"

#define NT 4

struct job {
  MPI_Request req;
  int tid, parts, count, round;
  double *buf;
};

static double val(int i, int round) { return i * 0.5 + round * 1000.0; }

static void share(int parts, int tid, int *lo, int *hi) {
  int chunk = parts / NT;
  *lo = tid * chunk;
  *hi = tid == NT - 1 ? parts - 1 : *lo + chunk - 1;
}

static void *sender(void *arg) {
  struct job *j = arg;
  int lo, hi;
  share(j->parts, j->tid, &lo, &hi);
  for (int i = lo * j->count; i < (hi + 1) * j->count; i++) j->buf[i] = val(i, j->round);
  if (j->tid % 2 == 0) {
    for (int p = lo; p <= hi; p++) CHECK_MPI(MPI_Pready(p, j->req));
  } else if (hi >= lo) {
    CHECK_MPI(MPI_Pready_range(lo, hi, j->req));
  }
  return NULL;
}

static void *receiver(void *arg) {
  struct job *j = arg;
  int lo, hi;
  share(j->parts, j->tid, &lo, &hi);
  for (int p = lo; p <= hi; p++) {
    int flag = 0;
    while (!flag) CHECK_MPI(MPI_Parrived(j->req, p, &flag));
    for (int i = p * j->count; i < (p + 1) * j->count; i++)
      CHECK(j->buf[i] == val(i, j->round), "round %d partition %d: buf[%d] = %g", j->round, p, i, j->buf[i]);
  }
  return NULL;
}

static void run(int rank, int sp, int rp, int total) {
  double *buf = calloc((size_t)total, sizeof(double));
  CHECK(buf != NULL);
  MPI_Request req;
  if (rank == 0)
    CHECK_MPI(MPI_Psend_init(buf, sp, total / sp, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  else
    CHECK_MPI(MPI_Precv_init(buf, rp, total / rp, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
  for (int round = 0; round < 5; round++) {
    if (rank == 1)
      for (int i = 0; i < total; i++) buf[i] = -1;
    CHECK_MPI(MPI_Start(&req));
    pthread_t th[NT];
    struct job jobs[NT];
    for (int t = 0; t < NT; t++) {
      jobs[t] = (struct job){req, t, rank == 0 ? sp : rp, total / (rank == 0 ? sp : rp), round, buf};
      CHECK(pthread_create(&th[t], NULL, rank == 0 ? sender : receiver, &jobs[t]) == 0);
    }
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  }
  CHECK_MPI(MPI_Request_free(&req));
  free(buf);
}

int main(int argc, char **argv) {
  int provided, rank, size;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "needs 2 ranks");
  if (rank < 2) {
    run(rank, 8, 8, 64);
    run(rank, 16, 32, 512);
    run(rank, 64, 8, 4096);
    run(rank, 8, 16, 1 << 18); /* 256 KiB partitions: rendezvous */
  }
  check_pass("p2p_part_threads");
  MPI_Finalize();
  return 0;
}
