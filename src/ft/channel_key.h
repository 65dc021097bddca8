// The exact identity of an agreement channel (FtManager::channel): what it is for, its members and, for the
// channel of an MPI_Comm_create_group, the parent communicator. Channels are told apart by the whole key, never
// by a hash alone: every frame of a channel carries its key as a trailer (append_key / split_key), so two
// channels whose 32-bit hashes collide stay two channels at every member, and a member that holds no channel
// for a frame (it never used it, or compacted it) knows exactly which one the frame is for.
//
// Trailer (after the agreement message of ft/agree_wire.h, or alone in a kChannelRevoke notice):
//   [u32 parent_ctx][i32 parent_witness][u32 words...][i32 members...][u32 n_words][u32 n_members][u32 kMagic]
// Little-endian, like the rest of the FT frames; split_key checks every length. No frame of a communicator
// ends like a trailer: an agreement message ends with its failed set, whose last word is a count or a rank,
// never kMagic (> 10^9).
#pragma once
#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ftmpi::ft {

struct ChannelKey {
  static constexpr std::uint32_t kNoParent = 0xffffffffu;
  // MPI_Comm_create_group's channel: the parent's context id and lowest member (no other live communicator
  // of a member has both). A revoke of that parent reaches the channel (FtManager::revoke), and the channel
  // is dropped when a new communicator takes the parent's context id here. kNoParent otherwise.
  std::uint32_t parent_ctx = kNoParent;
  std::int32_t parent_witness = -1;
  std::vector<std::uint32_t> words;  // the purpose and its distinguishing values (salt, tag, ...)
  std::vector<int> members;          // world ranks, sorted
  auto operator<=>(const ChannelKey&) const = default;
  bool operator==(const ChannelKey&) const = default;
};

inline constexpr std::uint32_t kChannelKeyMagic = 0x4b4e4843u;  // "CHNK"
inline constexpr std::size_t kChannelKeyMaxWords = 96;  // a string tag of MPI_MAX_STRINGTAG_LEN bytes fits
inline constexpr std::size_t kChannelKeyMaxMembers = 1u << 20;

// Does `payload` end like a trailer (cheap: the magic only)?
bool has_key_trailer(std::span<const std::byte> payload);
// Append `k`'s trailer to `out`.
void append_key(std::vector<std::byte>& out, const ChannelKey& k);
// Split a payload ending with a trailer into the part before it (`*head`) and the key; false when the payload
// has no well-formed trailer (a bridge's frame, or garbage).
bool split_key(std::span<const std::byte> payload, std::span<const std::byte>* head, ChannelKey* k);

}  // namespace ftmpi::ft
