/* ftmpi Fortran bindings: sentinels, string and status helpers, and the shims gen_fortran.py does not
 * generate (HANDWRITTEN there): MPI_Init/Init_thread/Info_create_env (no argc/argv in Fortran), MPI_Op_create
 * and MPI_Comm/Win/File/Session_create_errhandler with Fortran procedures (a fixed table of C trampolines: the
 * C callback has no user pointer, so each slot is its own function), the attribute calls whose Fortran
 * semantics differ from C (predefined attributes are values, not pointers; MPI-1 attributes are INTEGER),
 * MPI_Pcontrol and the detach calls. */
#include "fortran_support.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the common blocks of the sentinels (gfortran names a block /x/ as the symbol x_) ---------------- */
FTMPI_F_API _Alignas(16) MPI_Fint mpi_fortran_bottom_[4];
FTMPI_F_API _Alignas(16) MPI_Fint mpi_fortran_in_place_[4];
FTMPI_F_API _Alignas(16) MPI_Fint mpi_fortran_status_ignore_[8];
FTMPI_F_API _Alignas(16) MPI_Fint mpi_fortran_statuses_ignore_[8];
FTMPI_F_API _Alignas(16) MPI_Fint mpi_fortran_unweighted_[4];
FTMPI_F_API _Alignas(16) MPI_Fint mpi_fortran_weights_empty_[4];
FTMPI_F_API _Alignas(16) MPI_Fint mpi_fortran_errcodes_ignore_[4];

void *ftmpi_f_buf(void *p) {
  if (p == (void *)mpi_fortran_bottom_) return MPI_BOTTOM;
  if (p == (void *)mpi_fortran_in_place_) return MPI_IN_PLACE;
  return p;
}
MPI_Status *ftmpi_f_status(MPI_Fint *p) {
  return p == mpi_fortran_status_ignore_ || p == mpi_fortran_statuses_ignore_ ? MPI_STATUS_IGNORE : (MPI_Status *)p;
}
MPI_Status *ftmpi_f_statuses(MPI_Fint *p) {
  return p == mpi_fortran_statuses_ignore_ || p == mpi_fortran_status_ignore_ ? MPI_STATUSES_IGNORE
                                                                              : (MPI_Status *)p;
}
int *ftmpi_f_weights(MPI_Fint *p) {
  if (p == mpi_fortran_unweighted_) return MPI_UNWEIGHTED;
  if (p == mpi_fortran_weights_empty_) return MPI_WEIGHTS_EMPTY;
  return p;
}
int *ftmpi_f_errcodes(MPI_Fint *p) { return p == mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : p; }

char *ftmpi_f_str_in(const char *s, size_t len) {
  while (len > 0 && s[len - 1] == ' ') --len;
  char *c = malloc(len + 1);
  if (c == NULL) return NULL;
  memcpy(c, s, len);
  c[len] = '\0';
  return c;
}
char *ftmpi_f_str_in_trim(const char *s, size_t len) {
  while (len > 0 && *s == ' ') {
    ++s;
    --len;
  }
  return ftmpi_f_str_in(s, len);
}
char *ftmpi_f_str_buf(size_t len) {
  size_t n = len > MPI_MAX_INFO_VAL ? len : MPI_MAX_INFO_VAL;
  return calloc(n + 2, 1);
}
void ftmpi_f_str_out(const char *c, char *f, size_t len) {
  size_t n = strlen(c);
  if (n > len) n = len;
  memcpy(f, c, n);
  memset(f + n, ' ', len - n);
}

