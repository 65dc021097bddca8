/* p2p_truncate: MPI_ERR_TRUNCATE and zero-byte messages.
 *
 * Under MPI_ERRORS_RETURN, a message longer than the receive buffer makes MPI_Recv (and MPI_Wait of an
 * MPI_Irecv) return an error of class MPI_ERR_TRUNCATE, for an eager-sized and a large message; the job keeps
 * running.  Zero-byte messages (NULL buffer, count 0) are matched and report count 0, also into a larger
 * buffer and with ANY_SOURCE/ANY_TAG.  PASS: those classes and counts, then a clean exchange still works. */
#include "../common/check.h"

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2, "needs at least 2 ranks");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const int big = 1 << 20;
  int *buf = malloc(big * sizeof(int));
  MPI_Status st;

  if (rank == 0) {
    for (int i = 0; i < 100; i++) buf[i] = i;
    CHECK_MPI(MPI_Send(buf, 100, MPI_INT, 1, 1, MPI_COMM_WORLD));    /* eager-sized */
    CHECK_MPI(MPI_Send(buf, big, MPI_INT, 1, 2, MPI_COMM_WORLD));    /* rendezvous-sized */
    CHECK_MPI(MPI_Send(buf, 100, MPI_INT, 1, 3, MPI_COMM_WORLD));    /* Irecv + Wait */
    CHECK_MPI(MPI_Send(buf, big, MPI_INT, 1, 4, MPI_COMM_WORLD));    /* large Irecv + Wait */
    /* zero-byte messages */
    CHECK_MPI(MPI_Send(NULL, 0, MPI_INT, 1, 10, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Send(buf, 0, MPI_DOUBLE, 1, 11, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ssend(NULL, 0, MPI_BYTE, 1, 12, MPI_COMM_WORLD));
    MPI_Request r;
    CHECK_MPI(MPI_Isend(NULL, 0, MPI_BYTE, 1, 13, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    /* after the errors, a normal exchange */
    int v = 4242;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 1, 20, MPI_COMM_WORLD));
  } else if (rank == 1) {
    int small[10];
    int rc = MPI_Recv(small, 10, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
    CHECK(check_class_of(rc) == MPI_ERR_TRUNCATE, "eager truncation: code %d class %d", rc, check_class_of(rc));
    rc = MPI_Recv(buf, 1000, MPI_INT, 0, 2, MPI_COMM_WORLD, &st);
    CHECK(check_class_of(rc) == MPI_ERR_TRUNCATE, "large truncation: code %d class %d", rc, check_class_of(rc));
    MPI_Request r;
    CHECK_MPI(MPI_Irecv(small, 10, MPI_INT, 0, 3, MPI_COMM_WORLD, &r));
    rc = MPI_Wait(&r, &st);
    CHECK(check_class_of(rc) == MPI_ERR_TRUNCATE, "Irecv truncation: code %d class %d", rc, check_class_of(rc));
    CHECK(r == MPI_REQUEST_NULL, "a request completed in error is still freed by Wait");
    CHECK_MPI(MPI_Irecv(buf, 1000, MPI_INT, 0, 4, MPI_COMM_WORLD, &r));
    rc = MPI_Wait(&r, &st);
    CHECK(check_class_of(rc) == MPI_ERR_TRUNCATE, "large Irecv truncation: code %d class %d", rc, check_class_of(rc));

    int c = -1;
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_INT, 0, 10, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &c));
    CHECK(c == 0 && st.MPI_SOURCE == 0 && st.MPI_TAG == 10, "zero-byte: count %d source %d tag %d", c,
          st.MPI_SOURCE, st.MPI_TAG);
    buf[0] = 99;
    CHECK_MPI(MPI_Recv(buf, 100, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &c));
    CHECK(c == 0 && buf[0] == 99, "zero-byte into a larger buffer: count %d", c);
    CHECK_MPI(MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_TAG == 12 && st.MPI_SOURCE == 0, "zero-byte Ssend: tag %d", st.MPI_TAG);
    CHECK_MPI(MPI_Irecv(NULL, 0, MPI_BYTE, 0, 13, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, &st));
    CHECK_MPI(MPI_Get_elements(&st, MPI_BYTE, &c));
    CHECK(c == 0, "zero-byte Isend: elements %d", c);
    int v = 0;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(v == 4242, "after errors got %d", v);
  }
  free(buf);
  check_pass("p2p_truncate");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
