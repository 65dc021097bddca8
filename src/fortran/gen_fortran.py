#!/usr/bin/env python3
"""Generate ftmpi's Fortran bindings from the C prototypes of include/mpi.h and include/mpi-ext.h.

Model: every C function declared with FTMPI_DECL / FTMPIX_DECL is read (return type, name, parameters) and
classified parameter by parameter.  A function whose every parameter has a known Fortran mapping gets
  (a) a C shim `mpi_<name>_` (gfortran's external name) taking MPI_Fint* / pointers, the ierror argument last
      and the hidden character lengths after it, converting handles with MPI_X_f2c/c2f and the sentinels
      (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_UNWEIGHTED, ...) through their common blocks;
      aliases pmpi_<name>_ and ftmpi_f08_<name>_ (the latter is what the mpi_f08 wrappers call);
  (b) an explicit interface in module `mpi` (integer handles; choice buffers are TYPE(*), DIMENSION(*) with
      `!GCC$ ATTRIBUTES NO_ARG_CHECK`, as Open MPI does for gfortran);
  (c) a module procedure in `mpi_f08` (TYPE(MPI_Comm) ... handles, TYPE(MPI_Status), optional ierror) that
      calls the shim through an interface with the same dummies (the handle types are BIND(C) wrappers of
      one INTEGER, so they have the C shim's layout).
Functions the rules cannot map (callbacks other than the hand-written ones, argv arrays, varargs, handle
types this generator does not know) are written to fortran_unmapped.txt; docs/api.md lists them and the test
fortran_bindings_documented checks that the list there is complete.  Hand-written shims (MPI_Init, Op_create
with a Fortran function, errhandlers, attributes with Fortran semantics, detach) live in
src/fortran/fortran_support.c, the keyval and generalized-request callbacks in fortran_callbacks.c, spawn's argv
arrays in fortran_spawn.c; their Fortran signatures are in HANDWRITTEN below.

Predefined handles: every `#define MPI_X FTMPI_PREDEFINED(type, obj)` of mpi.h, in file order, gets the Fortran
integer 1, 2, 3 ...: libmpi's MPI_X_c2f numbers a handle the first time it converts it, and a constructor of
the Fortran library converts them all in that order at load time (and aborts with a message if a number
differs), so MPI_Comm_c2f(MPI_COMM_WORLD) == the Fortran MPI_COMM_WORLD.  Null handles are 0.

Usage: gen_fortran.py <include dir> <output dir>
"""
import os
import re
import sys

# Handle types and the X of their MPI_X_c2f/f2c: filled from mpi.h by find_handle_kinds() (a handle type
# counts once mpi.h declares both conversions, so e.g. MPI_Session is bound when MPI_Session_c2f exists).
HANDLE_KINDS = {}
INT_KINDS = {'MPI_Aint': 'MPI_ADDRESS_KIND', 'MPI_Offset': 'MPI_OFFSET_KIND', 'MPI_Count': 'MPI_COUNT_KIND'}

# Parameters that are LOGICAL in Fortran (C int 0/1; gfortran's .true. is 1, so the bits pass unchanged).
LOGICAL_NAMES = {'flag', 'commute', 'reorder', 'periods', 'remain_dims', 'high', 'weighted'}
INTEGER_FLAG_FUNCS = {'MPIX_Comm_agree', 'MPIX_Comm_iagree', 'MPI_Comm_agreement', 'MPI_Icomm_agreement'}

# Hand-written shims (fortran_support.c): their Fortran-side signature as a C-like prototype.
# FPROC is a procedure argument; FINT_ATTR an INTEGER attribute value (MPI-1 attribute calls).
HANDWRITTEN = {
    'MPI_Init': ('int', ''),
    'MPI_Init_thread': ('int', 'int required, int *provided'),
    'MPI_Info_create_env': ('int', 'MPI_Info *info'),
    'MPI_Op_create': ('int', 'FPROC user_fn, int commute, MPI_Op *op'),
    'MPI_Op_free': ('int', 'MPI_Op *op'),
    'MPI_Comm_create_errhandler': ('int', 'FPROC comm_errhandler_fn, MPI_Errhandler *errhandler'),
    'MPI_Errhandler_free': ('int', 'MPI_Errhandler *errhandler'),
    'MPI_Comm_get_attr': ('int', 'MPI_Comm comm, int comm_keyval, AINT_OUT attribute_val, int *flag'),
    'MPI_Win_get_attr': ('int', 'MPI_Win win, int win_keyval, AINT_OUT attribute_val, int *flag'),
    'MPI_Type_get_attr': ('int', 'MPI_Datatype datatype, int type_keyval, AINT_OUT attribute_val, int *flag'),
    # set from Fortran: the value is a Fortran integer, C reads a pointer to it (api/attr_language.h)
    'MPI_Comm_set_attr': ('int', 'MPI_Comm comm, int comm_keyval, void *attribute_val'),
    'MPI_Type_set_attr': ('int', 'MPI_Datatype datatype, int type_keyval, void *attribute_val'),
    'MPI_Win_set_attr': ('int', 'MPI_Win win, int win_keyval, void *attribute_val'),
    'MPI_Attr_get': ('int', 'MPI_Comm comm, int keyval, int *attribute_val, int *flag'),
    'MPI_Attr_put': ('int', 'MPI_Comm comm, int keyval, int attribute_val'),
    'MPI_Pcontrol': ('int', 'int level'),
    # Fortran's buflen is the value's length without a terminator, in and out (MPI-4.0 §10)
    'MPI_Info_get_string': ('int', 'MPI_Info info, const char *key, int *buflen, char *value, int *flag'),
    # fortran_callbacks.c: keyvals, generalized requests and the error handlers of windows, files, sessions
    'MPI_Comm_create_keyval': ('int', 'FPROC comm_copy_attr_fn, FPROC comm_delete_attr_fn, int *comm_keyval, '
                                      'void *extra_state'),
    'MPI_Type_create_keyval': ('int', 'FPROC type_copy_attr_fn, FPROC type_delete_attr_fn, int *type_keyval, '
                                      'void *extra_state'),
    'MPI_Win_create_keyval': ('int', 'FPROC win_copy_attr_fn, FPROC win_delete_attr_fn, int *win_keyval, '
                                     'void *extra_state'),
    'MPI_Keyval_create': ('int', 'FPROC copy_fn, FPROC delete_fn, int *keyval, int *extra_state'),
    'MPI_Grequest_start': ('int', 'FPROC query_fn, FPROC free_fn, FPROC cancel_fn, void *extra_state, '
                                  'MPI_Request *request'),
    'MPI_Errhandler_create': ('int', 'FPROC function, MPI_Errhandler *errhandler'),
    'MPI_Win_create_errhandler': ('int', 'FPROC win_errhandler_fn, MPI_Errhandler *errhandler'),
    'MPI_File_create_errhandler': ('int', 'FPROC file_errhandler_fn, MPI_Errhandler *errhandler'),
    'MPI_Session_create_errhandler': ('int', 'FPROC session_errhandler_fn, MPI_Errhandler *errhandler'),
    # fortran_spawn.c: argv arrays (blank-terminated CHARACTER arrays, MPI_ARGV_NULL / MPI_ARGVS_NULL)
    'MPI_Comm_spawn': ('int', 'const char *command, ARGV argv, int maxprocs, MPI_Info info, int root, '
                              'MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]'),
    'MPI_Comm_spawn_multiple': ('int', 'int count, ARGV array_of_commands, ARGVS array_of_argv, '
                                       'int array_of_maxprocs[], MPI_Info array_of_info[], int root, '
                                       'MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]'),
    # fortran_support.c: the detach calls wait for the buffered sends and return the size; the address is
    # not written back (a Fortran program names the buffer it attached)
    'MPI_Buffer_detach': ('int', 'void *buffer_addr, int *size'),
    'MPI_Buffer_detach_c': ('int', 'void *buffer_addr, MPI_Count *size'),
    'MPI_Comm_detach_buffer': ('int', 'MPI_Comm comm, void *buffer_addr, int *size'),
    'MPI_Comm_detach_buffer_c': ('int', 'MPI_Comm comm, void *buffer_addr, MPI_Count *size'),
    'MPI_Session_detach_buffer': ('int', 'MPI_Session session, void *buffer_addr, int *size'),
    'MPI_Session_detach_buffer_c': ('int', 'MPI_Session session, void *buffer_addr, MPI_Count *size'),
}
# MPI-1 calls (removed in MPI-3.0, still exported by Open MPI and MPICH) whose Fortran address arguments are
# default INTEGERs, not INTEGER(KIND=MPI_ADDRESS_KIND): the shim widens or narrows them (an address that does not
# fit is MPI_ERR_ARG). Reading an INTEGER array as MPI_Aint crashed MPICH's f77/datatype/hindex1f.
MPI1_INTEGER_ADDRESS_FUNCS = {'MPI_Address', 'MPI_Type_extent', 'MPI_Type_lb', 'MPI_Type_ub', 'MPI_Type_hvector',
                              'MPI_Type_hindexed', 'MPI_Type_struct'}

