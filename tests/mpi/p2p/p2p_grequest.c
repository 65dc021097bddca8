/* p2p_grequest — generalized requests (MPI-3.1 §12.2; issue 14 item 7):
 *  - query_fn fills the status (MPI_Status_set_elements, MPI_Status_set_cancelled, source/tag) that Wait,
 *    Test, Waitall, Testany, Waitsome and Request_get_status report; free_fn runs once when the request is
 *    freed, after query_fn; cancel_fn gets complete = 0/1 on MPI_Cancel;
 *  - MPI_Grequest_complete from another thread wakes a blocked MPI_Wait, which sleeps meanwhile (the thread's
 *    CPU time stays well below the wall time);
 *  - grequests mixed with real receives in Waitall (so it also runs over shm and tcp);
 *  - MPI_Request_free before completion: free_fn runs after MPI_Grequest_complete;
 *  - a query_fn error is what MPI_Wait returns; MPI_Grequest_complete twice / on a non-grequest fails;
 *  - MPI_Request_get_status(MPI_REQUEST_NULL) gives the empty status (issue 14 item 4).
 * 2+ ranks (MPI_THREAD_MULTIPLE). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep under -std=c11 */
#include <pthread.h>
#include <time.h>

#include "common/check.h"

typedef struct {
  int queries, frees, cancels, last_cancel_complete;
  int src, tag, nelem, cancelled, query_rc;
} greq_state;

static int query_fn(void *extra, MPI_Status *status) {
  greq_state *s = (greq_state *)extra;
  s->queries++;
  status->MPI_SOURCE = s->src;
  status->MPI_TAG = s->tag;
  MPI_Status_set_elements(status, MPI_INT, s->nelem);
  MPI_Status_set_cancelled(status, s->cancelled);
  return s->query_rc;
}
static int free_fn(void *extra) {
  greq_state *s = (greq_state *)extra;
  if (s->queries == 0 && s->cancels == 0 && s->src != -99) s->src = -98; /* marker: freed before any query */
  s->frees++;
  return MPI_SUCCESS;
}
static int cancel_fn(void *extra, int complete) {
  greq_state *s = (greq_state *)extra;
  s->cancels++;
  s->last_cancel_complete = complete;
  return MPI_SUCCESS;
}

static void init_state(greq_state *s, int src, int tag, int nelem) {
  memset(s, 0, sizeof *s);
  s->src = src;
  s->tag = tag;
  s->nelem = nelem;
}

