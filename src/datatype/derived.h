// Derived datatypes: constructors that describe a new type's layout in terms of the old type's (layout.h).
//
// Contracts:
//  * `old` is live (dt::live) and not MPI_LB/UB; the result is a new uncommitted type (committed = false)
//    owned by the caller, who gives it back with retire().
//  * The layout keeps type-map order (that is the pack order). Regular constructors stay regular: a vector,
//    hvector or subarray is a segment (count, stride) around old's layout, whatever its count, so building
//    one costs O(1) time and memory in its element count (indexed types: O(number of blocks), evenly spaced
//    blocks of one length merged into one segment). A result that is the bytes [0, size) with
//    size == extent is `contiguous` (no layout stored).
//  * Blocks of zero length place nothing: they do not count for lb/ub/extent (nor true bounds).
//  * Counts and byte sizes are checked for overflow: Errc::count for a negative/huge count, Errc::arg
//    for a type whose size or extent does not fit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "datatype/datatype.h"
#include "datatype/kinds.h"
#include "datatype/layout.h"
#include "util/status.h"

namespace ftmpi::dt {

// Builds one element of a new type from copies of old elements placed at byte displacements, in order.
// Usable for contiguous, vector, hvector, indexed and (with one kind per call) struct constructors.
class TypeBuilder {
 public:
  // Append `n` copies of `old`, the k-th at byte displacement `disp + k * stride` (O(1) whatever n).
  Status add(const Datatype* old, std::ptrdiff_t disp, std::size_t n, std::ptrdiff_t stride);
  // Append `n` copies of `old` back to back (k-th at `disp + k * old->extent`).
  Status add(const Datatype* old, std::ptrdiff_t disp, std::size_t n = 1) { return add(old, disp, n, old->extent); }
  // The finished type (uncommitted, refs = 1). The builder is empty afterwards.
  Result<Datatype*> finish();

 private:
  void add_run(Basic kind, std::size_t units);
  void add_repeats(const std::shared_ptr<const KindSeq>& seq, std::size_t n);

  LayoutBuilder layout_;
  KindSeq kinds_;  // the packed bytes' kinds, kept when the result mixes kinds
  std::size_t size_ = 0;
  std::size_t basic_count_ = 0;
  Basic basic_ = Basic::none;
  bool any_ = false;        // at least one old element placed
  bool mixed_ = false;      // elements of different basic kinds
  std::ptrdiff_t lb_ = 0, ub_ = 0, true_lb_ = 0, true_ub_ = 0;
  std::size_t align_ = 1;   // strictest alignment of the placed elements
};

// MPI_Type_contiguous: `count` old elements back to back.
Result<Datatype*> make_contiguous(std::size_t count, const Datatype* old);
// MPI_Type_vector: `count` blocks of `blocklen` old elements, block starts `stride` old extents apart.
Result<Datatype*> make_vector(std::size_t count, std::size_t blocklen, std::ptrdiff_t stride,
                              const Datatype* old);
// MPI_Type_create_hvector: as vector, with the stride in bytes.
Result<Datatype*> make_hvector(std::size_t count, std::size_t blocklen, std::ptrdiff_t stride_bytes,
                               const Datatype* old);
// MPI_Type_indexed: block j holds blocklens[j] old elements and starts displs[j] old extents from the
// origin. `count` entries in each array. The integer arrays are int (MPI-3.1 forms) or long long (the
// MPI-4.0 large-count _c forms); both are instantiated in derived_indexed.cpp.
template <class Len, class Disp>
Result<Datatype*> make_indexed(std::size_t count, const Len* blocklens, const Disp* displs, const Datatype* old);
// MPI_Type_create_hindexed / _hindexed_block: as indexed, with displacements in bytes.
template <class Len>
Result<Datatype*> make_hindexed(std::size_t count, const Len* blocklens, const std::ptrdiff_t* displs,
                                const Datatype* old);
// MPI_Type_create_indexed_block / _hindexed_block: the same with one block length for every block.
template <class Disp>
Result<Datatype*> make_indexed_block(std::size_t count, std::size_t blocklen, const Disp* displs,
                                     const Datatype* old);
Result<Datatype*> make_hindexed_block(std::size_t count, std::size_t blocklen, const std::ptrdiff_t* displs,
                                      const Datatype* old);
// MPI_Type_create_struct: blocklens[j] elements of types[j] at byte displacement displs[j]. The extent is
// rounded up to the strictest alignment of the basic elements inside (like a C struct's trailing padding).
// MPI-1's bound markers are honoured (MPI-1 §3.12.3, as MPICH and MPI-3's MPI_Type_create_struct accept
// them): the smallest MPI_LB displacement is the lower bound, the largest MPI_UB one the upper bound (no
// padding then), a bound without its marker is the data's (an empty map: 0); the extent may be negative.
// Limitation: the markers are not "sticky" in types built from the result (they see its bounds, as after
// make_resized).
template <class Len>
Result<Datatype*> make_struct(std::size_t count, const Len* blocklens, const std::ptrdiff_t* displs,
                              const Datatype* const* types);
// MPI_Type_create_resized: same type map as `old`, lower bound `lb` and extent `extent` as given.
Result<Datatype*> make_resized(const Datatype* old, std::ptrdiff_t lb, std::ptrdiff_t extent);

// Gives `t` (a derived type being built, uncommitted) the bounds lb and lb + extent, keeping its type map:
// what MPI_Type_create_resized does, and how subarray/darray types get the whole array's extent.
void rebound(Datatype* t, std::ptrdiff_t lb, std::ptrdiff_t extent);

// Alignment (bytes) of one element of `t` as a C compiler would align it: the basic kind's for predefined
// types, the recorded strictest member alignment for derived ones (at least 1).
std::size_t alignment(const Datatype* t);

// MPI_Type_dup: same type map, committed state and recorded contents, not predefined, no name. (The C API
// records the DUP call on the result; MPI_Type_get_contents hands out such copies as they are.)
Result<Datatype*> make_dup(const Datatype* old);

// MPI_Type_commit: a derived type becomes usable for communication. Predefined types are already.
void commit(Datatype* t);

// MPI_Type_free on a derived type: the handle becomes invalid (magic = kMagicFreed, so stale handles are
// rejected). The object itself and its layout are kept, because operations started before the free may
// still read them (MPI allows freeing a type that pending communication uses). Errc::type for
// predefined or already freed types.
Status retire(Datatype* t);

}  // namespace ftmpi::dt