# The predefined attribute callbacks, Fortran procedures defined in fortran_callbacks.c (EXTERNAL in mpif.h and
# the modules).
PREDEFINED_PROCS = ['MPI_COMM_NULL_COPY_FN', 'MPI_COMM_NULL_DELETE_FN', 'MPI_COMM_DUP_FN',
                    'MPI_TYPE_NULL_COPY_FN', 'MPI_TYPE_NULL_DELETE_FN', 'MPI_TYPE_DUP_FN',
                    'MPI_WIN_NULL_COPY_FN', 'MPI_WIN_NULL_DELETE_FN', 'MPI_WIN_DUP_FN',
                    'MPI_NULL_COPY_FN', 'MPI_NULL_DELETE_FN', 'MPI_DUP_FN']
# C functions with no Fortran binding by the standard.
# FA-MPI: the published MPI_Tryblock_start is MPI_TryBlock_start to Fortran (case-insensitive): C only.
# MPI_T has no Fortran binding in the standard; the variable, category and enumeration calls (MPI-3.1 §14.3.6-7)
# are left out (their _get_num calls stay, as before).
NOT_IN_FORTRAN = re.compile(r'^P?MPI_\w+_(c2f|f2c)$|^MPI_Status_(c2f|f2c)$|^P?MPI_Tryblock_start$'
                            r'|^P?MPI_T_(cvar|pvar|category|enum)_(?!get_num$)\w+$')


def strip_comments(txt):
    return re.sub(r'/\*.*?\*/', ' ', txt, flags=re.S)


def parse_functions(path, macro, prefix):
    txt = strip_comments(open(path).read())
    out = []
    for m in re.finditer(macro + r'\(\s*([^,]+?)\s*,\s*(\w+)\s*,\s*\((.*?)\)\s*\)\s*;', txt, flags=re.S):
        out.append((m.group(1).strip(), prefix + m.group(2), ' '.join(m.group(3).split())))
    return out


def find_handle_kinds(decls):
    c2f = {}
    f2c = set()
    for ret, func, argstr in decls:
        m = re.match(r'^MPI_(\w+)_c2f$', func)
        if m and ret == 'MPI_Fint':
            c2f[argstr.split()[0]] = m.group(1)
        m = re.match(r'^MPI_(\w+)_f2c$', func)
        if m:
            f2c.add((ret, m.group(1)))
    for ctype, kind in c2f.items():
        if (ctype, kind) in f2c:
            HANDLE_KINDS[ctype] = kind


class Arg:
    def __init__(self, text):
        text = text.strip()
        self.text = text
        m = re.match(r'^(.*?)\s*(\w+)\s*((?:\[\])?(?:\[3\])?)$', text)
        if text == '...' or not m:
            self.ctype, self.name, self.suffix = text, '', ''
        else:
            self.ctype = ' '.join(m.group(1).replace('*', ' * ').split()).replace(' *', '*')
            self.name, self.suffix = m.group(2), m.group(3)
        self.const = self.ctype.startswith('const ')
        self.base = self.ctype[6:] if self.const else self.ctype


def parse_args(argstr):
    if argstr.strip() in ('', 'void'):
        return []
    return [Arg(a) for a in argstr.split(',')]


class Unmappable(Exception):
    pass


