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

[[maybe_unused]] int unsupported(ftmpi_comm_s* comm, const char* fn) {
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

// memory, info objects, profiling control

// process topologies

// one-sided communication

// process creation and management
// (implemented: src/api/dpm.cpp)

// MPI-IO
// (implemented: src/api/file_*.cpp, Register_datarep in src/api/file_datarep.cpp)