int ftmpi_f_comm_width(MPI_Fint fcomm, int which) {
  MPI_Comm comm = MPI_Comm_f2c(fcomm);
  int n = 0, inter = 0;
  if (which < 2) {
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return 0;
    if (inter ? MPI_Comm_remote_size(comm, &n) : MPI_Comm_size(comm, &n)) return 0;
    return n;
  }
  int topo = MPI_UNDEFINED, indeg = 0, outdeg = 0, weighted = 0, rank = 0;
  if (MPI_Topo_test(comm, &topo) != MPI_SUCCESS) return 0;
  if (topo == MPI_CART) {
    if (MPI_Cartdim_get(comm, &n) != MPI_SUCCESS) return 0;
    return 2 * n;
  }
  if (topo == MPI_GRAPH) {
    if (MPI_Comm_rank(comm, &rank) || MPI_Graph_neighbors_count(comm, rank, &n)) return 0;
    return n;
  }
  if (topo == MPI_DIST_GRAPH) {
    if (MPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted)) return 0;
    return which == 2 ? outdeg : indeg;
  }
  return 0;
}

/* ---- handles written at completion ----------------------------------------------------------------- */
struct deferred {
  MPI_Request req;
  MPI_Comm *cell;
  MPI_Fint *fortran_var;
  struct deferred *next;
};
static pthread_mutex_t deferred_mu = PTHREAD_MUTEX_INITIALIZER;
static struct deferred *deferred_head;
static volatile int deferred_count;  /* read without the lock: a hint that skips the lookup when 0 */

MPI_Comm *ftmpi_f_defer_cell(void) {
  MPI_Comm *cell = malloc(sizeof *cell);
  if (cell != NULL) *cell = MPI_COMM_NULL;
  return cell;
}

void ftmpi_f_defer(int rc, MPI_Request req, MPI_Comm *cell, MPI_Fint *fortran_var) {
  *fortran_var = MPI_Comm_c2f(*cell);
  struct deferred *d = rc == MPI_SUCCESS && req != MPI_REQUEST_NULL ? malloc(sizeof *d) : NULL;
  if (d == NULL) {  /* nothing pending (or no memory to wait for it: the value now is all there is) */
    free(cell);
    return;
  }
  d->req = req;
  d->cell = cell;
  d->fortran_var = fortran_var;
  pthread_mutex_lock(&deferred_mu);
  d->next = deferred_head;
  deferred_head = d;
  ++deferred_count;
  pthread_mutex_unlock(&deferred_mu);
}

void ftmpi_f_request_done(MPI_Request req) {
  if (deferred_count == 0) return;
  pthread_mutex_lock(&deferred_mu);
  for (struct deferred **p = &deferred_head; *p != NULL; p = &(*p)->next) {
    struct deferred *d = *p;
    if (d->req != req) continue;
    *d->fortran_var = MPI_Comm_c2f(*d->cell);
    *p = d->next;
    --deferred_count;
    free(d->cell);
    free(d);
    break;
  }
  pthread_mutex_unlock(&deferred_mu);
}

void ftmpi_f_expect_handle(MPI_Fint got, MPI_Fint want, const char *name) {
  if (got == want) return;
  fprintf(stderr, "ftmpi Fortran bindings: %s converts to %d, not the %d of mpif.h (a handle was converted "
                  "with MPI_*_c2f before libmpi_fortran was loaded)\n", name, (int)got, (int)want);
  abort();
}

MPI_Aint *ftmpi_f_widen_addrs(const MPI_Fint *f, MPI_Fint n) {
  if (n <= 0) return NULL;
  MPI_Aint *a = malloc(sizeof(MPI_Aint) * (size_t)n);
  if (a != NULL)
    for (MPI_Fint i = 0; i < n; ++i) a[i] = f[i];
  return a;
}
int ftmpi_f_narrow_addr(MPI_Aint a, MPI_Fint *f) {
  *f = (MPI_Fint)a;
  return (MPI_Aint)*f == a;
}
int ftmpi_f_addr_too_wide(void) {
  MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG);
  return MPI_ERR_ARG;
}

/* ---- MPI_Info_get_string: in Fortran, buflen is the value's length without a terminator (in: how many
 * characters `value` may receive, 0 = none; out: the length of the value). The key's leading and trailing
 * blanks are stripped; `value` is blank-padded after what was written, and untouched when buflen is 0 or
 * the key is absent (MPI-4.0 §10). ---- */
