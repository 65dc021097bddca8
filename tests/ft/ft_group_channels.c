/* ft_group_channels — the agreement channels of MPI_Comm_create_group are told apart exactly and survive
 * compaction (docs/fault-tolerance.md, "Agreement channels"). --with-ft ulfm, 4 ranks. Argument: the mode.
 *   collide: ranks {0,1,3} call MPI_Comm_create_group(MPI_COMM_WORLD, {0,1,3}, tag 863207) and then all ranks
 *            MPI_Comm_create_group(MPI_COMM_WORLD, world's group, tag 1760274), ITER times. Under the 32-bit
 *            channel hash that named a channel before (FNV-1a over the salt of (context 0, lowest member 0,
 *            2^29 | tag) and the sorted members) these two channels had the same hash, 0x0000b293: the second
 *            replaced the first, whose next use started over at round 0 while the members outside {0,1,3}...
 *            (a hang on main). Each new communicator must work (an allreduce of the ranks).
 *   many:    all ranks create MANY communicators over MPI_COMM_WORLD's group with distinct tags (as many
 *            distinct channels: far beyond the 256 kept live, so most are compacted), and every 5th call reuses
 *            the tag of an earlier call (a compacted channel made live again must continue its numbering).
 *            The resident set may grow by at most GROW_KB between the first third and the end.
 *   many_kill: the same, and rank 3 is killed by a second thread of its own after a pseudo-random number of calls:
 *            every survivor must stop at the same call with MPI_ERR_PROC_FAILED.
 * PASS: every communicator works, the outcome is uniform, memory stays within the bound, no hang. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "ft_check.h"

#define ITER 40
#define MANY 3000
#define GROW_KB 8192
static atomic_int calls_done;
static int kill_after;

static void *killer(void *arg) {
  (void)arg;
  while (atomic_load(&calls_done) < kill_after) ft_sleep_ms(0);
  ft_die();
  return NULL;
}

/* The new communicator works: an allreduce of the world ranks of its members. */
static void check_comm(MPI_Comm c, int expect_sum) {
  int me = ft_world_rank(), sum = -1;
  CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == expect_sum, "allreduce on the new communicator: %d, want %d", sum, expect_sum);
}

int main(int argc, char **argv) {
  CHECK(argc > 1, "usage: ft_group_channels collide|many|many_kill");
  const char *mode = argv[1];
  const int kill = strcmp(mode, "many_kill") == 0;
  int provided = -1, rank, size;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, kill ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 4, "needs 4 ranks");
  CHECK(!kill || provided == MPI_THREAD_MULTIPLE, "thread level %d", provided);
  MPI_Group world, sub;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  const int sub_ranks[3] = {0, 1, 3};
  CHECK_MPI(MPI_Group_incl(world, 3, sub_ranks, &sub));
  if (strcmp(mode, "collide") == 0) {
    for (int i = 0; i < ITER; i++) {
      MPI_Comm c = MPI_COMM_NULL;
      if (rank != 2) {
        CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, sub, 863207, &c));
        check_comm(c, 0 + 1 + 3);
        CHECK_MPI(MPI_Comm_free(&c));
      }
      CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, world, 1760274, &c));
      check_comm(c, 0 + 1 + 2 + 3);
      CHECK_MPI(MPI_Comm_free(&c));
    }
    if (rank == 0) printf("collide: %d rounds of both channels\n", ITER);
  } else {
    CHECK(strcmp(mode, "many") == 0 || kill, "unknown mode %s", mode);
    pthread_t th;
    kill_after = MANY / 3 + (int)((unsigned)time(NULL) % (MANY / 3));
    if (kill && rank == 3) CHECK(pthread_create(&th, NULL, killer, NULL) == 0);
    long rss_third = 0;
    int ok = 0, cls = MPI_SUCCESS;
    for (; ok < MANY; ok++) {
      if (ok == MANY / 3) rss_third = ft_rss_kb();
      const int tag = ok % 5 == 4 ? (ok * 7919) % (ok + 1) : ok;  /* every 5th: an earlier tag again */
      MPI_Comm c = MPI_COMM_NULL;
      const int rc = MPI_Comm_create_group(MPI_COMM_WORLD, world, 1000 + tag, &c);
      if (rc != MPI_SUCCESS) {
        cls = check_class_of(rc);
        CHECK(c == MPI_COMM_NULL, "call %d failed but gave a communicator", ok);
        break;
      }
      if (!kill) check_comm(c, 0 + 1 + 2 + 3);
      CHECK_MPI(MPI_Comm_free(&c));
      atomic_fetch_add(&calls_done, 1);
    }
    if (!kill) {
      const long grown = ft_rss_kb() - rss_third;
      if (rank == 0) printf("many: %d creations over distinct channels, resident set +%ld kB over the last two thirds\n", MANY, grown);
      CHECK(cls == MPI_SUCCESS, "call %d failed: %s", ok, ft_class_name(cls));
      CHECK(grown < GROW_KB, "resident set grew by %ld kB over %d creations", grown, MANY - MANY / 3);
    } else {
      CHECK(ok < MANY, "no failure seen");
      ft_check_uniform_stop(ok, cls, "creations");
    }
  }
  MPI_Group_free(&sub);
  MPI_Group_free(&world);
  ft_pass(MPI_COMM_WORLD, "ft_group_channels");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
