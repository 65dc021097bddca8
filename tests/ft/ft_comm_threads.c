/* ft_comm_threads — communicators created by several threads at once (MPI_THREAD_MULTIPLE) in FT mode while a
 * member is SIGKILLed. --with-ft ulfm.
 * NT threads per rank, each with its own duplicate of MPI_COMM_WORLD (MPI_ERRORS_RETURN), create and free
 * communicators in a loop: MPI_Comm_dup and MPI_Comm_split (two halves) of their duplicate, each checked with an
 * Allreduce. Rank 2's thread 0 kills the process after its 4th round. Every survivor thread must then see a
 * creation (or the Allreduce) fail with MPI_ERR_PROC_FAILED or MPI_ERR_REVOKED — never hang, never a context id
 * clash (MPI_ERR_INTERN) — and revokes its duplicate, so the other survivors' calls on it end too. The context
 * ids are agreed in rounds (src/comm/comm_ops.h agree_context, context_alloc.h "Threads"), each round one
 * fault-tolerant agreement: a round with the dead member decides with it in the failed set at every survivor.
 * Then every survivor shrinks MPI_COMM_WORLD (ft_pass). PASS: all of the above. Needs >= 3 ranks. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "ft_check.h"

#define NT 3
#define MAX_ROUNDS 10000
static int rank, size;
static MPI_Comm base[NT];
static int outcome[NT];

static int ok_class(int rc) {
  const int c = check_class_of(rc);
  return c == MPI_ERR_PROC_FAILED || c == MPI_ERR_REVOKED;
}

static void *worker(void *arg) {
  const int t = (int)(intptr_t)arg;
  for (int r = 0; r < MAX_ROUNDS; r++) {
    if (rank == 2 && t == 0 && r == 4) ft_die();
    MPI_Comm d = MPI_COMM_NULL, s = MPI_COMM_NULL;
    int rc = MPI_Comm_dup(base[t], &d);
    if (rc == MPI_SUCCESS) {
      int one = 1, sum = 0;
      CHECK_MPI(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
      rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d);
      CHECK(rc != MPI_SUCCESS || sum == size, "thread %d: allreduce %d on the dup", t, sum);
      CHECK_MPI(MPI_Comm_free(&d));
    }
    if (rc == MPI_SUCCESS) rc = MPI_Comm_split(base[t], rank % 2, rank, &s);
    if (rc == MPI_SUCCESS) {
      CHECK_MPI(MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN));
      int one = 1, sum = 0;
      rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s);
      CHECK_MPI(MPI_Comm_free(&s));
    }
    if (rc != MPI_SUCCESS) {
      CHECK(ok_class(rc), "thread %d round %d: %s (expected PROC_FAILED or REVOKED)", t, r, ft_class_name(rc));
      CHECK_MPI(MPIX_Comm_revoke(base[t]));
      outcome[t] = 1;
      return NULL;
    }
  }
  CHECK(0, "thread %d: %d rounds and no error, with rank 2 dead", t, MAX_ROUNDS);
  return NULL;
}

int main(int argc, char **argv) {
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(provided == MPI_THREAD_MULTIPLE, "thread level %d", provided);
  CHECK(size >= 3, "needs >= 3 ranks");
  for (int t = 0; t < NT; t++) {
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base[t]));
    CHECK_MPI(MPI_Comm_set_errhandler(base[t], MPI_ERRORS_RETURN));
  }
  pthread_t th[NT];
  for (int t = 0; t < NT; t++) CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < NT; t++) CHECK(pthread_join(th[t], NULL) == 0);
  for (int t = 0; t < NT; t++) {
    CHECK(outcome[t] == 1, "thread %d ended without an error", t);
    CHECK_MPI(MPI_Comm_free(&base[t]));
  }
  ft_pass(MPI_COMM_WORLD, "ft_comm_threads");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