FTMPI_F_API void mpi_info_get_string_(MPI_Fint *info, const char *key, MPI_Fint *buflen, char *value, MPI_Fint *flag,
                                      MPI_Fint *ierr, size_t key_len, size_t value_len);
void mpi_info_get_string_(MPI_Fint *info, const char *key, MPI_Fint *buflen, char *value, MPI_Fint *flag,
                          MPI_Fint *ierr, size_t key_len, size_t value_len) {
  char *c_key = ftmpi_f_str_in_trim(key, key_len);
  if (c_key == NULL) {
    *ierr = ftmpi_f_no_mem();
    return;
  }
  const MPI_Info c_info = MPI_Info_f2c(*info);
  int c_flag = 0, len = 0;
  int rc = MPI_Info_get_valuelen(c_info, c_key, &len, &c_flag);
  if (rc == MPI_SUCCESS && c_flag) {
    const size_t room = *buflen > 0 ? (size_t)*buflen : 0;
    if (room > 0) {
      char *c_value = malloc((size_t)len + 1);
      int c_buflen = len + 1;
      if (c_value == NULL) {
        free(c_key);
        *ierr = ftmpi_f_no_mem();
        return;
      }
      rc = MPI_Info_get_string(c_info, c_key, &c_buflen, c_value, &c_flag);
      if (rc == MPI_SUCCESS) {
        size_t n = (size_t)len < room ? (size_t)len : room;
        if (n > value_len) n = value_len;
        memcpy(value, c_value, n);
        memset(value + n, ' ', value_len - n);
      }
      free(c_value);
    }
    if (rc == MPI_SUCCESS) *buflen = len;
  }
  free(c_key);
  *flag = rc == MPI_SUCCESS && c_flag;
  *ierr = rc;
}
FTMPI_F_ALIASES(info_get_string, info_get_string)

int ftmpi_f_no_mem(void) {
  MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
  return MPI_ERR_NO_MEM;
}

/* ---- MPI_Init / MPI_Init_thread -------------------------------------------------------------------- */
FTMPI_F_API void mpi_init_(MPI_Fint *ierr);
void mpi_init_(MPI_Fint *ierr) { *ierr = MPI_Init(NULL, NULL); }
FTMPI_F_ALIASES(init, init)

FTMPI_F_API void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {
  *ierr = MPI_Init_thread(NULL, NULL, *required, provided);
}
FTMPI_F_ALIASES(init_thread, init_thread)

/* MPI-4: Fortran's MPI_Info_create_env has no argc/argv */
FTMPI_F_API void mpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr);
void mpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr) {
  MPI_Info c_info = MPI_INFO_NULL;
  *ierr = MPI_Info_create_env(0, NULL, &c_info);
  *info = MPI_Info_c2f(c_info);
}
FTMPI_F_ALIASES(info_create_env, info_create_env)

FTMPI_F_API void mpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr);
void mpi_pcontrol_(MPI_Fint *level, MPI_Fint *ierr) { *ierr = MPI_Pcontrol(*level); }
FTMPI_F_ALIASES(pcontrol, pcontrol)

/* ---- callbacks: trampolines ------------------------------------------------------------------------ */
/* A Fortran user op is SUBROUTINE f(invec, inoutvec, len, datatype): everything by reference, the datatype
 * an INTEGER (mpi_f08: TYPE(C_PTR), VALUE buffers and TYPE(MPI_Datatype): the same machine calling
 * convention). A Fortran comm error handler is SUBROUTINE h(comm, error_code), both INTEGER. */
typedef void (*ftmpi_f_op_fn)(void *, void *, MPI_Fint *, MPI_Fint *);
typedef void (*ftmpi_f_errh_fn)(MPI_Fint *, MPI_Fint *);

#define FTMPI_F_SLOTS 64
static pthread_mutex_t slots_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
  ftmpi_f_op_fn fn;
  MPI_Op op;
} op_slots[FTMPI_F_SLOTS];
static struct {
  ftmpi_f_errh_fn fn;
} errh_slots[FTMPI_F_SLOTS];

