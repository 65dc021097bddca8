// The exact name of a bridge (ft/bridge.h: MPI_Intercomm_create's agreement over two groups). Each side of a
// bridge is named by what every member of that side knows before it learns anything of the other side:
// its local communicator (context id and lowest member, unique among a process's live communicators), how
// many bridges the side made on that local communicator before (the same at every member: MPI_Intercomm_create
// is collective over it), and its sorted members (a context id outlives its communicator: a later
// communicator with the same id, lowest member and members continues the count, FtManager::take_bridge_side).
// A bridge is the pair of its sides, the side with the lower smallest member first. Bridges are told apart by
// the whole key, never by a hash: every bridge frame (its agreement messages, the greetings and the refusals)
// carries the key as a trailer, so two bridges are never mixed up, and a member that holds no bridge for a
// frame knows exactly which one it is for (a refuser, which knows only its own side, finds its side in it).
//
// Trailer (after the agreement message of ft/agree_wire.h, or after a greeting's instance word):
//   [side a][side b][u32 n_a][u32 n_b][u32 version][u32 kBridgeKeyMagic]
//   side: [u32 ctx][i32 low][u64 count][i32 members...]
// Little-endian, like the rest of the FT frames. split_bridge_key checks every length, the version, that each
// side's members are sorted, distinct and not negative, that the sides are disjoint and in order, and that
// each side's lowest member of its communicator is one of its members; anything else is malformed (the caller
// drops the frame and says so).
#pragma once
#include <compare>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ftmpi::ft {

struct BridgeSide {
  std::uint32_t ctx = 0;    // the local communicator's context id (point-to-point)
  std::int32_t low = -1;    // its lowest member (world rank)
  std::uint64_t count = 0;  // bridges this side made before on a communicator with this ctx, low and members
  std::vector<int> members; // world ranks, sorted
  auto operator<=>(const BridgeSide&) const = default;
  bool operator==(const BridgeSide&) const = default;
  // The same communicator (ctx, low, members), whatever the count.
  bool same_caller(const BridgeSide& o) const { return ctx == o.ctx && low == o.low && members == o.members; }
};

struct BridgeKey {
  BridgeSide a, b;  // a's smallest member is below b's
  auto operator<=>(const BridgeKey&) const = default;
  bool operator==(const BridgeKey&) const = default;
  // The key of the bridge between sides `x` and `y` (in either order; both non-empty).
  static BridgeKey of(BridgeSide x, BridgeSide y);
  // The side `world` belongs to (nullptr: neither).
  const BridgeSide* side_of(int world) const;
  // Every member, sorted (the bridge's agreement numbers them so).
  std::vector<int> members() const;
};

inline constexpr std::uint32_t kBridgeKeyMagic = 0x4b475242u;  // "BRGK"
inline constexpr std::uint32_t kBridgeKeyVersion = 1;
inline constexpr std::size_t kBridgeKeyMaxMembers = 1u << 24;  // per side (MPI_Intercomm_create's header bound)

// Does `payload` end like a bridge trailer (cheap: the magic only)?
bool has_bridge_trailer(std::span<const std::byte> payload);
// Append `k`'s trailer to `out`.
void append_bridge_key(std::vector<std::byte>& out, const BridgeKey& k);
enum class BridgeKeyParse { ok, none, malformed, unknown_version };
// Split a payload ending with a trailer into the part before it (`*head`) and the key. `none`: no trailer at
// all (not a bridge frame); `malformed` / `unknown_version`: a trailer that cannot be read (the frame must be
// dropped).
BridgeKeyParse split_bridge_key(std::span<const std::byte> payload, std::span<const std::byte>* head, BridgeKey* k);

}  // namespace ftmpi::ft
