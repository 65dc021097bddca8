/* ft_comm_create — communicator creation with a member killed (SIGKILL) before or while creating. --with-ft ulfm.
 * ARGS (one):
 *   idup_before  — rank 2 dies; the survivors then start three MPI_Comm_idup of a dup of MPI_COMM_WORLD and
 *                  wait on them: each must complete with MPI_ERR_PROC_FAILED or MPI_ERR_REVOKED (never hang).
 *   idup_during  — every rank starts two idups; rank 2 dies after starting them, without waiting; the survivors'
 *                  waits complete, each with success or MPI_ERR_PROC_FAILED/REVOKED, the same at every survivor
 *                  (uniform); where it succeeded, a Barrier on the duplicate fails with PROC_FAILED/REVOKED.
 *   inter_split  — an intercommunicator evens/odds; rank 2 (an even) dies; the survivors call MPI_Comm_split and
 *                  MPI_Comm_create on it and an idup of it: each fails with PROC_FAILED/REVOKED on both sides.
 *   session      — MPI_Comm_create_from_group over mpi://WORLD works; then rank 2 dies and the survivors create
 *                  from mpi://WORLD again: MPI_ERR_PROC_FAILED (our choice: fail, never exclude silently); then
 *                  from the group minus rank 2: success. The first session communicator is revoked, shrunk and
 *                  agreed on like any other.
 * After the checks every survivor shrinks a dup of MPI_COMM_WORLD and uses the result (ft_pass). PASS: all of
 * the above on every survivor, nothing hangs. Needs >= 4 ranks. */
#include "ft_check.h"

#include <string.h>

static int rank, size;

static MPI_Comm world_dup(void) {
  MPI_Comm c;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  return c;
}

static void idup_before(void) {
  MPI_Comm c = world_dup();
  CHECK_CLASS2(ft_sync_all(c), MPI_SUCCESS, MPI_ERR_REVOKED);
  if (rank == 2) ft_die();
  MPI_Comm d[3];
  MPI_Request r[3];
  /* A faster survivor may already have revoked c: then idup itself fails with MPI_ERR_REVOKED. */
  int started[3];
  for (int i = 0; i < 3; i++) {
    int rc = MPI_Comm_idup(c, &d[i], &r[i]);
    CHECK(rc == MPI_SUCCESS || check_class_of(rc) == MPI_ERR_REVOKED, "idup: %s", ft_class_name(rc));
    started[i] = rc == MPI_SUCCESS;
  }
  for (int i = 0; i < 3; i++)
    if (started[i]) CHECK_CLASS2(MPI_Wait(&r[i], MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED, MPI_ERR_REVOKED);
  for (int i = 0; i < 3; i++) CHECK(d[i] == MPI_COMM_NULL, "a failed idup leaves MPI_COMM_NULL");
  CHECK_MPI(MPIX_Comm_revoke(c));
  CHECK_MPI(MPI_Comm_free(&c));
}

static void idup_during(void) {
  MPI_Comm c = world_dup();
  CHECK_CLASS2(ft_sync_all(c), MPI_SUCCESS, MPI_ERR_REVOKED);
  MPI_Comm d[2];
  MPI_Request r[2];
  int started[2];
  for (int i = 0; i < 2; i++) { /* a fast survivor may have revoked c already (see idup_before) */
    int rc = MPI_Comm_idup(c, &d[i], &r[i]);
    CHECK(rc == MPI_SUCCESS || check_class_of(rc) == MPI_ERR_REVOKED, "idup: %s", ft_class_name(rc));
    started[i] = rc == MPI_SUCCESS;
  }
  if (rank == 2) ft_die();
  for (int i = 0; i < 2; i++) {
    int ok = 0;
    if (started[i]) {
      int rc = MPI_Wait(&r[i], MPI_STATUS_IGNORE);
      CHECK(rc == MPI_SUCCESS || check_class_of(rc) == MPI_ERR_PROC_FAILED || check_class_of(rc) == MPI_ERR_REVOKED,
            "idup %d: %s", i, ft_class_name(rc));
      ok = rc == MPI_SUCCESS;
      if (!ok) CHECK(d[i] == MPI_COMM_NULL, "a failed idup leaves MPI_COMM_NULL");
    }
    /* MPI_Comm_idup is uniform in FT mode (docs/fault-tolerance.md): every survivor has the duplicate or
     * none has, so it can be used at once (before: a Barrier on a duplicate some survivors lacked waited
     * for them, 1 hang in 8 loaded runs; the test then had to agree on the outcome first). */
    if (ok) {
      CHECK_MPI(MPI_Comm_set_errhandler(d[i], MPI_ERRORS_RETURN));
      /* A duplicate with the dead member: collectives on it fail, never hang. */
      CHECK_CLASS2(MPI_Barrier(d[i]), MPI_ERR_PROC_FAILED, MPI_ERR_REVOKED);
    }
    if (ok) {
      CHECK_MPI(MPIX_Comm_revoke(d[i]));
      CHECK_MPI(MPI_Comm_free(&d[i]));
    }
  }
  CHECK_MPI(MPIX_Comm_revoke(c));
  CHECK_MPI(MPI_Comm_free(&c));
}

static void inter_split(void) {
  MPI_Comm half, inter;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 5, &inter));
  CHECK_MPI(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN));
  MPI_Comm w = world_dup();
  CHECK_CLASS2(ft_sync_all(w), MPI_SUCCESS, MPI_ERR_REVOKED);
  if (rank == 2) ft_die();
  MPI_Comm s = MPI_COMM_NULL;
  CHECK_CLASS2(MPI_Comm_split(inter, 0, rank, &s), MPI_ERR_PROC_FAILED, MPI_ERR_REVOKED);
  CHECK(s == MPI_COMM_NULL, "failed split gives MPI_COMM_NULL");
  MPI_Group g;
  CHECK_MPI(MPI_Comm_group(inter, &g));
  CHECK_CLASS2(MPI_Comm_create(inter, g, &s), MPI_ERR_PROC_FAILED, MPI_ERR_REVOKED);
  CHECK_MPI(MPI_Group_free(&g));
  MPI_Request r;
  int rc = MPI_Comm_idup(inter, &s, &r); /* a faster survivor may have revoked inter already */
  if (rc == MPI_SUCCESS) CHECK_CLASS2(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED, MPI_ERR_REVOKED);
  else CHECK(check_class_of(rc) == MPI_ERR_REVOKED, "idup of a revoked intercommunicator: %s", ft_class_name(rc));
  CHECK_MPI(MPIX_Comm_revoke(inter));
  CHECK_MPI(MPI_Comm_free(&inter));
  CHECK_MPI(MPIX_Comm_revoke(w));
  CHECK_MPI(MPI_Comm_free(&w));
}