def classify(func, args):
    """Per parameter: (kind, extra).  Raises Unmappable."""
    names = {a.name for a in args}
    out = []
    for a in args:
        b, s, n = a.base, a.suffix, a.name
        if b in ('int', 'MPI_Fint') and s == '' and b == 'int':
            out.append(('int_in', None))
        elif b == 'int*' and s == '' or b == 'int' and s in ('[]',):
            if n in ('sourceweights', 'destweights', 'weights'):
                out.append(('weights', None))
            elif n == 'array_of_errcodes':
                out.append(('errcodes', None))
            else:
                out.append(('int_ptr', 'array' if s == '[]' else 'scalar'))
        elif b == 'int' and s == '[][3]':
            out.append(('int_ranges', None))
        elif b == 'MPI_Aint' and func in MPI1_INTEGER_ADDRESS_FUNCS:
            out.append(('fint_addr', 'array' if s == '[]' else 'in'))
        elif b == 'MPI_Aint*' and s == '' and func in MPI1_INTEGER_ADDRESS_FUNCS:
            out.append(('fint_addr', 'out'))
        elif b in INT_KINDS and s == '':
            out.append(('wide_in', INT_KINDS[b]))
        elif b.rstrip('*') in INT_KINDS and (b.endswith('*') or s == '[]'):
            out.append(('wide_ptr', (INT_KINDS[b.rstrip('*')], 'array' if s == '[]' else 'scalar')))
        elif b in HANDLE_KINDS and s == '':
            out.append(('handle_in', b))
        elif b.endswith('*') and b[:-1] in HANDLE_KINDS and s == '':
            out.append(('handle_inout', b[:-1]))
        elif b in HANDLE_KINDS and s == '[]':
            out.append(('handle_array', (b, a.const, array_length(func, n, names))))
        elif b == 'MPI_Status*' and s == '':
            out.append(('status', None))
        elif b == 'MPI_Status' and s == '[]':
            out.append(('statuses', None))
        elif b == 'void*' and s == '':
            if n == 'attribute_val' and func.endswith('_set_attr'):
                out.append(('aint_value', None))
            elif n == 'attribute_val' or n == 'baseptr':
                out.append(('aint_out', None))
            elif n == 'extra_state':
                out.append(('aint_value', None))
            elif n in ('buffer_addr',) and func not in HANDWRITTEN:
                raise Unmappable('address output (%s)' % n)
            else:
                out.append(('choice', None))
        elif (b == 'char*' and s == '') or (b == 'char' and s == '[]'):
            out.append(('str_in' if a.const else 'str_out', None))
        elif b == 'FPROC':
            out.append(('proc', None))
        elif b in ('ARGV', 'ARGVS'):
            out.append((b.lower(), None))
        elif b == 'AINT_OUT':
            out.append(('aint_out', None))
        else:
            raise Unmappable('parameter "%s"' % a.text)
    # A non-blocking call that also outputs a handle (MPI_Comm_idup, MPIX_Comm_ishrink) writes that handle at
    # completion: it must not live on the shim's stack (see ftmpi_f_defer in fortran_support.c).
    starts_request = any(k == 'handle_inout' and x == 'MPI_Request' for k, x in out)
    if starts_request:
        for i, (k, x) in enumerate(out):
            # new objects (newcomm, ...); an in/out handle such as Imrecv's message is updated at the call
            if k == 'handle_inout' and x != 'MPI_Request' and args[i].name.startswith('new'):
                if x != 'MPI_Comm':
                    raise Unmappable('%s output written at completion' % x)
                out[i] = ('deferred_comm', x)
    return out


def array_length(func, name, names):
    # the _init (persistent) and _c (large-count) forms take the same arrays as the base function
    if func.endswith('_c'):
        func = func[:-2]
    if func.endswith('_init'):
        func = func[:-5]
    if func in ('MPI_Alltoallw', 'MPI_Ialltoallw'):
        return 'ftmpi_f_comm_width(*comm, %d)' % (0 if 'send' in name else 1)
    if func in ('MPI_Neighbor_alltoallw', 'MPI_Ineighbor_alltoallw'):
        return 'ftmpi_f_comm_width(*comm, %d)' % (2 if 'send' in name else 3)
    if func == 'MPI_Type_get_contents':
        return '*max_datatypes'
    for cand in ('count', 'incount'):
        if cand in names:
            return '*' + cand
    raise Unmappable('length of array %s' % name)


# ---------------------------------------------------------------------------------------------------------
# C shims

