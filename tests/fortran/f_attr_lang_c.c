/* C half of f_attr_lang.f90: reads and sets attributes from C (MPI-3.1 §17.2.7). Handles come as MPI_Fint;
 * each check returns 1 when C sees what the standard says, else prints why and returns 0. */
#include <stdio.h>

#include "mpi.h"

static int c_target = 5; /* what the C-set attributes point to */

static int fail(const char *what, long long got, long long want) {
  printf("FAIL (C) %s: got %lld, want %lld\n", what, got, want);
  return 0;
}

/* A Fortran INTEGER(KIND=MPI_ADDRESS_KIND) value reads in C as a pointer to an MPI_Aint holding it. */
int c_comm_aint_is(MPI_Fint comm, MPI_Fint keyval, MPI_Aint want) {
  MPI_Aint *p = NULL;
  int flag = 0;
  if (MPI_Comm_get_attr(MPI_Comm_f2c(comm), keyval, &p, &flag) != MPI_SUCCESS || !flag) return fail("comm flag", flag, 1);
  return *p == want ? 1 : fail("comm *(MPI_Aint *)", (long long)*p, (long long)want);
}
/* A Fortran INTEGER (MPI_ATTR_PUT) value reads in C as a pointer to an int. */
int c_comm_int_is(MPI_Fint comm, MPI_Fint keyval, MPI_Fint want) {
  int *p = NULL;
  int flag = 0;
  if (MPI_Attr_get(MPI_Comm_f2c(comm), keyval, &p, &flag) != MPI_SUCCESS || !flag) return fail("attr flag", flag, 1);
  return *p == want ? 1 : fail("comm *(int *)", *p, want);
}
int c_type_aint_is(MPI_Fint type, MPI_Fint keyval, MPI_Aint want) {
  MPI_Aint *p = NULL;
  int flag = 0;
  if (MPI_Type_get_attr(MPI_Type_f2c(type), keyval, &p, &flag) != MPI_SUCCESS || !flag) return fail("type flag", flag, 1);
  return *p == want ? 1 : fail("type *(MPI_Aint *)", (long long)*p, (long long)want);
}
int c_win_aint_is(MPI_Fint win, MPI_Fint keyval, MPI_Aint want) {
  MPI_Aint *p = NULL;
  int flag = 0;
  if (MPI_Win_get_attr(MPI_Win_f2c(win), keyval, &p, &flag) != MPI_SUCCESS || !flag) return fail("win flag", flag, 1);
  return *p == want ? 1 : fail("win *(MPI_Aint *)", (long long)*p, (long long)want);
}

/* Sets a pointer from C (kind 0 comm, 1 datatype, 2 window); returns the address Fortran must read. */
MPI_Aint c_set_pointer(int kind, MPI_Fint obj, MPI_Fint keyval) {
  int rc = kind == 0   ? MPI_Comm_set_attr(MPI_Comm_f2c(obj), keyval, &c_target)
           : kind == 1 ? MPI_Type_set_attr(MPI_Type_f2c(obj), keyval, &c_target)
                       : MPI_Win_set_attr(MPI_Win_f2c(obj), keyval, &c_target);
  return rc == MPI_SUCCESS ? (MPI_Aint)&c_target : -1;
}

/* A keyval with C's MPI_COMM_DUP_FN: the copy of a Fortran value must be the value, not a pointer into
 * the old communicator's attribute. */
MPI_Fint c_dup_keyval(void) {
  int k = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL);
  return k;
}
void c_free_keyval(MPI_Fint keyval) {
  int k = keyval;
  MPI_Comm_free_keyval(&k);
}

/* Predefined attributes as C sees them: MPI_TAG_UB (int *), MPI_WIN_BASE (the address), MPI_WIN_SIZE
 * (MPI_Aint *), MPI_WIN_DISP_UNIT (int *). */
MPI_Aint c_tag_ub(void) {
  int *p = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag);
  return flag ? *p : -1;
}
MPI_Aint c_win_predef(MPI_Fint win, int which) {
  void *p = NULL;
  int flag = 0;
  MPI_Win w = MPI_Win_f2c(win);
  if (which == 0) return MPI_Win_get_attr(w, MPI_WIN_BASE, &p, &flag) == MPI_SUCCESS && flag ? (MPI_Aint)p : -1;
  if (which == 1) return MPI_Win_get_attr(w, MPI_WIN_SIZE, &p, &flag) == MPI_SUCCESS && flag ? *(MPI_Aint *)p : -1;
  return MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &p, &flag) == MPI_SUCCESS && flag ? *(int *)p : -1;
}