#if MPI_VERSION >= 4 || defined(FTMPI)
static void session(void) {
  MPI_Session ses;
  MPI_Group g, g2, dead;
  MPI_Comm c, c2, shr;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses));
  CHECK_MPI(MPI_Group_from_session_pset(ses, "mpi://WORLD", &g));
  CHECK_MPI(MPI_Comm_create_from_group(g, "ft.session.first", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  CHECK_CLASS2(ft_sync_all(c), MPI_SUCCESS, MPI_ERR_REVOKED);
  if (rank == 2) ft_die();
  /* Creation over a set with a dead member fails at every survivor. */
  int rc = MPI_Comm_create_from_group(g, "ft.session.second", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c2);
  CHECK(check_class_of(rc) == MPI_ERR_PROC_FAILED || check_class_of(rc) == MPI_ERR_REVOKED,
        "create_from_group with a dead member: %s", ft_class_name(rc));
  /* Without it: works. */
  int two = 2;
  CHECK_MPI(MPI_Group_incl(g, 1, &two, &dead));
  CHECK_MPI(MPI_Group_difference(g, dead, &g2));
  CHECK_MPI(MPI_Comm_create_from_group(g2, "ft.session.third", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c2));
  int n, sum = 0;
  CHECK_MPI(MPI_Comm_size(c2, &n));
  CHECK(n == size - 1, "survivors' communicator size %d", n);
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c2));
  CHECK(sum == size * (size - 1) / 2 - 2, "allreduce over the survivors");
  /* The first session communicator: agree reports the failure, revoke + shrink repair it. */
  int flag = 1;
  rc = MPIX_Comm_agree(c, &flag);
  CHECK(rc == MPI_SUCCESS || check_class_of(rc) == MPI_ERR_PROC_FAILED, "agree: %s", ft_class_name(rc));
  CHECK_MPI(MPIX_Comm_revoke(c));
  CHECK_MPI(MPIX_Comm_shrink(c, &shr));
  int cmp;
  CHECK_MPI(MPI_Comm_compare(shr, c2, &cmp));
  CHECK(cmp == MPI_CONGRUENT, "shrunk session communicator = survivors (%d)", cmp);
  CHECK_MPI(MPI_Comm_free(&shr));
  CHECK_MPI(MPI_Comm_free(&c2));
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Group_free(&g));
  CHECK_MPI(MPI_Group_free(&g2));
  CHECK_MPI(MPI_Group_free(&dead));
  CHECK_MPI(MPI_Session_finalize(&ses));
}
#endif

int main(int argc, char **argv) {
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size >= 4, "needs 4 ranks or more");
  const char *mode = argc > 1 ? argv[1] : "idup_before";
  if (strcmp(mode, "idup_before") == 0) idup_before();
  else if (strcmp(mode, "idup_during") == 0) idup_during();
  else if (strcmp(mode, "inter_split") == 0) inter_split();
#if MPI_VERSION >= 4 || defined(FTMPI)
  else if (strcmp(mode, "session") == 0) session();
#endif
  else CHECK(0, "unknown mode %s", mode);
  ft_pass(MPI_COMM_WORLD, mode);
  MPI_Finalize();
  return 0;
}
