/* ftmpi Fortran bindings: what the generated shims (fortran_shims.c, from gen_fortran.py) call.
 *
 * Sentinels: Fortran programs name MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_UNWEIGHTED,
 * MPI_WEIGHTS_EMPTY and MPI_ERRCODES_IGNORE as variables in common blocks (mpif.h, module mpi and mpi_f08
 * declare the same blocks); this library defines those blocks, and a shim recognises a sentinel by its
 * address and passes the C value instead. */
#ifndef FTMPI_FORTRAN_SUPPORT_H
#define FTMPI_FORTRAN_SUPPORT_H

#include <stddef.h>

#include "mpi.h"
#include "mpi-ext.h"
#include "api/attr_language.h"

#define FTMPI_F_API __attribute__((visibility("default")))

/* A choice buffer: MPI_BOTTOM -> (void *)0 (MPI_BOTTOM), MPI_IN_PLACE -> MPI_IN_PLACE, else p itself. */
void *ftmpi_f_buf(void *p);
/* A Fortran status (MPI_STATUS_SIZE integers, the C layout): MPI_STATUS_IGNORE -> MPI_STATUS_IGNORE. */
MPI_Status *ftmpi_f_status(MPI_Fint *p);
MPI_Status *ftmpi_f_statuses(MPI_Fint *p);
/* MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY / MPI_ERRCODES_IGNORE. */
int *ftmpi_f_weights(MPI_Fint *p);
int *ftmpi_f_errcodes(MPI_Fint *p);
/* Strings: a blank-padded Fortran input of `len` characters as a NUL-terminated copy (trailing blanks
 * removed; NULL when out of memory; free it); an output buffer for a C function (at least len+1 and
 * MPI_MAX_INFO_VAL+1 bytes, zeroed), and the copy back (blank-padded to len). */
char *ftmpi_f_str_in(const char *s, size_t len);
/* The same with leading blanks removed too (info keys and values, MPI-4.0 §10). */
char *ftmpi_f_str_in_trim(const char *s, size_t len);
char *ftmpi_f_str_buf(size_t len);
void ftmpi_f_str_out(const char *c, char *f, size_t len);
/* MPI-1 calls with default-INTEGER addresses (MPI_Type_hindexed, MPI_Address, ...): an array of `n` INTEGER
 * displacements as MPI_Aint (malloc'ed, free it; NULL when n <= 0 or out of memory); a C address into an
 * INTEGER (0 when it does not fit: the caller reports ftmpi_f_addr_too_wide(), MPI_ERR_ARG through
 * MPI_COMM_WORLD's error handler). */
MPI_Aint *ftmpi_f_widen_addrs(const MPI_Fint *f, MPI_Fint n);
int ftmpi_f_narrow_addr(MPI_Aint a, MPI_Fint *f);
int ftmpi_f_addr_too_wide(void);
/* Lengths of MPI_Alltoallw's datatype arrays: which 0/1 = send/recv (the group size, or the remote
 * group's for an intercommunicator), 2/3 = neighbour send/recv (out-/in-degree of the topology). */
int ftmpi_f_comm_width(MPI_Fint comm, int which);

/* Handles a non-blocking call writes at completion (MPI_Comm_idup's newcomm, MPIX_Comm_ishrink's): the shim
 * gives the C call a heap cell (ftmpi_f_defer_cell, zeroed; NULL when out of memory), then ftmpi_f_defer
 * writes the cell's current value to the Fortran variable and, when the call started `req`, keeps the cell
 * under `req` (else frees it).  When a Wait/Test/Request_free shim sees `req` complete, it calls
 * ftmpi_f_request_done(req), which writes the final handle to the Fortran variable (which, like a receive
 * buffer, must stay valid until then) and frees the cell. */
MPI_Comm *ftmpi_f_defer_cell(void);
void ftmpi_f_defer(int rc, MPI_Request req, MPI_Comm *cell, MPI_Fint *fortran_var);
void ftmpi_f_request_done(MPI_Request req);

/* Out of memory in a shim: MPI_ERR_NO_MEM through MPI_COMM_WORLD's error handler (as any failing call), and
 * the code for ierror. */
int ftmpi_f_no_mem(void);

/* The profiling (pmpi_x_) and mpi_f08 (ftmpi_f08_x_) names of a hand-written shim mpi_x_. */
#define FTMPI_F_ALIASES(name, base)                                                                   \
  FTMPI_F_API extern __typeof__(mpi_##name##_) pmpi_##name##_ __attribute__((alias("mpi_" #base "_"))); \
  FTMPI_F_API extern __typeof__(mpi_##name##_) ftmpi_f08_##name##_ __attribute__((alias("mpi_" #base "_")));

/* Aborts with a message naming `name` unless got == want (the numbering of predefined handles). */
void ftmpi_f_expect_handle(MPI_Fint got, MPI_Fint want, const char *name);

#endif
