/* ev_mpit_args — MPI_T event calls take their arguments the way tools pass them, and refuse bad ones without
 * crashing. 2 ranks, `mpiexec --with-ft lam`, no failure.
 *
 * - MPI_T_event_handle_alloc's obj_handle is a pointer to the communicator handle (MPI-4.0 §15.3.8); tools
 *   written against Open MPI pass the handle itself (MPI_COMM_WORLD). Both forms bind the registration to the
 *   communicator: a user event published by rank 1 reaches the callbacks of a handle allocated each way.
 * - Negative name/desc lengths (INOUT arguments) give MPI_ERR_ARG from every MPI_T get_info call, and nothing
 *   is written into the buffers.
 * - Hints set with MPI_T_event_handle_set_info / MPI_T_event_callback_set_info (and given to handle_alloc)
 *   are returned by the matching get_info; MPI_INFO_NULL clears them.
 * PASS when every check holds on both ranks. */

#include "ft_check.h"
#include <stdatomic.h>
#include <string.h>

static atomic_int hits[2];

static void on_event(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
  (void)reg, (void)safety;
  int publisher = -1, code = -1;
  if (MPI_T_event_read(ev, 0, &publisher) == MPI_SUCCESS && MPI_T_event_read(ev, 1, &code) == MPI_SUCCESS &&
      publisher == 1 && code == 4242)
    atomic_fetch_add(&hits[*(int *)ud], 1);
}

static int nkeys_of(MPI_Info info) {
  int n = -1;
  CHECK_MPI(MPI_Info_get_nkeys(info, &n));
  return n;
}

static int has_value(MPI_Info info, const char *key, const char *want) {
  char val[64] = "";
  int flag = 0;
  CHECK_MPI(MPI_Info_get(info, key, (int)sizeof val - 1, val, &flag));
  return flag && strcmp(val, want) == 0;
}

