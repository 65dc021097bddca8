// Whether a dynamic window's attached regions hold a target byte range.
//
// An access to an MPI_Win_create_dynamic window must lie in memory the target attached (MPI_ERR_RMA_RANGE
// otherwise). One access may span several attached regions when they follow one another in memory with no
// gap (two MPI_Win_attach calls on the two halves of one array, as MPICH's rma/win_dynamic_rma_flush_get
// does and expects to work); MPICH 4.0 accepts that, and so do we (Open MPI 4.1's osc/rdma refuses it with
// MPI_ERR_RMA_RANGE). A gap of even one byte is still a range error.
//
// Used by the target's Service (the message path, its own region list) and by a same-host origin reading
// the target's RegionTable (rma/cma.h). Pure: no MPI state, unit-tested in tests/unit/rma_region_cover_test.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ftmpi::rma {

// True when every byte of [lo, hi) lies in one of the `n` regions [r[i].lo, r[i].hi), in any order (MPI_Win_attach
// refuses overlapping regions; overlap would still be answered right). An empty range (lo == hi) is held when
// some region has r.lo <= lo <= r.hi. Region: any type with integer members lo and hi. Cost O(n * k) for a
// range over k regions (n is small: the regions one process attached).
template <class Region>
bool regions_hold(const Region* r, std::size_t n, std::uint64_t lo, std::uint64_t hi) {
  if (lo >= hi) {
    for (std::size_t i = 0; i < n; ++i)
      if (static_cast<std::uint64_t>(r[i].lo) <= lo && lo <= static_cast<std::uint64_t>(r[i].hi)) return true;
    return false;
  }
  std::uint64_t at = lo;  // [lo, at) is held; find the region holding byte `at`
  while (at < hi) {
    std::uint64_t next = at;
    for (std::size_t i = 0; i < n; ++i) {
      const auto rl = static_cast<std::uint64_t>(r[i].lo), rh = static_cast<std::uint64_t>(r[i].hi);
      if (rl <= at && at < rh && rh > next) next = rh;
    }
    if (next == at) return false;  // byte `at` is in no region: a gap
    at = next;
  }
  return true;
}

}  // namespace ftmpi::rma
