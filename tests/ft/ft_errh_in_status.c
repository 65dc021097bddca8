/* The error handler of the multiple-completion calls after a process failure (4 ranks, rank 3 SIGKILLed).
 *
 * A ULFM error handler decides from the class it is given (ack, revoke, shrink for MPI_ERR_PROC_FAILED; abort
 * otherwise). MPI_Waitall, MPI_Waitsome and MPI_Testall return MPI_ERR_IN_STATUS when a request failed; the
 * handler must still see the process failure itself, as Open MPI's ULFM passes it (the ulfm-testing stress
 * programs isend-err and pingpairs abort otherwise). Checked at the survivors, with a counting user handler:
 *   - MPI_Isend to a rank known dead returns MPI_SUCCESS (the error belongs to the completion);
 *   - MPI_Waitall over {send to the dead rank, send to a live rank} returns MPI_ERR_IN_STATUS, the statuses
 *     hold proc-failed and success, and the handler ran once with class MPI_ERR_PROC_FAILED;
 *   - the same for MPI_Waitsome (receive from the dead rank next to one from a live rank) and MPI_Testall;
 *   - an error that is not a failure (a truncated receive) still reaches the handler as MPI_ERR_IN_STATUS.
 * PASS: "PASS ft_errh_in_status" from one survivor. */
#include "ft_check.h"

static int g_calls = 0;
static int g_last_class = MPI_SUCCESS;

static void counting_handler(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  g_calls++;
  MPI_Error_class(*code, &g_last_class);
}

/* The handler ran exactly once since `before` calls, with class `cls`. */
static void expect_handler(int before, int cls, const char* what) {
  CHECK(g_calls == before + 1, "%s: the error handler ran %d times (expected once)", what, g_calls - before);
  CHECK(g_last_class == cls, "%s: the error handler got class %d, expected %d", what, g_last_class, cls);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm comm;
  MPI_Errhandler eh;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 4, "run with 4 ranks");
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_create_errhandler(counting_handler, &eh));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, eh));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  CHECK(ft_sync_all(comm) == MPI_SUCCESS);
  if (rank == 3) ft_die();
  ft_wait_failed(comm, 1, 20.0);
  g_calls = 0;

  int out = rank, in[2] = {0, 0};
  MPI_Request req[2];
  MPI_Status st[2];
  if (rank == 0) {
    /* Waitall: a send to the dead rank next to a send to rank 1 */
    CHECK(MPI_Isend(&out, 1, MPI_INT, 3, 7, comm, &req[0]) == MPI_SUCCESS, "Isend to a dead rank failed at initiation");
    CHECK(g_calls == 0, "the handler ran at the initiation of an Isend to a dead rank");
    CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, 1, 7, comm, &req[1]));
    int before = g_calls;
    int rc = MPI_Waitall(2, req, st);
    CHECK(rc == MPI_ERR_IN_STATUS, "Waitall returned %s, expected MPI_ERR_IN_STATUS", ft_class_name(rc));
    CHECK(check_class_of(st[0].MPI_ERROR) == MPI_ERR_PROC_FAILED, "status of the send to the dead rank: %s",
          ft_class_name(st[0].MPI_ERROR));
    CHECK(st[1].MPI_ERROR == MPI_SUCCESS, "status of the send to rank 1: %s", ft_class_name(st[1].MPI_ERROR));
    expect_handler(before, MPI_ERR_PROC_FAILED, "Waitall");

    /* Waitsome: a receive from the dead rank next to one from rank 2, until both are done */
    CHECK_MPI(MPI_Irecv(&in[0], 1, MPI_INT, 3, 8, comm, &req[0]));
    CHECK_MPI(MPI_Irecv(&in[1], 1, MPI_INT, 2, 8, comm, &req[1]));
    before = g_calls;
    int done = 0, errors = 0;
    while (done < 2) {
      int n = 0, idx[2];
      rc = MPI_Waitsome(2, req, &n, idx, st);
      CHECK(n != MPI_UNDEFINED, "Waitsome found no active request");
      if (rc == MPI_ERR_IN_STATUS) errors++;
      else CHECK_MPI(rc);
      for (int k = 0; k < n; k++) {
        if (idx[k] == 0)
          CHECK(check_class_of(st[k].MPI_ERROR) == MPI_ERR_PROC_FAILED, "receive from the dead rank: %s",
                ft_class_name(st[k].MPI_ERROR));
        else
          CHECK(in[1] == 2, "receive from rank 2 got %d", in[1]);
      }
      done += n;
    }
    CHECK(errors == 1, "Waitsome returned MPI_ERR_IN_STATUS %d times (expected once)", errors);
    expect_handler(before, MPI_ERR_PROC_FAILED, "Waitsome");

    /* Not a failure: a truncated receive (rank 2 sends two ints into room for one) */
    int small = 0;
    CHECK_MPI(MPI_Irecv(&small, 1, MPI_INT, 2, 9, comm, &req[0]));
    before = g_calls;
    rc = MPI_Waitall(1, req, st);
    CHECK(rc == MPI_ERR_IN_STATUS, "truncated Waitall returned %s", ft_class_name(rc));
    CHECK(check_class_of(st[0].MPI_ERROR) == MPI_ERR_TRUNCATE, "truncated receive's status is not MPI_ERR_TRUNCATE");
    expect_handler(before, MPI_ERR_IN_STATUS, "Waitall (truncation)");
  } else if (rank == 1) {
    CHECK_MPI(MPI_Recv(&in[0], 1, MPI_INT, 0, 7, comm, MPI_STATUS_IGNORE));
    /* Testall: a receive from the dead rank */
    CHECK_MPI(MPI_Irecv(&in[0], 1, MPI_INT, 3, 10, comm, &req[0]));
    int before = g_calls, flag = 0, rc = MPI_SUCCESS;
    double t0 = ft_now();
    while (!flag) {
      rc = MPI_Testall(1, req, &flag, st);
      CHECK(ft_now() - t0 < 20.0, "Testall never completed the receive from the dead rank");
    }
    CHECK(rc == MPI_ERR_IN_STATUS, "Testall returned %s, expected MPI_ERR_IN_STATUS", ft_class_name(rc));
    CHECK(check_class_of(st[0].MPI_ERROR) == MPI_ERR_PROC_FAILED, "Testall status: %s", ft_class_name(st[0].MPI_ERROR));
    expect_handler(before, MPI_ERR_PROC_FAILED, "Testall");
  } else if (rank == 2) {
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, 0, 8, comm));
    int two[2] = {1, 2};
    CHECK_MPI(MPI_Send(two, 2, MPI_INT, 0, 9, comm));
  }

  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&eh);
  ft_pass(comm, "ft_errh_in_status");
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
