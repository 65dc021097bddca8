/* ftmpi — a fault-tolerant MPI.  The MPI C interface.
 *
 * Handles are typed pointers to opaque structs, so passing a group where a communicator is wanted does
 * not compile.  Predefined handles are addresses of objects inside libmpi (usable in static initializers).
 * Every MPI_X function also exists as PMPI_X (profiling interface). */
#ifndef FTMPI_MPI_H
#define FTMPI_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FTMPI 1
#define FTMPI_VERSION_STRING "0.1.0"
#define MPI_VERSION 3
#define MPI_SUBVERSION 1

/* ---- basic types ---------------------------------------------------------------------------------- */
typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct ftmpi_comm_s *MPI_Comm;
typedef struct ftmpi_group_s *MPI_Group;
typedef struct ftmpi_datatype_s *MPI_Datatype;
typedef struct ftmpi_op_s *MPI_Op;
typedef struct ftmpi_request_s *MPI_Request;
typedef struct ftmpi_errhandler_s *MPI_Errhandler;
typedef struct ftmpi_info_s *MPI_Info;
typedef struct ftmpi_message_s *MPI_Message;
typedef struct ftmpi_win_s *MPI_Win;
typedef struct ftmpi_file_s *MPI_File;

typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int ftmpi_cancelled;   /* internal: set when a request was cancelled */
  MPI_Count ftmpi_count; /* internal: bytes received */
} MPI_Status;

/* ---- predefined handles --------------------------------------------------------------------------- */
#define FTMPI_PREDEFINED(type, obj) ((type)(&(obj)))
#if defined(__GNUC__)
#define FTMPI_API __attribute__((visibility("default")))
#else
#define FTMPI_API
#endif

FTMPI_API extern struct ftmpi_comm_s ftmpi_comm_world, ftmpi_comm_self;
#define MPI_COMM_WORLD FTMPI_PREDEFINED(MPI_Comm, ftmpi_comm_world)
#define MPI_COMM_SELF FTMPI_PREDEFINED(MPI_Comm, ftmpi_comm_self)
#define MPI_COMM_NULL ((MPI_Comm)0)

FTMPI_API extern struct ftmpi_group_s ftmpi_group_empty;
#define MPI_GROUP_EMPTY FTMPI_PREDEFINED(MPI_Group, ftmpi_group_empty)
#define MPI_GROUP_NULL ((MPI_Group)0)

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
FTMPI_API extern struct ftmpi_message_s ftmpi_message_no_proc;
#define MPI_MESSAGE_NO_PROC FTMPI_PREDEFINED(MPI_Message, ftmpi_message_no_proc)
#define MPI_INFO_NULL ((MPI_Info)0)
FTMPI_API extern struct ftmpi_info_s ftmpi_info_env;
#define MPI_INFO_ENV FTMPI_PREDEFINED(MPI_Info, ftmpi_info_env)
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_FILE_NULL ((MPI_File)0)

FTMPI_API extern struct ftmpi_errhandler_s ftmpi_errors_are_fatal, ftmpi_errors_return, ftmpi_errors_abort;
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL FTMPI_PREDEFINED(MPI_Errhandler, ftmpi_errors_are_fatal)
#define MPI_ERRORS_RETURN FTMPI_PREDEFINED(MPI_Errhandler, ftmpi_errors_return)
#define MPI_ERRORS_ABORT FTMPI_PREDEFINED(MPI_Errhandler, ftmpi_errors_abort)

/* Datatypes.  The list order is the internal basic-type id order (see src/datatype/builtin_types.h). */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
FTMPI_API extern struct ftmpi_datatype_s ftmpi_dt_char, ftmpi_dt_signed_char, ftmpi_dt_unsigned_char, ftmpi_dt_byte,
    ftmpi_dt_short, ftmpi_dt_unsigned_short, ftmpi_dt_int, ftmpi_dt_unsigned, ftmpi_dt_long,
    ftmpi_dt_unsigned_long, ftmpi_dt_long_long, ftmpi_dt_unsigned_long_long, ftmpi_dt_float, ftmpi_dt_double,
    ftmpi_dt_long_double, ftmpi_dt_wchar, ftmpi_dt_c_bool, ftmpi_dt_int8, ftmpi_dt_int16, ftmpi_dt_int32,
    ftmpi_dt_int64, ftmpi_dt_uint8, ftmpi_dt_uint16, ftmpi_dt_uint32, ftmpi_dt_uint64, ftmpi_dt_aint,
    ftmpi_dt_offset, ftmpi_dt_count, ftmpi_dt_c_float_complex, ftmpi_dt_c_double_complex,
    ftmpi_dt_c_long_double_complex, ftmpi_dt_packed, ftmpi_dt_float_int, ftmpi_dt_double_int,
    ftmpi_dt_long_int, ftmpi_dt_2int, ftmpi_dt_short_int, ftmpi_dt_long_double_int, ftmpi_dt_lb, ftmpi_dt_ub;
#define MPI_CHAR FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_char)
#define MPI_SIGNED_CHAR FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_signed_char)
#define MPI_UNSIGNED_CHAR FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_unsigned_char)
#define MPI_BYTE FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_byte)
#define MPI_SHORT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_short)
#define MPI_UNSIGNED_SHORT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_unsigned_short)
#define MPI_INT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_int)
#define MPI_UNSIGNED FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_unsigned)
#define MPI_LONG FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_long)
#define MPI_UNSIGNED_LONG FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_unsigned_long)
#define MPI_LONG_LONG_INT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_long_long)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_unsigned_long_long)
#define MPI_FLOAT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_float)
#define MPI_DOUBLE FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_double)
#define MPI_LONG_DOUBLE FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_long_double)
#define MPI_WCHAR FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_wchar)
#define MPI_C_BOOL FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_c_bool)
#define MPI_INT8_T FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_int8)
#define MPI_INT16_T FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_int16)
#define MPI_INT32_T FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_int32)
#define MPI_INT64_T FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_int64)
#define MPI_UINT8_T FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_uint8)
#define MPI_UINT16_T FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_uint16)
#define MPI_UINT32_T FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_uint32)
#define MPI_UINT64_T FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_uint64)
#define MPI_AINT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_aint)
#define MPI_OFFSET FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_offset)
#define MPI_COUNT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_count)
#define MPI_C_FLOAT_COMPLEX FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_c_float_complex)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_c_long_double_complex)
#define MPI_PACKED FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_packed)
#define MPI_FLOAT_INT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_float_int)
#define MPI_DOUBLE_INT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_double_int)
#define MPI_LONG_INT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_long_int)
#define MPI_2INT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_2int)
#define MPI_SHORT_INT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_short_int)
#define MPI_LONG_DOUBLE_INT FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_long_double_int)
#define MPI_LB FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_lb)
#define MPI_UB FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_ub)
/* C++ types, usable from C too (MPI-3.1 Table 3.3 and §17.1.6): bool and std::complex<float|double|long double>,
 * laid out as C's bool and _Complex types; reductions as for MPI_C_BOOL and the C complex types. */
FTMPI_API extern struct ftmpi_datatype_s ftmpi_dt_cxx_bool, ftmpi_dt_cxx_float_complex, ftmpi_dt_cxx_double_complex,
    ftmpi_dt_cxx_long_double_complex;
#define MPI_CXX_BOOL FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_cxx_bool)
#define MPI_CXX_FLOAT_COMPLEX FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_cxx_float_complex)
#define MPI_CXX_DOUBLE_COMPLEX FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_cxx_double_complex)
#define MPI_CXX_LONG_DOUBLE_COMPLEX FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_cxx_long_double_complex)

/* Fortran named types (MPI-3.1 §3.2.2; sizes as gfortran's: INTEGER/LOGICAL/REAL 4 bytes, DOUBLE PRECISION 8,
 * COMPLEX 2 x REAL), usable from C.  MPI_REAL2, MPI_REAL16, MPI_COMPLEX32 and MPI_INTEGER16 have no C twin
 * here and are MPI_DATATYPE_NULL (as Open MPI does for kinds its compiler lacks). */
FTMPI_API extern struct ftmpi_datatype_s ftmpi_dt_f_integer, ftmpi_dt_f_real, ftmpi_dt_f_double_precision,
    ftmpi_dt_f_complex, ftmpi_dt_f_double_complex, ftmpi_dt_f_logical, ftmpi_dt_f_character, ftmpi_dt_f_integer1,
    ftmpi_dt_f_integer2, ftmpi_dt_f_integer4, ftmpi_dt_f_integer8, ftmpi_dt_f_real4, ftmpi_dt_f_real8,
    ftmpi_dt_f_complex8, ftmpi_dt_f_complex16, ftmpi_dt_f_2real, ftmpi_dt_f_2double_precision, ftmpi_dt_f_2integer;
#define MPI_INTEGER FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_integer)
#define MPI_REAL FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_real)
#define MPI_DOUBLE_PRECISION FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_double_precision)
#define MPI_COMPLEX FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_complex)
#define MPI_DOUBLE_COMPLEX FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_double_complex)
#define MPI_LOGICAL FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_logical)
#define MPI_CHARACTER FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_character)
#define MPI_INTEGER1 FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_integer1)
#define MPI_INTEGER2 FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_integer2)
#define MPI_INTEGER4 FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_integer4)
#define MPI_INTEGER8 FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_integer8)
#define MPI_INTEGER16 MPI_DATATYPE_NULL
#define MPI_REAL2 MPI_DATATYPE_NULL
#define MPI_REAL4 FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_real4)
#define MPI_REAL8 FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_real8)
#define MPI_REAL16 MPI_DATATYPE_NULL
#define MPI_COMPLEX8 FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_complex8)
#define MPI_COMPLEX16 FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_complex16)
#define MPI_COMPLEX32 MPI_DATATYPE_NULL
#define MPI_2REAL FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_2real)
#define MPI_2DOUBLE_PRECISION FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_2double_precision)
#define MPI_2INTEGER FTMPI_PREDEFINED(MPI_Datatype, ftmpi_dt_f_2integer)

/* Reduction operations. */
#define MPI_OP_NULL ((MPI_Op)0)
FTMPI_API extern struct ftmpi_op_s ftmpi_op_max, ftmpi_op_min, ftmpi_op_sum, ftmpi_op_prod, ftmpi_op_land, ftmpi_op_band,
    ftmpi_op_lor, ftmpi_op_bor, ftmpi_op_lxor, ftmpi_op_bxor, ftmpi_op_maxloc, ftmpi_op_minloc,
    ftmpi_op_replace, ftmpi_op_no_op;