#define FTMPI_F_TRAMPOLINES(a, b)                                                              \
  static void op_tramp_##a##b(void *in, void *io, int *len, MPI_Datatype *dt) {                 \
    MPI_Fint fdt = MPI_Type_c2f(*dt);                                                           \
    op_slots[(a)*8 + (b)].fn(in, io, len, &fdt);                                                \
  }                                                                                             \
  static void errh_tramp_##a##b(MPI_Comm *comm, int *code, ...) {                               \
    MPI_Fint fc = MPI_Comm_c2f(*comm);                                                          \
    errh_slots[(a)*8 + (b)].fn(&fc, code);                                                      \
  }                                                                                             \
  static void winerrh_tramp_##a##b(MPI_Win *win, int *code, ...) {                              \
    MPI_Fint fw = MPI_Win_c2f(*win);                                                            \
    errh_slots[(a)*8 + (b)].fn(&fw, code);                                                      \
  }                                                                                             \
  static void fileerrh_tramp_##a##b(MPI_File *file, int *code, ...) {                           \
    MPI_Fint ff = MPI_File_c2f(*file);                                                          \
    errh_slots[(a)*8 + (b)].fn(&ff, code);                                                      \
  }                                                                                             \
  static void sesserrh_tramp_##a##b(MPI_Session *session, int *code, ...) {                     \
    MPI_Fint fs = MPI_Session_c2f(*session);                                                    \
    errh_slots[(a)*8 + (b)].fn(&fs, code);                                                      \
  }
#define FTMPI_F_T8(a)                                                                                 \
  FTMPI_F_TRAMPOLINES(a, 0) FTMPI_F_TRAMPOLINES(a, 1) FTMPI_F_TRAMPOLINES(a, 2) FTMPI_F_TRAMPOLINES(a, 3) \
  FTMPI_F_TRAMPOLINES(a, 4) FTMPI_F_TRAMPOLINES(a, 5) FTMPI_F_TRAMPOLINES(a, 6) FTMPI_F_TRAMPOLINES(a, 7)
FTMPI_F_T8(0) FTMPI_F_T8(1) FTMPI_F_T8(2) FTMPI_F_T8(3) FTMPI_F_T8(4) FTMPI_F_T8(5) FTMPI_F_T8(6) FTMPI_F_T8(7)

#define FTMPI_F_ROW(a, kind)                                                                          \
  kind##_tramp_##a##0, kind##_tramp_##a##1, kind##_tramp_##a##2, kind##_tramp_##a##3, kind##_tramp_##a##4, \
      kind##_tramp_##a##5, kind##_tramp_##a##6, kind##_tramp_##a##7
static MPI_User_function *const op_tramps[FTMPI_F_SLOTS] = {
    FTMPI_F_ROW(0, op), FTMPI_F_ROW(1, op), FTMPI_F_ROW(2, op), FTMPI_F_ROW(3, op),
    FTMPI_F_ROW(4, op), FTMPI_F_ROW(5, op), FTMPI_F_ROW(6, op), FTMPI_F_ROW(7, op)};
static MPI_Comm_errhandler_function *const errh_tramps[FTMPI_F_SLOTS] = {
    FTMPI_F_ROW(0, errh), FTMPI_F_ROW(1, errh), FTMPI_F_ROW(2, errh), FTMPI_F_ROW(3, errh),
    FTMPI_F_ROW(4, errh), FTMPI_F_ROW(5, errh), FTMPI_F_ROW(6, errh), FTMPI_F_ROW(7, errh)};
static MPI_Win_errhandler_function *const winerrh_tramps[FTMPI_F_SLOTS] = {
    FTMPI_F_ROW(0, winerrh), FTMPI_F_ROW(1, winerrh), FTMPI_F_ROW(2, winerrh), FTMPI_F_ROW(3, winerrh),
    FTMPI_F_ROW(4, winerrh), FTMPI_F_ROW(5, winerrh), FTMPI_F_ROW(6, winerrh), FTMPI_F_ROW(7, winerrh)};
