#include "ft/channel_key.h"

#include <cstring>

#include "util/byte_io.h"

namespace ftmpi::ft {

bool has_key_trailer(std::span<const std::byte> payload) {
  return payload.size() >= 20 && util::get_pod<std::uint32_t>(payload, payload.size() - 4) == kChannelKeyMagic;
}

void append_key(std::vector<std::byte>& out, const ChannelKey& k) {
  util::put_pod(out, k.parent_ctx);
  util::put_pod(out, k.parent_witness);
  for (std::uint32_t w : k.words) util::put_pod(out, w);
  for (int m : k.members) util::put_pod(out, static_cast<std::int32_t>(m));
  util::put_pod(out, static_cast<std::uint32_t>(k.words.size()));
  util::put_pod(out, static_cast<std::uint32_t>(k.members.size()));
  util::put_pod(out, kChannelKeyMagic);
}

bool split_key(std::span<const std::byte> payload, std::span<const std::byte>* head, ChannelKey* k) {
  constexpr std::size_t kTail = 3 * sizeof(std::uint32_t), kFixed = 2 * sizeof(std::uint32_t);
  if (payload.size() < kTail + kFixed) return false;
  const std::size_t end = payload.size();
  if (util::get_pod<std::uint32_t>(payload, end - 4) != kChannelKeyMagic) return false;
  const std::uint32_t n_words = util::get_pod<std::uint32_t>(payload, end - 12);
  const std::uint32_t n_members = util::get_pod<std::uint32_t>(payload, end - 8);
  if (n_words > kChannelKeyMaxWords || n_members > kChannelKeyMaxMembers) return false;
  const std::size_t len = kFixed + 4 * (std::size_t{n_words} + n_members) + kTail;
  if (len > end) return false;
  std::size_t at = end - len;
  *head = payload.first(at);
  k->parent_ctx = util::get_pod<std::uint32_t>(payload, at);
  k->parent_witness = util::get_pod<std::int32_t>(payload, at + 4);
  at += kFixed;
  k->words.resize(n_words);
  for (auto& w : k->words) {
    w = util::get_pod<std::uint32_t>(payload, at);
    at += 4;
  }
  k->members.resize(n_members);
  for (std::size_t i = 0; i < n_members; ++i) {
    k->members[i] = util::get_pod<std::int32_t>(payload, at);
    if (k->members[i] < 0 || (i > 0 && k->members[i] <= k->members[i - 1])) return false;  // sorted, distinct
    at += 4;
  }
  return true;
}

}  // namespace ftmpi::ft