#define MPI_MAX FTMPI_PREDEFINED(MPI_Op, ftmpi_op_max)
#define MPI_MIN FTMPI_PREDEFINED(MPI_Op, ftmpi_op_min)
#define MPI_SUM FTMPI_PREDEFINED(MPI_Op, ftmpi_op_sum)
#define MPI_PROD FTMPI_PREDEFINED(MPI_Op, ftmpi_op_prod)
#define MPI_LAND FTMPI_PREDEFINED(MPI_Op, ftmpi_op_land)
#define MPI_BAND FTMPI_PREDEFINED(MPI_Op, ftmpi_op_band)
#define MPI_LOR FTMPI_PREDEFINED(MPI_Op, ftmpi_op_lor)
#define MPI_BOR FTMPI_PREDEFINED(MPI_Op, ftmpi_op_bor)
#define MPI_LXOR FTMPI_PREDEFINED(MPI_Op, ftmpi_op_lxor)
#define MPI_BXOR FTMPI_PREDEFINED(MPI_Op, ftmpi_op_bxor)
#define MPI_MAXLOC FTMPI_PREDEFINED(MPI_Op, ftmpi_op_maxloc)
#define MPI_MINLOC FTMPI_PREDEFINED(MPI_Op, ftmpi_op_minloc)
#define MPI_REPLACE FTMPI_PREDEFINED(MPI_Op, ftmpi_op_replace)
#define MPI_NO_OP FTMPI_PREDEFINED(MPI_Op, ftmpi_op_no_op)

/* ---- constants ------------------------------------------------------------------------------------ */
#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID 0x24000000
#define MPI_BSEND_OVERHEAD 96
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PORT_NAME 256

#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_IN_PLACE ((void *)-1)
#define MPI_BOTTOM ((void *)0)
#define MPI_UNWEIGHTED ((int *)1)
#define MPI_WEIGHTS_EMPTY ((int *)2)

/* thread levels */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* results of comparisons */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* topology kinds */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3

/* split types */
#define MPI_COMM_TYPE_SHARED 1
/* MPI-4.0 §7.4.2 (src/api/comm_ctors.cpp: the only hardware level known is the host's shared memory) */
#define MPI_COMM_TYPE_HW_UNGUIDED 2
#define MPI_COMM_TYPE_HW_GUIDED 3

/* predefined attribute keys (values are keyval handles) */
#define MPI_TAG_UB 0x64400001
#define MPI_HOST 0x64400003
#define MPI_IO 0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE 0x64400009
#define MPI_LASTUSEDCODE 0x6440000b
#define MPI_APPNUM 0x6440000d

/* ---- error classes -------------------------------------------------------------------------------- */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_ROOT 7
#define MPI_ERR_GROUP 8
#define MPI_ERR_OP 9
#define MPI_ERR_TOPOLOGY 10
#define MPI_ERR_DIMS 11
#define MPI_ERR_ARG 12
#define MPI_ERR_UNKNOWN 13
#define MPI_ERR_TRUNCATE 14
#define MPI_ERR_OTHER 15
#define MPI_ERR_INTERN 16
#define MPI_ERR_IN_STATUS 17
#define MPI_ERR_PENDING 18
#define MPI_ERR_REQUEST 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_BAD_FILE 22
#define MPI_ERR_CONVERSION 23
#define MPI_ERR_DUP_DATAREP 24
#define MPI_ERR_FILE_EXISTS 25
#define MPI_ERR_FILE_IN_USE 26
#define MPI_ERR_FILE 27
#define MPI_ERR_INFO 28
#define MPI_ERR_INFO_KEY 29
#define MPI_ERR_INFO_VALUE 30
#define MPI_ERR_INFO_NOKEY 31
#define MPI_ERR_IO 32
#define MPI_ERR_NAME 33
#define MPI_ERR_NO_MEM 34
#define MPI_ERR_NOT_SAME 35
#define MPI_ERR_NO_SPACE 36
#define MPI_ERR_NO_SUCH_FILE 37
#define MPI_ERR_PORT 38
#define MPI_ERR_QUOTA 39
#define MPI_ERR_READ_ONLY 40
#define MPI_ERR_SERVICE 41
#define MPI_ERR_SPAWN 42
#define MPI_ERR_UNSUPPORTED_DATAREP 43
#define MPI_ERR_UNSUPPORTED_OPERATION 44
#define MPI_ERR_WIN 45
#define MPI_ERR_BASE 46
#define MPI_ERR_LOCKTYPE 47
#define MPI_ERR_KEYVAL 48
#define MPI_ERR_RMA_CONFLICT 49
#define MPI_ERR_RMA_SYNC 50
#define MPI_ERR_SIZE 51
#define MPI_ERR_DISP 52
#define MPI_ERR_ASSERT 53
#define MPI_ERR_RMA_RANGE 54
#define MPI_ERR_RMA_ATTACH 55
#define MPI_ERR_RMA_SHARED 56
#define MPI_ERR_RMA_FLAVOR 57
#define MPI_ERR_ERRHANDLER 58
/* fault tolerance (seed 000, API.md) */
#define MPI_ERR_PROC_FAILED 59
#define MPI_ERR_PROC_FAILED_PENDING 60
#define MPI_ERR_REVOKED 61
#define MPI_ERR_INVALIDATED MPI_ERR_REVOKED
#define MPI_ERR_LASTCODE 0x3fffffff

/* ---- constants of the later chapters (ftmpi's own values) -------------------------------------- */
/* datatype constructors and decoding */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_F90_REAL 13
#define MPI_COMBINER_F90_COMPLEX 14
#define MPI_COMBINER_F90_INTEGER 15
#define MPI_COMBINER_RESIZED 16
/* MPI-1's Fortran-INTEGER forms, removed in MPI-3.0; Open MPI and MPICH still define them (programs compare
 * with them). No type reports them: the Fortran MPI-1 constructors build HVECTOR, HINDEXED, STRUCT. */
#define MPI_COMBINER_HVECTOR_INTEGER 17
#define MPI_COMBINER_HINDEXED_INTEGER 18
#define MPI_COMBINER_STRUCT_INTEGER 19
#define MPI_TYPECLASS_REAL 1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

/* one-sided communication: window attribute keys, flavours, memory models, assertions, lock types */
#define MPI_WIN_BASE 0x66000001
#define MPI_WIN_SIZE 0x66000003
#define MPI_WIN_DISP_UNIT 0x66000005
#define MPI_WIN_CREATE_FLAVOR 0x66000007
#define MPI_WIN_MODEL 0x66000009
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235

/* MPI-IO: access modes, seek whence, views */
#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-54278278)
#define MPI_MAX_DATAREP_STRING 128

/* language interoperability: a Fortran status is the C status seen as MPI_Fint words */
#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#define MPI_F_STATUS_IGNORE ((MPI_Fint *)0)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint *)0)

/* ---- callback types ------------------------------------------------------------------------------- */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);

typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                                          void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                                       void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state);
/* deprecated MPI-1 names of the communicator attribute callbacks */
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                              void *attribute_val_out, int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *code, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef void MPI_File_errhandler_function(MPI_File *file, int *code, ...);
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *file_extent, void *extra_state);
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                                            MPI_Offset position, void *extra_state);
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function *)0)

/* Predefined attribute callbacks: real functions (NULL_COPY: not copied; DUP: copies the value;
 * NULL_DELETE: nothing to do). */
FTMPI_API int ftmpi_comm_null_copy_fn(MPI_Comm, int, void *, void *, void *, int *);
FTMPI_API int ftmpi_comm_dup_fn(MPI_Comm, int, void *, void *, void *, int *);
FTMPI_API int ftmpi_comm_null_delete_fn(MPI_Comm, int, void *, void *);
FTMPI_API int ftmpi_type_null_copy_fn(MPI_Datatype, int, void *, void *, void *, int *);
FTMPI_API int ftmpi_type_dup_fn(MPI_Datatype, int, void *, void *, void *, int *);
FTMPI_API int ftmpi_type_null_delete_fn(MPI_Datatype, int, void *, void *);
FTMPI_API int ftmpi_win_null_copy_fn(MPI_Win, int, void *, void *, void *, int *);
FTMPI_API int ftmpi_win_dup_fn(MPI_Win, int, void *, void *, void *, int *);
FTMPI_API int ftmpi_win_null_delete_fn(MPI_Win, int, void *, void *);
#define MPI_COMM_NULL_COPY_FN ftmpi_comm_null_copy_fn
#define MPI_COMM_DUP_FN ftmpi_comm_dup_fn
#define MPI_COMM_NULL_DELETE_FN ftmpi_comm_null_delete_fn
#define MPI_NULL_COPY_FN ftmpi_comm_null_copy_fn
#define MPI_DUP_FN ftmpi_comm_dup_fn
#define MPI_NULL_DELETE_FN ftmpi_comm_null_delete_fn
#define MPI_TYPE_NULL_COPY_FN ftmpi_type_null_copy_fn
#define MPI_TYPE_DUP_FN ftmpi_type_dup_fn
#define MPI_TYPE_NULL_DELETE_FN ftmpi_type_null_delete_fn
#define MPI_WIN_NULL_COPY_FN ftmpi_win_null_copy_fn
#define MPI_WIN_DUP_FN ftmpi_win_dup_fn
#define MPI_WIN_NULL_DELETE_FN ftmpi_win_null_delete_fn

/* ---- functions: every one also exists as PMPI_ --------------------------------------------------- */
#define FTMPI_DECL(ret, name, args) FTMPI_API ret MPI_##name args; FTMPI_API ret PMPI_##name args

/* environment */
FTMPI_DECL(int, Init, (int *argc, char ***argv));
FTMPI_DECL(int, Init_thread, (int *argc, char ***argv, int required, int *provided));
FTMPI_DECL(int, Finalize, (void));
FTMPI_DECL(int, Initialized, (int *flag));
FTMPI_DECL(int, Finalized, (int *flag));
FTMPI_DECL(int, Query_thread, (int *provided));
FTMPI_DECL(int, Is_thread_main, (int *flag));
FTMPI_DECL(int, Abort, (MPI_Comm comm, int errorcode));
FTMPI_DECL(int, Get_processor_name, (char *name, int *resultlen));
FTMPI_DECL(int, Get_version, (int *version, int *subversion));
FTMPI_DECL(int, Get_library_version, (char *version, int *resultlen));
FTMPI_DECL(double, Wtime, (void));
FTMPI_DECL(double, Wtick, (void));
FTMPI_DECL(int, Error_string, (int errorcode, char *string, int *resultlen));
FTMPI_DECL(int, Error_class, (int errorcode, int *errorclass));
FTMPI_DECL(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler));
FTMPI_DECL(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler));
FTMPI_DECL(int, Errhandler_free, (MPI_Errhandler * errhandler));
FTMPI_DECL(int, Comm_create_errhandler, (MPI_Comm_errhandler_function * fn, MPI_Errhandler *errhandler));
FTMPI_DECL(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode));

