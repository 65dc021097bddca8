/* tests/mpi/comm/comm_sessions.c — MPI-4.0 sessions (§11.3): MPI_Session_init/finalize, process sets
 * ("mpi://WORLD", "mpi://SELF"), pset info, MPI_Group_from_session_pset, MPI_Comm_create_from_group,
 * session info and error handlers, and sessions together with the world model.
 * ARGS (one):
 *   only    — sessions only, MPI_Init never called (MPI_COMM_WORLD must not be needed)
 *   before  — a session first, then MPI_Init while it is open; both used together; session closed first
 *   after   — MPI_Init first, a session opened, MPI_Finalize, the session's communicator still used after it
 *   twice   — two sessions one after the other (the second after the first is finalized), then MPI_Init
 * Any number of ranks. Needs MPI-4 sessions (MPICH >= 4.0, ftmpi); prints SKIP with an MPI-3 library. */
#include "../common/check.h"

#if MPI_VERSION >= 4 || defined(FTMPI)

static int err_calls;
static void count_err(MPI_Session *s, int *code, ...) {
  (void)s, (void)code;
  err_calls++;
}

static void check_not_initialized(int want_init, int want_fin) {
  int init = -1, fin = -1;
  CHECK_MPI(MPI_Initialized(&init));
  CHECK_MPI(MPI_Finalized(&fin));
  CHECK(init == want_init && fin == want_fin, "Initialized %d Finalized %d, want %d %d", init, fin, want_init, want_fin);
}

/* A communicator over process set `pset` of `s`, checked: size as the pset says, allreduce works. */
static MPI_Comm comm_from(MPI_Session s, const char *pset, const char *tag, int *wrank, int *wsize) {
  MPI_Group g;
  MPI_Comm c;
  CHECK_MPI(MPI_Group_from_session_pset(s, pset, &g));
  int gs, gr;
  CHECK_MPI(MPI_Group_size(g, &gs));
  CHECK_MPI(MPI_Group_rank(g, &gr));
  MPI_Info pi;
  CHECK_MPI(MPI_Session_get_pset_info(s, pset, &pi));
  char v[64];
  int flag = 0;
  CHECK_MPI(MPI_Info_get(pi, "mpi_size", sizeof v - 1, v, &flag));
  CHECK(flag && atoi(v) == gs, "pset %s mpi_size %s vs group size %d", pset, flag ? v : "-", gs);
  CHECK_MPI(MPI_Info_free(&pi));
  CHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  CHECK_MPI(MPI_Group_free(&g));
  int r, n;
  CHECK_MPI(MPI_Comm_rank(c, &r));
  CHECK_MPI(MPI_Comm_size(c, &n));
  CHECK(r == gr && n == gs, "comm %d/%d, group %d/%d", r, n, gr, gs);
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK(sum == n * (n - 1) / 2, "allreduce over the session communicator");
  if (wrank) *wrank = r;
  if (wsize) *wsize = n;
  return c;
}

static MPI_Session open_session(void) {
  MPI_Session s;
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "thread_level", "MPI_THREAD_SINGLE"));
  CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &s));
  CHECK_MPI(MPI_Info_free(&info));
  /* The process sets. */
  int n = 0, found_world = 0, found_self = 0;
  CHECK_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
  CHECK(n >= 2, "at least mpi://WORLD and mpi://SELF (%d)", n);
  for (int i = 0; i < n; i++) {
    int len = 0;
    CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
    CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset name length %d", len);
    char name[MPI_MAX_PSET_NAME_LEN];
    CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
    CHECK((int)strlen(name) + 1 == len, "pset length");
    if (strcmp(name, "mpi://WORLD") == 0) found_world = 1;
    if (strcmp(name, "mpi://SELF") == 0) found_self = 1;
  }
  CHECK(found_world && found_self, "mpi://WORLD and mpi://SELF listed");
  MPI_Info used;
  CHECK_MPI(MPI_Session_get_info(s, &used));
  int nkeys = -1;
  CHECK_MPI(MPI_Info_get_nkeys(used, &nkeys));
  CHECK(nkeys >= 0, "session info");
  CHECK_MPI(MPI_Info_free(&used));
  return s;
}