static MPI_File_errhandler_function *const fileerrh_tramps[FTMPI_F_SLOTS] = {
    FTMPI_F_ROW(0, fileerrh), FTMPI_F_ROW(1, fileerrh), FTMPI_F_ROW(2, fileerrh), FTMPI_F_ROW(3, fileerrh),
    FTMPI_F_ROW(4, fileerrh), FTMPI_F_ROW(5, fileerrh), FTMPI_F_ROW(6, fileerrh), FTMPI_F_ROW(7, fileerrh)};
static MPI_Session_errhandler_function *const sesserrh_tramps[FTMPI_F_SLOTS] = {
    FTMPI_F_ROW(0, sesserrh), FTMPI_F_ROW(1, sesserrh), FTMPI_F_ROW(2, sesserrh), FTMPI_F_ROW(3, sesserrh),
    FTMPI_F_ROW(4, sesserrh), FTMPI_F_ROW(5, sesserrh), FTMPI_F_ROW(6, sesserrh), FTMPI_F_ROW(7, sesserrh)};

FTMPI_F_API void mpi_op_create_(ftmpi_f_op_fn fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr);
void mpi_op_create_(ftmpi_f_op_fn fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr) {
  pthread_mutex_lock(&slots_mu);
  int slot = -1;
  for (int i = 0; i < FTMPI_F_SLOTS && slot < 0; ++i)
    if (op_slots[i].fn == NULL) slot = i;
  if (slot < 0) {
    pthread_mutex_unlock(&slots_mu);
    *ierr = ftmpi_f_no_mem();  /* out of slots */
    return;
  }
  MPI_Op c_op = MPI_OP_NULL;
  op_slots[slot].fn = fn;
  const int rc = MPI_Op_create(op_tramps[slot], *commute != 0, &c_op);
  if (rc == MPI_SUCCESS) op_slots[slot].op = c_op;
  else op_slots[slot].fn = NULL;
  pthread_mutex_unlock(&slots_mu);
  *op = MPI_Op_c2f(c_op);
  *ierr = rc;
}
FTMPI_F_ALIASES(op_create, op_create)

FTMPI_F_API void mpi_op_free_(MPI_Fint *op, MPI_Fint *ierr);
void mpi_op_free_(MPI_Fint *op, MPI_Fint *ierr) {
  MPI_Op c_op = MPI_Op_f2c(*op);
  const MPI_Op before = c_op;
  const int rc = MPI_Op_free(&c_op);
  if (rc == MPI_SUCCESS) {
    pthread_mutex_lock(&slots_mu);
    for (int i = 0; i < FTMPI_F_SLOTS; ++i)
      if (op_slots[i].fn != NULL && op_slots[i].op == before) op_slots[i].fn = NULL;
    pthread_mutex_unlock(&slots_mu);
  }
  *op = MPI_Op_c2f(c_op);
  *ierr = rc;
}
FTMPI_F_ALIASES(op_free, op_free)

/* An error handler with a Fortran SUBROUTINE h(object, error_code): a slot, and the C handler of the
 * object's kind that calls the slot's procedure. */
enum errh_kind { ERRH_COMM, ERRH_WIN, ERRH_FILE, ERRH_SESSION };
static void create_errhandler(ftmpi_f_errh_fn fn, enum errh_kind kind, MPI_Fint *errhandler, MPI_Fint *ierr) {
  pthread_mutex_lock(&slots_mu);
  int slot = -1;
  for (int i = 0; i < FTMPI_F_SLOTS && slot < 0; ++i)
    if (errh_slots[i].fn == NULL) slot = i;
  if (slot < 0) {
    pthread_mutex_unlock(&slots_mu);
    *ierr = ftmpi_f_no_mem();
    return;
  }
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  errh_slots[slot].fn = fn;
  int rc = MPI_ERR_INTERN;
  switch (kind) {
    case ERRH_COMM: rc = MPI_Comm_create_errhandler(errh_tramps[slot], &eh); break;
    case ERRH_WIN: rc = MPI_Win_create_errhandler(winerrh_tramps[slot], &eh); break;
    case ERRH_FILE: rc = MPI_File_create_errhandler(fileerrh_tramps[slot], &eh); break;
    case ERRH_SESSION: rc = MPI_Session_create_errhandler(sesserrh_tramps[slot], &eh); break;
  }
  if (rc != MPI_SUCCESS) errh_slots[slot].fn = NULL;
  pthread_mutex_unlock(&slots_mu);
  *errhandler = MPI_Errhandler_c2f(eh);
  *ierr = rc;
}

