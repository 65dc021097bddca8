/* coll_bcast_length: MPI_Bcast / MPI_Ibcast whose root passes a different size than the other ranks (an
 * erroneous program; MPICH errors/coll/bcastlength). Every non-root rank must learn of it, also the ranks
 * that receive from another non-root rank in the tree, and none may write past the buffer it posted:
 *   root longer than posted:  MPI_ERR_TRUNCATE, the first `posted` elements are the root's;
 *   root shorter than posted: an error (MPI_ERR_OTHER, "collective size mismatch", as MPICH reports it).
 * Sizes: small (the shared-memory path for Bcast) and large (the point-to-point tree, rendezvous), a
 * contiguous and a strided type, root 0 and the last rank.
 * PASS: the expected classes, guards untouched, and a correct Bcast and Allreduce afterwards. */
#include <stdlib.h>

#include "common/check.h"

#define GUARD (-7777)

static void one(MPI_Comm comm, int rank, int root, int big, int small, int root_longer, int nb, int strided) {
  const int posted = rank == root ? (root_longer ? big : small) : (root_longer ? small : big);
  MPI_Datatype type = MPI_INT;
  int stride = 1;
  if (strided) {
    CHECK_MPI(MPI_Type_vector(1, 1, 2, MPI_INT, &type)); /* one int, extent 1 int: resize to 2 ints */
    MPI_Datatype t2;
    CHECK_MPI(MPI_Type_create_resized(type, 0, 2 * sizeof(int), &t2));
    CHECK_MPI(MPI_Type_free(&type));
    type = t2;
    CHECK_MPI(MPI_Type_commit(&type));
    stride = 2;
  }
  const int cap = big * stride + 64;
  int *buf = malloc(sizeof(int) * cap);
  for (int i = 0; i < cap; ++i) buf[i] = rank == root ? i : GUARD;
  int rc;
  if (nb) {
    MPI_Request req;
    CHECK_MPI(MPI_Ibcast(buf, posted, type, root, comm, &req));
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    rc = MPI_Bcast(buf, posted, type, root, comm);
  }
  if (rank == root) {
    CHECK(rc == MPI_SUCCESS, "root: Bcast failed");
  } else if (root_longer) {
    CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
    for (int i = 0; i < posted; ++i)
      CHECK(buf[i * stride] == i * stride, "truncated %s: element %d is %d", nb ? "Ibcast" : "Bcast", i,
            buf[i * stride]);
  } else {
    CHECK(rc != MPI_SUCCESS, "rank %d: a root message shorter than posted was not reported (%s, %d of %d)", rank,
          nb ? "Ibcast" : "Bcast", small, big);
    CHECK_CLASS(rc, MPI_ERR_OTHER);
  }
  if (rank != root)
    for (int i = posted * stride - (stride - 1); i < cap; ++i)
      CHECK(buf[i] == GUARD, "rank %d wrote past its posted buffer: element %d is %d", rank, i, buf[i]);
  free(buf);
  if (strided) CHECK_MPI(MPI_Type_free(&type));
}

int main(int argc, char **argv) {
  int rank, size;
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  const int sizes[2][2] = {{10, 1}, {200000, 70000}};
  for (int s = 0; s < 2; ++s)
    for (int root_longer = 0; root_longer < 2; ++root_longer)
      for (int nb = 0; nb < 2; ++nb)
        for (int strided = 0; strided < 2; ++strided)
          for (int r = 0; r < 2; ++r) {
            one(comm, rank, r == 0 ? 0 : size - 1, sizes[s][0], sizes[s][1], root_longer, nb, strided);
            int x = rank == 0 ? 42 : 0;
            CHECK_MPI(MPI_Bcast(&x, 1, MPI_INT, 0, comm));
            CHECK(x == 42, "Bcast after the mismatch gave %d", x);
          }
  int v = 1, sum = 0;
  CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == size, "Allreduce after the mismatches: %d", sum);
  CHECK_MPI(MPI_Comm_free(&comm));
  check_pass("coll_bcast_length");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
