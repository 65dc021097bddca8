/* ftmpi — MPI extensions, Open MPI 5 (ULFM) compatible spelling.
 *
 * ULFM programs written for Open MPI include <mpi-ext.h> and test the feature macros below; they compile
 * unchanged against ftmpi. The seed spellings (MPI_Comm_invalidate, MPI_Comm_agreement, ...) are declared
 * in mpi.h. See docs/api.md for the behavioural differences between the two spellings. */
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

#define MPIX_ERR_PROC_FAILED MPI_ERR_PROC_FAILED
#define MPIX_ERR_PROC_FAILED_PENDING MPI_ERR_PROC_FAILED_PENDING
#define MPIX_ERR_REVOKED MPI_ERR_REVOKED

/* Communicator attribute: the value (an int*) is 1 when the job runs in fault-tolerant mode. */
#define MPIX_FT 0x6440000f

#define FTMPIX_DECL(ret, name, args) FTMPI_API ret MPIX_##name args; FTMPI_API ret PMPIX_##name args

FTMPIX_DECL(int, Comm_revoke, (MPI_Comm comm));
FTMPIX_DECL(int, Comm_is_revoked, (MPI_Comm comm, int *flag));
FTMPIX_DECL(int, Comm_shrink, (MPI_Comm comm, MPI_Comm *newcomm));
FTMPIX_DECL(int, Comm_ishrink, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request));
FTMPIX_DECL(int, Comm_failure_ack, (MPI_Comm comm));
FTMPIX_DECL(int, Comm_failure_get_acked, (MPI_Comm comm, MPI_Group *failedgrp));
FTMPIX_DECL(int, Comm_get_failed, (MPI_Comm comm, MPI_Group *failedgrp));
FTMPIX_DECL(int, Comm_ack_failed, (MPI_Comm comm, int num_to_ack, int *num_acked));
FTMPIX_DECL(int, Comm_agree, (MPI_Comm comm, int *flag));
FTMPIX_DECL(int, Comm_iagree, (MPI_Comm comm, int *flag, MPI_Request *request));

#undef FTMPIX_DECL

#ifdef __cplusplus
}
#endif

#endif /* FTMPI_MPI_EXT_H */
