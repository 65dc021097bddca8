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

#ifdef __cplusplus
}
#endif

#endif /* FTMPI_MPI_EXT_H */
