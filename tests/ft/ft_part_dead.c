/* ft_part_dead — partitioned communication with a dead peer and a revoked communicator (ULFM). 3 ranks,
 * --with-ft ulfm.
 *
 * Ranks 0 and 1 run one good round of a partitioned pair in each direction (1 -> 0 small partitions, 0 -> 1
 * rendezvous-sized ones), then rank 1 dies by SIGKILL. Ranks 0 and 2 hold a pair on a duplicate of
 * MPI_COMM_WORLD for the revoke part.
 *
 * PASS when, on the survivors:
 *  - rank 0's partitioned receive from the dead rank, started again, completes with MPI_ERR_PROC_FAILED (Wait),
 *    and Parrived on it reports MPI_ERR_PROC_FAILED rather than spinning;
 *  - rank 0's partitioned send to the dead rank with every partition ready completes with MPI_ERR_PROC_FAILED;
 *    started again with NO partition ready, MPI_Wait still returns MPI_ERR_PROC_FAILED (no hang);
 *  - a new Psend_init/Precv_init to/from the dead rank succeeds (local) and its rounds fail with
 *    MPI_ERR_PROC_FAILED;
 *  - ranks 0 and 2 still run partitioned rounds on MPI_COMM_WORLD (only operations with the dead rank fail);
 *  - on the duplicate, rank 2 revokes while rank 0's receive from it is active: rank 0's Wait returns
 *    MPI_ERR_REVOKED, and rank 2's own started send completes with MPI_ERR_REVOKED;
 *  - nothing hangs (the test's timeout). */
#include "ft_check.h"

#define VICTIM 1
#define PARTS 4
#define BIGCOUNT (64 * 1024) /* ints per partition: rendezvous-sized */

int main(int argc, char **argv) {
  int rank, size;
  ft_init(&argc, &argv, &rank, &size);
  CHECK(size >= 3, "needs 3 ranks");
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));

  int small[PARTS * 8];
  int *big = malloc(sizeof(int) * PARTS * BIGCOUNT);
  CHECK(big != NULL);
  MPI_Request rin = MPI_REQUEST_NULL, rout = MPI_REQUEST_NULL;
  if (rank == 0) {
    CHECK_MPI(MPI_Precv_init(small, PARTS, 8, MPI_INT, VICTIM, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &rin));
    CHECK_MPI(MPI_Psend_init(big, PARTS, BIGCOUNT, MPI_INT, VICTIM, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &rout));
  } else if (rank == VICTIM) {
    CHECK_MPI(MPI_Psend_init(small, PARTS, 8, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &rout));
    CHECK_MPI(MPI_Precv_init(big, PARTS, BIGCOUNT, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &rin));
  }
  /* one good round each way */
  if (rank == 0 || rank == VICTIM) {
    for (int i = 0; i < PARTS * 8; i++) small[i] = rank == VICTIM ? i : -1;
    for (int i = 0; i < PARTS * BIGCOUNT; i++) big[i] = rank == 0 ? i : -1;
    CHECK_MPI(MPI_Start(&rin));
    CHECK_MPI(MPI_Start(&rout));
    CHECK_MPI(MPI_Pready_range(0, PARTS - 1, rout));
    CHECK_MPI(MPI_Wait(&rout, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&rin, MPI_STATUS_IGNORE));
    if (rank == 0)
      for (int i = 0; i < PARTS * 8; i++) CHECK(small[i] == i);
    else
      for (int i = 0; i < PARTS * BIGCOUNT; i++) CHECK(big[i] == i);
  }
  ft_barrier_before_death(MPI_COMM_WORLD);
  if (rank == VICTIM) ft_die();

  if (rank == 0) {
    /* the receive from the dead rank: Parrived reports the failure, Wait completes with it */
    CHECK_MPI(MPI_Start(&rin));
    int flag = 0, rc = MPI_SUCCESS;
    double t0 = ft_now();
    while (rc == MPI_SUCCESS && !flag) {
      rc = MPI_Parrived(rin, 0, &flag);
      CHECK(ft_now() - t0 < 10.0, "Parrived never reported the dead sender");
    }
    CHECK_CLASS(rc, MPI_ERR_PROC_FAILED);
    CHECK_CLASS(MPI_Wait(&rin, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
    CHECK(rin != MPI_REQUEST_NULL, "a persistent request keeps its handle after an error");
    /* the send to the dead rank, every partition ready */
    CHECK_MPI(MPI_Start(&rout));
    CHECK_MPI(MPI_Pready_range(0, PARTS - 1, rout));
    CHECK_CLASS(MPI_Wait(&rout, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
    ft_wait_failed(MPI_COMM_WORLD, 1, 10.0);
    /* and with no partition ready at all: no hang */
    CHECK_MPI(MPI_Start(&rout));
    CHECK_CLASS(MPI_Wait(&rout, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
    CHECK_MPI(MPI_Request_free(&rin));
    CHECK_MPI(MPI_Request_free(&rout));
    /* new pairs with the dead rank: init is local, rounds fail */
    CHECK_MPI(MPI_Psend_init(small, 2, 4, MPI_INT, VICTIM, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rout));
    CHECK_MPI(MPI_Precv_init(small, 2, 4, MPI_INT, VICTIM, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rin));
    CHECK_MPI(MPI_Start(&rout));
    CHECK_MPI(MPI_Pready_range(0, 1, rout));
    CHECK_CLASS(MPI_Wait(&rout, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
    CHECK_MPI(MPI_Start(&rin));
    CHECK_CLASS(MPI_Wait(&rin, MPI_STATUS_IGNORE), MPI_ERR_PROC_FAILED);
    CHECK_MPI(MPI_Request_free(&rin));
    CHECK_MPI(MPI_Request_free(&rout));
  }

  /* the survivors still run partitioned rounds on MPI_COMM_WORLD */
  if (rank == 0 || rank == 2) {
    MPI_Request r;
    const int other = 2 - rank;
    int data[16];
    if (rank == 0)
      CHECK_MPI(MPI_Psend_init(data, 4, 4, MPI_INT, other, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    else
      CHECK_MPI(MPI_Precv_init(data, 8, 2, MPI_INT, other, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 16; i++) data[i] = rank == 0 ? i + round : -1;
      CHECK_MPI(MPI_Start(&r));
      if (rank == 0) CHECK_MPI(MPI_Pready_range(0, 3, r));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
      if (rank == 2)
        for (int i = 0; i < 16; i++) CHECK(data[i] == i + round, "survivor round %d: data[%d] = %d", round, i, data[i]);
    }
    CHECK_MPI(MPI_Request_free(&r));

    /* revoke: rank 0 receives from rank 2 on dup; rank 2 revokes instead of readying */
    int x[4];
    if (rank == 0) {
      CHECK_MPI(MPI_Precv_init(x, 2, 2, MPI_INT, 2, 3, dup, MPI_INFO_NULL, &r));
      CHECK_MPI(MPI_Start(&r));
      int go = 1;
      CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 2, 77, MPI_COMM_WORLD));
      CHECK_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_REVOKED);
    } else {
      CHECK_MPI(MPI_Psend_init(x, 2, 2, MPI_INT, 0, 3, dup, MPI_INFO_NULL, &r));
      CHECK_MPI(MPI_Start(&r));
      int go = 0;
      CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPIX_Comm_revoke(dup));
      CHECK_CLASS(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_REVOKED);
    }
    CHECK_MPI(MPI_Request_free(&r));
  }
  MPI_Comm_free(&dup);
  free(big);
  ft_pass(MPI_COMM_WORLD, "ft_part_dead");
  MPI_Finalize();
  return 0;
}
