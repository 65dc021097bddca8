/* ftmpi Fortran bindings: MPI_Comm_spawn and MPI_Comm_spawn_multiple, whose argv arguments are CHARACTER arrays.
 *
 * Fortran's form (MPI-3.1 §10.3.2): argv(*) is an array of blank-padded strings, each of the array's element
 * length (gfortran's hidden length), ended by an entirely blank element; spawn_multiple's array_of_argv is
 * array_of_argv(count, *), so argument j of command i is element (i, j), column-major. MPI_ARGV_NULL and
 * MPI_ARGVS_NULL are variables in common blocks, recognised by address. Each string loses its trailing blanks,
 * and each argument its leading blanks too (as in Open MPI and MPICH: MPICH's f77/spawn/spawnargvf passes " Ss").
 * The C argv built here lives until the C call returns. */
#include <stdlib.h>
#include <string.h>

#include "fortran_support.h"

FTMPI_F_API _Alignas(16) char mpi_fortran_argv_null_[16];
FTMPI_F_API _Alignas(16) char mpi_fortran_argvs_null_[16];

static int blank(const char *s, size_t len) {
  for (size_t i = 0; i < len; ++i)
    if (s[i] != ' ') return 0;
  return 1;
}

static void free_argv(char **argv) {
  if (argv == NULL) return;
  for (char **p = argv; *p != NULL; ++p) free(*p);
  free(argv);
}

/* The arguments of one command: elements base, base + stride, ... of `len` characters up to the first blank
 * one, as a NULL-terminated C array (NULL when out of memory; *oom set). */
static char **argv_from_fortran(const char *base, size_t stride, size_t len, int *oom) {
  size_t n = 0;
  if (len > 0)
    while (!blank(base + n * stride * len, len)) ++n;
  char **argv = calloc(n + 1, sizeof *argv);
  if (argv == NULL) {
    *oom = 1;
    return NULL;
  }
  for (size_t i = 0; i < n; ++i) {
    argv[i] = ftmpi_f_str_in_trim(base + i * stride * len, len);
    if (argv[i] == NULL) {
      free_argv(argv);
      *oom = 1;
      return NULL;
    }
  }
  return argv;
}

FTMPI_F_API void mpi_comm_spawn_(const char *command, const char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                                 MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
                                 MPI_Fint *ierr, size_t command_len, size_t argv_len);
void mpi_comm_spawn_(const char *command, const char *argv, MPI_Fint *maxprocs, MPI_Fint *info, MPI_Fint *root,
                     MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierr, size_t command_len,
                     size_t argv_len) {
  int oom = 0;
  char *c_command = ftmpi_f_str_in(command, command_len);
  char **c_argv = argv == mpi_fortran_argv_null_ ? MPI_ARGV_NULL : argv_from_fortran(argv, 1, argv_len, &oom);
  MPI_Comm c_inter = MPI_COMM_NULL;
  if (c_command == NULL || oom) *ierr = ftmpi_f_no_mem();
  else
    *ierr = MPI_Comm_spawn(c_command, c_argv, *maxprocs, MPI_Info_f2c(*info), *root, MPI_Comm_f2c(*comm), &c_inter,
                           ftmpi_f_errcodes(errcodes));
  *intercomm = MPI_Comm_c2f(c_inter);
  free(c_command);
  free_argv(c_argv);
}
FTMPI_F_ALIASES(comm_spawn, comm_spawn)

FTMPI_F_API void mpi_comm_spawn_multiple_(MPI_Fint *count, const char *commands, const char *argvs,
                                          MPI_Fint *maxprocs, MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm,
                                          MPI_Fint *intercomm, MPI_Fint *errcodes, MPI_Fint *ierr,
                                          size_t commands_len, size_t argvs_len);
void mpi_comm_spawn_multiple_(MPI_Fint *count, const char *commands, const char *argvs, MPI_Fint *maxprocs,
                              MPI_Fint *infos, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                              MPI_Fint *errcodes, MPI_Fint *ierr, size_t commands_len, size_t argvs_len) {
  const int n = *count > 0 ? *count : 0;
  MPI_Comm c_inter = MPI_COMM_NULL;
  char **c_commands = calloc((size_t)n + 1, sizeof *c_commands);
  char ***c_argvs = argvs == mpi_fortran_argvs_null_ ? MPI_ARGVS_NULL : calloc((size_t)n + 1, sizeof *c_argvs);
  MPI_Info *c_infos = calloc((size_t)n + 1, sizeof *c_infos);
  int oom = c_commands == NULL || c_infos == NULL || (argvs != mpi_fortran_argvs_null_ && c_argvs == NULL);
  for (int i = 0; i < n && !oom; ++i) {
    c_commands[i] = ftmpi_f_str_in(commands + (size_t)i * commands_len, commands_len);
    oom = c_commands[i] == NULL;
    if (c_argvs != MPI_ARGVS_NULL && !oom)
      c_argvs[i] = argv_from_fortran(argvs + (size_t)i * argvs_len, (size_t)n, argvs_len, &oom);
    c_infos[i] = MPI_Info_f2c(infos[i]);
  }
  if (oom) *ierr = ftmpi_f_no_mem();
  else
    /* a negative count reaches the C call, which reports it */
    *ierr = MPI_Comm_spawn_multiple(*count, c_commands, c_argvs, maxprocs, c_infos, *root, MPI_Comm_f2c(*comm),
                                    &c_inter, ftmpi_f_errcodes(errcodes));
  *intercomm = MPI_Comm_c2f(c_inter);
  for (int i = 0; i < n; ++i) {
    if (c_commands != NULL) free(c_commands[i]);
    if (c_argvs != MPI_ARGVS_NULL && c_argvs != NULL) free_argv(c_argvs[i]);
  }
  free(c_commands);
  if (c_argvs != MPI_ARGVS_NULL) free(c_argvs);
  free(c_infos);
}
FTMPI_F_ALIASES(comm_spawn_multiple, comm_spawn_multiple)
