// Array datatypes: MPI_Type_create_subarray (MPI-3.1 §4.1.3) and MPI_Type_create_darray (§4.1.4).
//
// Both describe a part of an n-dimensional array of `old` elements stored in C (row-major, last index
// fastest) or Fortran (column-major, first index fastest) order. The type map lists the selected elements
// in storage order; the type's lower bound is 0 and its extent the whole array (product of the sizes times
// old's extent), so that consecutive elements of the new type tile consecutive whole arrays.
//
// Contracts: `old` is live and not an MPI_LB/UB marker; the result is a new uncommitted type owned by the
// caller (as the constructors of derived.h). Invalid arguments give Errc::count (no dimensions),
// Errc::rank (darray rank outside [0, size)) or Errc::arg (anything else), as listed per function.
#pragma once
#include <optional>
#include <span>
#include <vector>

#include "datatype/datatype.h"
#include "util/status.h"

namespace ftmpi::dt {

enum class Order : std::uint8_t { c, fortran };

// MPI_Type_create_subarray: the block starts[i] .. starts[i] + subsizes[i] - 1 of every dimension i of an
// array of sizes[i]. All spans have the same length ndims >= 1 (else Errc::count). Errc::arg unless
// sizes[i] >= 1, 1 <= subsizes[i] <= sizes[i] and 0 <= starts[i] <= sizes[i] - subsizes[i].
// (long long entries: the int C form widens its arrays, the large-count _c form passes MPI_Count ones.)
Result<Datatype*> make_subarray(std::span<const long long> sizes, std::span<const long long> subsizes,
                                std::span<const long long> starts, Order order, const Datatype* old);
// The same with int arrays (the MPI-3.1 form).
inline Result<Datatype*> make_subarray(std::span<const int> sizes, std::span<const int> subsizes,
                                       std::span<const int> starts, Order order, const Datatype* old) {
  const std::vector<long long> s(sizes.begin(), sizes.end()), u(subsizes.begin(), subsizes.end()),
      t(starts.begin(), starts.end());
  return make_subarray(std::span<const long long>(s), std::span<const long long>(u), std::span<const long long>(t),
                       order, old);
}

enum class Distribution : std::uint8_t { block, cyclic, none };

// One dimension of a distributed array.
struct DarrayDim {
  long long gsize = 1;           // elements of the global array in this dimension (>= 1)
  Distribution distribution = Distribution::block;
  std::optional<int> darg;       // block size; nullopt = the default (block: ceil(gsize / psize), cyclic: 1)
  int psize = 1;                 // processes of the grid in this dimension (>= 1; 1 for `none`)
};

// MPI_Type_create_darray: the elements process `rank` of a `size`-process grid (row-major: the last grid
// dimension varies fastest, whatever `order`) owns when the array is dealt out dimension by dimension: in
// dimension i the process with grid coordinate r owns the blocks of darg indices starting at
// r*darg + k*darg*psize (k = 0, 1, ...), the last one cut at gsize; `none` keeps the whole dimension.
// Errors: dims empty → Errc::count; rank outside [0, size) → Errc::rank; Errc::arg for size < 1, gsize < 1,
// psize < 1, a product of psizes other than size, `none` with psize != 1, a darg < 1, and a block darg with
// darg * psize < gsize (the array would not fit).
Result<Datatype*> make_darray(int size, int rank, std::span<const DarrayDim> dims, Order order,
                              const Datatype* old);

}  // namespace ftmpi::dt
