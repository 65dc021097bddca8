// C API: the MPI-3.1 functions ftmpi declares but does not implement yet.
//
// Project rule: a function we do not implement yet fails loudly, never silently does nothing. Each one below
// is PMPI_X (with the weak MPI_X alias) and reports MPI_ERR_UNSUPPORTED_OPERATION through the error-handler
// machinery: under the default MPI_ERRORS_ARE_FATAL the job aborts with "MPI_X is not implemented in ftmpi
// yet (see docs/api.md)"; under MPI_ERRORS_RETURN the call returns the code. The handler is the one of the
// call's communicator argument when it has a valid one, MPI_COMM_WORLD's otherwise. Calls before MPI_Init
// fail the same way (fatal).
//
// Implementing one of these: define PMPI_X (+ FTMPI_ALIAS) in the file of its component and delete its line
// here. The stubs are weak, so a real definition elsewhere in libmpi already wins at link time (no duplicate
// symbol while the line is still here): the linker keeps the first of two weak MPI_X aliases, and this file
// sorts after the other src/api files. The test api_symbols (tests/mpi/check_symbols.cmake) checks that every
// declaration of mpi.h is exported as MPI_X and PMPI_X and that MPI_X is PMPI_X (same address).
#include <string>

#include "api/common.h"

namespace {

int unsupported(ftmpi_comm_s* comm, const char* fn) {
  const std::string msg = std::string(fn) + " is not implemented in ftmpi yet (see docs/api.md)";
  return ftmpi::api::ret(ftmpi::api::valid_comm(comm) ? comm : nullptr, ftmpi::Status(ftmpi::Errc::unsupported, msg),
                         fn);
}

}  // namespace

// FTMPI_UNSUPPORTED(Name, comm-or-nullptr, (parameter types; the communicator one named comm))
#define FTMPI_UNSUPPORTED(name, on, params)                                                           \
  extern "C" __attribute__((weak)) int PMPI_##name params { return unsupported(on, "MPI_" #name); } \
  FTMPI_ALIAS(name)

// communicators: creation with info/tags, intercommunicators, info, attributes and keyvals

// deprecated MPI-1 attribute functions (still in MPI-3.1)

// error classes, codes and strings of the user; window and file error handlers
FTMPI_UNSUPPORTED(File_create_errhandler, nullptr, (MPI_File_errhandler_function*, MPI_Errhandler*))
FTMPI_UNSUPPORTED(File_set_errhandler, nullptr, (MPI_File, MPI_Errhandler))
FTMPI_UNSUPPORTED(File_get_errhandler, nullptr, (MPI_File, MPI_Errhandler*))
FTMPI_UNSUPPORTED(File_call_errhandler, nullptr, (MPI_File, int))

// memory, info objects, profiling control

// process topologies

// one-sided communication

// process creation and management
// (implemented: src/api/dpm.cpp)

