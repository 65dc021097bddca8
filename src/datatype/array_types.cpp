// Subarray and distributed-array datatypes (see array_types.h). Both reduce to the same picture: in every
// dimension a sorted list of index runs is selected, and the type map is their Cartesian product in storage
// order. build() nests it from the fastest dimension out: the type of one dimension places one copy of the
// next-faster dimension's type per selected index, each run of indices as one regular (count, stride) piece,
// so a subarray costs O(ndims) memory and a darray O(total number of runs), never O(elements).
#include "datatype/array_types.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "datatype/derived.h"

namespace ftmpi::dt {
namespace {

struct IndexRun {
  std::ptrdiff_t start;
  std::size_t length;
};

// The selection, dimensions in storage order (slowest-varying first).
struct Grid {
  std::vector<std::ptrdiff_t> sizes;         // elements of the whole array per dimension
  std::vector<std::vector<IndexRun>> runs;   // selected indices per dimension, increasing
};

// The type selecting `g` from an array of `old`, with lower bound 0 and the whole array as extent.
Result<Datatype*> build(const Grid& g, const Datatype* old) {
  const std::size_t n = g.sizes.size();
  std::vector<std::ptrdiff_t> strides(n);  // bytes between consecutive indices of each dimension
  std::ptrdiff_t stride = old->extent;
  for (std::size_t d = n; d-- > 0;) {
    strides[d] = stride;
    if (__builtin_mul_overflow(stride, g.sizes[d], &stride)) return Status(Errc::arg, "array too large");
  }
  const bool empty = std::any_of(g.runs.begin(), g.runs.end(), [](const auto& r) { return r.empty(); });
  std::unique_ptr<Datatype> level;  // the type of dimensions d+1.. (null: `old` itself)
  for (std::size_t d = n; d-- > 0;) {
    const Datatype* inner = level ? level.get() : old;
    TypeBuilder b;
    FTMPI_TRY(b.add(old, 0, 0));  // an empty selection still has old's kind
    if (!empty) {
      for (const IndexRun& r : g.runs[d]) FTMPI_TRY(b.add(inner, r.start * strides[d], r.length, strides[d]));
    }
    Result<Datatype*> r = b.finish();
    if (!r.ok()) return r;
    level.reset(r.value());  // the new level holds what it needs of the old one (shared layout, kinds)
  }
  Datatype* t = level.release();
  rebound(t, 0, stride);
  return t;
}

// Storage order: C keeps the dimensions as given, Fortran reverses them.
template <class T>
std::vector<T> in_storage_order(std::vector<T> v, Order order) {
  if (order == Order::fortran) std::reverse(v.begin(), v.end());
  return v;
}

// The runs of one darray dimension owned by grid coordinate `coord`.
Result<std::vector<IndexRun>> owned_runs(const DarrayDim& d, int coord) {
  if (d.gsize < 1) return Status(Errc::arg, "array_of_gsizes entries must be positive");
  if (d.psize < 1) return Status(Errc::arg, "array_of_psizes entries must be positive");
  if (d.darg && *d.darg < 1 && d.distribution != Distribution::none)
    return Status(Errc::arg, "array_of_dargs entries must be positive or MPI_DISTRIBUTE_DFLT_DARG");
  const std::int64_t gsize = d.gsize, psize = d.psize;
  std::vector<IndexRun> runs;
  switch (d.distribution) {
    case Distribution::none:
      if (d.psize != 1) return Status(Errc::arg, "MPI_DISTRIBUTE_NONE needs array_of_psizes 1 in that dimension");
      runs.push_back(IndexRun{0, static_cast<std::size_t>(gsize)});
      return runs;
    case Distribution::block: {
      const std::int64_t darg = d.darg ? *d.darg : (gsize + psize - 1) / psize;
      if (darg * psize < gsize)
        return Status(Errc::arg, "MPI_DISTRIBUTE_BLOCK: darg * psize is smaller than the dimension");
      const std::int64_t start = coord * darg;
      if (start < gsize) runs.push_back(IndexRun{start, static_cast<std::size_t>(std::min(darg, gsize - start))});
      return runs;
    }
    case Distribution::cyclic: {
      const std::int64_t darg = d.darg ? *d.darg : 1;
      for (std::int64_t s = coord * darg; s < gsize; s += darg * psize)
        runs.push_back(IndexRun{s, static_cast<std::size_t>(std::min(darg, gsize - s))});
      return runs;
    }
  }
  return Status(Errc::arg, "unknown distribution");
}

}  // namespace

Result<Datatype*> make_subarray(std::span<const long long> sizes, std::span<const long long> subsizes,
                                std::span<const long long> starts, Order order, const Datatype* old) {
  const std::size_t n = sizes.size();
  if (n == 0) return Status(Errc::count, "ndims must be positive");
  if (subsizes.size() != n || starts.size() != n) return Status(Errc::arg, "array lengths differ");
  Grid g;
  for (std::size_t i = 0; i < n; ++i) {
    if (sizes[i] < 1) return Status(Errc::arg, "array_of_sizes entries must be positive");
    if (subsizes[i] < 1 || subsizes[i] > sizes[i])
      return Status(Errc::arg, "array_of_subsizes entries must be in [1, array_of_sizes]");
    if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i])
      return Status(Errc::arg, "array_of_starts entries must be in [0, size - subsize]");
    g.sizes.push_back(sizes[i]);
    g.runs.push_back({IndexRun{starts[i], static_cast<std::size_t>(subsizes[i])}});
  }
  g.sizes = in_storage_order(std::move(g.sizes), order);
  g.runs = in_storage_order(std::move(g.runs), order);
  return build(g, old);
}

Result<Datatype*> make_darray(int size, int rank, std::span<const DarrayDim> dims, Order order,
                              const Datatype* old) {
  const std::size_t n = dims.size();
  if (n == 0) return Status(Errc::count, "ndims must be positive");
  if (size < 1) return Status(Errc::arg, "size must be positive");
  if (rank < 0 || rank >= size) return Status(Errc::rank, "rank must be in [0, size)");
  std::int64_t procs = 1;
  for (const DarrayDim& d : dims) {
    if (d.psize < 1) return Status(Errc::arg, "array_of_psizes entries must be positive");
    procs *= d.psize;
    if (procs > size) break;
  }
  if (procs != size) return Status(Errc::arg, "the product of array_of_psizes must equal size");
  // Grid coordinates of `rank`: row-major, the last dimension fastest (MPI-3.1 §4.1.4), whatever `order`.
  std::vector<int> coords(n);
  for (std::size_t i = n, r = static_cast<std::size_t>(rank); i-- > 0;) {
    coords[i] = static_cast<int>(r % static_cast<std::size_t>(dims[i].psize));
    r /= static_cast<std::size_t>(dims[i].psize);
  }
  Grid g;
  for (std::size_t i = 0; i < n; ++i) {
    Result<std::vector<IndexRun>> runs = owned_runs(dims[i], coords[i]);
    if (!runs.ok()) return runs.status();
    g.sizes.push_back(dims[i].gsize);
    g.runs.push_back(std::move(runs.value()));
  }
  g.sizes = in_storage_order(std::move(g.sizes), order);
  g.runs = in_storage_order(std::move(g.runs), order);
  return build(g, old);
}

}  // namespace ftmpi::dt
