// The "external32" data representation (MPI-3.1 §13.5.2), used by MPI_Pack_external / MPI_Unpack_external /
// MPI_Pack_external_size: every basic value big-endian and byte aligned, integers in two's complement,
// floating point in IEEE 754 (MPI_LONG_DOUBLE as binary128), C _Bool as one byte (nonzero = true), wide
// characters as 2-byte Unicode, with the sizes of the standard's table (MPI_LONG and MPI_UNSIGNED_LONG are 4
// bytes, MPI_AINT/MPI_OFFSET/MPI_COUNT 8, ...). Complex types are two floating point values; the MINLOC/
// MAXLOC pair types are their two fields (value, then a 4-byte int) back to back.
//
// Both directions convert between external32 and the homogeneous packed form of dt::pack (the type map's
// values back to back), so a non-contiguous type is packed first and converted second.
#pragma once
#include <cstddef>

#include "datatype/datatype.h"
#include "util/status.h"

namespace ftmpi::dt {

// Bytes of one basic unit of kind `b` in external32 (a pair: both fields). 0 for none/lb/ub.
std::size_t external32_unit_size(Basic b);

// Bytes of `count` elements of `t` in external32.
std::size_t external32_size(const Datatype* t, std::size_t count);

// `count` elements of `t` in packed native form at `native` (count * t->size bytes) → external32 at `ext`
// (external32_size bytes). Errc::conversion when a value has no external32 form (a long outside 32 bits, a
// wide character above U+FFFF); the output is then incomplete.
Status to_external32(const void* native, std::size_t count, const Datatype* t, void* ext);

// The inverse: external32 at `ext` → packed native form at `native`. Errc::conversion when a value does not
// fit its native type (only possible where the native type is narrower than external32's).
Status from_external32(const void* ext, std::size_t count, const Datatype* t, void* native);

}  // namespace ftmpi::dt