/* point-to-point */
FTMPI_DECL(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
FTMPI_DECL(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
FTMPI_DECL(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
FTMPI_DECL(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
FTMPI_DECL(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Status *status));
FTMPI_DECL(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request));
FTMPI_DECL(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request));
FTMPI_DECL(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request));
FTMPI_DECL(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request));
FTMPI_DECL(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                        MPI_Request *request));
FTMPI_DECL(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                           MPI_Comm comm, MPI_Status *status));
FTMPI_DECL(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                   int source, int recvtag, MPI_Comm comm, MPI_Status *status));
FTMPI_DECL(int, Buffer_attach, (void *buffer, int size));
FTMPI_DECL(int, Buffer_detach, (void *buffer_addr, int *size));
FTMPI_DECL(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status));
FTMPI_DECL(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status));
FTMPI_DECL(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status));
FTMPI_DECL(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                          MPI_Status *status));
FTMPI_DECL(int, Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status));
FTMPI_DECL(int, Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                         MPI_Request *request));
FTMPI_DECL(int, Wait, (MPI_Request * request, MPI_Status *status));
FTMPI_DECL(int, Test, (MPI_Request * request, int *flag, MPI_Status *status));
FTMPI_DECL(int, Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]));
FTMPI_DECL(int, Testall, (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]));
FTMPI_DECL(int, Waitany, (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status));
FTMPI_DECL(int, Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status));
FTMPI_DECL(int, Waitsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                           MPI_Status array_of_statuses[]));
FTMPI_DECL(int, Testsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                           MPI_Status array_of_statuses[]));
FTMPI_DECL(int, Request_free, (MPI_Request * request));
FTMPI_DECL(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status));
FTMPI_DECL(int, Cancel, (MPI_Request * request));
FTMPI_DECL(int, Test_cancelled, (const MPI_Status *status, int *flag));
FTMPI_DECL(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                            MPI_Request *request));
FTMPI_DECL(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                            MPI_Request *request));
FTMPI_DECL(int, Start, (MPI_Request * request));
FTMPI_DECL(int, Startall, (int count, MPI_Request array_of_requests[]));
FTMPI_DECL(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count));
FTMPI_DECL(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count));
FTMPI_DECL(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
FTMPI_DECL(int, Status_set_elements, (MPI_Status * status, MPI_Datatype datatype, int count));
FTMPI_DECL(int, Status_set_cancelled, (MPI_Status * status, int flag));

/* datatypes */
FTMPI_DECL(int, Type_size, (MPI_Datatype datatype, int *size));
FTMPI_DECL(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size));
FTMPI_DECL(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent));
FTMPI_DECL(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent));
FTMPI_DECL(int, Type_commit, (MPI_Datatype * datatype));
FTMPI_DECL(int, Type_free, (MPI_Datatype * datatype));
FTMPI_DECL(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype,
                              MPI_Datatype *newtype));
FTMPI_DECL(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                      MPI_Datatype *newtype));
FTMPI_DECL(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                               MPI_Datatype *newtype)); /* MPI-1 name of Type_create_hvector */
FTMPI_DECL(int, Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[],
                               MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_hindexed, (int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                       MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[],
                                            MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint array_of_displacements[],
                                             MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_struct, (int count, const int array_of_blocklengths[],
                                     const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                                     MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_set_name, (MPI_Datatype datatype, const char *type_name));
FTMPI_DECL(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen));
FTMPI_DECL(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
FTMPI_DECL(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
FTMPI_DECL(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
                       int *position, MPI_Comm comm));
FTMPI_DECL(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                         MPI_Datatype datatype, MPI_Comm comm));
FTMPI_DECL(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size));
FTMPI_DECL(int, Get_address, (const void *location, MPI_Aint *address));
FTMPI_DECL(int, Op_create, (MPI_User_function * user_fn, int commute, MPI_Op *op));
FTMPI_DECL(int, Op_free, (MPI_Op * op));
FTMPI_DECL(int, Op_commutative, (MPI_Op op, int *commute));
FTMPI_DECL(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op));

/* communicators and groups */
FTMPI_DECL(int, Comm_rank, (MPI_Comm comm, int *rank));
FTMPI_DECL(int, Comm_size, (MPI_Comm comm, int *size));
FTMPI_DECL(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm));
FTMPI_DECL(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm));
FTMPI_DECL(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm));
FTMPI_DECL(int, Comm_free, (MPI_Comm * comm));
FTMPI_DECL(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result));
FTMPI_DECL(int, Comm_test_inter, (MPI_Comm comm, int *flag));
FTMPI_DECL(int, Comm_group, (MPI_Comm comm, MPI_Group *group));
FTMPI_DECL(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag));
FTMPI_DECL(int, Comm_set_name, (MPI_Comm comm, const char *comm_name));
FTMPI_DECL(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen));
FTMPI_DECL(int, Group_size, (MPI_Group group, int *size));
FTMPI_DECL(int, Group_rank, (MPI_Group group, int *rank));
FTMPI_DECL(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
FTMPI_DECL(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup));
FTMPI_DECL(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                                        int ranks2[]));
FTMPI_DECL(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result));
FTMPI_DECL(int, Group_free, (MPI_Group * group));
FTMPI_DECL(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
FTMPI_DECL(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
FTMPI_DECL(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup));
FTMPI_DECL(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));
FTMPI_DECL(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup));

