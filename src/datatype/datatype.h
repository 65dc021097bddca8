// Datatype descriptors. One representation for every type: the element's size/extent/bounds plus, for a
// non-contiguous type, its byte layout as a loop nest of regular segments (datatype/layout.h: count,
// stride, and a byte run or a child layout per segment), so a vector of 10^9 elements is one segment.
// `contiguous` marks the fast path (the bytes [0, size) with size == extent): p2p and collectives then copy
// raw bytes.
//
// Predefined types are global objects (ftmpi_dt_int, ...) initialised at load time (datatype/builtin.cpp).
// Derived types (issue 4) use the same struct, with `layout` describing one element, `kinds` the basic kinds of
// its packed bytes when they mix kinds, and `contents` the constructor call that made it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "util/magic.h"
#include "util/status.h"

namespace ftmpi::dt {

// The basic element kinds reductions and Get_elements need. `none` for types that mix kinds.
enum class Basic : std::uint8_t {
  none, char_, schar, uchar, byte, short_, ushort, int_, uint, long_, ulong, llong, ullong, float_, double_,
  ldouble, wchar, bool_, i8, i16, i32, i64, u8, u16, u32, u64, aint, offset, count, cfloat, cdouble,
  cldouble, packed,
  // pair types for MAXLOC/MINLOC
  float_int, double_int, long_int, int_int, short_int, ldouble_int,
  lb, ub,
  // Fortran kinds with no C twin: LOGICAL (gfortran's 4-byte logical, .true. = 1) and the MAXLOC/MINLOC
  // pairs whose index has the value's type (MPI_2REAL, MPI_2DOUBLE_PRECISION)
  flogical, float_float, double_double,
};

// One contiguous run of an element's bytes (flatten() below).
struct Block {
  std::ptrdiff_t offset;  // from the element's start (may be negative for derived types)
  std::size_t length;     // bytes
};

struct Layout;    // datatype/layout.h
struct KindSeq;   // datatype/kinds.h
struct Contents;  // datatype/contents.h

}  // namespace ftmpi::dt

struct ftmpi_datatype_s {
  std::uint32_t magic = ftmpi::kMagicDatatype;
  ftmpi::dt::Basic basic = ftmpi::dt::Basic::none;  // for predefined types and types built of one kind
  std::size_t size = 0;           // bytes of data in one element
  std::ptrdiff_t lb = 0, extent = 0;
  std::ptrdiff_t true_lb = 0, true_extent = 0;
  bool contiguous = true;         // the bytes [0, size) and size == extent (lb 0)
  bool predefined = false;
  bool committed = true;
  std::size_t basic_count = 1;    // basic elements per element (for Get_elements)
  // One element's bytes in pack order (datatype/layout.h); non-null exactly when !contiguous and size > 0.
  // Shared (immutable) with the types built on this one and with copies (Type_dup, get_contents).
  std::shared_ptr<const ftmpi::dt::Layout> layout;
  std::string name;
  int refs = 1;
  // Derived types: the strictest alignment (bytes) of the basic elements inside, which MPI_Type_create_struct
  // rounds the extent up to (MPI-3.1 §4.1.6, "epsilon"). 0 for predefined types: see dt::alignment().
  std::size_t align = 0;
  // Types that mix basic kinds (basic == none, size > 0): the basic kinds of one element's packed bytes, in
  // order (datatype/kinds.h). Null otherwise: a one-kind type's packed element is size / unit_size(basic)
  // units of `basic`.
  std::shared_ptr<const ftmpi::dt::KindSeq> kinds;
  // Derived types: the constructor call that made the type (MPI_Type_get_envelope / get_contents), shared by
  // the copies MPI_Type_get_contents hands out. Null for predefined types.
  std::shared_ptr<const ftmpi::dt::Contents> contents;
  // A stand-in the large-count (_c) functions make for `alias_count` (> INT_MAX) elements of `alias_of`
  // (api/large_count.h): a contiguous type of them, passed as one element to the int paths. User reduction
  // functions are called with alias_of and the element count, never with the stand-in.
  const ftmpi_datatype_s* alias_of = nullptr;
  std::size_t alias_count = 0;
};

namespace ftmpi::dt {
using Datatype = ftmpi_datatype_s;

// Bytes of packed data for `count` elements.
inline std::size_t packed_size(const Datatype* t, std::size_t count) { return t->size * count; }

// Copy `count` elements at `src` (laid out per the type) into contiguous `dst` (packed_size bytes).
void pack(const void* src, std::size_t count, const Datatype* t, void* dst);
// Inverse of pack: scatter `bytes` packed bytes into `dst` laid out per the type. `bytes` may be less than
// a whole number of elements (a short message): only complete blocks and a partial last block are written.
void unpack(const void* src, std::size_t bytes, const Datatype* t, void* dst);
// Partial pack/unpack, for pipelined or chunked transfers: the packed bytes [offset, offset + bytes) of the
// elements of `t` laid out from `typed` (element i at i * extent), to/from contiguous `packed`. Any offset
// works; finding it costs O(depth * log segments), not a walk from the start. The caller keeps
// offset + bytes within the elements it owns.
void pack_range(const void* typed, const Datatype* t, std::size_t offset, std::size_t bytes, void* packed);
void unpack_range(const void* packed, const Datatype* t, std::size_t offset, std::size_t bytes, void* typed);

// The contiguous runs of one element of `t` in pack order, touching runs merged: the reference flattening
// (tests, diagnostics). Empty for contiguous types. Costs memory in the number of runs: never used on the
// communication path.
std::vector<Block> flatten(const Datatype* t);

// True when `t` points at a live datatype object (predefined or derived, committed or not, not freed).
inline bool live(const Datatype* t) { return t != nullptr && t->magic == kMagicDatatype; }
// True for a type the user may communicate with (committed, not freed, not MPI_LB/UB).
inline bool usable(const Datatype* t) {
  return live(t) && t->committed && t->basic != Basic::lb && t->basic != Basic::ub;
}

// Bytes of one basic unit of kind `b` in packed form (pair types: value + int without padding, e.g.
// 12 for double_int). 0 for none/lb/ub.
std::size_t unit_size(Basic b);
// True for the MAXLOC/MINLOC pair kinds.
bool is_pair(Basic b);
// Bytes of a pair kind's index (an int, or the value's type for the Fortran pairs).
std::size_t pair_index_size(Basic b);

// Basic elements (MPI_Get_elements) contained in `bytes` packed bytes of type `t`: whole elements count
// `basic_count` each, a trailing partial element counts the basic values it fully holds (a pair's value
// and its int count one each).
std::size_t elements_in(const Datatype* t, std::size_t bytes);
// Inverse of elements_in: packed bytes holding `elements` basic elements of `t` (MPI_Status_set_elements).
std::size_t bytes_for_elements(const Datatype* t, std::size_t elements);
}  // namespace ftmpi::dt
