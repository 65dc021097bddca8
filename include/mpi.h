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

/* ---- callback types ------------------------------------------------------------------------------- */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);

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

/* datatypes (predefined in the foundation; derived ones come with the breadth issue) */
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

/* info (minimal in the foundation) */
FTMPI_DECL(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag));

#undef FTMPI_DECL

#ifdef __cplusplus
}
#endif

#endif /* FTMPI_MPI_H */