/* collectives */
FTMPI_DECL(int, Barrier, (MPI_Comm comm));
FTMPI_DECL(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm));
FTMPI_DECL(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         int root, MPI_Comm comm));
FTMPI_DECL(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm));
FTMPI_DECL(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
FTMPI_DECL(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
FTMPI_DECL(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm));

/* process fault tolerance, seed spelling (seed 000 §1.3; Open MPI's MPIX_ names are in mpi-ext.h) */
FTMPI_DECL(int, Comm_invalidate, (MPI_Comm comm));
FTMPI_DECL(int, Comm_shrink, (MPI_Comm comm, MPI_Comm *newcomm));
FTMPI_DECL(int, Comm_failure_ack, (MPI_Comm comm));
FTMPI_DECL(int, Comm_failure_get_acked, (MPI_Comm comm, MPI_Group *failedgroup));
FTMPI_DECL(int, Comm_agreement, (MPI_Comm comm, int *flag));
FTMPI_DECL(int, Icomm_agreement, (MPI_Comm comm, int *flag, MPI_Request *req));

/* process fault tolerance, ULFM spelling (MPICH and Open MPI 5 both name them MPIX_; MPICH programs include
 * only mpi.h, Open MPI programs include mpi-ext.h too, which adds its OMPI_HAVE_* feature macros). */
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

/* Reinit: global-restart fault tolerance (seed 003; docs/fault-tolerance.md "Reinit"). Needs
 * mpiexec --with-ft reinit. The handlers are valid only on MPI_COMM_WORLD. */
typedef void MPI_Reinit_function(void *data);
FTMPI_DECL(int, Reinit, (MPI_Reinit_function * resilient_fn, void *data));
FTMPI_DECL(int, Test_failure, (void));
FTMPI_API extern struct ftmpi_errhandler_s ftmpi_errors_reinit_async, ftmpi_errors_reinit_sync;
#define MPI_ERRORS_REINIT_ASYNC FTMPI_PREDEFINED(MPI_Errhandler, ftmpi_errors_reinit_async)
#define MPI_ERRORS_REINIT_SYNC FTMPI_PREDEFINED(MPI_Errhandler, ftmpi_errors_reinit_sync)
/* where this process comes from: first run, rolled back, or restarted; restarts = rollbacks of the job */
#define MPIX_REINIT_NEW 1
#define MPIX_REINIT_REINITED 2
#define MPIX_REINIT_RESTARTED 3
FTMPIX_DECL(int, Reinit_state, (int *state, int *restarts));
#undef FTMPIX_DECL

/* ==== FA-MPI (seed 001; docs/famp.md): timeouts, local completion, TryBlocks, error injection, fault-aware
 * communicator creation. Both the seed's names and the published implementation's (Hassani 2013-14). ==== */
/* result classes (MPI_Error_class / MPI_Error_string know them) */
#define MPI_LOCAL_ERROR_INJECTION 80
#define MPI_TIMEOUT 81
#define MPI_TIMEOUT_OCCURRED MPI_TIMEOUT
#define MPI_ERR_TIMEOUT MPI_TIMEOUT
#define MPI_TASK_FAULT 82
#define MPI_COMMUNICATION_FAULT 83
#define MPI_UNMODELED_FAULT 84
#define MPI_MULTIPLE_FAULTS 85
#define MPI_GROUP_SHRUNK 86
#define MPI_GROUPS_SHRUNK MPI_GROUP_SHRUNK
#define MPI_USER_LOCAL_TIMEOUT 87
#define MPI_ERR_TRYBLOCK_FOUND_ERRORS 88
/* assertion codes for MPI_Request_raise_error / MPI_Comm_raise_error / MPI_Comm_rank(s)_raise_* */
typedef int MPI_Error;
#define MPI_Error_incorrect_results 1
#define MPI_Error_unknown 2
#define MPI_Error_Invalidate_Collective 3
#define MPI_Error_User_assertion 4
#define MPI_Error_rank_invalidate 5
#define MPI_Error_task_down 6
/* MPI_Tryblock_start flags (published implementation) */
#define MPI_TRYBLOCK_GLOBAL 1
/* A timeout in nanoseconds. Zero: blocking calls wait without limit, tests check once. */
typedef struct MPI_Timeout {
  long long ftmpi_ns;
} MPI_Timeout;
#ifdef __cplusplus
#define MPI_TIMEOUT_ZERO (MPI_Timeout{0})
#else
#define MPI_TIMEOUT_ZERO ((MPI_Timeout){0})
#endif
FTMPI_DECL(int, Timeout_set_seconds, (MPI_Timeout * timeout, double seconds));
FTMPI_DECL(int, Timeout_get_time, (MPI_Timeout timeout, double *seconds));
FTMPI_DECL(int, Timeout_set_ticks, (MPI_Timeout * timeout, MPI_Aint ticks));
FTMPI_DECL(int, Timeout_get_ticks, (MPI_Timeout timeout, MPI_Aint *ticks));
/* local completion: the requests stay valid (for the TryBlock commit, MPI_Wait/Test or MPI_Request_free) */
FTMPI_DECL(int, Test_local, (MPI_Request * request, int *flag, MPI_Timeout timeout, MPI_Status *status));
FTMPI_DECL(int, Testall_local, (int count, MPI_Request array_of_requests[], int *flag, MPI_Timeout timeout,
                                MPI_Status array_of_statuses[]));
FTMPI_DECL(int, Testsome_local, (MPI_Timeout timeout, int incount, MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[]));
/* MPI_Wait_local: the seed's order (timeout first) is the symbol MPI_Wait_local; the published order
 * (request, status, timeout) is MPI_Wait_local_tl. C11 picks by the first argument, C++ overloads. */
FTMPI_DECL(int, Wait_local, (MPI_Timeout timeout, MPI_Request *request, MPI_Status *status));
FTMPI_DECL(int, Wait_local_tl, (MPI_Request * request, MPI_Status *status, MPI_Timeout timeout));
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define MPI_Wait_local(a, b, c) _Generic((a), MPI_Timeout: MPI_Wait_local, default: MPI_Wait_local_tl)(a, b, c)
#define PMPI_Wait_local(a, b, c) _Generic((a), MPI_Timeout: PMPI_Wait_local, default: PMPI_Wait_local_tl)(a, b, c)
#endif
FTMPI_DECL(int, Waitall_local, (MPI_Timeout timeout, int count, MPI_Request array_of_requests[],
                                MPI_Status array_of_statuses[]));
FTMPI_DECL(int, Waitsome_local, (MPI_Timeout timeout, int incount, MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[]));
/* TryBlocks (seed 001 §7.2-7.3) */
FTMPI_DECL(int, TryBlock_start, (MPI_Comm comm, MPI_Datatype type, void *local_error_injection,
                                 void *group_error_state, MPI_Timeout timeout, MPI_Request *try_request));
FTMPI_DECL(int, TryBlock_istart, (MPI_Comm comm, MPI_Datatype type, void *local_error_injection,
                                  void *group_error_state, MPI_Timeout timeout, MPI_Request *try_request));
FTMPI_DECL(int, TryBlock_waitall, (MPI_Request try_request, int *try_flag, MPI_Status *try_status,
                                   MPI_Datatype type, void *local_error_injection, void *group_error_state,
                                   MPI_Timeout timeout, int count, MPI_Request array_of_requests[],
                                   MPI_Status array_of_statuses[], int *numerrors, int error_indices[]));
FTMPI_DECL(int, TryBlock_testall, (MPI_Request try_request, int *try_flag, MPI_Status *try_status,
                                   MPI_Datatype type, void *local_error_injection, void *group_error_state,
                                   MPI_Timeout timeout, int count, MPI_Request array_of_requests[], int *flag,
                                   MPI_Status array_of_statuses[], int *numerrors, int error_indices[]));
FTMPI_DECL(int, TryBlock_waitsome, (MPI_Request try_request, int *try_flag, MPI_Status *try_status,
                                    MPI_Datatype type, void *local_error_injection, void *group_error_state,
                                    MPI_Timeout timeout, int incount, MPI_Request array_of_requests[],
                                    int *outcount, int array_of_indices[], MPI_Status array_of_statuses[],
                                    int *numerrors, int error_indices[]));
FTMPI_DECL(int, TryBlock_testsome, (MPI_Request try_request, int *try_flag, MPI_Status *try_status,
                                    MPI_Datatype type, void *local_error_injection, void *group_error_state,
                                    MPI_Timeout timeout, int incount, MPI_Request array_of_requests[],
                                    int *outcount, int array_of_indices[], MPI_Status array_of_statuses[],
                                    int *numerrors, int error_indices[]));
FTMPI_DECL(int, TryBlock_multiple_waitall, (int n_try, MPI_Request try_request_array[], int try_flag_array[],
                                            MPI_Status try_status_array[], MPI_Datatype type,
                                            void *local_error_injection, void *group_error_state,
                                            MPI_Timeout timeout, int count, MPI_Request array_of_requests[],
                                            MPI_Status array_of_statuses[], int *numerrors, int error_indices[]));
FTMPI_DECL(int, TryBlock_group_sync, (MPI_Group group, MPI_Request try_request, MPI_Timeout timeout));
FTMPI_DECL(int, TryBlock_group_isync, (MPI_Group group, MPI_Request try_request, MPI_Timeout timeout,
                                       MPI_Request *out_request));
FTMPI_DECL(int, TryBlock_comm_sync, (MPI_Comm sync_comm, MPI_Request try_request, MPI_Timeout timeout));
FTMPI_DECL(int, TryBlock_comm_isync, (MPI_Comm sync_comm, MPI_Request try_request, MPI_Timeout timeout,
                                      MPI_Request *out_request));
FTMPI_DECL(int, TryBlock_get_failed, (MPI_Request try_request, MPI_Group *failed));
/* error injection (seed 001 §7.4) */
FTMPI_DECL(int, Request_raise_error, (MPI_Request request, int code));
FTMPI_DECL(int, Comm_raise_error, (MPI_Comm comm, MPI_Error error));
FTMPI_DECL(int, Comm_rank_raise_error, (MPI_Comm comm, int rank, int error));
FTMPI_DECL(int, Comm_ranks_raise_error, (MPI_Comm comm, int numranks, int rank_list[], int list_of_errors[]));
FTMPI_DECL(int, Comm_rank_raise_forall, (MPI_Comm comm, int rank, int error));
FTMPI_DECL(int, Comm_ranks_raise_forall, (MPI_Comm comm, int numranks, int rank_list[], int list_of_errors[]));
/* published implementation's TryBlock names */
FTMPI_DECL(int, Tryblock_start, (MPI_Comm comm, int flags, MPI_Request *tb));
FTMPI_DECL(int, Tryblock_finish, (MPI_Request tb, int count, MPI_Request array_of_requests[]));
FTMPI_DECL(int, Tryblock_finish_local, (MPI_Request tb, int count, MPI_Request array_of_requests[],
                                        MPI_Timeout timeout));
FTMPI_DECL(int, Get_failed_group, (MPI_Request tb, int ncodes, int codes[], MPI_Comm comm, MPI_Group *group));
/* fault-aware communicator creation (seed 001 §7.5.1, §8.3): sync = agreed among the survivors, returns
 * MPI_GROUP_SHRUNK when members were left out; local = the same communicator, failures reported by the
 * enclosing TryBlock's commit. */
FTMPI_DECL(int, Comm_split_sync, (MPI_Comm comm, int color, int key, MPI_Timeout timeout, MPI_Comm *newcomm));
FTMPI_DECL(int, Comm_split_local, (MPI_Comm comm, int color, int key, MPI_Timeout timeout, MPI_Comm *newcomm));
FTMPI_DECL(int, Comm_isplit_sync, (MPI_Comm comm, int color, int key, MPI_Timeout timeout, MPI_Comm *newcomm,
                                   MPI_Request *request));
FTMPI_DECL(int, Comm_isplit_local, (MPI_Comm comm, int color, int key, MPI_Timeout timeout, MPI_Comm *newcomm,
                                    MPI_Request *request));
FTMPI_DECL(int, Comm_create_group_sync, (MPI_Comm comm, int tag, MPI_Group group, MPI_Timeout timeout,
                                         MPI_Comm *outcomm));
FTMPI_DECL(int, Comm_create_group_local, (MPI_Comm comm, int tag, MPI_Group group, MPI_Timeout timeout,
                                          MPI_Comm *outcomm));
FTMPI_DECL(int, Comm_igroup_sync, (MPI_Comm comm, int tag, MPI_Group group, MPI_Timeout timeout, MPI_Comm *outcomm,
                                   MPI_Request *request));
FTMPI_DECL(int, Comm_igroup_local, (MPI_Comm comm, int tag, MPI_Group group, MPI_Timeout timeout,
                                    MPI_Comm *outcomm, MPI_Request *request));
FTMPI_DECL(int, Comm_isplit_multi_sync, (int numcomms, MPI_Comm *incomms, int num_outcomms, int my_color_array[],
                                         int my_key_array[], MPI_Timeout timeout, MPI_Comm *outcomms, int colltag,
                                         MPI_Request *request));
/* dynamic-process forms (seed 001 §7.5.2, docs/famp.md): FT mode; the origin group shrinks to the agreed
   survivors; the i-forms complete inside the call; merge forms: the children call MPI_Intercomm_merge(parent, 1) */
FTMPI_DECL(int, Comm_spawn_local, (char *command, char *argv[], int maxprocs, MPI_Info info, int numroots,
                                   int list_of_roots[], MPI_Comm comm, MPI_Comm *intercomm, MPI_Timeout timeout,
                                   int array_of_errcodes[]));
FTMPI_DECL(int, Comm_ispawn_local, (char *command, char *argv[], int maxprocs, MPI_Info info, int numroots,
                                    int list_of_roots[], MPI_Comm comm, MPI_Comm *intercomm, MPI_Timeout timeout,
                                    int array_of_errcodes[], MPI_Request *request));
FTMPI_DECL(int, Comm_ispawn_sync, (char *command, char *argv[], int maxprocs, MPI_Info info, int numroots,
                                   int list_of_roots[], MPI_Comm comm, MPI_Comm *intercomm, MPI_Timeout timeout,
                                   int array_of_errcodes[], MPI_Request *request));
FTMPI_DECL(int, Comm_spawn_merge_local, (char *command, char *argv[], int maxprocs, MPI_Info info, int numroots,
                                         int list_of_roots[], MPI_Comm comm, MPI_Comm *outcomm,
                                         MPI_Timeout timeout, int array_of_errcodes[]));
FTMPI_DECL(int, Comm_ispawn_merge_local, (char *command, char *argv[], int maxprocs, MPI_Info info, int numroots,
                                          int list_of_roots[], MPI_Comm comm, MPI_Comm *outcomm,
                                          MPI_Timeout timeout, int array_of_errcodes[], MPI_Request *request));
FTMPI_DECL(int, Comm_ispawn_merge_sync, (char *command, char *argv[], int maxprocs, MPI_Info info, int numroots,
                                         int list_of_roots[], MPI_Comm comm, MPI_Comm *outcomm,
                                         MPI_Timeout timeout, int array_of_errcodes[], MPI_Request *request));
/* ==== end of FA-MPI ==================================================================================== */

/* info (minimal in the foundation) */
FTMPI_DECL(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag));

/* ---- the rest of MPI-3.1.  Declared so that programs compile and link; the functions ftmpi does not
 * implement yet fail with MPI_ERR_UNSUPPORTED_OPERATION through the error handler (fatal by default,
 * with a message naming the function).  docs/api.md lists which ones those are. ---------------------- */

/* point-to-point, status and generalized requests */
FTMPI_DECL(int, Status_set_elements_x, (MPI_Status * status, MPI_Datatype datatype, MPI_Count count));
FTMPI_DECL(int, Grequest_start, (MPI_Grequest_query_function * query_fn, MPI_Grequest_free_function *free_fn,
                                 MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                                 MPI_Request *request));
FTMPI_DECL(int, Grequest_complete, (MPI_Request request));

/* datatypes: the remaining constructors, decoding, external packing, attributes */
FTMPI_DECL(int, Type_create_subarray, (int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                                       const int array_of_starts[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_darray, (int size, int rank, int ndims, const int array_of_gsizes[],
                                     const int array_of_distribs[], const int array_of_dargs[],
                                     const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                     MPI_Datatype *newtype));
FTMPI_DECL(int, Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses,
                                    int *num_datatypes, int *combiner));
FTMPI_DECL(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses,
                                    int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                                    MPI_Datatype array_of_datatypes[]));
FTMPI_DECL(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype));
FTMPI_DECL(int, Pack_external, (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                                void *outbuf, MPI_Aint outsize, MPI_Aint *position));
FTMPI_DECL(int, Unpack_external, (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position,
                                  void *outbuf, int outcount, MPI_Datatype datatype));
