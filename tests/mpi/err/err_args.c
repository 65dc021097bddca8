/* err_args: bad arguments under MPI_ERRORS_RETURN, and the error-handler calls.
 *
 * Covers MPI_Comm_set_errhandler / MPI_Comm_get_errhandler (default MPI_ERRORS_ARE_FATAL on MPI_COMM_WORLD,
 * ERRORS_RETURN after setting it), and that each bad argument gives its error class and the program keeps
 * running: invalid rank (MPI_ERR_RANK), tag (MPI_ERR_TAG), count (MPI_ERR_COUNT), communicator
 * (MPI_COMM_NULL and a freed one: MPI_ERR_COMM), datatype (MPI_DATATYPE_NULL: MPI_ERR_TYPE), request (a
 * freed one, MPI_REQUEST_NULL to Request_free: MPI_ERR_REQUEST), root (MPI_ERR_ROOT), op (MPI_ERR_OP),
 * group (MPI_ERR_GROUP).  MPI_Error_string gives a message for each returned code.
 * PASS: every call returns the expected class, and a normal exchange + barrier still work afterwards.
 * Freed-handle checks run only on ftmpi (on MPICH/Open MPI a freed handle is undefined behaviour). */
#include "common/check.h"

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

  /* default handler, then ERRORS_RETURN on WORLD (it also handles errors on invalid communicators) */
  MPI_Errhandler eh;
  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "default error handler of MPI_COMM_WORLD is not MPI_ERRORS_ARE_FATAL");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK(eh == MPI_ERRORS_RETURN, "get_errhandler after set gave another handler");
  CHECK_MPI(MPI_Errhandler_free(&eh));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

  int buf[4] = {0};
  MPI_Request req;
  MPI_Status st;

  /* rank */
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Isend(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Irecv(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &req), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 1, 0, MPI_COMM_SELF), MPI_ERR_RANK);
  CHECK_CLASS(MPI_Probe(size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);

  /* tag */
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, rank, -7, MPI_COMM_WORLD), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, rank, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, rank, -7, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
  CHECK_CLASS(MPI_Isend(buf, 1, MPI_INT, rank, -2, MPI_COMM_WORLD, &req), MPI_ERR_TAG);
  {
    int *tag_ub = NULL, flag = 0;
    CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && tag_ub && *tag_ub >= 32767, "MPI_TAG_UB attribute missing or too small");
    if (*tag_ub < 0x7fffffff) CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, rank, *tag_ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG);
  }

  /* count */
  CHECK_CLASS(MPI_Send(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Recv(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Isend(buf, -3, MPI_INT, rank, 0, MPI_COMM_WORLD, &req), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);

  /* datatype */
  CHECK_CLASS(MPI_Send(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Irecv(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD, &req), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);

  /* communicator */
  CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_rank(MPI_COMM_NULL, &rank), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_size(MPI_COMM_NULL, &size), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Comm_dup(MPI_COMM_NULL, &(MPI_Comm){MPI_COMM_NULL}), MPI_ERR_COMM);
#ifdef FTMPI
  {
    MPI_Comm c, stale;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    stale = c;
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, rank, 0, stale), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_rank(stale, &rank), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Barrier(stale), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Comm_free(&stale), MPI_ERR_COMM);
  }
#else
  if (rank == 0) printf("SKIP freed-communicator checks on %s (undefined behaviour there)\n", CHECK_LIB);
#endif

  /* request */
  {
    MPI_Request r = MPI_REQUEST_NULL;
    CHECK_CLASS(MPI_Request_free(&r), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Start(&r), MPI_ERR_REQUEST);
#ifdef FTMPI
    MPI_Request stale;
    CHECK_MPI(MPI_Irecv(buf, 1, MPI_INT, rank, 999, MPI_COMM_WORLD, &r));
    stale = r;
    CHECK_MPI(MPI_Cancel(&r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_CLASS(MPI_Wait(&stale, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    stale = r = MPI_REQUEST_NULL;
    CHECK_MPI(MPI_Send_init(buf, 1, MPI_INT, rank, 998, MPI_COMM_WORLD, &r));
    stale = r;
    CHECK_MPI(MPI_Request_free(&r));
    int flag;
    CHECK_CLASS(MPI_Test(&stale, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Start(&stale), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Request_free(&stale), MPI_ERR_REQUEST);
#else
    if (rank == 0) printf("SKIP freed-request checks on %s (undefined behaviour there)\n", CHECK_LIB);
#endif
  }

  /* collectives: root, op; groups */
  CHECK_CLASS(MPI_Bcast(buf, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Reduce(buf, buf + 2, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_CLASS(MPI_Allreduce(buf, buf + 2, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
  {
    int gs;
    MPI_Group g;
    CHECK_CLASS(MPI_Group_size(MPI_GROUP_NULL, &gs), MPI_ERR_GROUP);
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &g));
    int bad = size;
    MPI_Group ng;
    CHECK_CLASS(MPI_Group_incl(g, 1, &bad, &ng), MPI_ERR_RANK);
    CHECK_MPI(MPI_Group_free(&g));
  }

  /* error strings for returned codes */
  {
    int rc = MPI_Send(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    CHECK_MPI(MPI_Error_string(rc, msg, &len));
    CHECK(len > 0, "empty error string for code %d", rc);
  }

  /* still alive: a ring exchange and a barrier */
  {
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, right, 1, &got, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
    CHECK(got == left, "ring after errors got %d", got);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  }
  /* back to fatal: get reports it */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "get_errhandler after resetting to fatal");
  CHECK_MPI(MPI_Errhandler_free(&eh));

  check_pass("err_args");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
