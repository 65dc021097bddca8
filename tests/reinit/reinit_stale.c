/* Reinit (seed 003, issue 9 item 3): no message of the old epoch is ever delivered after the rollback, even
 * on a connection the survivors keep across it (models/reinit/kept_links.h: survivors keep their
 * shared-memory rings and TCP connections to each other; only the dead rank's links are rebuilt).
 *
 * Usage: reinit_stale async|sync CKPT_DIR   (4 ranks or more)
 *
 * Epoch 0: rank 0 sends rank 1 a burst of messages with tag 7 (small eager ones, with the values 100..115,
 * and one large rendezvous one of 1 MiB filled with 0x0e), while rank 1 stays out of MPI (it does not poll),
 * so that they are still in the kept channel (ring or socket) when the rollback comes. Once rank 0 has sent
 * them (a flag file), the last rank kills itself (SIGKILL). In the next epoch, after a barrier, rank 1
 * probes tag 7 for a while (nothing may be there), then rank 0 sends tag 7 again, with the value 1000 + the
 * number of rollbacks and a 1 MiB message filled with 0x1e; rank 1 must receive exactly these (an old-epoch
 * frame ahead of them in the FIFO channel would match first and give 100 or 0x0e).
 *
 * PASS (rank 0 prints "PASS reinit_stale"): rank 1 sees no tag-7 message before the new ones, the new ones
 * carry the new epoch's values, one rollback. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SMALL 16
#define BIG (1 << 20)

static const char *dir;
static int sync_mode;
static int rank, size;
static unsigned char *big;

static void fail(const char *what) {
  printf("FAIL reinit_stale rank %d: %s\n", rank, what);
  fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void flag_path(char *buf, size_t n) { snprintf(buf, n, "%s/sent", dir); }

/* Out of MPI for up to `seconds` (no progress: what was sent to us stays in the channel). Under
 * MPI_ERRORS_REINIT_SYNC, MPI_Test_failure is the rollback point. */
static void stay_out_of_mpi(double seconds) {
  double end = now() + seconds;
  while (now() < end) {
    if (sync_mode) MPI_Test_failure();
    volatile long spin = 0;
    for (long i = 0; i < 200000; ++i) spin += i;
  }
}

static void resilient(void *arg) {
  (void)arg;
  int state, restarts;
  MPIX_Reinit_state(&state, &restarts);
  if (state == MPIX_REINIT_NEW) {
    if (rank == 0) { /* a flag of an earlier run must not release the victim early */
      char p[512];
      flag_path(p, sizeof p);
      unlink(p);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      static int vals[SMALL];
      MPI_Request reqs[SMALL + 1];
      for (int i = 0; i < SMALL; ++i) {
        vals[i] = 100 + i;
        MPI_Isend(&vals[i], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &reqs[i]);
      }
      memset(big, 0x0e, BIG);
      MPI_Isend(big, BIG, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &reqs[SMALL]);
      /* the eager sends are in the channel now (accepted by the transport); tell the victim */
      char p[512], tmp[520];
      flag_path(p, sizeof p);
      snprintf(tmp, sizeof tmp, "%s.tmp", p);
      FILE *f = fopen(tmp, "w");
      if (f) fclose(f);
      rename(tmp, p);
      /* keep the rendezvous send pending (its buffer valid) until the rollback */
      stay_out_of_mpi(30);
      fail("no rollback within 30 s");
    }
    if (rank == size - 1) {
      char p[512];
      flag_path(p, sizeof p);
      double end = now() + 20;
      while (access(p, F_OK) != 0 && now() < end) usleep(1000);
      if (access(p, F_OK) != 0) fail("rank 0 never said it had sent");
      /* every rank's MPI_Reinit must be known to mpiexec (it learns it asynchronously, on the control
       * channel) before the failure, else the failure is fatal (no active rollback location) */
      usleep(300000);
      raise(SIGKILL);
    }
    stay_out_of_mpi(30); /* rank 1 in particular: no MPI call, nothing polled */
    fail("no rollback within 30 s");
  }
  if (restarts != 1) fail("expected exactly one rollback");
  /* The new epoch: everybody is here (the collective completes only in the new epoch). */
  if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) fail("barrier after the rollback");
  if (rank == 1) {
    /* Whatever rank 0's old messages became, none may show up now. */
    double end = now() + 0.2;
    while (now() < end) {
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      if (flag) fail("a tag-7 message showed up before the new epoch sent any (an old-epoch message delivered)");
      usleep(1000);
    }
  }
  if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) fail("second barrier after the rollback");
  if (rank == 0) {
    int v = 1000 + restarts;
    memset(big, 0x1e, BIG);
    MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    MPI_Send(big, BIG, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
  } else if (rank == 1) {
    int v = -1;
    MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (v != 1000 + restarts) {
      char m[96];
      snprintf(m, sizeof m, "received %d instead of %d: an old-epoch message was delivered", v, 1000 + restarts);
      fail(m);
    }
    memset(big, 0, BIG);
    MPI_Status st;
    MPI_Recv(big, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count != BIG) fail("the large message of the new epoch has the wrong size");
    for (int i = 0; i < BIG; ++i)
      if (big[i] != 0x1e) fail("the large message carries old-epoch bytes");
  }
  if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) fail("last barrier");
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s async|sync CKPT_DIR\n", argv[0]);
    return 2;
  }
  sync_mode = !strcmp(argv[1], "sync");
  dir = argv[2];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 3) fail("needs 3 ranks or more");
  mkdir(dir, 0700);
  big = malloc(BIG);
  if (!big) fail("out of memory");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, sync_mode ? MPI_ERRORS_REINIT_SYNC : MPI_ERRORS_REINIT_ASYNC);
  MPI_Reinit(resilient, NULL);
  if (rank == 0) printf("PASS reinit_stale %s\n", argv[1]);
  free(big);
  MPI_Finalize();
  return 0;
}