FTMPI_DECL(int, Pack_external_size, (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size));
FTMPI_DECL(int, Type_create_keyval, (MPI_Type_copy_attr_function * type_copy_attr_fn,
                                     MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                                     void *extra_state));
FTMPI_DECL(int, Type_free_keyval, (int *type_keyval));
FTMPI_DECL(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val));
FTMPI_DECL(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag));
FTMPI_DECL(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval));
FTMPI_DECL(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp));
FTMPI_DECL(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2));
/* Fortran 90 parameterized types (MPI-3.1 §17.1.9): the predefined C type of the range/precision asked for,
 * as a cached type whose envelope is MPI_COMBINER_F90_*; it must not be freed. */
FTMPI_DECL(int, Type_create_f90_integer, (int r, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype));

/* collectives: v/w variants, scans, reduce-scatter */
FTMPI_DECL(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                          MPI_Comm comm));
FTMPI_DECL(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
FTMPI_DECL(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                            MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
FTMPI_DECL(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
FTMPI_DECL(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm));
FTMPI_DECL(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm));
FTMPI_DECL(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm));

/* non-blocking collectives */
FTMPI_DECL(int, Ibarrier, (MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                         MPI_Request *request));
FTMPI_DECL(int, Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                           MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[],
                            MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request *request));
FTMPI_DECL(int, Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request));
FTMPI_DECL(int, Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                          int root, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[],
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount,
                                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm, MPI_Request *request));

/* neighbourhood collectives (blocking and non-blocking) */
FTMPI_DECL(int, Neighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                      MPI_Comm comm));
FTMPI_DECL(int, Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Neighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Neighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
FTMPI_DECL(int, Ineighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                       void *recvbuf, const int recvcounts[], const int displs[],
                                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Ineighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                                      MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                      MPI_Request *request));
FTMPI_DECL(int, Ineighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                      const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                      MPI_Request *request));

/* communicators: creation with info/tags, intercommunicators, info, attributes and keyvals */
FTMPI_DECL(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm));
FTMPI_DECL(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request));
FTMPI_DECL(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm));
FTMPI_DECL(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm));
FTMPI_DECL(int, Comm_remote_size, (MPI_Comm comm, int *size));
FTMPI_DECL(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group));
FTMPI_DECL(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                                   int tag, MPI_Comm *newintercomm));
FTMPI_DECL(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm));
FTMPI_DECL(int, Comm_set_info, (MPI_Comm comm, MPI_Info info));
FTMPI_DECL(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used));
FTMPI_DECL(int, Comm_create_keyval, (MPI_Comm_copy_attr_function * comm_copy_attr_fn,
                                     MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                                     void *extra_state));
FTMPI_DECL(int, Comm_free_keyval, (int *comm_keyval));
FTMPI_DECL(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val));
FTMPI_DECL(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval));
/* deprecated MPI-1 attribute functions (still in MPI-3.1) */
FTMPI_DECL(int, Keyval_create, (MPI_Copy_function * copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                                void *extra_state));
FTMPI_DECL(int, Keyval_free, (int *keyval));
FTMPI_DECL(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val));
FTMPI_DECL(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag));
FTMPI_DECL(int, Attr_delete, (MPI_Comm comm, int keyval));
/* MPI-1 names removed in MPI-3.0 that both Open MPI 4.1 and MPICH 4.0 still export (MPI_Type_hvector is with
 * the datatype constructors): thin aliases of their MPI-2 replacements. */
typedef void MPI_Handler_function(MPI_Comm *comm, int *code, ...);
FTMPI_DECL(int, Address, (void *location, MPI_Aint *address));
FTMPI_DECL(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent));
FTMPI_DECL(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement));
FTMPI_DECL(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement));
FTMPI_DECL(int, Type_hindexed, (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                                MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_struct, (int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                              MPI_Datatype array_of_types[], MPI_Datatype *newtype));
FTMPI_DECL(int, Errhandler_create, (MPI_Handler_function * function, MPI_Errhandler *errhandler));
FTMPI_DECL(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler));
FTMPI_DECL(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler));

/* error classes, codes and strings of the user; window and file error handlers */
FTMPI_DECL(int, Add_error_class, (int *errorclass));
FTMPI_DECL(int, Add_error_code, (int errorclass, int *errorcode));
FTMPI_DECL(int, Add_error_string, (int errorcode, const char *string));
FTMPI_DECL(int, Win_create_errhandler, (MPI_Win_errhandler_function * win_errhandler_fn,
                                        MPI_Errhandler *errhandler));
FTMPI_DECL(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler));
FTMPI_DECL(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler));
FTMPI_DECL(int, Win_call_errhandler, (MPI_Win win, int errorcode));
FTMPI_DECL(int, File_create_errhandler, (MPI_File_errhandler_function * file_errhandler_fn,
                                         MPI_Errhandler *errhandler));
FTMPI_DECL(int, File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler));
FTMPI_DECL(int, File_get_errhandler, (MPI_File file, MPI_Errhandler *errhandler));
FTMPI_DECL(int, File_call_errhandler, (MPI_File fh, int errorcode));

/* memory, info objects, profiling control */
FTMPI_DECL(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr));
FTMPI_DECL(int, Free_mem, (void *base));
FTMPI_DECL(int, Info_create, (MPI_Info * info));
FTMPI_DECL(int, Info_set, (MPI_Info info, const char *key, const char *value));
FTMPI_DECL(int, Info_delete, (MPI_Info info, const char *key));
FTMPI_DECL(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag));
FTMPI_DECL(int, Info_get_nkeys, (MPI_Info info, int *nkeys));
FTMPI_DECL(int, Info_get_nthkey, (MPI_Info info, int n, char *key));
/* MPI-4.0 (replaces Info_get / Info_get_valuelen): *buflen in = size of value, out = length + 1. */
FTMPI_DECL(int, Info_get_string, (MPI_Info info, const char *key, int *buflen, char *value, int *flag));
FTMPI_DECL(int, Info_dup, (MPI_Info info, MPI_Info *newinfo));
FTMPI_DECL(int, Info_free, (MPI_Info * info));
FTMPI_DECL(int, Pcontrol, (const int level, ...));

/* process topologies */
FTMPI_DECL(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                              MPI_Comm *comm_cart));
FTMPI_DECL(int, Dims_create, (int nnodes, int ndims, int dims[]));
FTMPI_DECL(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                               MPI_Comm *comm_graph));
FTMPI_DECL(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[],
                                             const int sourceweights[], int outdegree, const int destinations[],
                                             const int destweights[], MPI_Info info, int reorder,
                                             MPI_Comm *comm_dist_graph));
FTMPI_DECL(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                    const int destinations[], const int weights[], MPI_Info info, int reorder,
                                    MPI_Comm *comm_dist_graph));
FTMPI_DECL(int, Topo_test, (MPI_Comm comm, int *status));
FTMPI_DECL(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges));
FTMPI_DECL(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]));
FTMPI_DECL(int, Cartdim_get, (MPI_Comm comm, int *ndims));
FTMPI_DECL(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]));
FTMPI_DECL(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank));
FTMPI_DECL(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]));
FTMPI_DECL(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors));
FTMPI_DECL(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]));
FTMPI_DECL(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree, int *outdegree, int *weighted));
FTMPI_DECL(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                                       int maxoutdegree, int destinations[], int destweights[]));
FTMPI_DECL(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest));
FTMPI_DECL(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm));
FTMPI_DECL(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank));
FTMPI_DECL(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank));

/* one-sided communication */
FTMPI_DECL(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             MPI_Win *win));
FTMPI_DECL(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                               MPI_Win *win));
FTMPI_DECL(int, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                      void *baseptr, MPI_Win *win));
FTMPI_DECL(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr));
FTMPI_DECL(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win));
FTMPI_DECL(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size));
FTMPI_DECL(int, Win_detach, (MPI_Win win, const void *base));
FTMPI_DECL(int, Win_free, (MPI_Win * win));
FTMPI_DECL(int, Win_get_group, (MPI_Win win, MPI_Group *group));
FTMPI_DECL(int, Win_set_info, (MPI_Win win, MPI_Info info));
FTMPI_DECL(int, Win_get_info, (MPI_Win win, MPI_Info *info_used));
FTMPI_DECL(int, Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win));
FTMPI_DECL(int, Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win));
FTMPI_DECL(int, Accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                             int target_rank, MPI_Aint target_disp, int target_count,
                             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
FTMPI_DECL(int, Get_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                 void *result_addr, int result_count, MPI_Datatype result_datatype,
                                 int target_rank, MPI_Aint target_disp, int target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
FTMPI_DECL(int, Fetch_and_op, (const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                               int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win));
FTMPI_DECL(int, Compare_and_swap, (const void *origin_addr, const void *compare_addr, void *result_addr,
                                   MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win));
FTMPI_DECL(int, Rput, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                       MPI_Request *request));
FTMPI_DECL(int, Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                       MPI_Request *request));
FTMPI_DECL(int, Raccumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                              int target_rank, MPI_Aint target_disp, int target_count,
                              MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
FTMPI_DECL(int, Rget_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                  void *result_addr, int result_count, MPI_Datatype result_datatype,
                                  int target_rank, MPI_Aint target_disp, int target_count,
                                  MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
FTMPI_DECL(int, Win_fence, (int assert, MPI_Win win));
FTMPI_DECL(int, Win_start, (MPI_Group group, int assert, MPI_Win win));
FTMPI_DECL(int, Win_complete, (MPI_Win win));
FTMPI_DECL(int, Win_post, (MPI_Group group, int assert, MPI_Win win));
FTMPI_DECL(int, Win_wait, (MPI_Win win));
FTMPI_DECL(int, Win_test, (MPI_Win win, int *flag));
FTMPI_DECL(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win));
FTMPI_DECL(int, Win_lock_all, (int assert, MPI_Win win));
FTMPI_DECL(int, Win_unlock, (int rank, MPI_Win win));
FTMPI_DECL(int, Win_unlock_all, (MPI_Win win));
FTMPI_DECL(int, Win_flush, (int rank, MPI_Win win));
FTMPI_DECL(int, Win_flush_all, (MPI_Win win));
FTMPI_DECL(int, Win_flush_local, (int rank, MPI_Win win));
FTMPI_DECL(int, Win_flush_local_all, (MPI_Win win));
FTMPI_DECL(int, Win_sync, (MPI_Win win));
FTMPI_DECL(int, Win_create_keyval, (MPI_Win_copy_attr_function * win_copy_attr_fn,
                                    MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                                    void *extra_state));
FTMPI_DECL(int, Win_free_keyval, (int *win_keyval));
FTMPI_DECL(int, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val));
FTMPI_DECL(int, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag));
FTMPI_DECL(int, Win_delete_attr, (MPI_Win win, int win_keyval));
FTMPI_DECL(int, Win_set_name, (MPI_Win win, const char *win_name));
FTMPI_DECL(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen));
/* MPI-4.0 large counts (_c): one-sided communication (§12) */
FTMPI_DECL(int, Win_create_c, (void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win));
FTMPI_DECL(int, Win_allocate_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win));
FTMPI_DECL(int, Win_allocate_shared_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win));
FTMPI_DECL(int, Win_shared_query_c, (MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr));
FTMPI_DECL(int, Put_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win));
FTMPI_DECL(int, Get_c, (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win));
FTMPI_DECL(int, Accumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
FTMPI_DECL(int, Get_accumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win));
FTMPI_DECL(int, Rput_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request));
FTMPI_DECL(int, Rget_c, (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request));
FTMPI_DECL(int, Raccumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));
FTMPI_DECL(int, Rget_accumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request));