FTMPI_F_API void mpi_comm_create_errhandler_(ftmpi_f_errh_fn fn, MPI_Fint *errhandler, MPI_Fint *ierr);
void mpi_comm_create_errhandler_(ftmpi_f_errh_fn fn, MPI_Fint *errhandler, MPI_Fint *ierr) {
  create_errhandler(fn, ERRH_COMM, errhandler, ierr);
}
FTMPI_F_ALIASES(comm_create_errhandler, comm_create_errhandler)
/* MPI-1's name of the same call */
FTMPI_F_API void mpi_errhandler_create_(ftmpi_f_errh_fn fn, MPI_Fint *errhandler, MPI_Fint *ierr);
void mpi_errhandler_create_(ftmpi_f_errh_fn fn, MPI_Fint *errhandler, MPI_Fint *ierr) {
  create_errhandler(fn, ERRH_COMM, errhandler, ierr);
}
FTMPI_F_ALIASES(errhandler_create, errhandler_create)
FTMPI_F_API void mpi_win_create_errhandler_(ftmpi_f_errh_fn fn, MPI_Fint *errhandler, MPI_Fint *ierr);
void mpi_win_create_errhandler_(ftmpi_f_errh_fn fn, MPI_Fint *errhandler, MPI_Fint *ierr) {
  create_errhandler(fn, ERRH_WIN, errhandler, ierr);
}
FTMPI_F_ALIASES(win_create_errhandler, win_create_errhandler)
FTMPI_F_API void mpi_file_create_errhandler_(ftmpi_f_errh_fn fn, MPI_Fint *errhandler, MPI_Fint *ierr);
void mpi_file_create_errhandler_(ftmpi_f_errh_fn fn, MPI_Fint *errhandler, MPI_Fint *ierr) {
  create_errhandler(fn, ERRH_FILE, errhandler, ierr);
}
FTMPI_F_ALIASES(file_create_errhandler, file_create_errhandler)
FTMPI_F_API void mpi_session_create_errhandler_(ftmpi_f_errh_fn fn, MPI_Fint *errhandler, MPI_Fint *ierr);
void mpi_session_create_errhandler_(ftmpi_f_errh_fn fn, MPI_Fint *errhandler, MPI_Fint *ierr) {
  create_errhandler(fn, ERRH_SESSION, errhandler, ierr);
}
FTMPI_F_ALIASES(session_create_errhandler, session_create_errhandler)

/* A Fortran error handler keeps its slot for the life of the process: communicators may still use it after
 * MPI_Errhandler_free (MPI frees a handler with its last reference, which this layer cannot see), so a
 * process can create at most FTMPI_F_SLOTS of them (MPI_ERR_NO_MEM after that; docs/api.md). */
FTMPI_F_API void mpi_errhandler_free_(MPI_Fint *errhandler, MPI_Fint *ierr);
void mpi_errhandler_free_(MPI_Fint *errhandler, MPI_Fint *ierr) {
  MPI_Errhandler eh = MPI_Errhandler_f2c(*errhandler);
  *ierr = MPI_Errhandler_free(&eh);
  *errhandler = MPI_Errhandler_c2f(eh);
}
FTMPI_F_ALIASES(errhandler_free, errhandler_free)

