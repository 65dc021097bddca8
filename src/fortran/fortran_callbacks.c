/* ftmpi Fortran bindings: callbacks that carry an extra_state — attribute keyvals (MPI_Comm/Type/Win_create_keyval,
 * MPI-1 MPI_Keyval_create) and generalized requests (MPI_Grequest_start) with Fortran procedures, and the
 * predefined attribute callbacks as Fortran procedures (MPI_COMM_NULL_COPY_FN ...).
 *
 * Model: the C callback gets the C extra_state, so no trampoline table is needed: the shim gives the C call a
 * record {Fortran procedures, the Fortran extra_state} as extra_state, and one C function per callback kind
 * calls the Fortran procedure with everything by reference (handles as MPI_Fint, attribute values and the
 * extra_state as INTEGER(KIND=MPI_ADDRESS_KIND), or INTEGER for the MPI-1 forms, flags as LOGICAL = C int).
 * A Fortran attribute value is the integer itself (MPI_Comm_set_attr stores it as the C void *), so a copy
 * callback's value out is written back as that integer.
 *
 * Lifetime: a keyval's record lives as long as the process (MPI frees a keyval when its last attribute goes,
 * which this layer cannot see; one small record per created keyval). A generalized request's record is freed
 * after its free_fn ran (MPI calls free_fn exactly once). */
#include <stdlib.h>

#include "fortran_support.h"

/* ---- keyvals ----------------------------------------------------------------------------------------- */
/* SUBROUTINE copy(oldobj, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror) and
 * SUBROUTINE delete(obj, keyval, attribute_val, extra_state, ierror): wide values (MPI-2 forms). */
typedef void (*f_copy_fn)(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void (*f_delete_fn)(MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Fint *);
/* The MPI-1 forms: every argument INTEGER. */
typedef void (*f_copy1_fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*f_delete1_fn)(MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);

struct f_keyval {
  void (*copy)(void);
  void (*del)(void);
  MPI_Aint extra_state;
};

static struct f_keyval *new_keyval_record(void (*copy)(void), void (*del)(void), MPI_Aint extra) {
  struct f_keyval *k = malloc(sizeof *k);
  if (k != NULL) {
    k->copy = copy;
    k->del = del;
    k->extra_state = extra;
  }
  return k;
}

static int call_copy(MPI_Fint obj, int keyval, void *extra, void *in, void *out, int *flag) {
  struct f_keyval *k = extra;
  MPI_Fint fkey = keyval, fflag = 0, ierr = MPI_SUCCESS;
  MPI_Aint vin = (MPI_Aint)in, vout = 0;
  ((f_copy_fn)k->copy)(&obj, &fkey, &k->extra_state, &vin, &vout, &fflag, &ierr);
  *flag = fflag != 0;
  if (*flag) *(void **)out = (void *)vout;
  return ierr;
}
static int call_delete(MPI_Fint obj, int keyval, void *val, void *extra) {
  struct f_keyval *k = extra;
  MPI_Fint fkey = keyval, ierr = MPI_SUCCESS;
  MPI_Aint v = (MPI_Aint)val;
  ((f_delete_fn)k->del)(&obj, &fkey, &v, &k->extra_state, &ierr);
  return ierr;
}

static int comm_copy(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag) {
  return call_copy(MPI_Comm_c2f(c), key, extra, in, out, flag);
}
static int comm_delete(MPI_Comm c, int key, void *val, void *extra) {
  return call_delete(MPI_Comm_c2f(c), key, val, extra);
}
static int type_copy(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag) {
  return call_copy(MPI_Type_c2f(t), key, extra, in, out, flag);
}
static int type_delete(MPI_Datatype t, int key, void *val, void *extra) {
  return call_delete(MPI_Type_c2f(t), key, val, extra);
}
static int win_copy(MPI_Win w, int key, void *extra, void *in, void *out, int *flag) {
  return call_copy(MPI_Win_c2f(w), key, extra, in, out, flag);
}
static int win_delete(MPI_Win w, int key, void *val, void *extra) {
  return call_delete(MPI_Win_c2f(w), key, val, extra);
}

static int comm_copy1(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag) {
  struct f_keyval *k = extra;
  MPI_Fint fc = MPI_Comm_c2f(c), fkey = key, fextra = (MPI_Fint)k->extra_state, fflag = 0, ierr = MPI_SUCCESS;
  MPI_Fint vin = (MPI_Fint)(MPI_Aint)in, vout = 0;
  ((f_copy1_fn)k->copy)(&fc, &fkey, &fextra, &vin, &vout, &fflag, &ierr);
  *flag = fflag != 0;
  if (*flag) *(void **)out = (void *)(MPI_Aint)vout;
  return ierr;
}
static int comm_delete1(MPI_Comm c, int key, void *val, void *extra) {
  struct f_keyval *k = extra;
  MPI_Fint fc = MPI_Comm_c2f(c), fkey = key, fextra = (MPI_Fint)k->extra_state, ierr = MPI_SUCCESS;
  MPI_Fint v = (MPI_Fint)(MPI_Aint)val;
  ((f_delete1_fn)k->del)(&fc, &fkey, &v, &fextra, &ierr);
  return ierr;
}

FTMPI_F_API void mpi_comm_create_keyval_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval, MPI_Aint *extra,
                                         MPI_Fint *ierr);