static void errhandlers_and_bad_input(MPI_Session s) {
  MPI_Errhandler eh, got;
  CHECK_MPI(MPI_Session_create_errhandler(count_err, &eh));
  CHECK_MPI(MPI_Session_set_errhandler(s, eh));
  CHECK_MPI(MPI_Session_get_errhandler(s, &got));
  CHECK(got == eh, "get_errhandler returns the handler set");
  CHECK_MPI(MPI_Errhandler_free(&got));
  err_calls = 0;
  CHECK_MPI(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
  CHECK(err_calls == 1, "call_errhandler ran the user handler (%d)", err_calls);
  /* Bad input. (MPICH 4.0 raises these on MPI_ERRORS_ARE_FATAL whatever the session's handler: not checked
   * with peers.) */
#ifdef FTMPI
  /* An invalid pset name: an error through the session's handler. */
  MPI_Group g = MPI_GROUP_NULL;
  int rc = MPI_Group_from_session_pset(s, "mpi://NO-SUCH-SET", &g);
  CHECK(rc != MPI_SUCCESS && err_calls == 2, "invalid pset name refused through the handler (rc %d, calls %d)", rc,
        err_calls);
#endif
  CHECK_MPI(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Errhandler_free(&eh));
#ifdef FTMPI
  rc = MPI_Session_get_pset_info(s, "bogus", &(MPI_Info){MPI_INFO_NULL});
  CHECK(rc != MPI_SUCCESS, "pset info of an unknown set refused");
  int len = 0;
  rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 1000, &len, NULL);
  CHECK(rc != MPI_SUCCESS, "pset index out of range refused");
  CHECK_CLASS(MPI_Group_from_session_pset(s, "mpi://NO-SUCH-SET", &g), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &len, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Group_from_session_pset(MPI_SESSION_NULL, "mpi://WORLD", &g), MPI_ERR_SESSION);
  CHECK_CLASS(MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &len), MPI_ERR_SESSION);
  MPI_Comm c;
  CHECK_CLASS(MPI_Comm_create_from_group(MPI_GROUP_NULL, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c), MPI_ERR_GROUP);
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://SELF", &g));
  CHECK_CLASS(MPI_Comm_create_from_group(g, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c), MPI_ERR_ARG);
  CHECK_MPI(MPI_Group_free(&g));
  /* A finalized session is an invalid handle. */
  MPI_Session t, stale;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &t));
  stale = t;
  CHECK_MPI(MPI_Session_finalize(&t));
  CHECK(t == MPI_SESSION_NULL, "finalize resets the handle");
  CHECK_CLASS(MPI_Session_get_num_psets(stale, MPI_INFO_NULL, &len), MPI_ERR_SESSION);
#endif
}

