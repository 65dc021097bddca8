// Group algebra (see group_algebra.h). Group sizes are at most the world size, so the quadratic
// membership tests below only matter for huge jobs; hash sets can replace them when that day comes.
#include "comm/group_algebra.h"

#include <algorithm>

namespace ftmpi::comm {
namespace {

bool contains(std::span<const int> v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Validate `ranks` against a group of size n: each in range and named once.
Status check_rank_list(int n, std::span<const int> ranks) {
  std::vector<bool> seen(static_cast<size_t>(n), false);
  for (int r : ranks) {
    if (r < 0 || r >= n) return Status(Errc::rank, "rank out of range for the group");
    if (seen[static_cast<size_t>(r)]) return Status(Errc::rank, "rank named more than once");
    seen[static_cast<size_t>(r)] = true;
  }
  return {};
}

// Expand range triplets to a rank list, validating as MPI requires.
Result<std::vector<int>> expand_ranges(int n, std::span<const std::array<int, 3>> ranges) {
  std::vector<int> out;
  for (const auto& t : ranges) {
    const int first = t[0], last = t[1], stride = t[2];
    if (stride == 0) return Status(Errc::arg, "range stride is zero");
    if (first < 0 || first >= n || last < 0 || last >= n)
      return Status(Errc::rank, "range bound out of range for the group");
    if (stride > 0) {
      for (long r = first; r <= last; r += stride) out.push_back(static_cast<int>(r));
    } else {
      for (long r = first; r >= last; r += stride) out.push_back(static_cast<int>(r));
    }
  }
  FTMPI_TRY(check_rank_list(n, out));
  return out;
}

}  // namespace

Result<RankList> group_incl(std::span<const int> members, std::span<const int> ranks) {
  FTMPI_TRY(check_rank_list(static_cast<int>(members.size()), ranks));
  RankList out;
  out.reserve(ranks.size());
  for (int r : ranks) out.push_back(members[static_cast<size_t>(r)]);
  return out;
}

Result<RankList> group_excl(std::span<const int> members, std::span<const int> ranks) {
  FTMPI_TRY(check_rank_list(static_cast<int>(members.size()), ranks));
  std::vector<bool> drop(members.size(), false);
  for (int r : ranks) drop[static_cast<size_t>(r)] = true;
  RankList out;
  for (size_t i = 0; i < members.size(); ++i)
    if (!drop[i]) out.push_back(members[i]);
  return out;
}

Result<RankList> group_range_incl(std::span<const int> members, std::span<const std::array<int, 3>> ranges) {
  auto ranks = expand_ranges(static_cast<int>(members.size()), ranges);
  if (!ranks.ok()) return ranks.status();
  return group_incl(members, *ranks);
}

Result<RankList> group_range_excl(std::span<const int> members, std::span<const std::array<int, 3>> ranges) {
  auto ranks = expand_ranges(static_cast<int>(members.size()), ranges);
  if (!ranks.ok()) return ranks.status();
  return group_excl(members, *ranks);
}

RankList group_union(std::span<const int> a, std::span<const int> b) {
  RankList out(a.begin(), a.end());
  for (int x : b)
    if (!contains(a, x)) out.push_back(x);
  return out;
}

RankList group_intersection(std::span<const int> a, std::span<const int> b) {
  RankList out;
  for (int x : a)
    if (contains(b, x)) out.push_back(x);
  return out;
}

RankList group_difference(std::span<const int> a, std::span<const int> b) {
  RankList out;
  for (int x : a)
    if (!contains(b, x)) out.push_back(x);
  return out;
}

Result<std::vector<int>> group_translate(std::span<const int> a, std::span<const int> ranks,
                                         std::span<const int> b) {
  std::vector<int> out;
  out.reserve(ranks.size());
  for (int r : ranks) {
    if (r == kProcNull) {
      out.push_back(kProcNull);
      continue;
    }
    if (r < 0 || r >= static_cast<int>(a.size())) return Status(Errc::rank, "rank out of range for group1");
    auto it = std::find(b.begin(), b.end(), a[static_cast<size_t>(r)]);
    out.push_back(it == b.end() ? kUndefined : static_cast<int>(it - b.begin()));
  }
  return out;
}

Compare group_compare(std::span<const int> a, std::span<const int> b) {
  if (a.size() != b.size()) return Compare::unequal;
  if (std::equal(a.begin(), a.end(), b.begin())) return Compare::ident;
  std::vector<int> sa(a.begin(), a.end()), sb(b.begin(), b.end());
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return sa == sb ? Compare::similar : Compare::unequal;
}

}  // namespace ftmpi::comm
