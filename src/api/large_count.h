// Helpers of the large-count (_c) functions of MPI-4.0 that forward to their int forms
// (api/large_count_coll.cpp, api/large_count_dtype.cpp): narrowing MPI_Count / MPI_Aint arguments to int,
// and the stand-in element for a single count beyond INT_MAX.
#pragma once
#include <climits>
#include <cstddef>
#include <string>
#include <vector>

#include "api/common.h"
#include "coll/neighbor.h"
#include "coll/schedule.h"

namespace ftmpi::api {

inline constexpr int kTooLarge = INT_MIN;  // narrow_count's "does not fit"

// A count for the int form: itself when 0 <= c <= INT_MAX, -1 for any negative count (the int form then
// reports MPI_ERR_COUNT), kTooLarge above INT_MAX.
inline int narrow_count(MPI_Count c) {
  if (c < 0) return -1;
  if (c > INT_MAX) return kTooLarge;
  return static_cast<int>(c);
}

// An int copy of a count or displacement array (null when the caller's is null or not significant here);
// `fits` false when an entry is beyond the int range.
struct IntArray {
  std::vector<int> v;
  bool null = true;
  bool fits = true;
  const int* get() const { return null ? nullptr : v.data(); }
};

template <class T>
IntArray narrow_array(const T* a, std::size_t n, bool significant, bool counts) {
  IntArray r;
  if (!a || !significant) return r;
  r.null = false;
  r.v.resize(n + 1);  // data() never null
  for (std::size_t i = 0; i < n; ++i) {
    const long long x = static_cast<long long>(a[i]);
    if (counts && x < 0) {
      r.v[i] = -1;
    } else if (x > INT_MAX || x < INT_MIN) {
      r.fits = false;
      return r;
    } else {
      r.v[i] = static_cast<int>(x);
    }
  }
  return r;
}

// One count of a _c function for its int form: `count` itself with `type` when it fits in an int (a negative
// count becomes -1, which the int form reports as MPI_ERR_COUNT); beyond INT_MAX, ONE element of a stand-in
// type: a committed contiguous type of `count` elements of `type`, marked as such (Datatype::alias_of) so
// that user reduction functions still see `type` and the real count. The int paths count bytes in 64 bits,
// so they move such an element like any other. The stand-in is freed with this object; operations started
// meanwhile (non-blocking, persistent) keep using it (datatype objects are never deleted, see derived.h).
// `significant` false: the argument is ignored by the call (MPI_IN_PLACE, non-root): 0 and `type` go on.
// `status` is an error (invalid or uncommitted type, or no memory) when the stand-in could not be made.
struct LargeCount {
  LargeCount(MPI_Count count, MPI_Datatype type, bool significant = true);
  ~LargeCount();
  LargeCount(const LargeCount&) = delete;
  LargeCount& operator=(const LargeCount&) = delete;
  int count = 0;
  MPI_Datatype type = nullptr;
  Status status;
  MPI_Datatype stand_in = nullptr;
};

// Entries of the per-rank arrays of `comm` (a valid communicator).
inline std::size_t members(MPI_Comm comm) { return static_cast<std::size_t>(comm->peer_size()); }
inline std::size_t locals(MPI_Comm comm) { return static_cast<std::size_t>(comm->size); }
inline std::size_t in_degree(MPI_Comm comm) {
  auto nb = coll::neighbors_of(comm);
  return nb.ok() ? nb->sources.size() : 0;
}
inline std::size_t out_degree(MPI_Comm comm) {
  auto nb = coll::neighbors_of(comm);
  return nb.ok() ? nb->destinations.size() : 0;
}
// Is a root-only argument significant at this process?
inline bool at_root(MPI_Comm comm, int root) { return comm->is_inter() ? root == MPI_ROOT : comm->rank == root; }

}  // namespace ftmpi::api