/* process creation and management */
FTMPI_DECL(int, Comm_spawn, (const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                             MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]));
FTMPI_DECL(int, Comm_spawn_multiple, (int count, char *array_of_commands[], char **array_of_argv[],
                                      const int array_of_maxprocs[], const MPI_Info array_of_info[], int root,
                                      MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]));
FTMPI_DECL(int, Comm_get_parent, (MPI_Comm * parent));
FTMPI_DECL(int, Open_port, (MPI_Info info, char *port_name));
FTMPI_DECL(int, Close_port, (const char *port_name));
FTMPI_DECL(int, Comm_accept, (const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                              MPI_Comm *newcomm));
FTMPI_DECL(int, Comm_connect, (const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                               MPI_Comm *newcomm));
FTMPI_DECL(int, Publish_name, (const char *service_name, MPI_Info info, const char *port_name));
FTMPI_DECL(int, Unpublish_name, (const char *service_name, MPI_Info info, const char *port_name));
FTMPI_DECL(int, Lookup_name, (const char *service_name, MPI_Info info, char *port_name));
FTMPI_DECL(int, Comm_disconnect, (MPI_Comm * comm));
FTMPI_DECL(int, Comm_join, (int fd, MPI_Comm *intercomm));

/* MPI-IO */
FTMPI_DECL(int, File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh));
FTMPI_DECL(int, File_close, (MPI_File * fh));
FTMPI_DECL(int, File_delete, (const char *filename, MPI_Info info));
FTMPI_DECL(int, File_set_size, (MPI_File fh, MPI_Offset size));
FTMPI_DECL(int, File_preallocate, (MPI_File fh, MPI_Offset size));
FTMPI_DECL(int, File_get_size, (MPI_File fh, MPI_Offset *size));
FTMPI_DECL(int, File_get_group, (MPI_File fh, MPI_Group *group));
FTMPI_DECL(int, File_get_amode, (MPI_File fh, int *amode));
FTMPI_DECL(int, File_set_info, (MPI_File fh, MPI_Info info));
FTMPI_DECL(int, File_get_info, (MPI_File fh, MPI_Info *info_used));
FTMPI_DECL(int, File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                                const char *datarep, MPI_Info info));
FTMPI_DECL(int, File_get_view, (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                                char *datarep));
FTMPI_DECL(int, File_read_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                               MPI_Status *status));
FTMPI_DECL(int, File_read_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                                   MPI_Status *status));
FTMPI_DECL(int, File_write_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_write_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                    MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_iread_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                                MPI_Request *request));
FTMPI_DECL(int, File_iwrite_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_iread_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                                    MPI_Request *request));
FTMPI_DECL(int, File_iwrite_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                     MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_read, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_read_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_write, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                             MPI_Status *status));
FTMPI_DECL(int, File_write_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                 MPI_Status *status));
FTMPI_DECL(int, File_iread, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_iwrite, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                              MPI_Request *request));
FTMPI_DECL(int, File_iread_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                 MPI_Request *request));
FTMPI_DECL(int, File_iwrite_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                  MPI_Request *request));
FTMPI_DECL(int, File_seek, (MPI_File fh, MPI_Offset offset, int whence));
FTMPI_DECL(int, File_get_position, (MPI_File fh, MPI_Offset *offset));
FTMPI_DECL(int, File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset *disp));
FTMPI_DECL(int, File_read_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                   MPI_Status *status));
FTMPI_DECL(int, File_write_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                    MPI_Status *status));
FTMPI_DECL(int, File_iread_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                    MPI_Request *request));
FTMPI_DECL(int, File_iwrite_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                     MPI_Request *request));
FTMPI_DECL(int, File_read_ordered, (MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                                    MPI_Status *status));
FTMPI_DECL(int, File_write_ordered, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                                     MPI_Status *status));
FTMPI_DECL(int, File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence));
FTMPI_DECL(int, File_get_position_shared, (MPI_File fh, MPI_Offset *offset));
FTMPI_DECL(int, File_read_at_all_begin, (MPI_File fh, MPI_Offset offset, void *buf, int count,
                                         MPI_Datatype datatype));
FTMPI_DECL(int, File_read_at_all_end, (MPI_File fh, void *buf, MPI_Status *status));
FTMPI_DECL(int, File_write_at_all_begin, (MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                          MPI_Datatype datatype));
FTMPI_DECL(int, File_write_at_all_end, (MPI_File fh, const void *buf, MPI_Status *status));
FTMPI_DECL(int, File_read_all_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype));
FTMPI_DECL(int, File_read_all_end, (MPI_File fh, void *buf, MPI_Status *status));
FTMPI_DECL(int, File_write_all_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype));
FTMPI_DECL(int, File_write_all_end, (MPI_File fh, const void *buf, MPI_Status *status));
FTMPI_DECL(int, File_read_ordered_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype));
FTMPI_DECL(int, File_read_ordered_end, (MPI_File fh, void *buf, MPI_Status *status));
FTMPI_DECL(int, File_write_ordered_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype));
FTMPI_DECL(int, File_write_ordered_end, (MPI_File fh, const void *buf, MPI_Status *status));
FTMPI_DECL(int, File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent));
FTMPI_DECL(int, Register_datarep, (const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                                   MPI_Datarep_conversion_function *write_conversion_fn,
                                   MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state));
FTMPI_DECL(int, File_set_atomicity, (MPI_File fh, int flag));
FTMPI_DECL(int, File_get_atomicity, (MPI_File fh, int *flag));
FTMPI_DECL(int, File_sync, (MPI_File fh));

/* language interoperability: handles <-> Fortran integers (a per-process table), statuses */
FTMPI_DECL(MPI_Fint, Comm_c2f, (MPI_Comm comm));
FTMPI_DECL(MPI_Comm, Comm_f2c, (MPI_Fint comm));
FTMPI_DECL(MPI_Fint, Type_c2f, (MPI_Datatype datatype));
FTMPI_DECL(MPI_Datatype, Type_f2c, (MPI_Fint datatype));
FTMPI_DECL(MPI_Fint, Group_c2f, (MPI_Group group));
FTMPI_DECL(MPI_Group, Group_f2c, (MPI_Fint group));
FTMPI_DECL(MPI_Fint, Request_c2f, (MPI_Request request));
FTMPI_DECL(MPI_Request, Request_f2c, (MPI_Fint request));
FTMPI_DECL(MPI_Fint, Op_c2f, (MPI_Op op));
FTMPI_DECL(MPI_Op, Op_f2c, (MPI_Fint op));
FTMPI_DECL(MPI_Fint, Info_c2f, (MPI_Info info));
FTMPI_DECL(MPI_Info, Info_f2c, (MPI_Fint info));
FTMPI_DECL(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler));
FTMPI_DECL(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler));
FTMPI_DECL(MPI_Fint, Win_c2f, (MPI_Win win));
FTMPI_DECL(MPI_Win, Win_f2c, (MPI_Fint win));
FTMPI_DECL(MPI_Fint, File_c2f, (MPI_File file));
FTMPI_DECL(MPI_File, File_f2c, (MPI_Fint file));
FTMPI_DECL(MPI_Fint, Message_c2f, (MPI_Message message));
FTMPI_DECL(MPI_Message, Message_f2c, (MPI_Fint message));
FTMPI_DECL(int, Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status));
FTMPI_DECL(int, Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status));

/* fault tolerance on windows and files, seed spelling (seed 000; windows: src/rma, files: src/io) */
FTMPI_DECL(int, Win_invalidate, (MPI_Win win));
FTMPI_DECL(int, Win_get_failed, (MPI_Win win, MPI_Group *failedgroup));
FTMPI_API int MPIX_Win_revoke(MPI_Win win); /* ULFM spelling of MPI_Win_invalidate */
FTMPI_API int PMPIX_Win_revoke(MPI_Win win);
FTMPI_DECL(int, File_invalidate, (MPI_File fh));
FTMPI_API int MPIX_File_revoke(MPI_File fh); /* ULFM-style spelling of MPI_File_invalidate */
FTMPI_API int PMPIX_File_revoke(MPI_File fh);

/* MPI-4.0 sessions (§11.3), info before MPI_Init, idup with info (docs/api.md "Sessions") */
typedef struct ftmpi_session_s *MPI_Session;
#define MPI_SESSION_NULL ((MPI_Session)0)
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256
#define MPI_ERR_SESSION 62
typedef void MPI_Session_errhandler_function(MPI_Session *session, int *code, ...);
FTMPI_DECL(MPI_Fint, Session_c2f, (MPI_Session session));
FTMPI_DECL(MPI_Session, Session_f2c, (MPI_Fint session));
FTMPI_DECL(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session));
FTMPI_DECL(int, Session_finalize, (MPI_Session * session));
FTMPI_DECL(int, Session_get_num_psets, (MPI_Session session, MPI_Info info, int *npset_names));
FTMPI_DECL(int, Session_get_nth_pset, (MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name));
FTMPI_DECL(int, Session_get_pset_info, (MPI_Session session, const char *pset_name, MPI_Info *info));
FTMPI_DECL(int, Session_get_info, (MPI_Session session, MPI_Info *info_used));
FTMPI_DECL(int, Session_set_errhandler, (MPI_Session session, MPI_Errhandler errhandler));
FTMPI_DECL(int, Session_get_errhandler, (MPI_Session session, MPI_Errhandler *errhandler));
FTMPI_DECL(int, Session_call_errhandler, (MPI_Session session, int errorcode));
FTMPI_DECL(int, Session_create_errhandler, (MPI_Session_errhandler_function * fn, MPI_Errhandler *errhandler));
FTMPI_DECL(int, Group_from_session_pset, (MPI_Session session, const char *pset_name, MPI_Group *newgroup));
FTMPI_DECL(int, Comm_create_from_group, (MPI_Group group, const char *stringtag, MPI_Info info,
                                         MPI_Errhandler errhandler, MPI_Comm *newcomm));