void mpi_comm_create_keyval_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval, MPI_Aint *extra,
                             MPI_Fint *ierr) {
  struct f_keyval *k = new_keyval_record(copy, del, *extra);
  int key = MPI_KEYVAL_INVALID;
  *ierr = k == NULL ? ftmpi_f_no_mem() : MPI_Comm_create_keyval(comm_copy, comm_delete, &key, k);
  if (*ierr == MPI_SUCCESS) *ierr = ftmpi_attr_keyval_language(FTMPI_ATTR_COMM, key, FTMPI_ATTR_LANG_AINT);
  if (*ierr != MPI_SUCCESS) free(k);
  *keyval = key;
}
FTMPI_F_ALIASES(comm_create_keyval, comm_create_keyval)

FTMPI_F_API void mpi_type_create_keyval_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval, MPI_Aint *extra,
                                         MPI_Fint *ierr);
void mpi_type_create_keyval_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval, MPI_Aint *extra,
                             MPI_Fint *ierr) {
  struct f_keyval *k = new_keyval_record(copy, del, *extra);
  int key = MPI_KEYVAL_INVALID;
  *ierr = k == NULL ? ftmpi_f_no_mem() : MPI_Type_create_keyval(type_copy, type_delete, &key, k);
  if (*ierr == MPI_SUCCESS) *ierr = ftmpi_attr_keyval_language(FTMPI_ATTR_TYPE, key, FTMPI_ATTR_LANG_AINT);
  if (*ierr != MPI_SUCCESS) free(k);
  *keyval = key;
}
FTMPI_F_ALIASES(type_create_keyval, type_create_keyval)

FTMPI_F_API void mpi_win_create_keyval_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval, MPI_Aint *extra,
                                        MPI_Fint *ierr);
void mpi_win_create_keyval_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval, MPI_Aint *extra,
                            MPI_Fint *ierr) {
  struct f_keyval *k = new_keyval_record(copy, del, *extra);
  int key = MPI_KEYVAL_INVALID;
  *ierr = k == NULL ? ftmpi_f_no_mem() : MPI_Win_create_keyval(win_copy, win_delete, &key, k);
  if (*ierr == MPI_SUCCESS) *ierr = ftmpi_attr_keyval_language(FTMPI_ATTR_WIN, key, FTMPI_ATTR_LANG_AINT);
  if (*ierr != MPI_SUCCESS) free(k);
  *keyval = key;
}
FTMPI_F_ALIASES(win_create_keyval, win_create_keyval)

FTMPI_F_API void mpi_keyval_create_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval, MPI_Fint *extra,
                                    MPI_Fint *ierr);
void mpi_keyval_create_(void (*copy)(void), void (*del)(void), MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *ierr) {
  struct f_keyval *k = new_keyval_record(copy, del, *extra);
  int key = MPI_KEYVAL_INVALID;
  *ierr = k == NULL ? ftmpi_f_no_mem() : MPI_Comm_create_keyval(comm_copy1, comm_delete1, &key, k);
  if (*ierr == MPI_SUCCESS) *ierr = ftmpi_attr_keyval_language(FTMPI_ATTR_COMM, key, FTMPI_ATTR_LANG_INT);
  if (*ierr != MPI_SUCCESS) free(k);
  *keyval = key;
}
FTMPI_F_ALIASES(keyval_create, keyval_create)

/* ---- the predefined callbacks as Fortran procedures ---------------------------------------------------- */
/* NULL_COPY: flag = .false.; DUP: the value copied, flag = .true.; NULL_DELETE: nothing. The MPI-2 forms take
 * wide values, the MPI-1 ones (MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN) INTEGER ones. */
