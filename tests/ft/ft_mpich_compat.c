/* ft_mpich_compat — a ULFM program written for MPICH: it includes ONLY <mpi.h> (MPICH declares its MPIX_
 * fault-tolerance functions and MPIX_ERR_* classes there; issue 12 item 15). 4 ranks, MPI_ERRORS_RETURN, rank 2
 * dies (raise(SIGKILL)) in a loop of Allreduce; survivors use MPICH's spelling: MPIX_Comm_failure_ack,
 * MPIX_Comm_failure_get_acked, MPIX_Comm_revoke, MPIX_Comm_shrink, MPIX_Comm_agree, and (MPICH >= 4.1, ftmpi)
 * MPIX_Comm_get_failed, MPIX_Comm_ack_failed, MPIX_Comm_iagree, MPIX_Comm_ishrink.
 *
 * Checked against MPICH 4.0 itself: mpicc.mpich, mpiexec.mpich -disable-auto-cleanup -n 4.
 * PASS when the survivors' rank 0 prints "PASS ft_mpich_compat", nothing prints "FAIL", and mpiexec exits 0. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>

#if !defined(MPIX_ERR_PROC_FAILED) || !defined(MPIX_ERR_PROC_FAILED_PENDING) || !defined(MPIX_ERR_REVOKED)
#error "MPICH-style ULFM: mpi.h alone must define MPIX_ERR_PROC_FAILED, _PENDING and MPIX_ERR_REVOKED"
#endif
/* The newer ULFM calls appeared in MPICH 4.1; MPICH 4.0 has only the five original ones. */
#if !defined(MPICH_NUMVERSION) || MPICH_NUMVERSION >= 40100000
#define HAVE_NEW_ULFM 1
#endif

static int errors = 0;
#define EXPECT(c)                                                             \
  do {                                                                        \
    if (!(c)) {                                                               \
      printf("FAIL: %s:%d: %s\n", __FILE__, __LINE__, #c);                    \
      fflush(stdout);                                                         \
      errors++;                                                               \
    }                                                                         \
  } while (0)

int main(int argc, char *argv[]) {
  MPI_Comm world, shrunk;
  int rank, size, rc = MPI_SUCCESS, eclass, i;

  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_dup(MPI_COMM_WORLD, &world);
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  if (size != 4) {
    if (rank == 0) printf("FAIL: run with 4 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* the classes are distinct error classes */
  EXPECT(MPIX_ERR_PROC_FAILED != MPI_SUCCESS && MPIX_ERR_REVOKED != MPIX_ERR_PROC_FAILED &&
         MPIX_ERR_PROC_FAILED_PENDING != MPIX_ERR_PROC_FAILED);
  {
    int c = -1;
    MPI_Error_class(MPIX_ERR_REVOKED, &c);
    EXPECT(c == MPIX_ERR_REVOKED);
  }

  /* no failure yet: agree is an AND, failure_get_acked is empty */
  {
    int flag = (rank == 1) ? 0x6 : 0x7;
    MPI_Group acked;
    int n = -1;
    rc = MPIX_Comm_agree(world, &flag);
    EXPECT(rc == MPI_SUCCESS && flag == 0x6);
    rc = MPIX_Comm_failure_ack(world);
    EXPECT(rc == MPI_SUCCESS);
    rc = MPIX_Comm_failure_get_acked(world, &acked);
    EXPECT(rc == MPI_SUCCESS);
    MPI_Group_size(acked, &n);
    EXPECT(n == 0);
    MPI_Group_free(&acked);
  }

  for (i = 0; i < 1000; i++) {
    int v = 1, sum = 0;
    if (rank == 2 && i == 10) raise(SIGKILL);
    rc = MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, world);
    if (rc != MPI_SUCCESS) break;
    EXPECT(sum == size);
  }
  MPI_Error_class(rc, &eclass);
  EXPECT(eclass == MPIX_ERR_PROC_FAILED || eclass == MPIX_ERR_REVOKED);
  MPIX_Comm_revoke(world);
  {
    int v = 0;
    rc = MPI_Bcast(&v, 1, MPI_INT, 0, world);
    MPI_Error_class(rc, &eclass);
    EXPECT(eclass == MPIX_ERR_REVOKED);
  }

  /* who failed: the MPICH 4.0 interface, then the newer one */
  {
    MPI_Group acked, wgroup;
    int na = 0, zero = 0, who = -1;
    MPIX_Comm_failure_ack(world);
    MPIX_Comm_failure_get_acked(world, &acked);
    MPI_Group_size(acked, &na);
    EXPECT(na == 1);
    MPI_Comm_group(world, &wgroup);
    MPI_Group_translate_ranks(acked, 1, &zero, wgroup, &who);
    EXPECT(who == 2);
    MPI_Group_free(&wgroup);
    MPI_Group_free(&acked);
  }
#ifdef HAVE_NEW_ULFM
  {
    MPI_Group failed;
    int nf = 0, nacked = -1;
    MPIX_Comm_get_failed(world, &failed);
    MPI_Group_size(failed, &nf);
    EXPECT(nf == 1);
    MPIX_Comm_ack_failed(world, nf, &nacked);
    EXPECT(nacked == 1);
    MPI_Group_free(&failed);
  }
#endif

  /* repair */
  rc = MPIX_Comm_shrink(world, &shrunk);
  EXPECT(rc == MPI_SUCCESS);
  MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
  {
    int flag = (rank != 1), n = 0, r = -1, sum = 0;
    rc = MPIX_Comm_agree(shrunk, &flag);
    EXPECT(rc == MPI_SUCCESS && flag == 0);
    MPI_Comm_size(shrunk, &n);
    MPI_Comm_rank(shrunk, &r);
    EXPECT(n == 3);
#ifdef HAVE_NEW_ULFM
    {
      MPI_Request req;
      MPI_Comm again = MPI_COMM_NULL;
      int f2 = 1;
      rc = MPIX_Comm_iagree(shrunk, &f2, &req);
      EXPECT(rc == MPI_SUCCESS);
      rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
      EXPECT(rc == MPI_SUCCESS && f2 == 1);
      rc = MPIX_Comm_ishrink(shrunk, &again, &req);
      EXPECT(rc == MPI_SUCCESS);
      rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
      EXPECT(rc == MPI_SUCCESS && again != MPI_COMM_NULL);
      if (again != MPI_COMM_NULL) {
        int n2 = 0;
        MPI_Comm_size(again, &n2);
        EXPECT(n2 == 3);
        MPI_Comm_free(&again);
      }
    }
#endif
    rc = MPI_Allreduce(&errors, &sum, 1, MPI_INT, MPI_SUM, shrunk);
    if (r == 0 && rc == MPI_SUCCESS && sum == 0) printf("PASS ft_mpich_compat\n");
    if (r == 0 && (rc != MPI_SUCCESS || sum != 0)) printf("FAIL ft_mpich_compat: %d errors\n", sum);
  }
  MPI_Comm_free(&shrunk);
  MPI_Comm_free(&world);
  MPI_Finalize();
  return 0;
}
