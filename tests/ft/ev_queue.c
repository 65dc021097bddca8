/* ev_queue — the event queue and subscriptions (seed 004), `mpiexec --with-ft ulfm`, at least 5 ranks.
 *
 * Ranks 1 and 2 are victims; the others ("stay", a communicator made at the start) drive a known sequence, each
 * step confirmed by every survivor before the next:
 *   1. rank 1 dies (SIGKILL);                        every survivor waits for its notice
 *   2. rank 0 publishes a user event (code 7) on stay; a barrier on stay (the frame arrives before it)
 *   3. rank 0 revokes dup (a dup of stay);           a barrier on dup fails with REVOKED everywhere, one on stay
 *   4. rank 2 dies (told by rank 0, then SIGKILL);   every survivor waits for its notice
 * PASS when every survivor's queue (MPIX_Event_poll) holds exactly, in this order: PROC_FAILED 1 (cause
 * SIGNALED, code 9), USER from 0 with code 7 on stay, COMM_REVOKED of dup, PROC_FAILED 2; and then nothing.
 * A subscription on MPI_COMM_WORLD to failures of any rank got 1 then 2 (callbacks on the event thread); one
 * to failures of rank 2 only got just 2; one on stay to user events got the user event; a subscription made
 * after the failures gets both of them (catch-up), in order; after unsubscribe nothing more arrives. */

#include "ft_check.h"
#include <stdatomic.h>

#define MAXE 16
typedef struct {
  atomic_int n;
  int type[MAXE], who[MAXE], code[MAXE];
} log_t;
static log_t any_failure, only2, users, late;

static void record(const MPIX_Event *ev, void *extra) {
  log_t *l = extra;
  int i = atomic_load(&l->n);
  if (i < MAXE) {
    l->type[i] = ev->type;
    l->who[i] = ev->world_rank;
    l->code[i] = ev->code;
  }
  atomic_store(&l->n, i + 1);
}