FTMPI_DECL(int, Info_create_env, (int argc, char *argv[], MPI_Info *info));
FTMPI_DECL(int, Comm_idup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request));
/* ==== MPI-4.0 / 4.1: Isendrecv, persistent collectives, large counts, buffer flush (branch mpi4) ========= */
/* MPI-4.0 §3.10: non-blocking send-receive */
FTMPI_DECL(int, Isendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Isendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request));
/* MPI-4.0 chapter 4: partitioned point-to-point communication (src/p2p/partitioned.h) */
FTMPI_DECL(int, Psend_init, (const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Precv_init, (void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Pready, (int partition, MPI_Request request));
FTMPI_DECL(int, Pready_range, (int partition_low, int partition_high, MPI_Request request));
FTMPI_DECL(int, Pready_list, (int length, const int array_of_partitions[], MPI_Request request));
FTMPI_DECL(int, Parrived, (MPI_Request request, int partition, int *flag));
/* MPI-4.0 §6.13, §8.8: persistent collectives */
FTMPI_DECL(int, Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Bcast_init, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Gather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Gatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Scatter_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Scatterv_init, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Allgatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Alltoallv_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Alltoallw_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Reduce_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Allreduce_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Reduce_scatter_block_init, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Reduce_scatter_init, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Scan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Exscan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Neighbor_allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Neighbor_allgatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Neighbor_alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Neighbor_alltoallv_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Neighbor_alltoallw_init, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request));
/* MPI-4.1 §3.6: buffered-send buffers of the process, of a communicator, of a session; flushing them;
 * MPI_BUFFER_AUTOMATIC (the library sizes the buffer itself) */
#define MPI_BUFFER_AUTOMATIC ((void *)-2)
FTMPI_DECL(int, Buffer_flush, (void));
FTMPI_DECL(int, Buffer_iflush, (MPI_Request *request));
FTMPI_DECL(int, Comm_attach_buffer, (MPI_Comm comm, void *buffer, int size));
FTMPI_DECL(int, Comm_detach_buffer, (MPI_Comm comm, void *buffer_addr, int *size));
FTMPI_DECL(int, Comm_flush_buffer, (MPI_Comm comm));
FTMPI_DECL(int, Comm_iflush_buffer, (MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Comm_attach_buffer_c, (MPI_Comm comm, void *buffer, MPI_Count size));
FTMPI_DECL(int, Comm_detach_buffer_c, (MPI_Comm comm, void *buffer_addr, MPI_Count *size));
FTMPI_DECL(int, Session_attach_buffer, (MPI_Session session, void *buffer, int size));
FTMPI_DECL(int, Session_detach_buffer, (MPI_Session session, void *buffer_addr, int *size));
FTMPI_DECL(int, Session_flush_buffer, (MPI_Session session));
FTMPI_DECL(int, Session_iflush_buffer, (MPI_Session session, MPI_Request *request));
FTMPI_DECL(int, Session_attach_buffer_c, (MPI_Session session, void *buffer, MPI_Count size));
FTMPI_DECL(int, Session_detach_buffer_c, (MPI_Session session, void *buffer_addr, MPI_Count *size));
/* MPI-4.0 large counts (_c): point-to-point (§3) */
FTMPI_DECL(int, Send_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
FTMPI_DECL(int, Bsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
FTMPI_DECL(int, Ssend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
FTMPI_DECL(int, Rsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm));
FTMPI_DECL(int, Isend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Ibsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Issend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Irsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Send_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Bsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Ssend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Rsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Recv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status));
FTMPI_DECL(int, Irecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Recv_init_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Mrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status));
FTMPI_DECL(int, Imrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request));
FTMPI_DECL(int, Sendrecv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status));
FTMPI_DECL(int, Sendrecv_replace_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status));
FTMPI_DECL(int, Isendrecv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Isendrecv_replace_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Buffer_attach_c, (void *buffer, MPI_Count size));
FTMPI_DECL(int, Buffer_detach_c, (void *buffer_addr, MPI_Count *size));
FTMPI_DECL(int, Get_count_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
/* MPI-4.0 large counts (_c): datatypes (§5) */
FTMPI_DECL(int, Get_elements_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count));
FTMPI_DECL(int, Type_size_c, (MPI_Datatype datatype, MPI_Count *size));
FTMPI_DECL(int, Type_get_extent_c, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent));
FTMPI_DECL(int, Type_get_true_extent_c, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent));
FTMPI_DECL(int, Type_contiguous_c, (MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_vector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_hvector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_indexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_hindexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_indexed_block_c, (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_hindexed_block_c, (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_struct_c, (MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_subarray_c, (int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_darray_c, (int size, int rank, int ndims, const MPI_Count array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_create_resized_c, (MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype));
FTMPI_DECL(int, Type_get_envelope_c, (MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses, MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner));
FTMPI_DECL(int, Type_get_contents_c, (MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses, MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]));
FTMPI_DECL(int, Pack_c, (const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm));
FTMPI_DECL(int, Unpack_c, (const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm));
FTMPI_DECL(int, Pack_size_c, (MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size));
FTMPI_DECL(int, Pack_external_c, (const char datarep[], const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position));
FTMPI_DECL(int, Unpack_external_c, (const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype));
FTMPI_DECL(int, Pack_external_size_c, (const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count *size));
/* MPI-4.0 large counts (_c): collectives (§6) and neighbourhood collectives (§8.6), generated by tools/gen_large_count_coll.py */
FTMPI_DECL(int, Bcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm));
FTMPI_DECL(int, Ibcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Bcast_init_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Gather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
FTMPI_DECL(int, Igather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Gather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Gatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm));
FTMPI_DECL(int, Igatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Gatherv_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Scatter_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
FTMPI_DECL(int, Iscatter_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Scatter_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Scatterv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm));
FTMPI_DECL(int, Iscatterv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Scatterv_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Iallgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Allgather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Iallgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Allgatherv_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Ialltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Alltoall_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Ialltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Alltoallv_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
FTMPI_DECL(int, Ialltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Alltoallw_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Reduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm));
FTMPI_DECL(int, Ireduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Reduce_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Allreduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
FTMPI_DECL(int, Iallreduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Allreduce_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Reduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
FTMPI_DECL(int, Ireduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Reduce_scatter_block_init_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Reduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
FTMPI_DECL(int, Ireduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Reduce_scatter_init_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Scan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
FTMPI_DECL(int, Iscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Scan_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Exscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm));
FTMPI_DECL(int, Iexscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Exscan_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Neighbor_allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Ineighbor_allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Neighbor_allgather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Neighbor_allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Ineighbor_allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Neighbor_allgatherv_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Neighbor_alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Ineighbor_alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Neighbor_alltoall_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Neighbor_alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm));
FTMPI_DECL(int, Ineighbor_alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Neighbor_alltoallv_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Neighbor_alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm));
FTMPI_DECL(int, Ineighbor_alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request));
FTMPI_DECL(int, Neighbor_alltoallw_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request));
FTMPI_DECL(int, Reduce_local_c, (const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op));
/* MPI-4.0 large counts: user reductions with MPI_Count lengths (not implemented) */
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len, MPI_Datatype *datatype);
FTMPI_DECL(int, Op_create_c, (MPI_User_function_c *user_fn, int commute, MPI_Op *op));
/* MPI-4.0 large counts (_c): MPI-IO (§14.4), forwarding to the int forms (src/api/file_large_count.cpp) */
FTMPI_DECL(int, File_read_at_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_iread_at_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_write_at_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_iwrite_at_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_read_at_all_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_iread_at_all_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_read_at_all_begin_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype));
FTMPI_DECL(int, File_write_at_all_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_iwrite_at_all_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_write_at_all_begin_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype));
FTMPI_DECL(int, File_read_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_iread_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_write_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_iwrite_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_read_all_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_iread_all_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_read_all_begin_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype));
FTMPI_DECL(int, File_write_all_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_iwrite_all_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_write_all_begin_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype));
FTMPI_DECL(int, File_read_shared_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_iread_shared_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_write_shared_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_iwrite_shared_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request));
FTMPI_DECL(int, File_read_ordered_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_read_ordered_begin_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype));
FTMPI_DECL(int, File_write_ordered_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status));
FTMPI_DECL(int, File_write_ordered_begin_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype));
FTMPI_DECL(int, File_get_type_extent_c, (MPI_File fh, MPI_Datatype datatype, MPI_Count *extent));
/* ==== end of the MPI-4.0 / 4.1 block (branch mpi4) ===================================================== */

/* ==== asynchronous events (seed 004), LAM's reliable mode (seed 002 §7.3, §8.2), MPI-4 MPI_T events ====
 * docs/events.md, docs/lam.md; shared/design/API.md "Asynchronous events". */
typedef struct {
  int type;       /* MPIX_EVENT_* */
  int world_rank; /* the failed process, the revoker, or the publisher (rank in MPI_COMM_WORLD) */
  int cause;      /* MPIX_CAUSE_* of a failure, 0 otherwise */
  int code;       /* exit code or signal of a failure; the application's code of a user event */
  double time;    /* seconds (CLOCK_REALTIME) when the failure was seen by the launcher, else by this process */
  MPI_Comm comm;  /* revoked / published-on communicator; for a failure the subscription's (MPI_COMM_WORLD in the queue) */
} MPIX_Event;
#define MPIX_EVENT_PROC_FAILED 1
#define MPIX_EVENT_NODE_LOST 2
#define MPIX_EVENT_COMM_REVOKED 3
#define MPIX_EVENT_USER 4
#define MPIX_EVENT_MASK(t) (1 << (t))
#define MPIX_EVENT_MASK_ALL 0x1e
#define MPIX_CAUSE_EXITED 1
#define MPIX_CAUSE_SIGNALED 2
#define MPIX_CAUSE_HUNG 3
#define MPIX_CAUSE_HOST_LOST 4
#define MPIX_CAUSE_DISAPPEARED 5
#define MPIX_CAUSE_REPORTED 6 /* a peer reported it before the launcher's notice arrived: cause not known here */
typedef void MPIX_Event_callback(const MPIX_Event *ev, void *extra);
typedef void MPIX_Failure_callback(MPI_Comm comm, int failed_rank, void *extra);
FTMPI_API int MPIX_Event_poll(MPIX_Event *ev, int *flag);
FTMPI_API int PMPIX_Event_poll(MPIX_Event *ev, int *flag);
FTMPI_API int MPIX_Event_subscribe(MPI_Comm comm, int rank, int type_mask, MPIX_Event_callback *fn, void *extra,
                                   int *subscription);
FTMPI_API int PMPIX_Event_subscribe(MPI_Comm comm, int rank, int type_mask, MPIX_Event_callback *fn, void *extra,
                                    int *subscription);
FTMPI_API int MPIX_Event_unsubscribe(int subscription);
FTMPI_API int PMPIX_Event_unsubscribe(int subscription);
FTMPI_API int MPIX_Event_publish(MPI_Comm comm, int code);
FTMPI_API int PMPIX_Event_publish(MPI_Comm comm, int code);
FTMPI_API int MPIX_Comm_set_failure_callback(MPI_Comm comm, MPIX_Failure_callback *fn, void *extra);
FTMPI_API int PMPIX_Comm_set_failure_callback(MPI_Comm comm, MPIX_Failure_callback *fn, void *extra);
/* LAM's local query (seed 002 §8.2 item 6): the failed members of comm known here, as ranks of comm in
 * detection order; *count is their number (at most maxcount are written). */
