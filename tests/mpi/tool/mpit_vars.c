/* MPI_T control and performance variables and categories (MPI-3.1 §14.3.6-14.3.7), as a tool written to the
 * standard uses them: enumerate every control variable (get_info twice: lengths, then strings; get_index of
 * its name gives it back), read the ones bound to no object, before and after MPI_Init; enumerate the
 * performance variables, allocate handles in a session, read them (starting the non-continuous ones first),
 * MPI_T_PVAR_ALL_HANDLES start/stop; enumerate categories and check that their variable indices are valid;
 * bad indices and names give the MPI_T error codes. Written to the standard, but the peers crash on it (Open MPI
 * 4.1 in MPI_T_cvar_read of some of its own variables, MPICH 4.0 in MPI_T_pvar_get_info past the last index),
 * so it runs with ftmpi only.
 * ftmpi only (#ifdef FTMPI): the variables it documents (docs/api.md "MPI_T"): ftmpi_ft_mode reads 0 ("off")
 * outside FT mode through its enumeration, ftmpi_eager_limit > 0, ftmpi_unexpected_queue_length counts three
 * messages sent and not yet received, ftmpi_posted_queue_length a posted receive, writes are refused, freed
 * handles and sessions are errors. Any rank count >= 2. */
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

static int readable_type(MPI_Datatype t) {
  return t == MPI_INT || t == MPI_UNSIGNED || t == MPI_UNSIGNED_LONG || t == MPI_UNSIGNED_LONG_LONG ||
         t == MPI_COUNT || t == MPI_DOUBLE || t == MPI_CHAR;
}

/* Every control variable; returns how many were read successfully. */
static int walk_cvars(int after_init) {
  int n = -1, read_ok = 0;
  CHECK_MPI(MPI_T_cvar_get_num(&n));
  CHECK(n >= 0, "cvar_get_num gave %d", n);
  for (int i = 0; i < n; i++) {
    int name_len = 0, desc_len = 0, verbosity, bind, scope;
    MPI_Datatype dt;
    MPI_T_enum et;
    int rc0 = MPI_T_cvar_get_info(i, NULL, &name_len, &verbosity, &dt, &et, NULL, &desc_len, &bind, &scope);
    if (rc0 == MPI_T_ERR_INVALID_INDEX) continue; /* MPI-3.1 lets a variable vanish (Open MPI has such) */
    CHECK(rc0 == MPI_SUCCESS, "cvar_get_info(%d) gave %d", i, rc0);
    CHECK(name_len > 1, "cvar %d: name length %d", i, name_len);
    char *name = malloc((size_t)name_len), *desc = malloc((size_t)desc_len + 1);
    CHECK_MPI(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &et, desc, &desc_len, &bind, &scope));
    CHECK(strlen(name) + 1 == (size_t)name_len, "cvar %d: name '%s' and length %d", i, name, name_len);
    int idx = -1;
    CHECK_MPI(MPI_T_cvar_get_index(name, &idx));
    CHECK(idx == i, "cvar_get_index(%s) gave %d, not %d", name, idx, i);
    if (bind == MPI_T_BIND_NO_OBJECT && readable_type(dt)) {
      MPI_T_cvar_handle h;
      int count = 0;
      CHECK_MPI(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
      if (count >= 1 && count <= 4096) {
        char *buf = calloc((size_t)count, 16);
        int rc = MPI_T_cvar_read(h, buf);
        if (rc == MPI_SUCCESS) read_ok++;
#ifdef FTMPI
        /* ftmpi's variables describe the running library */
        CHECK(rc == (after_init ? MPI_SUCCESS : MPI_T_ERR_INVALID), "cvar_read(%s) gave %d", name, rc);
#endif
        free(buf);
      }
      CHECK_MPI(MPI_T_cvar_handle_free(&h));
      CHECK(h == MPI_T_CVAR_HANDLE_NULL, "cvar_handle_free leaves the handle set");
    }
    free(name);
    free(desc);
  }
  (void)after_init;  /* peers may read some variables before MPI_Init */
  return read_ok;
}