// MPI-IO
FTMPI_UNSUPPORTED(File_open, comm, (MPI_Comm comm, const char*, int, MPI_Info, MPI_File*))
FTMPI_UNSUPPORTED(File_close, nullptr, (MPI_File*))
FTMPI_UNSUPPORTED(File_delete, nullptr, (const char*, MPI_Info))
FTMPI_UNSUPPORTED(File_set_size, nullptr, (MPI_File, MPI_Offset))
FTMPI_UNSUPPORTED(File_preallocate, nullptr, (MPI_File, MPI_Offset))
FTMPI_UNSUPPORTED(File_get_size, nullptr, (MPI_File, MPI_Offset*))
FTMPI_UNSUPPORTED(File_get_group, nullptr, (MPI_File, MPI_Group*))
FTMPI_UNSUPPORTED(File_get_amode, nullptr, (MPI_File, int*))
FTMPI_UNSUPPORTED(File_set_info, nullptr, (MPI_File, MPI_Info))
FTMPI_UNSUPPORTED(File_get_info, nullptr, (MPI_File, MPI_Info*))
FTMPI_UNSUPPORTED(File_set_view, nullptr, (MPI_File, MPI_Offset, MPI_Datatype, MPI_Datatype, const char*, MPI_Info))
FTMPI_UNSUPPORTED(File_get_view, nullptr, (MPI_File, MPI_Offset*, MPI_Datatype*, MPI_Datatype*, char*))
FTMPI_UNSUPPORTED(File_read_at, nullptr, (MPI_File, MPI_Offset, void*, int, MPI_Datatype, MPI_Status*))
FTMPI_UNSUPPORTED(File_read_at_all, nullptr, (MPI_File, MPI_Offset, void*, int, MPI_Datatype, MPI_Status*))
FTMPI_UNSUPPORTED(File_write_at, nullptr, (MPI_File, MPI_Offset, const void*, int, MPI_Datatype, MPI_Status*))
FTMPI_UNSUPPORTED(File_write_at_all, nullptr, (MPI_File, MPI_Offset, const void*, int, MPI_Datatype, MPI_Status*))
FTMPI_UNSUPPORTED(File_iread_at, nullptr, (MPI_File, MPI_Offset, void*, int, MPI_Datatype, MPI_Request*))
FTMPI_UNSUPPORTED(File_iwrite_at, nullptr, (MPI_File, MPI_Offset, const void*, int, MPI_Datatype, MPI_Request*))
FTMPI_UNSUPPORTED(File_iread_at_all, nullptr, (MPI_File, MPI_Offset, void*, int, MPI_Datatype, MPI_Request*))
FTMPI_UNSUPPORTED(File_iwrite_at_all, nullptr, (MPI_File, MPI_Offset, const void*, int, MPI_Datatype, MPI_Request*))
FTMPI_UNSUPPORTED(File_read, nullptr, (MPI_File, void*, int, MPI_Datatype, MPI_Status*))
FTMPI_UNSUPPORTED(File_read_all, nullptr, (MPI_File, void*, int, MPI_Datatype, MPI_Status*))
FTMPI_UNSUPPORTED(File_write, nullptr, (MPI_File, const void*, int, MPI_Datatype, MPI_Status*))
FTMPI_UNSUPPORTED(File_write_all, nullptr, (MPI_File, const void*, int, MPI_Datatype, MPI_Status*))
FTMPI_UNSUPPORTED(File_iread, nullptr, (MPI_File, void*, int, MPI_Datatype, MPI_Request*))
FTMPI_UNSUPPORTED(File_iwrite, nullptr, (MPI_File, const void*, int, MPI_Datatype, MPI_Request*))
FTMPI_UNSUPPORTED(File_iread_all, nullptr, (MPI_File, void*, int, MPI_Datatype, MPI_Request*))
FTMPI_UNSUPPORTED(File_iwrite_all, nullptr, (MPI_File, const void*, int, MPI_Datatype, MPI_Request*))
FTMPI_UNSUPPORTED(File_seek, nullptr, (MPI_File, MPI_Offset, int))
FTMPI_UNSUPPORTED(File_get_position, nullptr, (MPI_File, MPI_Offset*))
FTMPI_UNSUPPORTED(File_get_byte_offset, nullptr, (MPI_File, MPI_Offset, MPI_Offset*))
FTMPI_UNSUPPORTED(File_read_shared, nullptr, (MPI_File, void*, int, MPI_Datatype, MPI_Status*))
FTMPI_UNSUPPORTED(File_write_shared, nullptr, (MPI_File, const void*, int, MPI_Datatype, MPI_Status*))
FTMPI_UNSUPPORTED(File_iread_shared, nullptr, (MPI_File, void*, int, MPI_Datatype, MPI_Request*))
FTMPI_UNSUPPORTED(File_iwrite_shared, nullptr, (MPI_File, const void*, int, MPI_Datatype, MPI_Request*))
FTMPI_UNSUPPORTED(File_read_ordered, nullptr, (MPI_File, void*, int, MPI_Datatype, MPI_Status*))
FTMPI_UNSUPPORTED(File_write_ordered, nullptr, (MPI_File, const void*, int, MPI_Datatype, MPI_Status*))
FTMPI_UNSUPPORTED(File_seek_shared, nullptr, (MPI_File, MPI_Offset, int))
FTMPI_UNSUPPORTED(File_get_position_shared, nullptr, (MPI_File, MPI_Offset*))
FTMPI_UNSUPPORTED(File_read_at_all_begin, nullptr, (MPI_File, MPI_Offset, void*, int, MPI_Datatype))
FTMPI_UNSUPPORTED(File_read_at_all_end, nullptr, (MPI_File, void*, MPI_Status*))
FTMPI_UNSUPPORTED(File_write_at_all_begin, nullptr, (MPI_File, MPI_Offset, const void*, int, MPI_Datatype))
FTMPI_UNSUPPORTED(File_write_at_all_end, nullptr, (MPI_File, const void*, MPI_Status*))
FTMPI_UNSUPPORTED(File_read_all_begin, nullptr, (MPI_File, void*, int, MPI_Datatype))
FTMPI_UNSUPPORTED(File_read_all_end, nullptr, (MPI_File, void*, MPI_Status*))
FTMPI_UNSUPPORTED(File_write_all_begin, nullptr, (MPI_File, const void*, int, MPI_Datatype))
FTMPI_UNSUPPORTED(File_write_all_end, nullptr, (MPI_File, const void*, MPI_Status*))
FTMPI_UNSUPPORTED(File_read_ordered_begin, nullptr, (MPI_File, void*, int, MPI_Datatype))
FTMPI_UNSUPPORTED(File_read_ordered_end, nullptr, (MPI_File, void*, MPI_Status*))
FTMPI_UNSUPPORTED(File_write_ordered_begin, nullptr, (MPI_File, const void*, int, MPI_Datatype))
FTMPI_UNSUPPORTED(File_write_ordered_end, nullptr, (MPI_File, const void*, MPI_Status*))
FTMPI_UNSUPPORTED(File_get_type_extent, nullptr, (MPI_File, MPI_Datatype, MPI_Aint*))
FTMPI_UNSUPPORTED(Register_datarep, nullptr,
                  (const char*, MPI_Datarep_conversion_function*, MPI_Datarep_conversion_function*,
                   MPI_Datarep_extent_function*, void*))
FTMPI_UNSUPPORTED(File_set_atomicity, nullptr, (MPI_File, int))
FTMPI_UNSUPPORTED(File_get_atomicity, nullptr, (MPI_File, int*))
FTMPI_UNSUPPORTED(File_sync, nullptr, (MPI_File))

// fault tolerance on windows and files, seed spelling (seed 000; no windows or files yet)
FTMPI_UNSUPPORTED(File_invalidate, nullptr, (MPI_File))

