// MPI-4.0 large-count (_c) forms of the MPI-IO data accesses (§14.4) and MPI_File_get_type_extent_c. Each
// forwards to its int form (api/file_*.cpp) through LargeCount (api/large_count.h): a count up to INT_MAX as
// itself, a larger one as ONE element of a contiguous stand-in type of `count` elements (the file paths count
// bytes in 64 bits, and a status reports bytes, so MPI_Get_count_c answers the real count). A negative
// count reaches the int form as -1 (MPI_ERR_COUNT). Non-blocking and split accesses keep using the
// stand-in after the call returns (datatype objects are never deleted, datatype/derived.h).
#include "api/file_common.h"
#include "api/large_count.h"

using ftmpi::api::LargeCount;

#define FTMPI_FILE_C(Name, Params, Pass)                                                       \
  extern "C" int PMPI_File_##Name##_c Params {                                                 \
    static constexpr const char* fn = "MPI_File_" #Name "_c";                                  \
    FTMPI_ENTER(fn);                                                                           \
    FTMPI_CHECK_FILE(fh, fn);                                                                  \
    LargeCount c(count, datatype, true);                                                       \
    if (!c.status.ok()) return ftmpi::api::file_ret(fh, c.status, fn);                         \
    return PMPI_File_##Name Pass;                                                              \
  }                                                                                            \
  FTMPI_ALIAS(File_##Name##_c)

FTMPI_FILE_C(read_at, (MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status),
             (fh, offset, buf, c.count, c.type, status))
FTMPI_FILE_C(iread_at, (MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request),
             (fh, offset, buf, c.count, c.type, request))
FTMPI_FILE_C(write_at, (MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status),
             (fh, offset, buf, c.count, c.type, status))
FTMPI_FILE_C(iwrite_at, (MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request),
             (fh, offset, buf, c.count, c.type, request))
FTMPI_FILE_C(read_at_all, (MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status),
             (fh, offset, buf, c.count, c.type, status))
FTMPI_FILE_C(iread_at_all, (MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request),
             (fh, offset, buf, c.count, c.type, request))
FTMPI_FILE_C(read_at_all_begin, (MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count, MPI_Datatype datatype),
             (fh, offset, buf, c.count, c.type))
FTMPI_FILE_C(write_at_all, (MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status),
             (fh, offset, buf, c.count, c.type, status))
FTMPI_FILE_C(iwrite_at_all, (MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request),
             (fh, offset, buf, c.count, c.type, request))
FTMPI_FILE_C(write_at_all_begin, (MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count, MPI_Datatype datatype),
             (fh, offset, buf, c.count, c.type))
FTMPI_FILE_C(read, (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status),
             (fh, buf, c.count, c.type, status))
FTMPI_FILE_C(iread, (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request),
             (fh, buf, c.count, c.type, request))
FTMPI_FILE_C(write, (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status),
             (fh, buf, c.count, c.type, status))
FTMPI_FILE_C(iwrite, (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request),
             (fh, buf, c.count, c.type, request))
FTMPI_FILE_C(read_all, (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status),
             (fh, buf, c.count, c.type, status))
FTMPI_FILE_C(iread_all, (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request),
             (fh, buf, c.count, c.type, request))
FTMPI_FILE_C(read_all_begin, (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype),
             (fh, buf, c.count, c.type))
FTMPI_FILE_C(write_all, (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status),
             (fh, buf, c.count, c.type, status))
FTMPI_FILE_C(iwrite_all, (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request),
             (fh, buf, c.count, c.type, request))
FTMPI_FILE_C(write_all_begin, (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype),
             (fh, buf, c.count, c.type))
FTMPI_FILE_C(read_shared, (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status),
             (fh, buf, c.count, c.type, status))
FTMPI_FILE_C(iread_shared, (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request),
             (fh, buf, c.count, c.type, request))
FTMPI_FILE_C(write_shared, (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status),
             (fh, buf, c.count, c.type, status))
FTMPI_FILE_C(iwrite_shared, (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Request* request),
             (fh, buf, c.count, c.type, request))
FTMPI_FILE_C(read_ordered, (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status),
             (fh, buf, c.count, c.type, status))
FTMPI_FILE_C(read_ordered_begin, (MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype),
             (fh, buf, c.count, c.type))
FTMPI_FILE_C(write_ordered, (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Status* status),
             (fh, buf, c.count, c.type, status))
FTMPI_FILE_C(write_ordered_begin, (MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype),
             (fh, buf, c.count, c.type))

extern "C" int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count* extent) {
  static constexpr const char* fn = "MPI_File_get_type_extent_c";
  FTMPI_ENTER(fn);
  MPI_Aint e = 0;
  const int rc = PMPI_File_get_type_extent(fh, datatype, extent ? &e : nullptr);
  if (rc == MPI_SUCCESS && extent) *extent = static_cast<MPI_Count>(e);
  return rc;
}
FTMPI_ALIAS(File_get_type_extent_c)
