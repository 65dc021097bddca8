// The constructor call that made a derived datatype, kept for MPI_Type_get_envelope / MPI_Type_get_contents
// (MPI-3.1 §4.1.13).
//
// Contracts:
//  * `ints`, `aints` and `types` hold the constructor's arguments as the caller passed them, in the order
//    and count the standard lists for its combiner (e.g. vector: ints = {count, blocklength, stride};
//    subarray: ints = {ndims, sizes..., subsizes..., starts..., order}). This layer does not interpret them.
//  * `large` is non-empty only for a type made by a large-count (_c) constructor with a count or displacement
//    beyond the int range: the call is then recorded in MPI-4.0's large form (§5.1.13): the counts,
//    displacements and strides go to `large` (array_of_large_counts), `ints` keeps only what stays int
//    (subarray: ndims, order; darray: size, rank, ndims, distribs, dargs, psizes, order), `aints` is empty.
//    Such a type can only be decoded with MPI_Type_get_envelope_c / get_contents_c.
//  * The types listed stay valid for as long as the recorded type: the library never deletes a datatype
//    object (retire() only invalidates the handle), so a constituent the user has freed is still readable.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "datatype/datatype.h"

namespace ftmpi::dt {

// How a type was made. `named` for the predefined types; the others are the MPI-3.1 constructors ftmpi has.
enum class Combiner : std::uint8_t {
  named, dup, contiguous, vector, hvector, indexed, hindexed, indexed_block, hindexed_block, struct_,
  subarray, darray, resized,
  f90_integer, f90_real, f90_complex,  // MPI_Type_create_f90_*: cached, never freed (api/datatype_f90.cpp)
};

struct Contents {
  Combiner combiner = Combiner::named;
  std::vector<int> ints;
  std::vector<std::ptrdiff_t> aints;
  std::vector<const Datatype*> types;
  std::vector<long long> large = {};
};

// Records how `t` (a derived type just built) was made.
inline void record_contents(Datatype* t, Contents c) {
  t->contents = std::make_shared<const Contents>(std::move(c));
}

// True for the types MPI_Type_create_f90_* hands out (the user must not free them).
inline bool is_f90(const Datatype* t) {
  return t->contents != nullptr && (t->contents->combiner == Combiner::f90_integer ||
                                    t->contents->combiner == Combiner::f90_real ||
                                    t->contents->combiner == Combiner::f90_complex);
}

// The combiner of `t`: `named` for predefined types.
inline Combiner combiner_of(const Datatype* t) {
  return t->predefined || t->contents == nullptr ? Combiner::named : t->contents->combiner;
}

}  // namespace ftmpi::dt
