/* The Sessions model's rules around error handlers, attributes and mixing (MPI-4.0 §11.3), in a program that
 * never calls MPI_Init:
 * - MPI_Session_create_errhandler works before any session exists (MPI_Session_init takes the handler), and
 *   MPI_Errhandler_free after the last MPI_Session_finalize;
 * - the session's handler is called for a bad process-set name, and the call returns the error;
 * - a communicator made from mpi://WORLD carries MPI_TAG_UB but none of the World model's MPI_HOST, MPI_IO,
 *   MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM;
 * - MPI_Comm_compare of communicators from two different sessions is an error (objects of different sessions
 *   must not meet in one call); of two from the same session it answers.
 * Any rank count >= 1. ftmpi only (MPICH 4.0 refuses MPI_Session_create_errhandler before initialisation, Open MPI
 * 4.1 has no sessions): the peers print SKIP. */
#include "common/check.h"

#ifdef FTMPI

static int handler_calls;
static void on_error(MPI_Session *s, int *code, ...) {
  (void)s;
  if (*code != MPI_SUCCESS) handler_calls++;
}

static MPI_Comm world_of(MPI_Session s, const char *tag) {
  MPI_Group g;
  MPI_Comm c;
  CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  CHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  CHECK_MPI(MPI_Group_free(&g));
  return c;
}

int main(void) {
  MPI_Errhandler eh;
  CHECK(MPI_Session_create_errhandler(on_error, &eh) == MPI_SUCCESS, "Session_create_errhandler before any session");
  MPI_Session s1, s2;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, eh, &s1));
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));

  MPI_Group g = MPI_GROUP_NULL;
  int rc = MPI_Group_from_session_pset(s1, "mpi://NO_SUCH_SET", &g);
  CHECK(rc != MPI_SUCCESS && handler_calls == 1, "bad pset: rc %d, handler called %d times", rc, handler_calls);

  MPI_Comm a = world_of(s1, "org.ftmpi.test.a"), b = world_of(s1, "org.ftmpi.test.b"),
           c = world_of(s2, "org.ftmpi.test.c");
  int *val = NULL, flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(a, MPI_TAG_UB, &val, &flag));
  CHECK(flag && val && *val >= 32767, "MPI_TAG_UB missing on a session communicator");
  const int world_only[] = {MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM};
  for (size_t i = 0; i < sizeof world_only / sizeof world_only[0]; i++) {
    flag = 1;
    CHECK_MPI(MPI_Comm_get_attr(a, world_only[i], &val, &flag));
    CHECK(!flag, "World-model attribute %d found on a session communicator", world_only[i]);
  }

  int result = -1;
  CHECK_MPI(MPI_Comm_compare(a, b, &result));
  CHECK(result == MPI_CONGRUENT, "two communicators of one session's mpi://WORLD: %d", result);
  result = -1;
  rc = MPI_Comm_compare(a, c, &result);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COMM && result == -1, "Comm_compare across sessions gave rc %d result %d", rc, result);

  CHECK_MPI(MPI_Comm_free(&a));
  CHECK_MPI(MPI_Comm_free(&b));
  CHECK_MPI(MPI_Comm_free(&c));
  CHECK_MPI(MPI_Session_finalize(&s2));
  CHECK_MPI(MPI_Session_finalize(&s1));
  CHECK(MPI_Errhandler_free(&eh) == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL, "Errhandler_free after the sessions");
  printf("PASS session_rules\n");
  return 0;
}
#else
int main(void) {
  printf("SKIP ftmpi-specific session rules\nPASS session_rules\n");
  return 0;
}
#endif