static void wait_count(log_t *l, int n) {
  double t0 = ft_now();
  while (atomic_load(&l->n) < n) {
    CHECK(ft_now() - t0 < 10.0, "subscription got %d events, expected %d", atomic_load(&l->n), n);
    ft_sleep_ms(1);
  }
}

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size >= 5, "needs at least 5 ranks");
  int victim = rank == 1 || rank == 2;
  MPI_Comm stay, dup;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, victim ? MPI_UNDEFINED : 0, rank, &stay));
  int s1, s2, s3;
  CHECK_MPI(MPIX_Event_subscribe(MPI_COMM_WORLD, MPI_ANY_SOURCE, MPIX_EVENT_MASK(MPIX_EVENT_PROC_FAILED), record,
                                 &any_failure, &s1));
  CHECK_MPI(MPIX_Event_subscribe(MPI_COMM_WORLD, 2, MPIX_EVENT_MASK(MPIX_EVENT_PROC_FAILED), record, &only2, &s2));
  if (!victim) {
    CHECK_MPI(MPI_Comm_set_errhandler(stay, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_dup(stay, &dup));
    CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    CHECK_MPI(MPIX_Event_subscribe(stay, MPI_ANY_SOURCE, MPIX_EVENT_MASK(MPIX_EVENT_USER), record, &users, &s3));
  }
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 1) ft_die();
  if (rank == 2) {
    int go;
    MPI_Recv(&go, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ft_die();
  }
  ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
  CHECK_MPI(MPI_Barrier(stay));
  if (rank == 0) CHECK_MPI(MPIX_Event_publish(stay, 7));
  CHECK_MPI(MPI_Barrier(stay));
  if (rank == 0) CHECK_MPI(MPIX_Comm_revoke(dup));
  /* Every survivor has seen the revoke before rank 2 dies: a Barrier on dup fails with REVOKED once the revoke
     reached this rank. (A barrier on stay alone did not say so: its release may come through another member
     before rank 0's revoke frame is read, and rank 2's failure notice was queued first: 1 in ~450 loaded runs.) */
  int rc = MPI_Barrier(dup), cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REVOKED, "Barrier on the revoked dup gave class %d", cls);
  CHECK_MPI(MPI_Barrier(stay));
  if (rank == 0) {
    int go = 1;
    CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 2, 5, MPI_COMM_WORLD));
  }
  ft_wait_failed(MPI_COMM_WORLD, 2, 10.0);

  MPIX_Event ev[8];
  int n = 0, flag = 1;
  while (n < 8) {
    CHECK_MPI(MPIX_Event_poll(&ev[n], &flag));
    if (!flag) break;
    n++;
  }
  CHECK(n == 4, "queue held %d events, expected 4", n);
  CHECK(ev[0].type == MPIX_EVENT_PROC_FAILED && ev[0].world_rank == 1, "event 0: type %d rank %d", ev[0].type, ev[0].world_rank);
  CHECK(ev[0].cause == MPIX_CAUSE_SIGNALED || ev[0].cause == MPIX_CAUSE_REPORTED, "event 0: cause %d", ev[0].cause);
  CHECK(ev[0].cause != MPIX_CAUSE_SIGNALED || ev[0].code == 9, "event 0: code %d", ev[0].code);
  CHECK(ev[0].comm == MPI_COMM_WORLD);
  CHECK(ev[1].type == MPIX_EVENT_USER && ev[1].world_rank == 0 && ev[1].code == 7 && ev[1].comm == stay,
        "event 1: type %d rank %d code %d", ev[1].type, ev[1].world_rank, ev[1].code);
  CHECK(ev[2].type == MPIX_EVENT_COMM_REVOKED && ev[2].comm == dup, "event 2: type %d", ev[2].type);
  CHECK(ev[3].type == MPIX_EVENT_PROC_FAILED && ev[3].world_rank == 2, "event 3: type %d rank %d", ev[3].type, ev[3].world_rank);
  CHECK(ev[0].time <= ev[3].time + 0.5, "times out of order");

  wait_count(&any_failure, 2);
  CHECK(any_failure.type[0] == MPIX_EVENT_PROC_FAILED && any_failure.who[0] == 1 && any_failure.who[1] == 2,
        "any-failure subscription: %d then %d", any_failure.who[0], any_failure.who[1]);
  wait_count(&only2, 1);
  CHECK(only2.who[0] == 2, "rank-2 subscription got rank %d", only2.who[0]);
  wait_count(&users, 1);
  CHECK(users.type[0] == MPIX_EVENT_USER && users.code[0] == 7, "user subscription: type %d code %d", users.type[0], users.code[0]);
  int s4;
  CHECK_MPI(MPIX_Event_subscribe(MPI_COMM_WORLD, MPI_ANY_SOURCE, MPIX_EVENT_MASK_ALL, record, &late, &s4));
  wait_count(&late, 2);
  CHECK(late.who[0] == 1 && late.who[1] == 2, "late subscription: %d then %d", late.who[0], late.who[1]);
  CHECK_MPI(MPIX_Event_unsubscribe(s1));
  CHECK_MPI(MPIX_Event_unsubscribe(s2));
  CHECK_MPI(MPIX_Event_unsubscribe(s3));
  CHECK_MPI(MPIX_Event_unsubscribe(s4));
  CHECK_CLASS(MPIX_Event_unsubscribe(s4), MPI_ERR_ARG);
  ft_sleep_ms(50);
  CHECK(atomic_load(&any_failure.n) == 2 && atomic_load(&only2.n) == 1 && atomic_load(&users.n) == 1 &&
            atomic_load(&late.n) == 2,
        "callbacks ran more often than expected");
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Barrier(stay));
  if (rank == 0) printf("PASS ev_queue (%d ranks)\n", size);
  CHECK_MPI(MPI_Comm_free(&stay));
  MPI_Finalize();
  return 0;
}
