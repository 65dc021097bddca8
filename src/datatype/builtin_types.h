// The predefined datatype objects (MPI_INT, ...) live in datatype/builtin.cpp as the global objects that
// include/mpi.h declares (ftmpi_dt_*). Their order in mpi.h is the order of dt::Basic.
//
// Every predefined type has the real layout of its C type on this platform (sizeof/offsetof): basic types
// are contiguous; the MAXLOC/MINLOC pair types (MPI_DOUBLE_INT = struct { double; int; }) carry their
// padding in `extent`, so most of them are not contiguous and their `layout` holds the fields (merged where
// the fields touch). MPI_LB and MPI_UB are size-0 markers that cannot be used for communication.
#pragma once
#include "datatype/datatype.h"

namespace ftmpi::dt {
// The predefined datatype of kind `b`; nullptr for Basic::none.
const Datatype* builtin(Basic b);

// MPI_Type_match_size: the predefined type of class `c` whose values take `bytes` bytes, nullptr if none.
// Real: float, double, long double; integer: int8_t .. int64_t; complex: the C complex types.
enum class TypeClass : std::uint8_t { real, integer, complex };
const Datatype* builtin_of_size(TypeClass c, std::size_t bytes);
}  // namespace ftmpi::dt