static void walk_pvars(void) {
  int n = -1;
  CHECK_MPI(MPI_T_pvar_get_num(&n));
  CHECK(n >= 0, "pvar_get_num gave %d", n);
  MPI_T_pvar_session s;
  CHECK_MPI(MPI_T_pvar_session_create(&s));
  for (int i = 0; i < n; i++) {
    char name[256], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, var_class, bind, readonly, continuous, atomic;
    MPI_Datatype dt;
    MPI_T_enum et;
    int rc0 = MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &dt, &et, desc, &desc_len, &bind,
                                  &readonly, &continuous, &atomic);
    if (rc0 == MPI_T_ERR_INVALID_INDEX) continue;
    CHECK(rc0 == MPI_SUCCESS, "pvar_get_info(%d) gave %d", i, rc0);
    CHECK(var_class >= MPI_T_PVAR_CLASS_STATE && var_class <= MPI_T_PVAR_CLASS_GENERIC, "pvar %s: class %d", name,
          var_class);
    int idx = -1;
    CHECK_MPI(MPI_T_pvar_get_index(name, var_class, &idx));
    CHECK(idx == i, "pvar_get_index(%s) gave %d, not %d", name, idx, i);
    if (bind != MPI_T_BIND_NO_OBJECT || !readable_type(dt)) continue;
    MPI_T_pvar_handle h;
    int count = 0;
    CHECK_MPI(MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count));
    if (count < 1 || count > 4096) {
      CHECK_MPI(MPI_T_pvar_handle_free(s, &h));
      continue;
    }
    if (!continuous) CHECK_MPI(MPI_T_pvar_start(s, h));
    char *buf = calloc((size_t)count, 16);
    CHECK_MPI(MPI_T_pvar_read(s, h, buf));
    if (!continuous) CHECK_MPI(MPI_T_pvar_stop(s, h));
    free(buf);
    CHECK_MPI(MPI_T_pvar_handle_free(s, &h));
    CHECK(h == MPI_T_PVAR_HANDLE_NULL, "pvar_handle_free leaves the handle set");
  }
  CHECK_MPI(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
  CHECK_MPI(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES));
  CHECK_MPI(MPI_T_pvar_session_free(&s));
  CHECK(s == MPI_T_PVAR_SESSION_NULL, "pvar_session_free leaves the session set");
}

static void walk_categories(void) {
  int ncat = -1, ncvar = 0, npvar = 0;
  CHECK_MPI(MPI_T_category_get_num(&ncat));
  CHECK_MPI(MPI_T_cvar_get_num(&ncvar));
  CHECK_MPI(MPI_T_pvar_get_num(&npvar));
  for (int c = 0; c < ncat; c++) {
    char name[256], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc, nc = 0, np = 0, nsub = 0;
    CHECK_MPI(MPI_T_category_get_info(c, name, &name_len, desc, &desc_len, &nc, &np, &nsub));
    int idx = -1;
    CHECK_MPI(MPI_T_category_get_index(name, &idx));
    CHECK(idx == c, "category_get_index(%s) gave %d, not %d", name, idx, c);
    int *v = malloc(sizeof(int) * (size_t)(nc + np + nsub + 1));
    CHECK_MPI(MPI_T_category_get_cvars(c, nc, v));
    for (int k = 0; k < nc; k++) CHECK(v[k] >= 0 && v[k] < ncvar, "category %s: cvar index %d", name, v[k]);
    CHECK_MPI(MPI_T_category_get_pvars(c, np, v));
    for (int k = 0; k < np; k++) CHECK(v[k] >= 0 && v[k] < npvar, "category %s: pvar index %d", name, v[k]);
    CHECK_MPI(MPI_T_category_get_categories(c, nsub, v));
    for (int k = 0; k < nsub; k++) CHECK(v[k] >= 0 && v[k] < ncat, "category %s: sub-category %d", name, v[k]);
    free(v);
  }
  int stamp = -1;
  CHECK_MPI(MPI_T_category_changed(&stamp));
}

