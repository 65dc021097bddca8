/* err_unsupported: functions that are declared in mpi.h but not implemented yet fail loudly.
 *
 * Without arguments: under MPI_ERRORS_RETURN, a sample of the declared-but-unimplemented functions (one or
 * more per chapter: topologies, intercommunicators,
 * attributes, info, MPI-IO, dynamic processes) each return MPI_ERR_UNSUPPORTED_OPERATION, and MPI keeps
 * working afterwards. The functions implemented without communication (Pcontrol, Aint_add/diff, Alloc_mem/
 * Free_mem, handle conversion c2f/f2c, Status_c2f/f2c, the predefined attribute callbacks) do their job.
 * PASS: every check holds and rank 0 prints PASS.
 * With argument "fatal": MPI_Comm_spawn_local (FA-MPI, not implemented) under the default MPI_ERRORS_ARE_FATAL aborts the job with the class
 * as exit status (MPI_ERR_UNSUPPORTED_OPERATION) and a message naming the function; the test expects that
 * exit status.
 * With argument "abort": MPI_ERRORS_ABORT (MPI-4) set on a duplicate of MPI_COMM_WORLD; an invalid rank on it
 * aborts the job with MPI_ERR_RANK as exit status, while MPI_COMM_WORLD (still MPI_ERRORS_RETURN) returns. */
#include "common/check.h"

static void fatal_path(void) {
  MPI_Comm c = MPI_COMM_NULL;
  int roots[1] = {0};
  MPI_Comm_spawn_local("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 1, roots, MPI_COMM_WORLD, &c, MPI_TIMEOUT_ZERO,
                       MPI_ERRCODES_IGNORE);
  printf("FAIL: MPI_Comm_spawn_local returned under MPI_ERRORS_ARE_FATAL\n");
  fflush(stdout);
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  if (argc > 1 && strcmp(argv[1], "abort") == 0) {
    int x = 0;
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK); /* returns */
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_ABORT));
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_get_errhandler(dup, &eh));
    CHECK(eh == MPI_ERRORS_ABORT, "get_errhandler returns MPI_ERRORS_ABORT");
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) MPI_Send(&x, 1, MPI_INT, size, 0, dup); /* aborts the job */
    if (rank == 0) printf("FAIL: MPI_Send with an invalid rank returned under MPI_ERRORS_ABORT\n");
    MPI_Barrier(MPI_COMM_WORLD); /* the others wait here until the abort ends them */
    MPI_Finalize();
    return 1;
  }
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    fatal_path();
    MPI_Finalize();
    return 1;
  }
  const int U = MPI_ERR_UNSUPPORTED_OPERATION;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

  int buf[8] = {0};
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_File fh = MPI_FILE_NULL;

  /* (one-sided communication is implemented: tests/mpi/rma) */
  /* MPI-IO is implemented (tests/mpi/io, user data representations: io_datarep); dynamic processes are
   * implemented (tests/mpi/dpm), their FA-MPI forms are not */
  (void)fh;
  int roots[1] = {0};
  CHECK_CLASS(MPI_Comm_spawn_local("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 1, roots, MPI_COMM_SELF, &comm,
                                   MPI_TIMEOUT_ZERO, MPI_ERRCODES_IGNORE), U);
  CHECK(comm == MPI_COMM_NULL, "a failed call changed its output handle");

  /* the error string says what happened */
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(U, s, &len));
  CHECK(len > 0, "empty error string for MPI_ERR_UNSUPPORTED_OPERATION");

  /* implemented local functions */
  CHECK_MPI(MPI_Pcontrol(1));
  CHECK_MPI(MPI_Pcontrol(0, "extra", 3));
  MPI_Aint a0, a1;
  CHECK_MPI(MPI_Get_address(&buf[0], &a0));
  CHECK_MPI(MPI_Get_address(&buf[3], &a1));
  CHECK(MPI_Aint_diff(a1, a0) == 3 * (MPI_Aint)sizeof(int), "MPI_Aint_diff");
  CHECK(MPI_Aint_add(a0, 3 * (MPI_Aint)sizeof(int)) == a1, "MPI_Aint_add");
  double *mem = NULL;
  CHECK_MPI(MPI_Alloc_mem(1024, MPI_INFO_NULL, &mem));
  CHECK(mem != NULL, "MPI_Alloc_mem gave NULL");
  mem[127] = 1.0;
  CHECK_MPI(MPI_Free_mem(mem));
  CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "Comm c2f/f2c round trip");
  CHECK(MPI_Comm_c2f(MPI_COMM_NULL) == 0 && MPI_Comm_f2c(0) == MPI_COMM_NULL, "null communicator conversion");
  CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "Type c2f/f2c round trip");
  CHECK(MPI_Type_c2f(MPI_DOUBLE) != MPI_Type_c2f(MPI_INT), "two types got the same Fortran handle");
  CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "Op c2f/f2c round trip");
  CHECK(MPI_Group_f2c(123456) == MPI_GROUP_NULL, "unknown Fortran handle did not give the null handle");
  MPI_Status st, st2;
  memset(&st, 0, sizeof st);
  st.MPI_SOURCE = 3;
  st.MPI_TAG = 9;
  MPI_Fint fst[16];
  CHECK_MPI(MPI_Status_c2f(&st, fst));
  CHECK_MPI(MPI_Status_f2c(fst, &st2));
  CHECK(st2.MPI_SOURCE == 3 && st2.MPI_TAG == 9, "status c2f/f2c round trip");
  void *attr_in = buf, *attr_out = NULL;
  int flag = 0;
  CHECK_MPI(MPI_COMM_DUP_FN(MPI_COMM_WORLD, 0, NULL, attr_in, &attr_out, &flag));
  CHECK(flag == 1 && attr_out == attr_in, "MPI_COMM_DUP_FN did not copy the value");
  CHECK_MPI(MPI_COMM_NULL_COPY_FN(MPI_COMM_WORLD, 0, NULL, attr_in, &attr_out, &flag));
  CHECK(flag == 0, "MPI_COMM_NULL_COPY_FN asked for a copy");
  int *tag_ub = NULL;
  CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag && *tag_ub >= 32767, "MPI_Attr_get(MPI_TAG_UB)");

  /* MPI still works after all of that */
  int v = rank + 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * (size + 1) / 2, "allreduce after the unsupported calls");
  check_pass("err_unsupported");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