def c_shim(ret, func, args, kinds):
    fname = func.lower() + '_'
    params, pre, call, post, hidden, deferred = [], [], [], [], [], []
    for a, (k, x) in zip(args, kinds):
        n = a.name
        if k == 'int_in':
            params.append('MPI_Fint *%s' % n); call.append('*' + n)
        elif k == 'int_ptr':
            params.append('MPI_Fint *%s' % n); call.append(n)
        elif k == 'weights':
            params.append('MPI_Fint *%s' % n); call.append('ftmpi_f_weights(%s)' % n)
        elif k == 'errcodes':
            params.append('MPI_Fint *%s' % n); call.append('ftmpi_f_errcodes(%s)' % n)
        elif k == 'int_ranges':
            params.append('MPI_Fint *%s' % n); call.append('(int (*)[3])%s' % n)
        elif k == 'wide_in':
            ct = {'MPI_ADDRESS_KIND': 'MPI_Aint', 'MPI_OFFSET_KIND': 'MPI_Offset', 'MPI_COUNT_KIND': 'MPI_Count'}[x]
            params.append('%s *%s' % (ct, n)); call.append('*' + n)
        elif k == 'wide_ptr':
            ct = {'MPI_ADDRESS_KIND': 'MPI_Aint', 'MPI_OFFSET_KIND': 'MPI_Offset', 'MPI_COUNT_KIND': 'MPI_Count'}[x[0]]
            params.append('%s *%s' % (ct, n)); call.append(n)
        elif k == 'fint_addr' and x == 'in':
            params.append('MPI_Fint *%s' % n); call.append('(MPI_Aint)*' + n)
        elif k == 'fint_addr' and x == 'out':
            params.append('MPI_Fint *%s' % n)
            pre.append('  MPI_Aint c_%s = 0;' % n)
            call.append('&c_' + n)
            post.append('  if (rc == MPI_SUCCESS && !ftmpi_f_narrow_addr(c_%s, %s)) { *ierr = ftmpi_f_addr_too_wide(); '
                        'return; }' % (n, n))
        elif k == 'fint_addr':
            params.append('MPI_Fint *%s' % n)
            pre.append('  MPI_Aint *c_%s = ftmpi_f_widen_addrs(%s, *count);' % (n, n))
            pre.append('  if (c_%s == NULL && *count > 0) { *ierr = MPI_ERR_NO_MEM; return; }' % n)
            call.append('c_' + n)
            post.append('  free(c_%s);' % n)
        elif k == 'handle_in':
            params.append('MPI_Fint *%s' % n); call.append('MPI_%s_f2c(*%s)' % (HANDLE_KINDS[x], n))
        elif k == 'handle_inout':
            kind = HANDLE_KINDS[x]
            params.append('MPI_Fint *%s' % n)
            pre.append('  %s c_%s = MPI_%s_f2c(*%s);' % (x, n, kind, n))
            call.append('&c_' + n)
            if x == 'MPI_Request' and completes_requests(func):
                pre.append('  const MPI_Request before_%s = c_%s;' % (n, n))
                post.append('  if (before_%s != MPI_REQUEST_NULL && c_%s == MPI_REQUEST_NULL) '
                            'ftmpi_f_request_done(before_%s);' % (n, n, n))
            post.append('  *%s = MPI_%s_c2f(c_%s);' % (n, kind, n))
        elif k == 'deferred_comm':
            params.append('MPI_Fint *%s' % n)
            pre.append('  MPI_Comm *c_%s = ftmpi_f_defer_cell();' % n)
            pre.append('  if (c_%s == NULL) { *ierr = MPI_ERR_NO_MEM; return; }' % n)
            call.append('c_' + n)
            deferred.append(n)
        elif k == 'handle_array':
            ctype, const, length = x
            kind = HANDLE_KINDS[ctype]
            params.append('MPI_Fint *%s' % n)
            pre.append('  int n_%s = %s;' % (n, length))
            pre.append('  %s *c_%s = n_%s > 0 ? (%s *)malloc(sizeof(%s) * (size_t)n_%s) : NULL;'
                       % (ctype, n, n, ctype, ctype, n))
            pre.append('  if (n_%s > 0 && c_%s == NULL) { *ierr = MPI_ERR_NO_MEM; return; }' % (n, n))
            pre.append('  for (int i = 0; i < n_%s; ++i) c_%s[i] = MPI_%s_f2c(%s[i]);' % (n, n, kind, n))
            call.append('c_' + n)
            if ctype == 'MPI_Request' and not const and completes_requests(func):
                post.append('  for (int i = 0; i < n_%s; ++i)' % n)
                post.append('    if (%s[i] != 0 && c_%s[i] == MPI_REQUEST_NULL) '
                            'ftmpi_f_request_done(MPI_Request_f2c(%s[i]));' % (n, n, n))
            if not const:
                post.append('  for (int i = 0; i < n_%s; ++i) %s[i] = MPI_%s_c2f(c_%s[i]);' % (n, n, kind, n))
            post.append('  free(c_%s);' % n)
        elif k == 'status':
            params.append('MPI_Fint *%s' % n); call.append('ftmpi_f_status(%s)' % n)
        elif k == 'statuses':
            params.append('MPI_Fint *%s' % n); call.append('ftmpi_f_statuses(%s)' % n)
        elif k == 'choice':
            params.append('void *%s' % n); call.append('ftmpi_f_buf(%s)' % n)
        elif k == 'aint_value':
            params.append('MPI_Aint *%s' % n); call.append('(void *)*%s' % n)
        elif k == 'aint_out':
            params.append('MPI_Aint *%s' % n); call.append('(void *)%s' % n)
        elif k == 'str_in':
            params.append('const char *%s' % n); hidden.append('size_t %s_len' % n)
            # MPI-4.0 §10: in Fortran, leading and trailing blanks of info keys and values are stripped
            conv = 'ftmpi_f_str_in_trim' if func.startswith('MPI_Info_') else 'ftmpi_f_str_in'
            pre.append('  char *c_%s = %s(%s, %s_len);' % (n, conv, n, n))
            pre.append('  if (c_%s == NULL) { *ierr = MPI_ERR_NO_MEM; return; }' % n)
            call.append('c_' + n)
            post.append('  free(c_%s);' % n)
        elif k == 'str_out':
            params.append('char *%s' % n); hidden.append('size_t %s_len' % n)
            pre.append('  char *c_%s = ftmpi_f_str_buf(%s_len);' % (n, n))
            pre.append('  if (c_%s == NULL) { *ierr = MPI_ERR_NO_MEM; return; }' % n)
            call.append('c_' + n)
            # a string beside an output flag (MPI_Info_get, ...) is written only when the flag is set
            guard = 'if (rc == MPI_SUCCESS && *flag) ' if any(a2.name == 'flag' for a2 in args) else ''
            post.append('  %sftmpi_f_str_out(c_%s, %s, %s_len);' % (guard, n, n, n))
            post.append('  free(c_%s);' % n)
        else:
            raise AssertionError(k)
    for n in deferred:
        req = [a.name for a, (k, x) in zip(args, kinds) if k == 'handle_inout' and x == 'MPI_Request'][0]
        post.append('  ftmpi_f_defer(rc, c_%s, c_%s, %s);' % (req, n, n))
    # Fortran counts request indices from 1 (MPI_UNDEFINED stays)
    if func in ('MPI_Waitany', 'MPI_Testany'):
        post.append('  if (*index >= 0) *index += 1;')
    if func in ('MPI_Waitsome', 'MPI_Testsome'):
        post.append('  if (*outcount != MPI_UNDEFINED)')
        post.append('    for (int i = 0; i < *outcount; ++i) array_of_indices[i] += 1;')
    lines = []
    cname = func
    if ret == 'int':
        params.append('MPI_Fint *ierr')
        sig = 'void %s(%s)' % (fname, ', '.join(params + hidden))
        lines.append('FTMPI_F_API %s;' % sig)
        lines.append(sig + ' {')
        lines += pre
        lines.append('  const int rc = %s(%s);' % (cname, ', '.join(call)))
        lines += post
        lines.append('  *ierr = rc;')
        lines.append('}')
    else:
        ct = ret
        sig = '%s %s(%s)' % (ct, fname, ', '.join(params + hidden) or 'void')
        lines.append('FTMPI_F_API %s;' % sig)
        lines.append(sig + ' {')
        lines += pre
        lines.append('  return %s(%s);' % (cname, ', '.join(call)))
        lines.append('}')
    lines += aliases(fname)
    return '\n'.join(lines) + '\n'


def completes_requests(func):
    """Calls that complete (and free) requests given to them."""
    return re.match(r'^MPI_(Wait|Test)(all|any|some)?$|^MPI_Request_free$', func) is not None


