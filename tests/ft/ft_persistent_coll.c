/* ft_persistent_coll [victim_iteration] — persistent collectives and MPI_Isendrecv under ULFM. 4+ ranks,
 * --with-ft ulfm.
 *
 * Every rank creates persistent Allreduce, Bcast and Barrier requests on a dup of MPI_COMM_WORLD and
 * restarts them in a loop, checking each result. The last rank kills itself (SIGKILL) at the given iteration
 * (default 25), between two starts.
 *
 * PASS when, on every survivor:
 *  - every started instance completes (never hangs) with MPI_SUCCESS and the right data before the failure,
 *    and with MPI_ERR_PROC_FAILED (or MPI_ERR_REVOKED once another survivor revoked) after it; the loop ends
 *    at the first error;
 *  - after rank 0 revokes the communicator, restarting the persistent requests completes them with
 *    MPI_ERR_REVOKED or MPI_ERR_PROC_FAILED (the start itself may report it too) — never a hang, never success;
 *  - an MPI_Isendrecv with the dead rank as both peers completes with MPI_ERR_PROC_FAILED (or REVOKED); one
 *    sending to itself and receiving from MPI_ANY_SOURCE a message nobody sends completes with
 *    MPI_ERR_PROC_FAILED (unacknowledged failure), never hangs;
 *  - after MPIX_Comm_shrink, restarting the OLD requests is still an error (they name the broken
 *    communicator), while new persistent requests on the shrunk communicator restart 20 times with the right
 *    results;
 *  - every request is freed with MPI_Request_free. */
#include "ft_check.h"

static int start_wait(MPI_Request *r) {
  int rc = MPI_Start(r);
  if (rc != MPI_SUCCESS) return rc;
  return MPI_Wait(r, MPI_STATUS_IGNORE);
}

static int broken(int rc) {
  int c = check_class_of(rc);
  return c == MPI_ERR_PROC_FAILED || c == MPI_ERR_REVOKED;
}

int main(int argc, char **argv) {
  int wrank, wsize;
  ft_init(&argc, &argv, &wrank, &wsize);
  const int victim = wsize - 1, kill_at = argc > 1 ? atoi(argv[1]) : 25;
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

  int v = 0, sum = 0, bc = 0;
  MPI_Request ar, br, bar;
  CHECK_MPI(MPI_Allreduce_init(&v, &sum, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &ar));
  CHECK_MPI(MPI_Bcast_init(&bc, 1, MPI_INT, 0, comm, MPI_INFO_NULL, &br));
  CHECK_MPI(MPI_Barrier_init(comm, MPI_INFO_NULL, &bar));

  int it, rc = MPI_SUCCESS;
  for (it = 0; it < 100000 && rc == MPI_SUCCESS; it++) {
    if (wrank == victim && it == kill_at) ft_die();
    v = it + wrank;
    bc = wrank == 0 ? 500 + it : -1;
    rc = start_wait(&ar);
    if (rc == MPI_SUCCESS) {
      int expect = 0;
      for (int q = 0; q < wsize; q++) expect += it + q;
      CHECK(sum == expect, "iteration %d: allreduce %d want %d", it, sum, expect);
      rc = start_wait(&br);
    }
    if (rc == MPI_SUCCESS) {
      CHECK(bc == 500 + it, "iteration %d: bcast %d", it, bc);
      rc = start_wait(&bar);
    }
  }
  CHECK(broken(rc), "loop ended with code %d (%s) at iteration %d", rc, ft_class_name(rc), it);
  CHECK(it >= kill_at, "failed at iteration %d before the victim died at %d", it, kill_at);
  printf("rank %d: persistent loop stopped at iteration %d with %s\n", wrank, it - 1, ft_class_name(rc));

  /* revoke, then restart: must fail, never hang */
  ft_wait_failed(comm, 1, 20.0);
  if (wrank == 0) CHECK_MPI(MPIX_Comm_revoke(comm));
  for (int k = 0; k < 3; k++) {
    rc = start_wait(k == 0 ? &ar : k == 1 ? &br : &bar);
    CHECK(broken(rc), "restart %d after the failure: code %d (%s)", k, rc, ft_class_name(rc));
  }

  /* Isendrecv with the dead rank */
  int out = wrank, in = -1;
  MPI_Request sr;
  rc = MPI_Isendrecv(&out, 1, MPI_INT, victim, 3, &in, 1, MPI_INT, victim, 3, MPI_COMM_WORLD, &sr);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&sr, MPI_STATUS_IGNORE);
  CHECK(broken(rc), "Isendrecv with the dead rank: %d (%s)", rc, ft_class_name(rc));

  /* Isendrecv whose MPI_ANY_SOURCE receive nobody will match, with an unacknowledged failure on the
   * communicator: it must complete with MPI_ERR_PROC_FAILED (the send, to myself, completes), never hang. */
  out = 77;
  in = -1;
  rc = MPI_Isendrecv(&out, 1, MPI_INT, wrank, 5, &in, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &sr);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&sr, MPI_STATUS_IGNORE);
  CHECK(check_class_of(rc) == MPI_ERR_PROC_FAILED, "Isendrecv ANY_SOURCE after a failure: %d (%s)", rc,
        ft_class_name(rc));
  CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, wrank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(in == 77);

  /* repair */
  MPI_Comm small;
  CHECK_MPI(MPIX_Comm_shrink(comm, &small));
  MPI_Comm_set_errhandler(small, MPI_ERRORS_RETURN);
  rc = start_wait(&ar);
  CHECK(broken(rc), "old request restarted after the repair: code %d (%s)", rc, ft_class_name(rc));
  int srank, ssize;
  MPI_Comm_rank(small, &srank);
  MPI_Comm_size(small, &ssize);
  CHECK(ssize == wsize - 1);
  MPI_Request nr;
  CHECK_MPI(MPI_Allreduce_init(&v, &sum, 1, MPI_INT, MPI_SUM, small, MPI_INFO_NULL, &nr));
  for (int k = 0; k < 20; k++) {
    v = k * 7 + srank;
    CHECK_MPI(start_wait(&nr));
    int expect = 0;
    for (int q = 0; q < ssize; q++) expect += k * 7 + q;
    CHECK(sum == expect, "shrunk round %d: %d want %d", k, sum, expect);
  }
  CHECK_MPI(MPI_Request_free(&nr));
  CHECK_MPI(MPI_Request_free(&ar));
  CHECK_MPI(MPI_Request_free(&br));
  CHECK_MPI(MPI_Request_free(&bar));
  MPI_Comm_free(&comm);
  ft_pass(small, "ft_persistent_coll");
  MPI_Comm_free(&small);
  MPI_Finalize();
  return 0;
}