static double now(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static MPI_Request completer_req;
static void *completer(void *arg) {
  (void)arg;
  struct timespec d = {0, 300 * 1000 * 1000};
  nanosleep(&d, NULL);
  MPI_Grequest_complete(completer_req);
  return NULL;
}

int main(int argc, char **argv) {
  int provided, rank, size, flag, count, idx;
  MPI_Status st;
  MPI_Request r;
  greq_state s;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size >= 2, "run with 2+ ranks");

  /* Request_get_status on MPI_REQUEST_NULL: flag 1 and the empty status */
  st.MPI_SOURCE = st.MPI_TAG = st.MPI_ERROR = 12345;
  CHECK_MPI(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
  CHECK(flag == 1);
  CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "empty status: %d %d", st.MPI_SOURCE,
        st.MPI_TAG);
#ifndef OPEN_MPI /* the empty status has MPI_ERROR = MPI_SUCCESS; Open MPI 4.1 leaves the field alone */
  CHECK(st.MPI_ERROR == MPI_SUCCESS, "empty status: MPI_ERROR %d", st.MPI_ERROR);
#endif
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 0);
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 0);

  /* 1. complete first, then Test: query, free, status as query set it */
  init_state(&s, 3, 17, 5);
  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
  CHECK_MPI(MPI_Test(&r, &flag, &st));
  CHECK(flag == 0 && r != MPI_REQUEST_NULL && s.queries == 0);
  CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
  CHECK(flag == 0);
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
  CHECK(flag == 1 && s.queries == 1 && s.frees == 0 && st.MPI_TAG == 17);
  CHECK_MPI(MPI_Test(&r, &flag, &st));
  CHECK(flag == 1 && r == MPI_REQUEST_NULL);
  CHECK(s.queries == 2 && s.frees == 1, "queries %d frees %d", s.queries, s.frees);
  CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 17);
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 5, "count %d", count);
  CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &count));
  CHECK(count == 5);
  CHECK_MPI(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 0);

  /* 2. Wait blocked while another thread completes it 0.3 s later: woken, and not spinning */
  init_state(&s, rank, 5, 2);
  s.cancelled = 1;
  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &completer_req));
  {
    pthread_t th;
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
    CHECK(pthread_create(&th, NULL, completer, NULL) == 0);
    CHECK_MPI(MPI_Wait(&completer_req, &st));
    double wall = now(CLOCK_MONOTONIC) - w0, cpu = now(CLOCK_THREAD_CPUTIME_ID) - c0;
    pthread_join(th, NULL);
    CHECK(completer_req == MPI_REQUEST_NULL && s.queries == 1 && s.frees == 1);
    CHECK(wall >= 0.25, "MPI_Wait returned after %.3f s, before MPI_Grequest_complete", wall);
    CHECK(cpu < 0.6 * wall, "MPI_Wait on a grequest burnt %.3f s CPU in %.3f s", cpu, wall);
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1);
  }

  /* 3. Waitall over grequests and a real message from the neighbour (shm/tcp) */
  {
    greq_state a, b;
    int peer = (rank + 1) % size, from = (rank + size - 1) % size, in = -1, out = rank;
    MPI_Request reqs[3];
    MPI_Status sts[3];
    init_state(&a, 1, 1, 1);
    init_state(&b, 2, 2, 2);
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &a, &reqs[0]));
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, from, 9, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &b, &reqs[2]));
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, peer, 9, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Testany(3, reqs, &idx, &flag, &st));
    if (flag) CHECK(idx == 1, "only the receive can be complete, got %d", idx);
    CHECK_MPI(MPI_Grequest_complete(reqs[2]));
    CHECK_MPI(MPI_Grequest_complete(reqs[0]));
    CHECK_MPI(MPI_Waitall(3, reqs, sts));
    CHECK(in == from);
    CHECK(sts[0].MPI_TAG == 1 && sts[2].MPI_TAG == 2);
    CHECK(flag ? st.MPI_TAG == 9 : sts[1].MPI_TAG == 9); /* Testany may have completed the receive */
    CHECK(a.queries == 1 && a.frees == 1 && b.queries == 1 && b.frees == 1);
  }

  /* 4. Waitsome / Testany on grequests */
  {
    greq_state a, b;
    MPI_Request reqs[2];
    int out, ids[2];
    init_state(&a, 0, 31, 0);
    init_state(&b, 0, 32, 0);
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &a, &reqs[0]));
    CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &b, &reqs[1]));
    CHECK_MPI(MPI_Testany(2, reqs, &idx, &flag, &st));
    CHECK(flag == 0 && idx == MPI_UNDEFINED);
    CHECK_MPI(MPI_Grequest_complete(reqs[1]));
    CHECK_MPI(MPI_Waitsome(2, reqs, &out, ids, MPI_STATUSES_IGNORE));
    CHECK(out == 1 && ids[0] == 1 && reqs[1] == MPI_REQUEST_NULL && b.frees == 1 && a.frees == 0);
    CHECK_MPI(MPI_Grequest_complete(reqs[0]));
    CHECK_MPI(MPI_Waitany(2, reqs, &idx, &st));
    CHECK(idx == 0 && st.MPI_TAG == 31 && a.frees == 1);
  }

  /* 5. cancel, then free before completion: free_fn after MPI_Grequest_complete */
  init_state(&s, 0, 0, 0);
  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
  CHECK_MPI(MPI_Cancel(&r));
  CHECK(s.cancels == 1 && s.last_cancel_complete == 0);
  {
    MPI_Request keep = r;
    CHECK_MPI(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL);
#ifndef MPICH /* MPI-3.1 §12.2: free_fn runs in MPI_Request_free or MPI_Grequest_complete, whichever is last;
                 MPICH 4.0 runs it in MPI_Request_free */
    CHECK(s.frees == 0, "free_fn ran before completion");
#endif
    CHECK_MPI(MPI_Grequest_complete(keep));
    CHECK(s.frees == 1, "free_fn ran %d times after completion of a freed grequest", s.frees);
  }

  /* 6. errors: query_fn's code is what Wait returns; complete twice; complete on a receive */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  init_state(&s, 0, 0, 0);
  s.query_rc = MPI_ERR_OTHER;
  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
  CHECK_MPI(MPI_Grequest_complete(r));
  {
    MPI_Request keep = r;
    CHECK_CLASS(MPI_Wait(&r, &st), MPI_ERR_OTHER);
    CHECK(s.frees == 1);
    (void)keep;
  }
#ifdef FTMPI /* erroneous programs: ftmpi reports them, the peers' behaviour differs */
  init_state(&s, 0, 0, 0);
  CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &r));
  CHECK_MPI(MPI_Grequest_complete(r));
  CHECK_CLASS(MPI_Grequest_complete(r), MPI_ERR_REQUEST);
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  {
    int x;
    MPI_Request rr;
    CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &rr));
    CHECK_CLASS(MPI_Grequest_complete(rr), MPI_ERR_REQUEST);
    CHECK_MPI(MPI_Cancel(&rr));
    CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
  }
  CHECK_CLASS(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, NULL), MPI_ERR_ARG);
#endif
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS p2p_grequest\n");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
