// MPI_Dims_create (see topology.h): the most balanced factorisation of the free part of nnodes.
#include <algorithm>
#include <climits>
#include <vector>

#include "topo/topology.h"

namespace ftmpi::topo {
namespace {

std::vector<int> divisors_desc(int n) {
  std::vector<int> small, large;
  for (int d = 1; static_cast<long long>(d) * d <= n; ++d)
    if (n % d == 0) {
      small.push_back(d);
      if (d != n / d) large.push_back(n / d);
    }
  std::vector<int> all(large.begin(), large.end());
  all.insert(all.end(), small.rbegin(), small.rend());
  return all;  // descending
}

// Smallest (lexicographically, largest factor first) non-increasing sequence of `left` factors of `rem`,
// each <= `cap`. Divisors of rem are divisors of the original number, so `divs` (all divisors,
// descending) serves every level.
bool search(int rem, int left, int cap, const std::vector<int>& divs, std::vector<int>& cur, std::vector<int>& best) {
  if (left == 0) {
    if (rem != 1) return false;
    if (best.empty() || cur < best) best = cur;
    return true;
  }
  if (left == 1) {
    if (rem > cap) return false;
    cur.push_back(rem);
    bool ok = search(1, 0, rem, divs, cur, best);
    cur.pop_back();
    return ok;
  }
  // Try the largest factor from small to large: the first feasible one gives the lexicographic minimum.
  for (auto it = divs.rbegin(); it != divs.rend(); ++it) {
    const int d = *it;
    if (d > cap) break;
    if (rem % d != 0) continue;
    // d must be at least the `left`-th root of rem, or the rest cannot fit under d.
    long long pow = 1;
    for (int i = 0; i < left && pow < rem; ++i) pow *= d;
    if (pow < rem) continue;
    cur.push_back(d);
    bool ok = search(rem / d, left - 1, d, divs, cur, best);
    cur.pop_back();
    if (ok) return true;
  }
  return false;
}

}  // namespace

Status dims_create(int nnodes, std::span<int> dims) {
  if (nnodes < 1) return Status(Errc::arg, "nnodes must be positive");
  long long fixed = 1;
  int free_slots = 0;
  for (int d : dims) {
    if (d < 0) return Status(Errc::dims, "dims entries must be non-negative");
    if (d == 0)
      ++free_slots;
    else
      fixed *= d;
    if (fixed > nnodes) return Status(Errc::dims, "the given dims do not divide nnodes");
  }
  if (nnodes % fixed != 0) return Status(Errc::dims, "the given dims do not divide nnodes");
  const int rest = static_cast<int>(nnodes / fixed);
  if (free_slots == 0) {
    if (rest != 1) return Status(Errc::dims, "the product of dims differs from nnodes");
    return {};
  }
  std::vector<int> cur, best;
  if (!search(rest, free_slots, INT_MAX, divisors_desc(rest), cur, best))
    return Status(Errc::intern, "no factorisation found");
  std::size_t next = 0;
  for (int& d : dims)
    if (d == 0) d = best[next++];
  return {};
}

}  // namespace ftmpi::topo