#ifdef FTMPI
static int cvar_int(const char *name, MPI_T_enum *et_out) {
  int idx = -1, v = -1, count = 0;
  CHECK_MPI(MPI_T_cvar_get_index(name, &idx));
  MPI_Datatype dt;
  CHECK_MPI(MPI_T_cvar_get_info(idx, NULL, NULL, NULL, &dt, et_out, NULL, NULL, NULL, NULL));
  MPI_T_cvar_handle h;
  CHECK_MPI(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
  CHECK_MPI(MPI_T_cvar_read(h, &v));
  CHECK(MPI_T_cvar_write(h, &v) == MPI_T_ERR_CVAR_SET_NEVER, "cvar_write(%s) is not refused", name);
  CHECK_MPI(MPI_T_cvar_handle_free(&h));
  CHECK(MPI_T_cvar_read(h, &v) == MPI_T_ERR_INVALID_HANDLE, "cvar_read of a freed handle");
  return v;
}

static unsigned long pvar_ulong(MPI_T_pvar_session s, const char *name, int var_class) {
  int idx = -1, count = 0;
  unsigned long v = 0;
  CHECK_MPI(MPI_T_pvar_get_index(name, var_class, &idx));
  MPI_T_pvar_handle h;
  CHECK_MPI(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count));
  CHECK(count == 1, "pvar %s count %d", name, count);
  CHECK_MPI(MPI_T_pvar_read(s, h, &v));
  CHECK(MPI_T_pvar_write(s, h, &v) == MPI_T_ERR_PVAR_NO_WRITE, "pvar_write(%s) not refused", name);
  CHECK(MPI_T_pvar_start(s, h) == MPI_T_ERR_PVAR_NO_STARTSTOP, "pvar_start(%s) of a continuous variable", name);
  CHECK_MPI(MPI_T_pvar_handle_free(s, &h));
  return v;
}

