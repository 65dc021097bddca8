/* ft_ompi_compat — a ULFM program written for Open MPI 5, compiled unchanged (no ftmpi header, no test
 * helper). 4 ranks; run with the option an Open MPI user types: `mpiexec -am ft-enable-mpi`, and also
 * compiled by the build tree's mpicc (test ft_ompi_compat_mpicc).
 *
 * It uses <mpi-ext.h>, the OMPI_HAVE_MPIX_* feature macros, MPIX_ERR_PROC_FAILED / MPIX_ERR_REVOKED, the old
 * MPIX_Comm_failure_ack / MPIX_Comm_failure_get_acked and the new MPIX_Comm_get_failed / MPIX_Comm_ack_failed,
 * MPIX_Comm_revoke, MPIX_Comm_shrink and MPIX_Comm_agree, in the usual "error handler revokes, then shrink"
 * style: rank 2 dies (raise(SIGKILL)) in the middle of a loop of Allreduce.
 *
 * PASS when the program prints "PASS ft_ompi_compat" (from the survivors' rank 0) and nothing with "FAIL",
 * and mpiexec exits 0. */
#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#if !defined(MPIX_ULFM) && !defined(OMPI_HAVE_MPI_EXT_FTMPI)
#error "this program needs ULFM (mpi-ext.h)"
#endif

static int errors = 0;
#define EXPECT(c)                                                             \
  do {                                                                        \
    if (!(c)) {                                                               \
      printf("FAIL: %s:%d: %s\n", __FILE__, __LINE__, #c);                    \
      errors++;                                                               \
    }                                                                         \
  } while (0)

static void errhandler_respawn(MPI_Comm *pcomm, int *errcode, ...) {
  int eclass;
  MPI_Error_class(*errcode, &eclass);
  if (eclass == MPIX_ERR_PROC_FAILED || eclass == MPIX_ERR_REVOKED) MPIX_Comm_revoke(*pcomm);
}

int main(int argc, char *argv[]) {
  MPI_Comm world, shrunk;
  MPI_Errhandler errh;
  int rank, size, rc, eclass, i;

  MPI_Init(&argc, &argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &world);
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  MPI_Comm_create_errhandler(errhandler_respawn, &errh);
  MPI_Comm_set_errhandler(world, errh);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (size != 4) {
    if (rank == 0) printf("FAIL: run with 4 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
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

  /* who failed? the new interface, then the old one */
#if defined(OMPI_HAVE_MPIX_COMM_GET_FAILED) && defined(OMPI_HAVE_MPIX_COMM_ACK_FAILED)
  {
    MPI_Group failed, wgroup;
    int nf = 0, nacked = 0, zero = 0, who = -1;
    MPIX_Comm_get_failed(world, &failed);
    MPI_Group_size(failed, &nf);
    EXPECT(nf == 1);
    MPI_Comm_group(world, &wgroup);
    MPI_Group_translate_ranks(failed, 1, &zero, wgroup, &who);
    EXPECT(who == 2);
    MPIX_Comm_ack_failed(world, nf, &nacked);
    EXPECT(nacked == 1);
    MPI_Group_free(&wgroup);
    MPI_Group_free(&failed);
  }
#else
#error "Open MPI 5 ULFM programs test these macros"
#endif
  {
    MPI_Group acked;
    int na = 0;
    MPIX_Comm_failure_ack(world);
    MPIX_Comm_failure_get_acked(world, &acked);
    MPI_Group_size(acked, &na);
    EXPECT(na == 1);
    MPI_Group_free(&acked);
  }

  /* repair */
  rc = MPIX_Comm_shrink(world, &shrunk);
  EXPECT(rc == MPI_SUCCESS);
  MPI_Comm_set_errhandler(shrunk, MPI_ERRORS_RETURN);
  {
    int flag = (rank != 1), sum = 0, n = 0, r = -1;
    rc = MPIX_Comm_agree(shrunk, &flag);
    EXPECT(rc == MPI_SUCCESS && flag == 0);
    MPI_Comm_size(shrunk, &n);
    MPI_Comm_rank(shrunk, &r);
    EXPECT(n == 3);
    rc = MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, shrunk);
    EXPECT(rc == MPI_SUCCESS && sum == 0 + 1 + 3);
    rc = MPI_Allreduce(&errors, &sum, 1, MPI_INT, MPI_SUM, shrunk);
    if (r == 0 && rc == MPI_SUCCESS && sum == 0) printf("PASS ft_ompi_compat\n");
    if (r == 0 && (rc != MPI_SUCCESS || sum != 0)) printf("FAIL ft_ompi_compat: %d errors\n", sum);
  }
  MPI_Comm_free(&shrunk);
  MPI_Comm_free(&world);
  MPI_Errhandler_free(&errh);
  MPI_Finalize();
  return 0;
}
