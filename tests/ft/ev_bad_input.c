/* ev_bad_input — the event, failure-callback, failed-rank and MPI_T calls reject bad input with clear errors
 * (MPI_ERRORS_RETURN) instead of crashing or hanging; a callback that calls MPI is refused. 2 ranks,
 * `mpiexec --with-ft lam`, no failure.
 * PASS when each bad call returns the error class named next to it, and the good calls around them work. */

#include "ft_check.h"
#include <stdatomic.h>

static atomic_int cb_rc = -1;
static void cb(const MPIX_Event *ev, void *extra) {
  (void)ev, (void)extra;
  int sub;
  atomic_store(&cb_rc, MPIX_Event_subscribe(MPI_COMM_WORLD, MPI_ANY_SOURCE, MPIX_EVENT_MASK_ALL, cb, NULL, &sub));
}

int main(int argc, char **argv) {
  int rank, size, sub, flag, n;
  ft_init(&argc, &argv, &rank, &size);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPIX_Event ev;
  CHECK_CLASS(MPIX_Event_poll(NULL, &flag), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Event_poll(&ev, NULL), MPI_ERR_ARG);
  CHECK_MPI(MPIX_Event_poll(&ev, &flag));
  CHECK(flag == 0, "queue not empty at start");
  CHECK_CLASS(MPIX_Event_subscribe(MPI_COMM_WORLD, MPI_ANY_SOURCE, MPIX_EVENT_MASK_ALL, NULL, NULL, &sub), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Event_subscribe(MPI_COMM_WORLD, MPI_ANY_SOURCE, 0, cb, NULL, &sub), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Event_subscribe(MPI_COMM_WORLD, MPI_ANY_SOURCE, 1 << 9, cb, NULL, &sub), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Event_subscribe(MPI_COMM_WORLD, size, MPIX_EVENT_MASK_ALL, cb, NULL, &sub), MPI_ERR_RANK);
  CHECK_CLASS(MPIX_Event_subscribe(MPI_COMM_WORLD, MPI_ANY_SOURCE, MPIX_EVENT_MASK_ALL, cb, NULL, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Event_subscribe(MPI_COMM_NULL, MPI_ANY_SOURCE, MPIX_EVENT_MASK_ALL, cb, NULL, &sub), MPI_ERR_COMM);
  CHECK_CLASS(MPIX_Event_unsubscribe(12345), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Event_publish(MPI_COMM_NULL, 1), MPI_ERR_COMM);
  CHECK_CLASS(MPIX_Comm_set_failure_callback(MPI_COMM_NULL, NULL, NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPIX_Comm_failed_ranks(MPI_COMM_WORLD, -1, NULL, &n), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Comm_failed_ranks(MPI_COMM_WORLD, 4, NULL, &n), MPI_ERR_ARG);
  CHECK_CLASS(MPIX_Comm_failed_ranks(MPI_COMM_WORLD, 0, NULL, NULL), MPI_ERR_ARG);
  CHECK_MPI(MPIX_Comm_failed_ranks(MPI_COMM_WORLD, 0, NULL, &n));
  CHECK(n == 0);
  int *size_attr = NULL, *list = NULL;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_FAILED_SIZE, &size_attr, &flag));
  CHECK(flag == 1 && size_attr && *size_attr == 0);
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_FAILED_LIST, &list, &flag));
  CHECK(flag == 1 && list != NULL);
  CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_FAILED_SIZE, NULL), MPI_ERR_KEYVAL);
  /* a callback calling MPI is refused (signal-handler rules), not deadlocked */
  CHECK_MPI(MPIX_Event_subscribe(MPI_COMM_SELF, MPI_ANY_SOURCE, MPIX_EVENT_MASK(MPIX_EVENT_USER), cb, NULL, &sub));
  CHECK_MPI(MPIX_Event_publish(MPI_COMM_SELF, 3));
  double t0 = ft_now();
  while (atomic_load(&cb_rc) == -1) {
    CHECK(ft_now() - t0 < 10.0, "user event never delivered");
    ft_sleep_ms(1);
  }
  CHECK(check_class_of(atomic_load(&cb_rc)) == MPI_ERR_OTHER, "MPI call from a callback returned %d", atomic_load(&cb_rc));
  CHECK_MPI(MPIX_Event_poll(&ev, &flag));
  CHECK(flag == 1 && ev.type == MPIX_EVENT_USER && ev.code == 3 && ev.world_rank == rank && ev.comm == MPI_COMM_SELF);
  CHECK_MPI(MPIX_Event_unsubscribe(sub));
  /* MPI_T: bad handles and indices */
  int provided;
  CHECK(MPI_T_event_read(NULL, 0, &n) == MPI_T_ERR_NOT_INITIALIZED);
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  CHECK(MPI_T_event_read(NULL, 0, &n) == MPI_T_ERR_INVALID_HANDLE);
  CHECK(MPI_T_event_handle_free(NULL, NULL, NULL) == MPI_T_ERR_INVALID_HANDLE);
  MPI_T_event_registration reg;
  MPI_Comm nullc = MPI_COMM_NULL;
  CHECK(MPI_T_event_handle_alloc(-1, &nullc, MPI_INFO_NULL, &reg) == MPI_T_ERR_INVALID_INDEX);
  CHECK(MPI_T_event_handle_alloc(0, &nullc, MPI_INFO_NULL, &reg) == MPI_ERR_COMM);
  CHECK(MPI_T_source_get_timestamp(1, NULL) == MPI_T_ERR_INVALID_INDEX);
  CHECK_MPI(MPI_T_finalize());
  CHECK(MPI_T_finalize() == MPI_T_ERR_NOT_INITIALIZED);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("PASS ev_bad_input\n");
  MPI_Finalize();
  return 0;
}
