/* ftmpi — MPI extensions, Open MPI 5 (ULFM) compatible spelling.
 *
 * ULFM programs written for Open MPI include <mpi-ext.h> and test the feature macros below; they compile
 * unchanged against ftmpi. The MPIX_ functions and error classes themselves are in mpi.h (as in MPICH), next
 * to the seed spellings (MPI_Comm_invalidate, MPI_Comm_agreement, ...). See docs/api.md for the behavioural differences between the two spellings. */
#ifndef FTMPI_MPI_EXT_H
#define FTMPI_MPI_EXT_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPIX_ULFM 1
#define OMPI_HAVE_MPI_EXT_FTMPI 1
#define OMPI_HAVE_MPIX_COMM_GET_FAILED 1
#define OMPI_HAVE_MPIX_COMM_ACK_FAILED 1
#define OMPI_HAVE_MPIX_COMM_ISHRINK 1
#define OMPI_HAVE_MPIX_COMM_IAGREE 1
#define MPIX_HAVE_COMM_GET_FAILED 1
#define MPIX_HAVE_COMM_ACK_FAILED 1
#define MPIX_HAVE_COMM_ISHRINK 1
#define MPIX_HAVE_COMM_IAGREE 1

/* MPIX_ERR_PROC_FAILED, MPIX_ERR_PROC_FAILED_PENDING, MPIX_ERR_REVOKED, MPIX_FT and the MPIX_Comm_*
 * functions are declared in mpi.h (MPICH's ULFM programs include only mpi.h); this header adds Open MPI's
 * feature macros above. */

/* Reinit++ (LLNL's Open MPI 4 fork) names, so its programs compile unchanged. Always asynchronous (as
 * MPI_ERRORS_REINIT_ASYNC); run with mpiexec --with-ft reinit or --mca orte_enable_recovery 1. The restart
 * point may take two more parameters: the world ranks that failed in the last rollback. */
typedef enum { OMPI_REINIT_NEW = 1, OMPI_REINIT_REINITED, OMPI_REINIT_RESTARTED } OMPI_reinit_state_t;
typedef int (*MPI_Restart_point)(int argc, char **argv, OMPI_reinit_state_t state);
typedef int (*MPIX_Restart_point_failed)(int argc, char **argv, OMPI_reinit_state_t state, int num_failed_procs,
                                         int *failed_procs);
FTMPI_API int OMPI_Reinit(int argc, char **argv, const MPI_Restart_point point);
FTMPI_API int OMPIX_Reinit_failed(int argc, char **argv, const MPIX_Restart_point_failed point);
FTMPI_API int OMPI_Reinit_state(int *state);
#define FTMPI_HAVE_REINIT 1
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* a five-parameter restart point goes to OMPIX_Reinit_failed */
#define OMPI_Reinit(argc, argv, point) \
  _Generic((point), MPIX_Restart_point_failed: OMPIX_Reinit_failed, default: OMPI_Reinit)(argc, argv, point)
#endif

#ifdef __cplusplus
}
inline int OMPI_Reinit(int argc, char **argv, const MPIX_Restart_point_failed point) {
  return OMPIX_Reinit_failed(argc, argv, point);
}
#endif

#endif /* FTMPI_MPI_EXT_H */
