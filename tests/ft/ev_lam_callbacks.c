/* ev_lam_callbacks <kill|stop> <victims,comma-separated> — LAM's reliable mode (seed 002 §7.3.1, §8.2 item 4),
 * run with `mpiexec --with-ft lam` (for `stop` with a short --detector-timeout).
 *
 * Failure callbacks on three communicators: MPI_COMM_WORLD, a dup of it, and the ranks of one parity
 * (MPI_Comm_split). Each callback sleeps 20 ms (so a barrier that did not wait for it would be caught) and then
 * counts its (communicator, failed rank) pair. Victims die after a barrier (kill: raise(SIGKILL); stop:
 * raise(SIGSTOP), the detector declares them hung and mpiexec kills them).
 *
 * PASS when, on every survivor and each communicator:
 *  - right after every MPI_Barrier returns, the callback has run for every member the process knew had failed
 *    before it called the barrier, and — a barrier that failed with a single victim — for that victim (even
 *    when this process learned of the failure only from another survivor giving the barrier up);
 *  - once every victim of the communicator is known, after 200 ms more, each victim's count is exactly 1 and
 *    every other member's 0 (a communicator without victims gets no callback);
 *  - the survivors then split the wounded MPI_COMM_WORLD (LAM split) into a communicator of all of them. */

#include "ft_check.h"
#include <stdatomic.h>
#include <string.h>

#define MAXR 64
static atomic_int counts[3][MAXR];

static void on_failure(MPI_Comm comm, int failed_rank, void *extra) {
  (void)comm;
  struct timespec ts = {0, 20 * 1000000L};
  nanosleep(&ts, NULL); /* async-signal-safe */
  int which = (int)(long)extra;
  if (failed_rank >= 0 && failed_rank < MAXR) atomic_fetch_add(&counts[which][failed_rank], 1);
}

static int known_failed(MPI_Comm c, int *ranks, int max) {
  int n = 0;
  CHECK_MPI(MPIX_Comm_failed_ranks(c, max, ranks, &n));
  return n;
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(argc == 3, "usage: ev_lam_callbacks kill|stop victims");
  CHECK(size <= MAXR);
  int stop_mode = strcmp(argv[1], "stop") == 0;
  int victim[MAXR] = {0}, nvict = 0;
  for (char *p = strtok(argv[2], ","); p; p = strtok(NULL, ",")) {
    int v = atoi(p);
    CHECK(v > 0 && v < size, "victim %d", v);
    victim[v] = 1;
    nvict++;
  }
  MPI_Comm comms[3];
  comms[0] = MPI_COMM_WORLD;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]));
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comms[2]));
  for (int i = 0; i < 3; i++) {
    CHECK_MPI(MPI_Comm_set_errhandler(comms[i], MPI_ERRORS_RETURN));
    CHECK_MPI(MPIX_Comm_set_failure_callback(comms[i], on_failure, (void *)(long)i));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (victim[rank]) {
    if (!stop_mode) ft_die();
    raise(SIGSTOP); /* the detector declares it hung and mpiexec kills it */
    for (;;) pause();
  }

  for (int i = 0; i < 3; i++) {
    MPI_Comm c = comms[i];
    int csize, crank;
    MPI_Comm_size(c, &csize);
    MPI_Comm_rank(c, &crank);
    MPI_Group g, wg;
    MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int is_victim[MAXR] = {0}, nv = 0;
    for (int r = 0; r < csize; r++) {
      int w;
      MPI_Group_translate_ranks(g, 1, &r, wg, &w);
      if (victim[w]) is_victim[r] = 1, nv++;
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    int before[MAXR], nb, ndone = 0;
    double t0 = ft_now();
    for (;;) {
      nb = known_failed(c, before, MAXR);
      int all_known = nb >= nv;
      int rc = MPI_Barrier(c);
      for (int k = 0; k < nb; k++)
        CHECK(atomic_load(&counts[i][before[k]]) == 1, "comm %d: barrier returned before the callback for rank %d (count %d)",
              i, before[k], atomic_load(&counts[i][before[k]]));
      if (rc != MPI_SUCCESS && nv == 1)
        for (int r = 0; r < csize; r++)
          if (is_victim[r])
            CHECK(atomic_load(&counts[i][r]) == 1, "comm %d: failed barrier returned before the callback for rank %d", i, r);
      if (all_known && ++ndone >= 2) break; /* one more barrier with everything known */
      CHECK(ft_now() - t0 < 20.0, "comm %d: victims not all reported after 20 s (%d of %d)", i, nb, nv);
      if (rc != MPI_SUCCESS) ft_sleep_ms(1);
    }
    ft_sleep_ms(200);
    for (int r = 0; r < csize; r++)
      CHECK(atomic_load(&counts[i][r]) == is_victim[r], "comm %d rank %d: callback ran %d times (victim %d)", i, r,
            atomic_load(&counts[i][r]), is_victim[r]);
  }
  /* LAM split of the wounded world: all survivors, in order */
  MPI_Comm alive;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &alive));
  int asize, sum = 0, expect = 0;
  MPI_Comm_size(alive, &asize);
  CHECK(asize == size - nvict, "split of the wounded world: %d members, expected %d", asize, size - nvict);
  for (int r = 0; r < size; r++) expect += victim[r] ? 0 : r;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, alive));
  CHECK(sum == expect, "sum of world ranks %d, expected %d", sum, expect);
  CHECK_MPI(MPI_Comm_free(&comms[1])); /* local on wounded communicators (seed 002 §7.3.3) */
  CHECK_MPI(MPI_Comm_free(&comms[2]));
  CHECK_MPI(MPI_Barrier(alive));
  if (rank == 0) printf("PASS ev_lam_callbacks %s (%d victims, %d ranks)\n", argv[1], nvict, size);
  CHECK_MPI(MPI_Comm_free(&alive));
  MPI_Finalize();
  return 0;
}