int main(int argc, char **argv) {
  int rank, size, provided;
  ft_init(&argc, &argv, &rank, &size);
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));

  int idx = -1;
  CHECK_MPI(MPI_T_event_get_index("ftmpi_user_event", &idx));

  /* Negative lengths: MPI_ERR_ARG, buffers untouched. */
  char name[64] = "untouched", desc[64] = "untouched";
  int name_len = -100, desc_len = (int)sizeof desc, num = 0;
  CHECK(MPI_T_event_get_info(idx, name, &name_len, NULL, NULL, NULL, &num, NULL, NULL, desc, &desc_len, NULL) ==
        MPI_ERR_ARG, "event_get_info accepted name_len -100");
  name_len = (int)sizeof name, desc_len = -1;
  CHECK(MPI_T_event_get_info(idx, name, &name_len, NULL, NULL, NULL, &num, NULL, NULL, desc, &desc_len, NULL) ==
        MPI_ERR_ARG, "event_get_info accepted desc_len -1");
  name_len = -5, desc_len = (int)sizeof desc;
  CHECK(MPI_T_source_get_info(0, name, &name_len, desc, &desc_len, NULL, NULL, NULL, NULL) == MPI_ERR_ARG,
        "source_get_info accepted name_len -5");
  name_len = -5;
  int ncvars = 0;
  CHECK_MPI(MPI_T_cvar_get_num(&ncvars));
  if (ncvars > 0)
    CHECK(MPI_T_cvar_get_info(0, name, &name_len, NULL, NULL, NULL, desc, &desc_len, NULL, NULL) == MPI_ERR_ARG,
          "cvar_get_info accepted name_len -5");
  int ncat = 0;
  CHECK_MPI(MPI_T_category_get_num(&ncat));
  if (ncat > 0)
    CHECK(MPI_T_category_get_info(0, name, &name_len, desc, &desc_len, NULL, NULL, NULL) == MPI_ERR_ARG,
          "category_get_info accepted name_len -5");
  CHECK(strcmp(name, "untouched") == 0 && strcmp(desc, "untouched") == 0, "a buffer was written: '%s' '%s'", name,
        desc);

  /* Both forms of obj_handle. */
  MPI_Comm world = MPI_COMM_WORLD;
  MPI_Info hint;
  CHECK_MPI(MPI_Info_create(&hint));
  CHECK_MPI(MPI_Info_set(hint, "tool_hint", "at_alloc"));
  MPI_T_event_registration by_ptr, by_handle;
  CHECK_MPI(MPI_T_event_handle_alloc(idx, &world, hint, &by_ptr));
  CHECK_MPI(MPI_T_event_handle_alloc(idx, (void *)MPI_COMM_WORLD, MPI_INFO_NULL, &by_handle));
  static int which[2] = {0, 1};
  CHECK_MPI(MPI_T_event_register_callback(by_ptr, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &which[0], on_event));
  CHECK_MPI(MPI_T_event_register_callback(by_handle, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &which[1],
                                          on_event));

  /* Hints round trip. */
  MPI_Info used;
  CHECK_MPI(MPI_T_event_handle_get_info(by_ptr, &used));
  CHECK(has_value(used, "tool_hint", "at_alloc"), "handle_alloc's hint not returned");
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_T_event_handle_get_info(by_handle, &used));
  CHECK(nkeys_of(used) == 0, "a handle allocated without hints has %d", nkeys_of(used));
  CHECK_MPI(MPI_Info_set(used, "randomkey", "randomvalue"));
  CHECK_MPI(MPI_T_event_handle_set_info(by_handle, used));
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_T_event_handle_get_info(by_handle, &used));
  CHECK(nkeys_of(used) == 1 && has_value(used, "randomkey", "randomvalue"), "handle_set_info not kept");
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_T_event_callback_get_info(by_handle, MPI_T_CB_REQUIRE_THREAD_SAFE, &used));
  CHECK(nkeys_of(used) == 0, "callback info starts with %d keys", nkeys_of(used));
  CHECK_MPI(MPI_Info_set(used, "cbkey", "cbvalue"));
  CHECK_MPI(MPI_T_event_callback_set_info(by_handle, MPI_T_CB_REQUIRE_THREAD_SAFE, used));
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_T_event_callback_get_info(by_handle, MPI_T_CB_REQUIRE_THREAD_SAFE, &used));
  CHECK(has_value(used, "cbkey", "cbvalue"), "callback_set_info not kept");
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_T_event_callback_get_info(by_handle, MPI_T_CB_REQUIRE_NONE, &used));
  CHECK(nkeys_of(used) == 0, "another safety level's info has %d keys", nkeys_of(used));
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_T_event_handle_set_info(by_handle, MPI_INFO_NULL));
  CHECK_MPI(MPI_T_event_handle_get_info(by_handle, &used));
  CHECK(nkeys_of(used) == 0, "MPI_INFO_NULL left %d keys", nkeys_of(used));
  CHECK_MPI(MPI_Info_free(&used));
  CHECK_MPI(MPI_Info_free(&hint));

  /* A published event reaches the callbacks of both handles. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 1) CHECK_MPI(MPIX_Event_publish(MPI_COMM_WORLD, 4242));
  double t0 = MPI_Wtime();
  while ((atomic_load(&hits[0]) == 0 || atomic_load(&hits[1]) == 0) && MPI_Wtime() - t0 < 20) {
    int flag; /* a progress pass: user events are read there */
    MPI_Iprobe(MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
  }
  CHECK(atomic_load(&hits[0]) == 1 && atomic_load(&hits[1]) == 1, "callbacks ran %d (pointer) and %d (handle) times",
        atomic_load(&hits[0]), atomic_load(&hits[1]));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  CHECK_MPI(MPI_T_event_handle_free(by_ptr, NULL, NULL));
  CHECK_MPI(MPI_T_event_handle_free(by_handle, NULL, NULL));
  CHECK_MPI(MPI_T_finalize());
  if (rank == 0) printf("PASS ev_mpit_args\n");
  MPI_Finalize();
  return 0;
}