def aliases(fname):
    out = []
    for alias in ('p' + fname, 'ftmpi_f08_' + fname.split('_', 1)[1] if fname.startswith('mpi_')
                  else 'ftmpi_f08x_' + fname.split('_', 1)[1]):
        out.append('FTMPI_F_API extern __typeof__(%s) %s __attribute__((alias("%s")));' % (fname, alias, fname))
    return out


def f08_c_name(func):
    low = func.lower()
    return ('ftmpi_f08_' + low[4:]) if low.startswith('mpi_') else ('ftmpi_f08x_' + low[5:])


# ---------------------------------------------------------------------------------------------------------
# Fortran declarations

def f_decls(func, args, kinds, f08):
    """Dummy declarations (list of lines) for the interface / wrapper."""
    lines = []
    for a, (k, x) in zip(args, kinds):
        n = a.name
        logical = n in LOGICAL_NAMES and func not in INTEGER_FLAG_FUNCS
        if k == 'int_in':
            lines.append('%s, intent(in) :: %s' % ('logical' if logical else 'integer', n))
        elif k in ('int_ptr',):
            t = 'logical' if logical else 'integer'
            lines.append('%s :: %s%s' % (t, n, '(*)' if x == 'array' else ''))
        elif k in ('weights', 'errcodes'):
            lines.append('integer :: %s(*)' % n)
        elif k == 'int_ranges':
            lines.append('integer :: %s(3,*)' % n)
        elif k == 'fint_addr':
            lines.append('integer :: %s%s' % (n, '(*)' if x == 'array' else ''))
        elif k == 'wide_in':
            lines.append('integer(kind=%s), intent(in) :: %s' % (x, n))
        elif k == 'wide_ptr':
            lines.append('integer(kind=%s) :: %s%s' % (x[0], n, '(*)' if x[1] == 'array' else ''))
        elif k == 'handle_in':
            lines.append('%s, intent(in) :: %s' % ('type(%s)' % x if f08 else 'integer', n))
        elif k in ('handle_inout', 'deferred_comm'):
            lines.append('%s :: %s' % ('type(%s)' % x if f08 else 'integer', n))
        elif k == 'handle_array':
            lines.append('%s :: %s(*)' % ('type(%s)' % x[0] if f08 else 'integer', n))
        elif k == 'status':
            lines.append('type(MPI_Status) :: %s' % n if f08 else 'integer :: %s(MPI_STATUS_SIZE)' % n)
        elif k == 'statuses':
            lines.append('type(MPI_Status) :: %s(*)' % n if f08 else 'integer :: %s(MPI_STATUS_SIZE,*)' % n)
        elif k == 'choice':
            lines.append('!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s' % n)
            lines.append('type(*), dimension(*) :: %s' % n)
        elif k == 'aint_out' and n == 'baseptr' and f08:
            # mpi_f08: TYPE(C_PTR) (MPI-3.1 §8.2, §11.2.2-3); the same 8 bytes the shim writes the address into
            lines.append('type(c_ptr) :: %s' % n)
        elif k in ('aint_value', 'aint_out'):
            lines.append('integer(kind=MPI_ADDRESS_KIND) :: %s' % n)
        elif k in ('str_in', 'str_out'):
            lines.append('character(len=*) :: %s' % n)
        elif k == 'proc':
            lines.append('external :: %s' % n)
        elif k == 'argv':
            lines.append('character(len=*) :: %s(*)' % n)
        elif k == 'argvs':
            lines.append('character(len=*) :: %s(count,*)' % n)
        else:
            raise AssertionError(k)
    return lines


def f_result(ret):
    if ret == 'double':
        return 'double precision'
    if ret == 'MPI_Aint':
        return 'integer(kind=MPI_ADDRESS_KIND)'
    return None


def mpi_interface(func, ret, args, kinds):
    names = [a.name for a in args]
    res = f_result(ret)
    out = []
    if res is None:
        out.append('subroutine %s(%s)' % (func, ', '.join(names + ['ierror'])))
    else:
        out.append('function %s(%s) result(res)' % (func, ', '.join(names)))
    out.append('  import')
    out += ['  ' + l for l in f_decls(func, args, kinds, False)]
    if res is None:
        out.append('  integer :: ierror')
        out.append('end subroutine')
    else:
        out.append('  %s :: res' % res)
        out.append('end function')
    return out


def f08_parts(func, ret, args, kinds):
    """(interface lines to the C shim, module procedure lines)."""
    names = [a.name for a in args]
    res = f_result(ret)
    cname = f08_c_name(func)
    decls = f_decls(func, args, kinds, True)
    iface, proc = [], []
    if res is None:
        iface.append('subroutine %s(%s)' % (cname, ', '.join(names + ['ierror'])))
        iface.append('  import')
        iface += ['  ' + l for l in decls]
        iface.append('  integer :: ierror')
        iface.append('end subroutine')
        proc.append('subroutine %s(%s)' % (func, ', '.join(names + ['ierror'])))
        proc += ['  ' + l for l in decls]
        proc.append('  integer, optional, intent(out) :: ierror')
        proc.append('  integer :: c_ierror')
        proc.append('  call %s(%s)' % (cname, ', '.join(names + ['c_ierror'])))
        proc.append('  if (present(ierror)) ierror = c_ierror')
        proc.append('end subroutine')
    else:
        iface.append('function %s(%s) result(res)' % (cname, ', '.join(names)))
        iface.append('  import')
        iface += ['  ' + l for l in decls]
        iface.append('  %s :: res' % res)
        iface.append('end function')
        proc.append('function %s(%s) result(res)' % (func, ', '.join(names)))
        proc += ['  ' + l for l in decls]
        proc.append('  %s :: res' % res)
        proc.append('  res = %s(%s)' % (cname, ', '.join(names)))
        proc.append('end function')
    return iface, proc


