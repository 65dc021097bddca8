#include "models/famp/split.h"

#include <algorithm>
#include <bit>
#include <map>

namespace ftmpi::famp {

namespace {
constexpr std::size_t kSlotWords = 1 + 2 * static_cast<std::size_t>(kMaxSplits);
constexpr std::uint64_t kAbsent = std::uint64_t{1} << 63;
}  // namespace

ft::Bits encode_split(const std::vector<std::uint64_t>& mask, int me, int size, const std::vector<SplitRequest>& asks) {
  ft::Bits v(mask.size() + kSlotWords * static_cast<std::size_t>(size), ~std::uint64_t{0});
  std::copy(mask.begin(), mask.end(), v.begin());
  const std::size_t base = mask.size() + kSlotWords * static_cast<std::size_t>(me);
  const std::size_t n = std::min<std::size_t>(asks.size(), kMaxSplits);
  v[base] = n;
  for (std::size_t i = 0; i < kMaxSplits; ++i) {
    v[base + 1 + 2 * i] = i < n ? static_cast<std::uint32_t>(asks[i].color) : 0;
    v[base + 2 + 2 * i] = i < n ? static_cast<std::uint32_t>(asks[i].key) : 0;
  }
  return v;
}

SplitOutcome decode_split(const ft::Bits& value, const ft::RankSet& failed, std::size_t mask_words, int size,
                          int undefined, int slots_per_group) {
  SplitOutcome o;
  o.failed = failed;
  o.shrunk = !failed.empty();
  // color -> (key, rank) of the members that asked for it
  std::map<int, std::vector<std::pair<int, int>>> by_color;
  for (int r = 0; r < size; ++r) {
    const std::size_t base = mask_words + kSlotWords * static_cast<std::size_t>(r);
    if (base + kSlotWords > value.size() || (value[base] & kAbsent) || failed.contains(r)) continue;
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(value[base], kMaxSplits));
    for (std::size_t i = 0; i < n; ++i) {
      const int color = static_cast<int>(static_cast<std::uint32_t>(value[base + 1 + 2 * i]));
      const int key = static_cast<int>(static_cast<std::uint32_t>(value[base + 2 + 2 * i]));
      if (color == undefined) continue;
      by_color[color].emplace_back(key, r);
    }
  }
  // Common free slots, lowest first.
  std::size_t w = 0;
  std::uint64_t bits = mask_words ? value[0] : 0;
  auto next_slot = [&](std::uint32_t* ctx) {
    while (bits == 0 && ++w < mask_words) bits = value[w];
    if (bits == 0) return false;
    const int b = std::countr_zero(bits);
    bits &= bits - 1;
    *ctx = static_cast<std::uint32_t>((w * 64 + static_cast<std::size_t>(b)) * 2);
    return true;
  };
  for (auto& [color, list] : by_color) {
    std::uint32_t ctx = 0, local_ctx = 0;
    if (!next_slot(&ctx) || (slots_per_group > 1 && !next_slot(&local_ctx))) {
      o.ok = false;
      return o;
    }
    std::stable_sort(list.begin(), list.end());
    SplitGroup g{color, ctx, {}, local_ctx};
    for (auto& kr : list) g.members.push_back(kr.second);
    o.groups.push_back(std::move(g));
  }
  return o;
}

}  // namespace ftmpi::famp