/* ---- attributes with Fortran semantics ------------------------------------------------------------- */
/* MPI-3.1 §17.2.7: a value set from Fortran is an integer that C reads through a pointer (libmpi keeps the
 * integer and the attribute's language: api/attr_language.h); a value set from C reads in Fortran as the
 * pointer's address. The predefined attributes are pointers to int (MPI_WIN_SIZE: to MPI_Aint) in C, and
 * their values in Fortran. */
static int predefined_keyval(int k) {
  return k == MPI_TAG_UB || k == MPI_HOST || k == MPI_IO || k == MPI_WTIME_IS_GLOBAL || k == MPI_UNIVERSE_SIZE ||
         k == MPI_LASTUSEDCODE || k == MPI_APPNUM || k == MPIX_FT;
}

/* A communicator attribute as Fortran sees it (an int when `predefined`). */
static int comm_attr_value(MPI_Fint comm, MPI_Fint keyval, MPI_Aint *value, int *flag) {
  MPI_Comm c = MPI_Comm_f2c(comm);
  if (!predefined_keyval(keyval)) return ftmpi_attr_get_fortran(FTMPI_ATTR_COMM, c, keyval, value, flag);
  void *v = NULL;
  const int rc = MPI_Comm_get_attr(c, keyval, &v, flag);
  if (rc == MPI_SUCCESS && *flag) *value = *(int *)v;
  return rc;
}

FTMPI_F_API void mpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
                                    MPI_Fint *ierr);
void mpi_comm_get_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierr) {
  MPI_Aint v = 0;
  int f = 0;
  *ierr = comm_attr_value(*comm, *keyval, &v, &f);
  if (*ierr == MPI_SUCCESS && f) *value = v;
  *flag = f;
}
FTMPI_F_ALIASES(comm_get_attr, comm_get_attr)

FTMPI_F_API void mpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag, MPI_Fint *ierr);
void mpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag, MPI_Fint *ierr) {
  MPI_Aint v = 0;
  int f = 0;
  *ierr = comm_attr_value(*comm, *keyval, &v, &f);
  if (*ierr == MPI_SUCCESS && f) *value = (MPI_Fint)v; /* an address-kind value or a C pointer: truncated */
  *flag = f;
}
FTMPI_F_ALIASES(attr_get, attr_get)

FTMPI_F_API void mpi_type_get_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
                                    MPI_Fint *ierr);
void mpi_type_get_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierr) {
  MPI_Aint v = 0;
  int f = 0;
  *ierr = ftmpi_attr_get_fortran(FTMPI_ATTR_TYPE, MPI_Type_f2c(*type), *keyval, &v, &f);
  if (*ierr == MPI_SUCCESS && f) *value = v;
  *flag = f;
}
FTMPI_F_ALIASES(type_get_attr, type_get_attr)

/* A window's predefined attributes are values in Fortran: MPI_WIN_BASE the address (C gives it as the value),
 * MPI_WIN_SIZE the size (C: a pointer to an MPI_Aint), MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR and
 * MPI_WIN_MODEL the integers (C: pointers to int); user attributes as set (MPICH's f90/rma/baseattrwinf90). */
FTMPI_F_API void mpi_win_get_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierr);
void mpi_win_get_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag, MPI_Fint *ierr) {
  const MPI_Fint k = *keyval;
  const MPI_Win w = MPI_Win_f2c(*win);
  int f = 0;
  if (k == MPI_WIN_BASE || k == MPI_WIN_SIZE || k == MPI_WIN_DISP_UNIT || k == MPI_WIN_CREATE_FLAVOR ||
      k == MPI_WIN_MODEL) {
    void *v = NULL;
    *ierr = MPI_Win_get_attr(w, k, &v, &f);
    if (*ierr == MPI_SUCCESS && f) {
      if (k == MPI_WIN_SIZE)
        *value = *(MPI_Aint *)v;
      else if (k == MPI_WIN_BASE)
        *value = (MPI_Aint)v;
      else
        *value = *(int *)v;
    }
  } else {
    MPI_Aint v = 0;
    *ierr = ftmpi_attr_get_fortran(FTMPI_ATTR_WIN, w, k, &v, &f);
    if (*ierr == MPI_SUCCESS && f) *value = v;
  }
  *flag = f;
}
FTMPI_F_ALIASES(win_get_attr, win_get_attr)