#define FTMPI_F_PREDEFINED_ATTR_FNS(kind, T)                                                               \
  FTMPI_F_API void mpi_##kind##_null_copy_fn_(MPI_Fint *o, MPI_Fint *k, T *e, T *in, T *out, MPI_Fint *flag, \
                                              MPI_Fint *ierr);                                             \
  void mpi_##kind##_null_copy_fn_(MPI_Fint *o, MPI_Fint *k, T *e, T *in, T *out, MPI_Fint *flag,           \
                                  MPI_Fint *ierr) {                                                        \
    (void)o, (void)k, (void)e, (void)in, (void)out;                                                        \
    *flag = 0;                                                                                             \
    *ierr = MPI_SUCCESS;                                                                                   \
  }                                                                                                        \
  FTMPI_F_API void mpi_##kind##_dup_fn_(MPI_Fint *o, MPI_Fint *k, T *e, T *in, T *out, MPI_Fint *flag,       \
                                        MPI_Fint *ierr);                                                   \
  void mpi_##kind##_dup_fn_(MPI_Fint *o, MPI_Fint *k, T *e, T *in, T *out, MPI_Fint *flag, MPI_Fint *ierr) { \
    (void)o, (void)k, (void)e;                                                                             \
    *out = *in;                                                                                            \
    *flag = 1;                                                                                             \
    *ierr = MPI_SUCCESS;                                                                                   \
  }                                                                                                        \
  FTMPI_F_API void mpi_##kind##_null_delete_fn_(MPI_Fint *o, MPI_Fint *k, T *v, T *e, MPI_Fint *ierr);      \
  void mpi_##kind##_null_delete_fn_(MPI_Fint *o, MPI_Fint *k, T *v, T *e, MPI_Fint *ierr) {                \
    (void)o, (void)k, (void)v, (void)e;                                                                    \
    *ierr = MPI_SUCCESS;                                                                                   \
  }
/* the MPI-1 names have no kind in them: mpi_mpi1_x_ (the pasted name) is rescanned into mpi_x_ */
#define mpi_mpi1_null_copy_fn_ mpi_null_copy_fn_
#define mpi_mpi1_dup_fn_ mpi_dup_fn_
#define mpi_mpi1_null_delete_fn_ mpi_null_delete_fn_
FTMPI_F_PREDEFINED_ATTR_FNS(comm, MPI_Aint)
FTMPI_F_PREDEFINED_ATTR_FNS(type, MPI_Aint)
FTMPI_F_PREDEFINED_ATTR_FNS(win, MPI_Aint)
FTMPI_F_PREDEFINED_ATTR_FNS(mpi1, MPI_Fint)

/* ---- generalized requests ------------------------------------------------------------------------------ */
/* SUBROUTINE query(extra_state, status, ierror), free(extra_state, ierror), cancel(extra_state, complete,
 * ierror): extra_state INTEGER(KIND=MPI_ADDRESS_KIND), status INTEGER(MPI_STATUS_SIZE) (the C layout),
 * complete LOGICAL. The callbacks get the caller's EXTRA_STATE variable itself (by reference, as in Open MPI
 * and MPICH: a free procedure that changes it is seen by the program, MPICH's f77/pt2pt/greqf), so it must
 * live until the free procedure ran. */
typedef void (*f_query_fn)(MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void (*f_free_fn)(MPI_Aint *, MPI_Fint *);
typedef void (*f_cancel_fn)(MPI_Aint *, MPI_Fint *, MPI_Fint *);

struct f_grequest {
  f_query_fn query;
  f_free_fn free;
  f_cancel_fn cancel;
  MPI_Aint *extra_state; /* the caller's variable */
};

static int greq_query(void *extra, MPI_Status *status) {
  struct f_grequest *g = extra;
  MPI_Fint ierr = MPI_SUCCESS;
  g->query(g->extra_state, (MPI_Fint *)status, &ierr);
  return ierr;
}
static int greq_free(void *extra) {
  struct f_grequest *g = extra;
  MPI_Fint ierr = MPI_SUCCESS;
  g->free(g->extra_state, &ierr);
  free(g);
  return ierr;
}
static int greq_cancel(void *extra, int complete) {
  struct f_grequest *g = extra;
  MPI_Fint fcomplete = complete != 0, ierr = MPI_SUCCESS;
  g->cancel(g->extra_state, &fcomplete, &ierr);
  return ierr;
}

FTMPI_F_API void mpi_grequest_start_(f_query_fn query, f_free_fn freefn, f_cancel_fn cancel, MPI_Aint *extra,
                                     MPI_Fint *request, MPI_Fint *ierr);
void mpi_grequest_start_(f_query_fn query, f_free_fn freefn, f_cancel_fn cancel, MPI_Aint *extra,
                         MPI_Fint *request, MPI_Fint *ierr) {
  struct f_grequest *g = malloc(sizeof *g);
  MPI_Request req = MPI_REQUEST_NULL;
  if (g == NULL) {
    *ierr = ftmpi_f_no_mem();
    *request = MPI_Request_c2f(req);
    return;
  }
  g->query = query;
  g->free = freefn;
  g->cancel = cancel;
  g->extra_state = extra;
  *ierr = MPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &req);
  if (*ierr != MPI_SUCCESS) free(g);
  *request = MPI_Request_c2f(req);
}
FTMPI_F_ALIASES(grequest_start, grequest_start)