def large_count_generics(mapped):
    """MPI-4.0 §19.3.5: in mpi_f08 a call with INTEGER(KIND=MPI_COUNT_KIND) counts reaches the large-count
    form through the plain name (MPI_Send with an 8-byte count is MPI_Send_c): a generic interface named like
    the plain procedure, with both as its specifics, where the two differ in some argument's type or kind
    (pairs whose only change is MPI_Aint -> MPI_Count, both 8 bytes here, keep the _c name only)."""
    by_name = {func: (args, kinds) for ret, func, args, kinds in mapped}

    def sig(func, args, kinds):
        out = []
        for a, k in zip(args, kinds):
            decl = [l for l in f_decls(func, [a], [k], True) if not l.startswith('!')][0]
            typ = decl.split('::')[0].replace(', intent(in)', '').strip()
            for kind in ('MPI_COUNT_KIND', 'MPI_ADDRESS_KIND', 'MPI_OFFSET_KIND'):
                typ = typ.replace(kind, '8')
            out.append((typ, decl.rstrip().endswith('(*)')))
        return out

    lines = []
    for ret, func, args, kinds in mapped:
        big = by_name.get(func + '_c')
        if big is None or f_result(ret) is not None:
            continue
        a, b = sig(func, args, kinds), sig(func + '_c', big[0], big[1])
        if len(a) != len(b) or a == b:
            continue
        lines += ['interface %s' % func, '  module procedure %s, %s_c' % (func, func), 'end interface']
    return lines


# MPI_SIZEOF (MPI-3.1 §17.1.9): a generic procedure of the modules (no library call), one specific per intrinsic
# type and kind, for scalars and arrays of any rank (assumed rank); size = the bytes of one element.
SIZEOF_TYPES = [('integer', k) for k in (1, 2, 4, 8, 16)] + [('real', k) for k in (4, 8, 10, 16)] + \
               [('complex', k) for k in (4, 8, 10, 16)] + [('logical', k) for k in (1, 2, 4, 8)] + [('character', 1)]


def sizeof_parts(f08):
    """(generic interface lines, module procedure lines) of MPI_Sizeof."""
    names = ['ftmpi_sizeof_%s%d' % (t, k) for t, k in SIZEOF_TYPES]
    iface = ['interface MPI_Sizeof'] + ['  module procedure %s' % n for n in names] + ['end interface']
    procs = []
    for (t, k), n in zip(SIZEOF_TYPES, names):
        decl = 'character(len=*)' if t == 'character' else '%s(kind=%d)' % (t, k)
        procs += ['subroutine %s(x, size, ierror)' % n,
                  '  %s, dimension(..), intent(in) :: x' % decl,
                  '  integer, intent(out) :: size',
                  '  integer%s :: ierror' % (', optional, intent(out)' if f08 else ', intent(out)'),
                  '  size = int(storage_size(x) / 8)',
                  '  if (present(ierror)) ierror = 0' if f08 else '  ierror = 0',
                  'end subroutine']
    return iface, procs


# ---------------------------------------------------------------------------------------------------------
# Constants

def parse_constants(paths):
    """Ordered list of (name, kind, value): kind in int / wide / handle (value = type) / null (type) /
    sentinel."""
    defs = []
    for p in paths:
        txt = strip_comments(open(p).read())
        txt = re.sub(r'\\\n', ' ', txt)
        for m in re.finditer(r'^#define\s+(MPIX?_\w+)\s+(.+?)\s*$', txt, flags=re.M):
            defs.append((m.group(1), m.group(2).strip()))
    raw = dict(defs)
    out, handles = [], []
    seen = set()

    def resolve(val, depth=0):
        if depth > 5:
            return None
        if re.fullmatch(r'\(?-?\s*(0x[0-9a-fA-F]+|\d+)\)?', val):
            return ('int', int(val.strip('()').replace(' ', ''), 0))
        m = re.fullmatch(r'\(\(MPI_Offset\)(-?\d+)\)', val)
        if m:
            return ('wide', int(m.group(1)))
        m = re.fullmatch(r'FTMPI_PREDEFINED\((MPI_\w+),\s*(\w+)\)', val)
        if m:
            return ('handle', m.group(1), m.group(2))
        m = re.fullmatch(r'\(\((MPI_\w+)\)0\)', val)
        if m:
            return ('null', m.group(1))
        if val in raw:
            return resolve(raw[val], depth + 1)
        return None

    objs = {}
    for name, val in defs:
        if name in seen:
            continue
        r = resolve(val)
        if r is None:
            continue
        if r[0] in ('handle', 'null') and r[1] not in HANDLE_KINDS:
            continue  # a handle type without Fortran conversions: no Fortran constant
        seen.add(name)
        if r[0] == 'handle':
            if r[2] not in objs:
                objs[r[2]] = len(objs) + 1
                handles.append((name, r[1], objs[r[2]]))
            out.append((name, 'handle', (r[1], objs[r[2]])))
        elif r[0] == 'null':
            out.append((name, 'handle', (r[1], 0)))
        else:
            out.append((name, r[0], r[1]))
    return out, handles


SKIP_CONSTANTS = {'MPI_F_STATUS_SIZE', 'FTMPI_PREDEFINED'}
STATUS_SIZE = 6


def fortran_int_constants(consts):
    """The integer constants of mpi.h (the MPIX_ ones of mpi-ext.h are apart: mpif-ext.h, mpi_ext)."""
    out = []
    for name, kind, val in consts:
        if name in SKIP_CONSTANTS or kind == 'handle' or name.startswith('MPIX_'):
            continue
        out.append((name, kind, val))
    return out


def fixed_lines(decl_type, name, value):
    """Lines valid in both fixed and free source form (mpif.h)."""
    return ['      %s %s' % (decl_type, name), '      parameter (%s=%s)' % (name, value)]


def emit_mpif_constants(consts):
    L = ['! ftmpi: MPI constants for Fortran (generated by src/fortran/gen_fortran.py from mpi.h).',
         '! Valid in fixed and free source form.']
    L += fixed_lines('integer', 'MPI_STATUS_SIZE', STATUS_SIZE)
    L += fixed_lines('integer', 'MPI_SOURCE', 1)
    L += fixed_lines('integer', 'MPI_TAG', 2)
    L += fixed_lines('integer', 'MPI_ERROR', 3)
    L += fixed_lines('integer', 'MPI_ADDRESS_KIND', 8)
    L += fixed_lines('integer', 'MPI_OFFSET_KIND', 8)
    L += fixed_lines('integer', 'MPI_COUNT_KIND', 8)
    L += fixed_lines('integer', 'MPI_INTEGER_KIND', 4)
    L += fixed_lines('logical', 'MPI_SUBARRAYS_SUPPORTED', '.false.')
    L += fixed_lines('logical', 'MPI_ASYNC_PROTECTS_NONBLOCKING', '.false.')
    for name, kind, val in fortran_int_constants(consts):
        if kind == 'wide':
            L += fixed_lines('integer(kind=MPI_OFFSET_KIND)', name, val)
        else:
            L += fixed_lines('integer', name, val)
    for name, kind, val in consts:
        if kind == 'handle':
            L += fixed_lines('integer', name, val[1])
    L += sentinel_commons(False)
    return '\n'.join(L) + '\n'


