/* ev_mpit — a tool written to the MPI-4.0 standard (§15.3.8) sees process failures as MPI_T events.
 * `mpiexec --with-ft ulfm`, 4 ranks; rank 3 dies (SIGKILL).
 *
 * Before MPI_Init: MPI_T_init_thread works and event calls before it fail with MPI_T_ERR_NOT_INITIALIZED.
 * After MPI_Init the tool looks the event up by enumeration (get_num / get_info / name) and by name
 * (get_index), allocates a handle bound to MPI_COMM_WORLD and registers a THREAD_SAFE callback; a second handle
 * has only an MPI_T_CB_REQUIRE_NONE callback and a third only an MPI_T_CB_REQUIRE_MPI_RESTRICTED one, which
 * ftmpi cannot call from its event thread: they run on the application's thread at the exit of its next MPI
 * call (the test then calls MPI_Comm_size in its wait loop). A fourth handle has no callback: its dropped
 * handler runs.
 * PASS when on every survivor: the callback ran once, reading (MPI_T_event_read and MPI_T_event_copy) world
 * rank 3, cause MPIX_CAUSE_SIGNALED and code 9 (or cause MPIX_CAUSE_REPORTED), a timestamp not after the
 * source's clock and source 0; the NONE and MPI_RESTRICTED callbacks ran once each, on the main thread, with
 * their level, reading rank 3, and could call MPI; the dropped handler ran once; bad indices, names and
 * handles give the MPI_T error codes; handle_free calls the free callback. */

#include "ft_check.h"
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static atomic_int seen, dropped, freed, seen_none, seen_restricted, wrong;
static pthread_t main_thread;
static int got[3], copied[3], src = -1;
static MPI_Count stamp;

static void on_event(MPI_T_event_instance ei, MPI_T_event_registration er, MPI_T_cb_safety s, void *ud) {
  (void)er;
  (void)ud;
  if (s < MPI_T_CB_REQUIRE_THREAD_SAFE) return;
  for (int k = 0; k < 3; k++) MPI_T_event_read(ei, k, &got[k]);
  MPI_T_event_copy(ei, copied);
  MPI_T_event_get_timestamp(ei, &stamp);
  MPI_T_event_get_source(ei, &src);
  atomic_fetch_add(&seen, 1);
}
/* NONE / MPI_RESTRICTED: on the application's thread, with the level it was registered for */
static void on_event_app(MPI_T_event_instance ei, MPI_T_event_registration er, MPI_T_cb_safety s, void *ud) {
  (void)er;
  int who = -1, n = 0;
  MPI_T_event_read(ei, 0, &who);
  if (!pthread_equal(pthread_self(), main_thread) || who != 3 || s != *(MPI_T_cb_safety *)ud) atomic_fetch_add(&wrong, 1);
  if (s == MPI_T_CB_REQUIRE_NONE) {
    if (MPI_Comm_size(MPI_COMM_WORLD, &n) != MPI_SUCCESS || n != 4) atomic_fetch_add(&wrong, 1); /* MPI allowed */
    atomic_fetch_add(&seen_none, 1);
  } else {
    atomic_fetch_add(&seen_restricted, 1);
  }
}
static void on_dropped(MPI_Count count, MPI_T_event_registration er, int source, MPI_T_cb_safety s, void *ud) {
  (void)er, (void)source, (void)s, (void)ud;
  atomic_fetch_add(&dropped, (int)count);
}
static void on_free(MPI_T_event_registration er, MPI_T_cb_safety s, void *ud) {
  (void)er, (void)s;
  atomic_fetch_add(&freed, *(int *)ud);
}