/* Process-set communicators from a session: WORLD (two of them, distinct tags, used interleaved) and SELF. */
static MPI_Comm session_comms(MPI_Session s, int *me, int *n) {
  MPI_Comm w2, self;
  MPI_Comm w = comm_from(s, "mpi://WORLD", "org.ftmpi.test.world", me, n);
  w2 = comm_from(s, "mpi://WORLD", "org.ftmpi.test.world2", NULL, NULL);
  int ss;
  self = comm_from(s, "mpi://SELF", "org.ftmpi.test.self", NULL, &ss);
  CHECK(ss == 1, "mpi://SELF has one member");
  /* Isolation between the two WORLD communicators: ring messages on both. */
  int a = -1, b = -1, to = (*me + 1) % *n, from = (*me + *n - 1) % *n;
  MPI_Request r[2];
  CHECK_MPI(MPI_Irecv(&a, 1, MPI_INT, from, 0, w, &r[0]));
  CHECK_MPI(MPI_Irecv(&b, 1, MPI_INT, from, 0, w2, &r[1]));
  int va = 100 + *me, vb = 200 + *me;
  CHECK_MPI(MPI_Send(&vb, 1, MPI_INT, to, 0, w2));
  CHECK_MPI(MPI_Send(&va, 1, MPI_INT, to, 0, w));
  CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  CHECK(a == 100 + from && b == 200 + from, "messages stay on their communicator (%d %d)", a, b);
  /* The session communicator is an ordinary one: dup, idup, split. */
  MPI_Comm d, sp;
  MPI_Request q;
  CHECK_MPI(MPI_Comm_idup(w, &d, &q));
  CHECK_MPI(MPI_Comm_split(w2, *me % 2, 0, &sp));
  CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Barrier(d));
  CHECK_MPI(MPI_Barrier(sp));
  CHECK_MPI(MPI_Comm_free(&d));
  CHECK_MPI(MPI_Comm_free(&sp));
  CHECK_MPI(MPI_Comm_free(&w2));
  CHECK_MPI(MPI_Comm_free(&self));
  return w;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "only";
  int me = 0, n = 1;
  if (strcmp(mode, "only") == 0) {
    check_not_initialized(0, 0);
    MPI_Session s = open_session();
    MPI_Comm w = session_comms(s, &me, &n);
    errhandlers_and_bad_input(s);
    check_not_initialized(0, 0);
    CHECK_MPI(MPI_Barrier(w));
    CHECK_MPI(MPI_Comm_free(&w));
    CHECK_MPI(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL, "session handle reset");
  } else if (strcmp(mode, "before") == 0) {
    MPI_Session s = open_session();
    MPI_Comm w = session_comms(s, &me, &n);
    CHECK_MPI(MPI_Init(&argc, &argv));
    check_not_initialized(1, 0);
    int wr, ws, result;
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &wr));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &ws));
    CHECK(ws == n, "world size %d, session world %d", ws, n);
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, w, &result));
    CHECK(result == MPI_CONGRUENT || result == MPI_SIMILAR, "session world vs MPI_COMM_WORLD (%d)", result);
    int sum = 0;
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(&wr, &sum, 1, MPI_INT, MPI_SUM, w));
    CHECK(sum == n * (n - 1) / 2, "both models together");
    CHECK_MPI(MPI_Comm_free(&w));
    CHECK_MPI(MPI_Session_finalize(&s));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
  } else if (strcmp(mode, "after") == 0) {
    CHECK_MPI(MPI_Init(&argc, &argv));
    MPI_Session s = open_session();
    MPI_Comm w = session_comms(s, &me, &n);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
    check_not_initialized(1, 1);
    /* The session and its communicators outlive the world model. */
    CHECK_MPI(MPI_Barrier(w));
    MPI_Comm w2 = session_comms(s, &me, &n);
    CHECK_MPI(MPI_Comm_free(&w2));
    CHECK_MPI(MPI_Comm_free(&w));
    CHECK_MPI(MPI_Session_finalize(&s));
  } else if (strcmp(mode, "twice") == 0) {
    for (int round = 0; round < 2; round++) {
      MPI_Session s = open_session();
      MPI_Comm w = session_comms(s, &me, &n);
      CHECK_MPI(MPI_Comm_free(&w));
      CHECK_MPI(MPI_Session_finalize(&s));
    }
    CHECK_MPI(MPI_Init(&argc, &argv));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Finalize());
  } else {
    printf("FAIL unknown mode %s\n", mode);
    return 1;
  }
  if (me == 0) printf("PASS comm_sessions %s\n", mode);
  return 0;
}

#else
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("SKIP MPI-4 sessions not available (MPI %d.%d)\nPASS comm_sessions\n", MPI_VERSION, MPI_SUBVERSION);
  MPI_Finalize();
  return 0;
}
#endif