def sentinel_commons(f08):
    st = 'type(MPI_Status)' if f08 else 'integer'
    sdim = '' if f08 else '(MPI_STATUS_SIZE)'
    ssdim = '(1)' if f08 else '(MPI_STATUS_SIZE,1)'
    return [
        '      integer MPI_BOTTOM', '      common /mpi_fortran_bottom/ MPI_BOTTOM',
        '      integer MPI_IN_PLACE', '      common /mpi_fortran_in_place/ MPI_IN_PLACE',
        '      %s MPI_STATUS_IGNORE%s' % (st, sdim),
        '      common /mpi_fortran_status_ignore/ MPI_STATUS_IGNORE',
        '      %s MPI_STATUSES_IGNORE%s' % (st, ssdim),
        '      common /mpi_fortran_statuses_ignore/ MPI_STATUSES_IGNORE',
        '      integer MPI_UNWEIGHTED(1)', '      common /mpi_fortran_unweighted/ MPI_UNWEIGHTED',
        '      integer MPI_WEIGHTS_EMPTY(1)', '      common /mpi_fortran_weights_empty/ MPI_WEIGHTS_EMPTY',
        '      integer MPI_ERRCODES_IGNORE(1)',
        '      common /mpi_fortran_errcodes_ignore/ MPI_ERRCODES_IGNORE',
        '      character MPI_ARGV_NULL(1)', '      common /mpi_fortran_argv_null/ MPI_ARGV_NULL',
        '      character MPI_ARGVS_NULL(1,1)', '      common /mpi_fortran_argvs_null/ MPI_ARGVS_NULL',
    ]


def emit_mpif_functions(funcs):
    L = ['! ftmpi: the MPI functions that return a value and the predefined callbacks (generated).']
    L += ['      external %s' % p for p in PREDEFINED_PROCS]
    for ret, func, args, kinds in funcs:
        res = f_result(ret)
        if res is not None:  # and the profiling name (PMPI_WTIME, ...: MPI-3.1 §17.1.5)
            for name in (func, 'P' + func):
                L.append('      %s %s' % (res, name))
                L.append('      external %s' % name)
    return '\n'.join(L) + '\n'


# ---------------------------------------------------------------------------------------------------------

def wrap(lines, width=100):
    """Free-form lines broken after a comma with '&' continuations, so none passes 132 columns."""
    out = []
    for line in lines:
        while len(line) > width and not line.lstrip().startswith('!'):
            cut = line.rfind(', ', 0, width)
            if cut < 0:
                break
            indent = len(line) - len(line.lstrip())
            out.append(line[:cut + 1] + ' &')
            line = ' ' * (indent + 4) + line[cut + 2:]
        out.append(line)
    return out


