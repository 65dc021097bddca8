// Local data movement used by the collective algorithms.
#pragma once
#include <cstddef>

#include "coll/schedule.h"
#include "datatype/datatype.h"

namespace ftmpi::coll {

// Copy `scount` elements of `stype` at `src` into `dst` laid out as `rtype` (type signatures match, as
// MPI requires of the two sides of a collective; at most rcount elements' worth of bytes is written).
void copy_typed(const void* src, std::size_t scount, const ftmpi_datatype_s* stype, void* dst, std::size_t rcount,
                const ftmpi_datatype_s* rtype);

// Bytes a buffer of `count` elements of `type` spans (true extent of the first element plus count-1 extents).
std::size_t typed_span(std::size_t count, const ftmpi_datatype_s* type);

// A scratch buffer owned by `s`, big enough for `count` elements of `type` laid out as the type says
// (true extent, holes included), so that reductions and the engine can use it like a user buffer.
// Returns the address of element 0 (the buffer start minus the type's true lower bound).
void* typed_scratch(Schedule& s, std::size_t count, const ftmpi_datatype_s* type);

// Address of block `i` of a buffer of blocks of `count` elements of `type` each (gather/scatter layouts).
inline char* block_at(void* base, std::size_t i, std::size_t count, const ftmpi_datatype_s* type) {
  return static_cast<char*>(base) + static_cast<std::ptrdiff_t>(i * count) * type->extent;
}
inline const char* block_at(const void* base, std::size_t i, std::size_t count, const ftmpi_datatype_s* type) {
  return static_cast<const char*>(base) + static_cast<std::ptrdiff_t>(i * count) * type->extent;
}

}  // namespace ftmpi::coll
