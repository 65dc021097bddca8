// A small sorted set of ranks (failed processes of a communicator). Value type; cheap to compare.
#pragma once
#include <algorithm>
#include <vector>

namespace ftmpi::ft {

class RankSet {
 public:
  RankSet() = default;
  explicit RankSet(std::vector<int> v) : v_(std::move(v)) {
    std::sort(v_.begin(), v_.end());
    v_.erase(std::unique(v_.begin(), v_.end()), v_.end());
  }
  bool contains(int r) const { return std::binary_search(v_.begin(), v_.end(), r); }
  // True if r was not there.
  bool insert(int r) {
    auto it = std::lower_bound(v_.begin(), v_.end(), r);
    if (it != v_.end() && *it == r) return false;
    v_.insert(it, r);
    return true;
  }
  // True if anything was added.
  bool merge(const RankSet& o) {
    bool grew = false;
    for (int r : o.v_) grew |= insert(r);
    return grew;
  }
  bool includes(const RankSet& o) const { return std::includes(v_.begin(), v_.end(), o.v_.begin(), o.v_.end()); }
  void clear() { v_.clear(); }  // keeps the capacity
  std::size_t size() const { return v_.size(); }
  bool empty() const { return v_.empty(); }
  const std::vector<int>& ranks() const { return v_; }
  friend bool operator==(const RankSet& a, const RankSet& b) { return a.v_ == b.v_; }

 private:
  std::vector<int> v_;
};

}  // namespace ftmpi::ft
