#include "ft/bridge_key.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "util/byte_io.h"

namespace ftmpi::ft {
namespace {
constexpr std::size_t kSideFixed = 4 + 4 + 8;  // ctx, low, count
constexpr std::size_t kTail = 4 * 4;           // n_a, n_b, version, magic

void put_side(std::vector<std::byte>& out, const BridgeSide& s) {
  util::put_pod(out, s.ctx);
  util::put_pod(out, s.low);
  util::put_pod(out, s.count);
  for (int m : s.members) util::put_pod(out, static_cast<std::int32_t>(m));
}

// Read a side of `n` members at `at`; false when its members are not sorted, distinct and >= 0, or `low` is
// not one of them.
bool get_side(std::span<const std::byte> in, std::size_t at, std::size_t n, BridgeSide* s) {
  s->ctx = util::get_pod<std::uint32_t>(in, at);
  s->low = util::get_pod<std::int32_t>(in, at + 4);
  s->count = util::get_pod<std::uint64_t>(in, at + 8);
  at += kSideFixed;
  s->members.resize(n);
  for (std::size_t i = 0; i < n; ++i, at += 4) {
    s->members[i] = util::get_pod<std::int32_t>(in, at);
    if (s->members[i] < 0 || (i > 0 && s->members[i] <= s->members[i - 1])) return false;
  }
  return std::binary_search(s->members.begin(), s->members.end(), s->low);
}
}  // namespace

BridgeKey BridgeKey::of(BridgeSide x, BridgeSide y) {
  if (!y.members.empty() && (x.members.empty() || y.members.front() < x.members.front())) std::swap(x, y);
  return BridgeKey{std::move(x), std::move(y)};
}

const BridgeSide* BridgeKey::side_of(int world) const {
  if (std::binary_search(a.members.begin(), a.members.end(), world)) return &a;
  if (std::binary_search(b.members.begin(), b.members.end(), world)) return &b;
  return nullptr;
}

std::vector<int> BridgeKey::members() const {
  std::vector<int> all;
  all.reserve(a.members.size() + b.members.size());
  std::merge(a.members.begin(), a.members.end(), b.members.begin(), b.members.end(), std::back_inserter(all));
  return all;
}

bool has_bridge_trailer(std::span<const std::byte> payload) {
  return payload.size() >= kTail && util::get_pod<std::uint32_t>(payload, payload.size() - 4) == kBridgeKeyMagic;
}

void append_bridge_key(std::vector<std::byte>& out, const BridgeKey& k) {
  put_side(out, k.a);
  put_side(out, k.b);
  util::put_pod(out, static_cast<std::uint32_t>(k.a.members.size()));
  util::put_pod(out, static_cast<std::uint32_t>(k.b.members.size()));
  util::put_pod(out, kBridgeKeyVersion);
  util::put_pod(out, kBridgeKeyMagic);
}

BridgeKeyParse split_bridge_key(std::span<const std::byte> payload, std::span<const std::byte>* head, BridgeKey* k) {
  if (!has_bridge_trailer(payload)) return BridgeKeyParse::none;
  const std::size_t end = payload.size();
  if (util::get_pod<std::uint32_t>(payload, end - 8) != kBridgeKeyVersion) return BridgeKeyParse::unknown_version;
  const std::uint32_t n_a = util::get_pod<std::uint32_t>(payload, end - 16);
  const std::uint32_t n_b = util::get_pod<std::uint32_t>(payload, end - 12);
  if (n_a == 0 || n_b == 0 || n_a > kBridgeKeyMaxMembers || n_b > kBridgeKeyMaxMembers) return BridgeKeyParse::malformed;
  const std::size_t len = 2 * kSideFixed + 4 * (std::size_t{n_a} + n_b) + kTail;
  if (len > end) return BridgeKeyParse::malformed;
  const std::size_t at = end - len;
  if (!get_side(payload, at, n_a, &k->a) || !get_side(payload, at + kSideFixed + 4 * std::size_t{n_a}, n_b, &k->b))
    return BridgeKeyParse::malformed;
  if (k->a.members.front() >= k->b.members.front()) return BridgeKeyParse::malformed;  // not in key order
  std::vector<int> both;
  std::set_intersection(k->a.members.begin(), k->a.members.end(), k->b.members.begin(), k->b.members.end(),
                        std::back_inserter(both));
  if (!both.empty()) return BridgeKeyParse::malformed;  // the sides of an intercommunicator are disjoint
  *head = payload.first(at);
  return BridgeKeyParse::ok;
}

}  // namespace ftmpi::ft