int main(int argc, char **argv) {
  int n, provided, idx = -1;
  CHECK(MPI_T_event_get_num(&n) == MPI_T_ERR_NOT_INITIALIZED);
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size == 4, "needs 4 ranks");
  CHECK_MPI(MPI_T_event_get_num(&n));
  CHECK(n >= 1);
  for (int i = 0; i < n; i++) {
    char name[64], desc[256];
    int nl = sizeof name, dl = sizeof desc, verb, nel = 3, bind;
    MPI_Datatype types[3];
    MPI_Aint displs[3];
    MPI_T_enum en;
    MPI_Info info;
    CHECK_MPI(MPI_T_event_get_info(i, name, &nl, &verb, types, displs, &nel, &en, &info, desc, &dl, &bind));
    if (strcmp(name, "ftmpi_proc_failed") == 0) {
      idx = i;
      CHECK(nel == 3 && types[0] == MPI_INT && bind == MPI_T_BIND_MPI_COMM, "elements %d bind %d", nel, bind);
      CHECK(nl == (int)strlen(name) + 1);
    }
  }
  CHECK(idx >= 0, "no ftmpi_proc_failed event among %d", n);
  int idx2 = -1;
  CHECK_MPI(MPI_T_event_get_index("ftmpi_proc_failed", &idx2));
  CHECK(idx2 == idx);
  CHECK(MPI_T_event_get_index("no_such_event", &idx2) == MPI_T_ERR_INVALID_NAME);
  CHECK(MPI_T_event_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MPI_T_ERR_INVALID_INDEX);
  int nsrc = 0;
  CHECK_MPI(MPI_T_source_get_num(&nsrc));
  CHECK(nsrc == 1);
  MPI_Count tps = 0;
  MPI_T_source_order order;
  CHECK_MPI(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, &order, &tps, NULL, NULL));
  CHECK(tps == 1000000000 && order == MPI_T_SOURCE_ORDERED);

  main_thread = pthread_self();
  MPI_T_event_registration reg, reg_none, reg_restricted, reg_nocb;
  static MPI_T_cb_safety lv_none = MPI_T_CB_REQUIRE_NONE, lv_restricted = MPI_T_CB_REQUIRE_MPI_RESTRICTED;
  MPI_Comm world = MPI_COMM_WORLD;
  CHECK(MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &reg) == MPI_ERR_ARG);
  CHECK_MPI(MPI_T_event_handle_alloc(idx, &world, MPI_INFO_NULL, &reg));
  CHECK_MPI(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, NULL, on_event));
  CHECK_MPI(MPI_T_event_handle_alloc(idx, &world, MPI_INFO_NULL, &reg_none));
  CHECK_MPI(MPI_T_event_register_callback(reg_none, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &lv_none, on_event_app));
  CHECK_MPI(MPI_T_event_set_dropped_handler(reg_none, on_dropped));
  CHECK_MPI(MPI_T_event_handle_alloc(idx, &world, MPI_INFO_NULL, &reg_restricted));
  CHECK_MPI(MPI_T_event_register_callback(reg_restricted, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, &lv_restricted,
                                          on_event_app));
  CHECK_MPI(MPI_T_event_handle_alloc(idx, &world, MPI_INFO_NULL, &reg_nocb));
  CHECK_MPI(MPI_T_event_set_dropped_handler(reg_nocb, on_dropped));
  CHECK(MPI_T_event_register_callback((MPI_T_event_registration)&world, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL,
                                      on_event) == MPI_T_ERR_INVALID_HANDLE);

  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 3) ft_die();
  double t0 = ft_now();
  while (atomic_load(&seen) < 1 || atomic_load(&dropped) < 1 || atomic_load(&seen_none) < 1 ||
         atomic_load(&seen_restricted) < 1) {
    CHECK(ft_now() - t0 < 10.0, "no MPI_T event after 10 s (seen %d dropped %d none %d restricted %d)", atomic_load(&seen),
          atomic_load(&dropped), atomic_load(&seen_none), atomic_load(&seen_restricted));
    ft_sleep_ms(1);
    int n4 = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &n4); /* an MPI call: its exit runs the NONE / MPI_RESTRICTED callbacks */
  }
  ft_sleep_ms(50);
  int n4 = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n4);
  CHECK(atomic_load(&seen_none) == 1 && atomic_load(&seen_restricted) == 1, "NONE callback ran %d times, MPI_RESTRICTED %d",
        atomic_load(&seen_none), atomic_load(&seen_restricted));
  CHECK(atomic_load(&wrong) == 0, "a NONE/MPI_RESTRICTED callback ran off the main thread, with a wrong level or event");
  CHECK(atomic_load(&seen) == 1, "callback ran %d times", atomic_load(&seen));
  CHECK(atomic_load(&dropped) == 1, "dropped handler ran %d times", atomic_load(&dropped));
  CHECK(got[0] == 3, "event names world rank %d", got[0]);
  CHECK((got[1] == MPIX_CAUSE_SIGNALED && got[2] == 9) || got[1] == MPIX_CAUSE_REPORTED, "cause %d code %d", got[1], got[2]);
  CHECK(memcmp(got, copied, sizeof got) == 0, "MPI_T_event_copy differs from MPI_T_event_read");
  MPI_Count now = 0;
  CHECK_MPI(MPI_T_source_get_timestamp(0, &now));
  CHECK(stamp > 0 && stamp <= now && src == 0, "timestamp %lld now %lld source %d", (long long)stamp, (long long)now, src);
  int one = 1;
  CHECK_MPI(MPI_T_event_handle_free(reg, &one, on_free));
  CHECK_MPI(MPI_T_event_handle_free(reg_none, &one, on_free));
  CHECK_MPI(MPI_T_event_handle_free(reg_restricted, &one, on_free));
  CHECK_MPI(MPI_T_event_handle_free(reg_nocb, &one, on_free));
  CHECK(atomic_load(&freed) == 4);
  CHECK_MPI(MPI_T_finalize());
  ft_pass(MPI_COMM_WORLD, "ev_mpit");
  MPI_Finalize();
  return 0;
}