static void ftmpi_variables(int rank) {
  MPI_T_enum et = MPI_T_ENUM_NULL;
  int mode = cvar_int("ftmpi_ft_mode", &et);
  CHECK(mode == 0, "ftmpi_ft_mode reads %d outside FT mode", mode);
  int nitems = 0, value = -1;
  char ename[64], iname[64];
  int elen = sizeof ename, ilen = sizeof iname;
  CHECK_MPI(MPI_T_enum_get_info(et, &nitems, ename, &elen));
  CHECK(nitems == 4 && strcmp(ename, "ftmpi_ft_mode") == 0, "enumeration %s with %d items", ename, nitems);
  CHECK_MPI(MPI_T_enum_get_item(et, 0, &value, iname, &ilen));
  CHECK(value == 0 && strcmp(iname, "off") == 0, "item 0 is %d '%s'", value, iname);
  CHECK(MPI_T_enum_get_item(et, 4, &value, iname, &ilen) == MPI_T_ERR_INVALID_ITEM, "enum item 4");
  int radix = cvar_int("ftmpi_revoke_radix", &et);
  CHECK(radix >= 2, "ftmpi_revoke_radix %d", radix);

  int idx;
  unsigned long eager = 0;
  int count;
  MPI_T_cvar_handle h;
  CHECK_MPI(MPI_T_cvar_get_index("ftmpi_eager_limit", &idx));
  CHECK_MPI(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count));
  CHECK_MPI(MPI_T_cvar_read(h, &eager));
  CHECK(eager > 0, "ftmpi_eager_limit %lu", eager);
  CHECK_MPI(MPI_T_cvar_handle_free(&h));

  /* queue lengths: rank 1 sends three messages to rank 0, which it has not received */
  MPI_T_pvar_session s;
  CHECK_MPI(MPI_T_pvar_session_create(&s));
  int payload = 7;
  if (rank == 1)
    for (int k = 0; k < 3; k++) CHECK_MPI(MPI_Send(&payload, 1, MPI_INT, 0, 40 + k, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    /* the third has arrived (probed, not received), so the first two have too (non-overtaking) */
    CHECK_MPI(MPI_Probe(1, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    unsigned long unexpected = pvar_ulong(s, "ftmpi_unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    CHECK(unexpected >= 3, "unexpected queue length %lu with three messages waiting", unexpected);
    MPI_Request r;
    int never;
    unsigned long posted0 = pvar_ulong(s, "ftmpi_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    CHECK_MPI(MPI_Irecv(&never, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, &r));
    unsigned long posted1 = pvar_ulong(s, "ftmpi_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    CHECK(posted1 == posted0 + 1, "posted queue length %lu then %lu after an Irecv", posted0, posted1);
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int k = 0; k < 3; k++) CHECK_MPI(MPI_Recv(&payload, 1, MPI_INT, 1, 40 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    unexpected = pvar_ulong(s, "ftmpi_unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    CHECK(unexpected == 0, "unexpected queue length %lu after receiving them", unexpected);
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int q = 1; q < size; q++) CHECK_MPI(MPI_Send(&payload, 1, MPI_INT, q, 50, MPI_COMM_WORLD));
  } else {
    /* nobody sends rank 0 anything (a barrier's message would be unexpected there) until it has counted */
    CHECK_MPI(MPI_Recv(&payload, 1, MPI_INT, 0, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  unsigned long long failed = 1;
  CHECK_MPI(MPI_T_pvar_get_index("ftmpi_failed_processes", MPI_T_PVAR_CLASS_COUNTER, &idx));
  MPI_T_pvar_handle ph;
  CHECK_MPI(MPI_T_pvar_handle_alloc(s, idx, NULL, &ph, &count));
  CHECK_MPI(MPI_T_pvar_read(s, ph, &failed));
  CHECK(failed == 0, "ftmpi_failed_processes %llu with nobody failed", failed);
  /* the session's handles go with it */
  MPI_T_pvar_session dead = s;
  CHECK_MPI(MPI_T_pvar_session_free(&s));
  CHECK(MPI_T_pvar_read(dead, ph, &failed) == MPI_T_ERR_INVALID_SESSION, "pvar_read in a freed session");
  int nev = -1, cat = -1;
  CHECK_MPI(MPI_T_category_get_index("ftmpi_fault_tolerance", &cat));
  CHECK_MPI(MPI_T_category_get_num_events(cat, &nev));
  CHECK(nev == 4, "the fault-tolerance category has %d events", nev);
}
#endif

int main(int argc, char **argv) {
  int provided;
  CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  walk_cvars(0);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  walk_cvars(1);
  walk_pvars();
  walk_categories();

  /* bad input */
  int n = 0, idx;
  char name[64];
  int len = sizeof name;
  MPI_T_cvar_get_num(&n);
  int verb, cls, bind, scope, ro, cont, atom, dlen = 0, nc, np, ns;
  MPI_Datatype dt;
  MPI_T_enum et;
  CHECK(MPI_T_cvar_get_info(n, name, &len, &verb, &dt, &et, NULL, &dlen, &bind, &scope) == MPI_T_ERR_INVALID_INDEX,
        "cvar_get_info past the end");
  CHECK(MPI_T_cvar_get_index("no_such_variable_anywhere", &idx) == MPI_T_ERR_INVALID_NAME, "cvar_get_index");
  MPI_T_pvar_get_num(&n);
  CHECK(MPI_T_pvar_get_info(n, name, &len, &verb, &cls, &dt, &et, NULL, &dlen, &bind, &ro, &cont, &atom) ==
            MPI_T_ERR_INVALID_INDEX,
        "pvar_get_info past the end");
  MPI_T_category_get_num(&n);
  CHECK(MPI_T_category_get_info(n, name, &len, NULL, &dlen, &nc, &np, &ns) == MPI_T_ERR_INVALID_INDEX,
        "category_get_info past the end");
#ifdef FTMPI
  if (size >= 2) ftmpi_variables(rank);
#endif
  CHECK_MPI(MPI_T_finalize());
  check_pass("mpit_vars");
  MPI_Finalize();
  return 0;
}
