// Wire form of agreement messages inside FT frames: [u64 instance (FtManager puts the communicator's
// members hash in the high 32 bits, the instance number in the low 32)][u8 kind][u8 decided][u8 step][view][value]
// [failed], where a rank set is [u32 n][n × i32] and a bit vector [u32 n][n × u64]. Little-endian (same
// architecture on every rank). decode() checks every length against the buffer: malformed input gives
// false, never a read out of bounds.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ft/agreement.h"

namespace ftmpi::ft {
std::vector<std::byte> encode(std::uint64_t instance, const AgreeMsg& m);
// The same into `out` (resized; its capacity is reused: the library's per-message path allocates nothing).
void encode_into(std::vector<std::byte>& out, std::uint64_t instance, const AgreeMsg& m);
bool decode(std::span<const std::byte> in, std::uint64_t* instance, AgreeMsg* m, int comm_size);
}  // namespace ftmpi::ft