def main():
    incdir, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    decls = parse_functions(os.path.join(incdir, 'mpi.h'), 'FTMPI_DECL', 'MPI_')
    # the MPIX_ functions are declared in mpi.h (MPICH style); mpi-ext.h is read too in case it adds any
    decls += parse_functions(os.path.join(incdir, 'mpi.h'), 'FTMPIX_DECL', 'MPIX_')
    decls += parse_functions(os.path.join(incdir, 'mpi-ext.h'), 'FTMPIX_DECL', 'MPIX_')
    find_handle_kinds(decls)
    consts, handles = parse_constants([os.path.join(incdir, 'mpi.h'), os.path.join(incdir, 'mpi-ext.h')])

    mapped, unmapped, generated = [], [], []
    seen = set()
    for ret, func, argstr in decls:
        if func in seen:
            continue
        seen.add(func)
        if NOT_IN_FORTRAN.match(func):
            continue
        if func in HANDWRITTEN:
            hret, hargs = HANDWRITTEN[func]
            args = parse_args(hargs)
            mapped.append((hret, func, args, classify(func, args)))
            continue
        args = parse_args(argstr)
        if ret not in ('int', 'double', 'MPI_Aint'):
            unmapped.append((func, 'returns %s' % ret))
            continue
        try:
            kinds = classify(func, args)
        except Unmappable as e:
            unmapped.append((func, str(e)))
            continue
        mapped.append((ret, func, args, kinds))
        generated.append((ret, func, args, kinds))

    # C shims
    c = ['/* Generated by src/fortran/gen_fortran.py from include/mpi.h and include/mpi-ext.h: do not edit. */',
         '#include <stdlib.h>', '#include "fortran_support.h"', '',
         '_Static_assert(sizeof(MPI_Status) == %d * sizeof(MPI_Fint), "MPI_STATUS_SIZE");' % STATUS_SIZE, '']
    for ret, func, args, kinds in generated:
        c.append(c_shim(ret, func, args, kinds))
    c += ['/* The predefined handles get the Fortran integers of mpif.h (1, 2, ... in mpi.h order): libmpi numbers',
          ' * a handle the first time it is converted, so convert them all, in that order, when this library is',
          ' * loaded (its constructor runs after libmpi\'s and before the program\'s). */',
          '__attribute__((constructor)) static void ftmpi_f_number_predefined_handles(void) {']
    for name, ctype, num in handles:
        c.append('  ftmpi_f_expect_handle(MPI_%s_c2f(%s), %d, "%s");' % (HANDLE_KINDS[ctype], name, num, name))
    c.append('}')
    open(os.path.join(outdir, 'fortran_shims.c'), 'w').write('\n'.join(c))

    # mpif.h
    ext = [c for c in consts if c[0].startswith('MPIX_')]
    open(os.path.join(outdir, 'mpif-constants.h'), 'w').write(emit_mpif_constants(consts))
    open(os.path.join(outdir, 'mpif-functions.h'), 'w').write(emit_mpif_functions(mapped))
    open(os.path.join(outdir, 'mpif.h'), 'w').write(
        '! ftmpi: mpif.h (generated by src/fortran/gen_fortran.py).  Include it in fixed or free form.\n'
        "      include 'mpif-constants.h'\n      include 'mpif-functions.h'\n")
    open(os.path.join(outdir, 'mpif-ext.h'), 'w').write(
        '! ftmpi: the MPIX_ constants (ULFM) for Fortran; the MPIX_ functions are callable with mpif.h.\n' +
        '\n'.join(l for n, k, v in ext if k == 'int' for l in fixed_lines('integer', n, v)) + '\n')

    # module mpi
    m = ['! Generated by src/fortran/gen_fortran.py: do not edit.', 'module mpi_ext_constants', '  implicit none']
    m += ['  ' + l.strip() for n, k, v in ext if k == 'int' for l in fixed_lines('integer', n, v)]
    m += ['end module mpi_ext_constants', '', 'module mpi_constants', '  use mpi_ext_constants', '  implicit none']
    m += ['  ' + l.strip() for l in emit_mpif_constants(consts).splitlines() if not l.startswith('!')]
    m += ['end module mpi_constants', '', 'module mpi', '  use mpi_constants', '  implicit none']
    m += ['  external :: %s' % p for p in PREDEFINED_PROCS]
    m += ['  interface']
    for ret, func, args, kinds in mapped:
        m += ['    ' + l for l in mpi_interface(func, ret, args, kinds)]
        if f_result(ret) is not None:  # the profiling names of the functions (PMPI_Wtime, ...)
            m += ['    ' + l for l in mpi_interface('P' + func, ret, args, kinds)]
    sizeof_iface, sizeof_procs = sizeof_parts(False)
    m += ['  end interface'] + ['  ' + l for l in sizeof_iface] + ['contains'] + ['  ' + l for l in sizeof_procs]
    m += ['end module mpi', '',
          '! Open MPI programs `use mpi_ext` for the MPIX_ constants (the MPIX_ functions are in mpi / mpi_f08).',
          'module mpi_ext', '  use mpi_ext_constants', '  implicit none', 'end module mpi_ext', '']
    open(os.path.join(outdir, 'mpi.f90'), 'w').write('\n'.join(wrap(m)))

    # module mpi_f08
    f = ['! Generated by src/fortran/gen_fortran.py: do not edit.', 'module mpi_f08', '  use mpi_ext_constants',
         '  use, intrinsic :: iso_c_binding, only: c_int, c_ptr',
         '  implicit none', '  private :: c_int']
    kinds_sorted = sorted(HANDLE_KINDS)
    for t in kinds_sorted:
        f += ['  type, bind(C) :: %s' % t, '    integer(c_int) :: MPI_VAL', '  end type %s' % t]
    f += ['  type, bind(C) :: MPI_Status',
          '    integer(c_int) :: MPI_SOURCE, MPI_TAG, MPI_ERROR',
          '    integer(c_int) :: ftmpi_internal(%d)' % (STATUS_SIZE - 3), '  end type MPI_Status']
    f += ['  interface operator(==)'] + ['    module procedure ftmpi_eq_%s' % t[4:].lower() for t in kinds_sorted]
    f += ['  end interface', '  interface operator(/=)']
    f += ['    module procedure ftmpi_ne_%s' % t[4:].lower() for t in kinds_sorted] + ['  end interface']
    f += ['  integer, parameter :: MPI_STATUS_SIZE = %d' % STATUS_SIZE,
          '  integer, parameter :: MPI_SOURCE = 1, MPI_TAG = 2, MPI_ERROR = 3',
          '  integer, parameter :: MPI_ADDRESS_KIND = 8, MPI_OFFSET_KIND = 8, MPI_COUNT_KIND = 8',
          '  integer, parameter :: MPI_INTEGER_KIND = 4',
          '  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false., MPI_ASYNC_PROTECTS_NONBLOCKING = .false.']
    for name, kind, val in fortran_int_constants(consts):
        if kind == 'wide':
            f.append('  integer(kind=MPI_OFFSET_KIND), parameter :: %s = %s' % (name, val))
        else:
            f.append('  integer, parameter :: %s = %s' % (name, val))
    for name, kind, val in consts:
        if kind == 'handle':
            f.append('  type(%s), parameter :: %s = %s(%d)' % (val[0], name, val[0], val[1]))
    f += ['  ' + l.strip() for l in sentinel_commons(True)]
    f += ['  external :: %s' % p for p in PREDEFINED_PROCS]
    f += ['  interface']
    procs = []
    for ret, func, args, kinds in mapped:
        iface, proc = f08_parts(func, ret, args, kinds)
        f += ['    ' + l for l in iface]
        procs += proc
    sizeof_iface, sizeof_procs = sizeof_parts(True)
    f += ['  end interface'] + ['  ' + l for l in sizeof_iface]
    f += ['  ' + l for l in large_count_generics(mapped)]
    # PMPI_Wtime, PMPI_Wtick, PMPI_Aint_add, PMPI_Aint_diff (MPI-3.1 §17.1.5): generic names of the functions
    for ret, func, args, kinds in mapped:
        if f_result(ret) is not None:
            f += ['  interface P%s' % func, '    module procedure %s' % func, '  end interface']
    # The error-handler procedure types (MPI-4.0 §19.3.x): a program declares its handler with
    # PROCEDURE(MPI_File_errhandler_function). The shims call it with the handle and the code by reference.
    f += ['  abstract interface']
    for obj in ('Comm', 'Win', 'File', 'Session'):
        f += ['    subroutine MPI_%s_errhandler_function(%s, error_code)' % (obj, obj.lower()),
              '      import :: MPI_%s' % obj,
              '      type(MPI_%s) :: %s' % (obj, obj.lower()),
              '      integer :: error_code',
              '    end subroutine']
    f += ['  end interface']
    f += ['contains'] + ['  ' + l for l in sizeof_procs]
    for t in kinds_sorted:
        s = t[4:].lower()
        for op, nm in (('==', 'eq'), ('/=', 'ne')):
            f += ['  elemental logical function ftmpi_%s_%s(a, b)' % (nm, s),
                  '    type(%s), intent(in) :: a, b' % t,
                  '    ftmpi_%s_%s = a%%MPI_VAL %s b%%MPI_VAL' % (nm, s, op),
                  '  end function']
    f += ['  ' + l for l in procs]
    f += ['end module mpi_f08', '']
    text = '\n'.join(wrap(f))
    open(os.path.join(outdir, 'mpi_f08.f90'), 'w').write(text)

    with open(os.path.join(outdir, 'fortran_unmapped.txt'), 'w') as u:
        for func, why in unmapped:
            u.write('%s\t%s\n' % (func, why))
    print('gen_fortran: %d functions mapped (%d generated, %d hand-written), %d unmapped'
          % (len(mapped), len(generated), len(mapped) - len(generated), len(unmapped)))


if __name__ == '__main__':
    main()