FTMPI_API int MPIX_Comm_failed_ranks(MPI_Comm comm, int maxcount, int ranks[], int *count);
FTMPI_API int PMPIX_Comm_failed_ranks(MPI_Comm comm, int maxcount, int ranks[], int *count);
/* Communicator attributes (seed 002 Figure 11): MPI_FAILED_SIZE's value is an int* (the number of failed
 * members known here), MPI_FAILED_LIST's an int* to that many ranks of comm (valid until the next get of
 * MPI_FAILED_LIST on comm or its free). flag is 1 in fault-tolerant mode, 0 otherwise. */
#define MPI_FAILED_LIST 0x64400011
#define MPI_FAILED_SIZE 0x64400013

/* MPI-4.0 tool information interface, the event part (§15.3.8) and what it needs */
typedef struct ftmpi_mpit_event_instance_s *MPI_T_event_instance;
typedef struct ftmpi_mpit_event_registration_s *MPI_T_event_registration;
typedef struct ftmpi_mpit_enum_s *MPI_T_enum;
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_EVENT_REGISTRATION_NULL ((MPI_T_event_registration)0)
typedef enum {
  MPI_T_CB_REQUIRE_NONE = 0,
  MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
  MPI_T_CB_REQUIRE_THREAD_SAFE = 2,
  MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;
typedef enum { MPI_T_SOURCE_ORDERED = 0, MPI_T_SOURCE_UNORDERED = 1 } MPI_T_source_order;
#define MPI_T_VERBOSITY_USER_BASIC 1
#define MPI_T_VERBOSITY_USER_DETAIL 2
#define MPI_T_VERBOSITY_USER_ALL 3
#define MPI_T_VERBOSITY_TUNER_BASIC 4
#define MPI_T_VERBOSITY_TUNER_DETAIL 5
#define MPI_T_VERBOSITY_TUNER_ALL 6
#define MPI_T_VERBOSITY_MPIDEV_BASIC 7
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 8
#define MPI_T_VERBOSITY_MPIDEV_ALL 9
#define MPI_T_BIND_NO_OBJECT 0
#define MPI_T_BIND_MPI_COMM 1
#define MPI_T_ERR_MEMORY 70
#define MPI_T_ERR_NOT_INITIALIZED 71
#define MPI_T_ERR_CANNOT_INIT 72
#define MPI_T_ERR_INVALID_INDEX 73
#define MPI_T_ERR_INVALID_ITEM 74
#define MPI_T_ERR_INVALID_HANDLE 75
#define MPI_T_ERR_OUT_OF_HANDLES 76
#define MPI_T_ERR_INVALID_NAME 77
#define MPI_T_ERR_INVALID 78
#define MPI_T_ERR_NOT_SUPPORTED 79
#define MPI_T_ERR_CVAR_SET_NOT_NOW 89
#define MPI_T_ERR_CVAR_SET_NEVER 90
#define MPI_T_ERR_PVAR_NO_STARTSTOP 91
#define MPI_T_ERR_PVAR_NO_WRITE 92
#define MPI_T_ERR_PVAR_NO_ATOMIC 93
#define MPI_T_ERR_INVALID_SESSION 94
#define MPI_T_ERR_OUT_OF_SESSIONS 95
/* MPI-3.1 §14.3.6-14.3.7: control and performance variables, categories and enumerations
 * (src/api/mpit_vars.cpp; docs/api.md "MPI_T") */
#define MPI_T_BIND_MPI_DATATYPE 2
#define MPI_T_BIND_MPI_ERRHANDLER 3
#define MPI_T_BIND_MPI_FILE 4
#define MPI_T_BIND_MPI_GROUP 5
#define MPI_T_BIND_MPI_OP 6
#define MPI_T_BIND_MPI_REQUEST 7
#define MPI_T_BIND_MPI_WIN 8
#define MPI_T_BIND_MPI_MESSAGE 9
#define MPI_T_BIND_MPI_INFO 10
#define MPI_T_BIND_MPI_SESSION 11
#define MPI_T_SCOPE_CONSTANT 0
#define MPI_T_SCOPE_READONLY 1
#define MPI_T_SCOPE_LOCAL 2
#define MPI_T_SCOPE_GROUP 3
#define MPI_T_SCOPE_GROUP_EQ 4
#define MPI_T_SCOPE_ALL 5
#define MPI_T_SCOPE_ALL_EQ 6
#define MPI_T_PVAR_CLASS_STATE 0
#define MPI_T_PVAR_CLASS_LEVEL 1
#define MPI_T_PVAR_CLASS_SIZE 2
#define MPI_T_PVAR_CLASS_PERCENTAGE 3
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 4
#define MPI_T_PVAR_CLASS_LOWWATERMARK 5
#define MPI_T_PVAR_CLASS_COUNTER 6
#define MPI_T_PVAR_CLASS_AGGREGATE 7
#define MPI_T_PVAR_CLASS_TIMER 8
#define MPI_T_PVAR_CLASS_GENERIC 9
typedef struct ftmpi_mpit_cvar_handle_s *MPI_T_cvar_handle;
typedef struct ftmpi_mpit_pvar_handle_s *MPI_T_pvar_handle;
typedef struct ftmpi_mpit_pvar_session_s *MPI_T_pvar_session;
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)1)
typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance, MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                          void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count, MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety, void *user_data);
FTMPI_DECL(int, T_init_thread, (int required, int *provided));
FTMPI_DECL(int, T_finalize, (void));
FTMPI_DECL(int, T_cvar_get_num, (int *num_cvar));
FTMPI_DECL(int, T_pvar_get_num, (int *num_pvar));
FTMPI_DECL(int, T_category_get_num, (int *num_cat));
FTMPI_DECL(int, T_source_get_num, (int *num_sources));
FTMPI_DECL(int, T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len));
FTMPI_DECL(int, T_enum_get_item, (MPI_T_enum enumtype, int index, int *value, char *name, int *name_len));
FTMPI_DECL(int, T_cvar_get_info, (int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                                  MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope));
FTMPI_DECL(int, T_cvar_get_index, (const char *name, int *cvar_index));
FTMPI_DECL(int, T_cvar_handle_alloc, (int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count));
FTMPI_DECL(int, T_cvar_handle_free, (MPI_T_cvar_handle *handle));
FTMPI_DECL(int, T_cvar_read, (MPI_T_cvar_handle handle, void *buf));
FTMPI_DECL(int, T_cvar_write, (MPI_T_cvar_handle handle, const void *buf));
FTMPI_DECL(int, T_pvar_get_info, (int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                                  MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                                  int *readonly, int *continuous, int *atomic));
FTMPI_DECL(int, T_pvar_get_index, (const char *name, int var_class, int *pvar_index));
FTMPI_DECL(int, T_pvar_session_create, (MPI_T_pvar_session *session));
FTMPI_DECL(int, T_pvar_session_free, (MPI_T_pvar_session *session));
FTMPI_DECL(int, T_pvar_handle_alloc, (MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                                      MPI_T_pvar_handle *handle, int *count));
FTMPI_DECL(int, T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle *handle));
FTMPI_DECL(int, T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle));
FTMPI_DECL(int, T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle));
FTMPI_DECL(int, T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf));
FTMPI_DECL(int, T_pvar_write, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf));
FTMPI_DECL(int, T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle));
FTMPI_DECL(int, T_pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf));
FTMPI_DECL(int, T_category_get_info, (int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                                      int *num_cvars, int *num_pvars, int *num_categories));
FTMPI_DECL(int, T_category_get_num_events, (int cat_index, int *num_events));
FTMPI_DECL(int, T_category_get_index, (const char *name, int *cat_index));
FTMPI_DECL(int, T_category_get_cvars, (int cat_index, int len, int indices[]));
FTMPI_DECL(int, T_category_get_pvars, (int cat_index, int len, int indices[]));
FTMPI_DECL(int, T_category_get_categories, (int cat_index, int len, int indices[]));
FTMPI_DECL(int, T_category_get_events, (int cat_index, int len, int indices[]));
FTMPI_DECL(int, T_category_changed, (int *update_number));
FTMPI_DECL(int, T_source_get_info, (int source_index, char *name, int *name_len, char *desc, int *desc_len,
                                    MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                                    MPI_Info *info));
FTMPI_DECL(int, T_source_get_timestamp, (int source_index, MPI_Count *timestamp));
FTMPI_DECL(int, T_event_get_num, (int *num_events));
FTMPI_DECL(int, T_event_get_info, (int event_index, char *name, int *name_len, int *verbosity,
                                   MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                                   int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                                   int *desc_len, int *bind));
FTMPI_DECL(int, T_event_get_index, (const char *name, int *event_index));
FTMPI_DECL(int, T_event_handle_alloc, (int event_index, void *obj_handle, MPI_Info info,
                                       MPI_T_event_registration *event_registration));
FTMPI_DECL(int, T_event_handle_set_info, (MPI_T_event_registration event_registration, MPI_Info info));
FTMPI_DECL(int, T_event_handle_get_info, (MPI_T_event_registration event_registration, MPI_Info *info_used));
FTMPI_DECL(int, T_event_register_callback, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                            MPI_Info info, void *user_data, MPI_T_event_cb_function *event_cb_function));
FTMPI_DECL(int, T_event_callback_set_info, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                            MPI_Info info));
FTMPI_DECL(int, T_event_callback_get_info, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                            MPI_Info *info_used));
FTMPI_DECL(int, T_event_handle_free, (MPI_T_event_registration event_registration, void *user_data,
                                      MPI_T_event_free_cb_function *free_cb_function));
FTMPI_DECL(int, T_event_set_dropped_handler, (MPI_T_event_registration event_registration,
                                              MPI_T_event_dropped_cb_function *dropped_cb_function));
FTMPI_DECL(int, T_event_read, (MPI_T_event_instance event_instance, int element_index, void *buffer));
FTMPI_DECL(int, T_event_copy, (MPI_T_event_instance event_instance, void *buffer));
FTMPI_DECL(int, T_event_get_timestamp, (MPI_T_event_instance event_instance, MPI_Count *event_timestamp));
FTMPI_DECL(int, T_event_get_source, (MPI_T_event_instance event_instance, int *source_index));
/* ==== end of the events / LAM / MPI_T block ============================================================== */

#undef FTMPI_DECL

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
/* FA-MPI: the published implementation's argument order of MPI_Wait_local (see above). */
inline int MPI_Wait_local(MPI_Request *request, MPI_Status *status, MPI_Timeout timeout) {
  return MPI_Wait_local_tl(request, status, timeout);
}
inline int PMPI_Wait_local(MPI_Request *request, MPI_Status *status, MPI_Timeout timeout) {
  return PMPI_Wait_local_tl(request, status, timeout);
}
#endif

#endif /* FTMPI_MPI_H */
