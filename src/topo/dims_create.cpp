// MPI_Dims_create (see topology.h): the most balanced factorisation of the free part of nnodes.
//
// "As close to each other as possible" is measured by the spread (largest minus smallest factor); among
// factorisations of equal spread the smallest factor is made as large as possible, then the next smallest,
// and so on. This is what MPICH's topo/dims5 expects for its 75,000 cases (our former rule, the largest
// factor as small as possible, left a larger spread in 876 of them, e.g. 5040 in 3: 20x18x14 instead of
// 21x16x15). The search is a depth-first enumeration of non-increasing factor sequences over the
// divisors of the number, cut by a lower bound on the spread.
#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

#include "topo/topology.h"

namespace ftmpi::topo {
namespace {

// All divisors of n, ascending.
std::vector<int> divisors_asc(int n) {
  std::vector<int> small, large;
  for (int d = 1; static_cast<long long>(d) * d <= n; ++d)
    if (n % d == 0) {
      small.push_back(d);
      if (d != n / d) large.push_back(n / d);
    }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

// d^k >= n, without overflow.
bool pow_at_least(long long d, int k, long long n) {
  long long p = 1;
  for (int i = 0; i < k; ++i) {
    if (p >= n) return true;
    p *= d;
  }
  return p >= n;
}

// The largest r with r^k <= n (k >= 1, n >= 1).
int iroot(int n, int k) {
  if (k == 1) return n;
  long long r = static_cast<long long>(std::pow(static_cast<double>(n), 1.0 / k));
  while (r > 1 && pow_at_least(r, k, static_cast<long long>(n) + 1)) --r;  // r^k > n
  while (!pow_at_least(r + 1, k, static_cast<long long>(n) + 1)) ++r;     // (r+1)^k <= n
  return static_cast<int>(std::max(1LL, r));
}

class Search {
 public:
  explicit Search(int n) : divs_(divisors_asc(n)) {}

  // The best non-increasing sequence of `slots` factors of n (slots >= 1).
  std::vector<int> run(int n, int slots) {
    cur_.clear();
    best_.clear();
    best_spread_ = INT_MAX;
    descend(n, slots, INT_MAX);
    return best_;
  }

 private:
  // Better: smaller spread, then (compared from the smallest factor up) larger factors.
  void offer() {
    const int spread = cur_.front() - cur_.back();
    bool better = spread < best_spread_;
    if (spread == best_spread_)
      better = std::lexicographical_compare(best_.rbegin(), best_.rend(), cur_.rbegin(), cur_.rend());
    if (better) {
      best_spread_ = spread;
      best_ = cur_;
    }
  }

  // Choose the next factor of `rem` (at most `cap`), `left` factors to go.
  void descend(int rem, int left, int cap) {
    if (left == 1) {
      if (rem > cap) return;
      cur_.push_back(rem);
      offer();
      cur_.pop_back();
      return;
    }
    for (int d : divs_) {
      if (d > cap || d > rem) break;
      if (rem % d != 0 || !pow_at_least(d, left, rem)) continue;  // the rest could not stay below d
      // The smallest factor will be at most the (left-1)-th root of what remains; this bound grows with
      // d, so once it exceeds the best spread no larger d can do better.
      const int first = cur_.empty() ? d : cur_.front();
      if (first - iroot(rem / d, left - 1) > best_spread_) break;
      cur_.push_back(d);
      descend(rem / d, left - 1, d);
      cur_.pop_back();
    }
  }

  std::vector<int> divs_, cur_, best_;
  int best_spread_ = INT_MAX;
};

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
  const std::vector<int> best = Search(rest).run(rest, free_slots);
  if (best.size() != static_cast<std::size_t>(free_slots)) return Status(Errc::intern, "no factorisation found");
  std::size_t next = 0;
  for (int& d : dims)
    if (d == 0) d = best[next++];
  return {};
}

}  // namespace ftmpi::topo