FTMPI_F_API void mpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr);
void mpi_comm_set_attr_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr) {
  *ierr = ftmpi_attr_set_fortran(FTMPI_ATTR_COMM, MPI_Comm_f2c(*comm), *keyval, *value, FTMPI_ATTR_LANG_AINT);
}
FTMPI_F_ALIASES(comm_set_attr, comm_set_attr)

FTMPI_F_API void mpi_type_set_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr);
void mpi_type_set_attr_(MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr) {
  *ierr = ftmpi_attr_set_fortran(FTMPI_ATTR_TYPE, MPI_Type_f2c(*type), *keyval, *value, FTMPI_ATTR_LANG_AINT);
}
FTMPI_F_ALIASES(type_set_attr, type_set_attr)

FTMPI_F_API void mpi_win_set_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr);
void mpi_win_set_attr_(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr) {
  *ierr = ftmpi_attr_set_fortran(FTMPI_ATTR_WIN, MPI_Win_f2c(*win), *keyval, *value, FTMPI_ATTR_LANG_AINT);
}
FTMPI_F_ALIASES(win_set_attr, win_set_attr)

FTMPI_F_API void mpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *ierr);
void mpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *ierr) {
  *ierr = ftmpi_attr_set_fortran(FTMPI_ATTR_COMM, MPI_Comm_f2c(*comm), *keyval, (MPI_Aint)*value, FTMPI_ATTR_LANG_INT);
}
FTMPI_F_ALIASES(attr_put, attr_put)

/* ---- detaching buffers --------------------------------------------------------------------------------- */
/* The Fortran forms wait for the buffered sends and return the size like C; the address output is not
 * written (it would land in the user's buffer argument: a Fortran program names the buffer it attached). */
#define FTMPI_F_DETACH(name, Cfn, SizeT)                                                           \
  FTMPI_F_API void mpi_##name##_(void *buffer, SizeT *size, MPI_Fint *ierr);                        \
  void mpi_##name##_(void *buffer, SizeT *size, MPI_Fint *ierr) {                                   \
    (void)buffer;                                                                                   \
    void *addr = NULL;                                                                              \
    *ierr = Cfn(&addr, size);                                                                       \
  }                                                                                                 \
  FTMPI_F_ALIASES(name, name)
/* the same for a buffer attached to a communicator or a session (Kind: Comm, Session) */
#define FTMPI_F_DETACH_FROM(name, Cfn, Kind, SizeT)                                                 \
  FTMPI_F_API void mpi_##name##_(MPI_Fint *obj, void *buffer, SizeT *size, MPI_Fint *ierr);         \
  void mpi_##name##_(MPI_Fint *obj, void *buffer, SizeT *size, MPI_Fint *ierr) {                    \
    (void)buffer;                                                                                   \
    void *addr = NULL;                                                                              \
    *ierr = Cfn(MPI_##Kind##_f2c(*obj), &addr, size);                                               \
  }                                                                                                 \
  FTMPI_F_ALIASES(name, name)
FTMPI_F_DETACH(buffer_detach, MPI_Buffer_detach, MPI_Fint)
FTMPI_F_DETACH(buffer_detach_c, MPI_Buffer_detach_c, MPI_Count)
FTMPI_F_DETACH_FROM(comm_detach_buffer, MPI_Comm_detach_buffer, Comm, MPI_Fint)
FTMPI_F_DETACH_FROM(comm_detach_buffer_c, MPI_Comm_detach_buffer_c, Comm, MPI_Count)
FTMPI_F_DETACH_FROM(session_detach_buffer, MPI_Session_detach_buffer, Session, MPI_Fint)
FTMPI_F_DETACH_FROM(session_detach_buffer_c, MPI_Session_detach_buffer_c, Session, MPI_Count)
