/* event_latency.c — delivery latency of failure events, from the kill to the survivors' code
 * (docs/events.md, docs/performance.md "Event delivery"). Run under LAM's reliable mode:
 *   mpiexec -n N --with-ft lam ./event_latency [-k KILLS]
 * Round k kills world rank N-k: it reads CLOCK_MONOTONIC, sends that instant to every survivor (eager sends,
 * complete at once) and raises SIGKILL. Each survivor measures, against that instant:
 *   cb    its LAM failure callback (MPIX_Comm_set_failure_callback) on the round's communicator ran
 *   sub   its event subscription (MPIX_Event_subscribe, failures of any rank) ran
 *   poll  its MPIX_Event_poll loop (poll, sched_yield) first returned the PROC_FAILED notice
 * The survivors then split the wounded communicator (LAM split) and go on. Prints, per round, the median
 * over survivors and the maximum (µs). The sends between the clock read and the kill add a few µs. */
#include "ft_bench.h"

#include <sched.h>
#include <signal.h>
#include <stdatomic.h>

static atomic_int cb_seen, sub_seen;
static double cb_at, sub_at;

static void on_failure(MPI_Comm c, int r, void *x) {
  (void)c, (void)r, (void)x;
  cb_at = ftb_now();
  atomic_store(&cb_seen, 1);
}
static void on_event(const MPIX_Event *ev, void *x) {
  (void)x;
  if (ev->type != MPIX_EVENT_PROC_FAILED) return;
  sub_at = ftb_now();
  atomic_store(&sub_seen, 1);
}
static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int wrank, wsize, kills = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-k") && i + 1 < argc) kills = atoi(argv[++i]);
  if (kills <= 0 || kills > wsize - 2) kills = wsize - 2;
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  if (wrank == 0) printf("# event delivery latency (us), %d ranks, --with-ft lam\n# round survivors  cb_med cb_max  sub_med sub_max  poll_med poll_max\n", wsize);
  for (int k = 1; k <= kills; k++) {
    int n, r, sub;
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    atomic_store(&cb_seen, 0);
    atomic_store(&sub_seen, 0);
    MPIX_Comm_set_failure_callback(c, on_failure, NULL);
    MPIX_Event_subscribe(c, MPI_ANY_SOURCE, MPIX_EVENT_MASK(MPIX_EVENT_PROC_FAILED), on_event, NULL, &sub);
    MPIX_Event ev;
    int flag = 1;
    while (flag) MPIX_Event_poll(&ev, &flag); /* drain earlier rounds' notices */
    MPI_Barrier(c);
    int victim = n - 1;
    if (r == victim) {
      double t = ftb_now();
      for (int q = 0; q < n - 1; q++) MPI_Send(&t, 1, MPI_DOUBLE, q, 77, c);
      raise(SIGKILL);
    }
    double t_poll = 0;
    for (;;) {
      MPIX_Event_poll(&ev, &flag);
      if (flag && ev.type == MPIX_EVENT_PROC_FAILED) {
        t_poll = ftb_now();
        break;
      }
      sched_yield(); /* 2 cores, up to 16 ranks: let the service and event threads run */
    }
    while (!atomic_load(&cb_seen) || !atomic_load(&sub_seen)) sched_yield();
    double t_kill;
    MPI_Recv(&t_kill, 1, MPI_DOUBLE, victim, 77, c, MPI_STATUS_IGNORE);
    MPIX_Event_unsubscribe(sub);
    MPI_Comm next;
    MPI_Comm_split(c, 0, r, &next); /* LAM: succeeds among the survivors */
    MPI_Comm_free(&c);
    c = next;
    double mine[3] = {(cb_at - t_kill) * 1e6, (sub_at - t_kill) * 1e6, (t_poll - t_kill) * 1e6};
    double *all = malloc(sizeof(double) * 3 * (size_t)(n - 1));
    MPI_Gather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, 0, c);
    if (r == 0) {
      printf("%7d %9d", k, n - 1);
      for (int j = 0; j < 3; j++) {
        double v[64];
        int m = n - 1 < 64 ? n - 1 : 64;
        for (int q = 0; q < m; q++) v[q] = all[3 * q + j];
        qsort(v, (size_t)m, sizeof(double), cmpd);
        printf("  %7.0f %7.0f", v[m / 2], v[m - 1]);
      }
      printf("\n");
      fflush(stdout);
    }
    free(all);
  }
  MPI_Comm_free(&c);
  MPI_Finalize();
  return 0;
}
