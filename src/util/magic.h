// Magic numbers stamped into every handle object so the C API can reject garbage and freed handles with a
// clear error instead of crashing. Objects are never returned to the system while a stale handle could
// still point at them (pools / graveyard), so reading `magic` of a freed handle is safe.
#pragma once
#include <cstdint>

namespace ftmpi {
inline constexpr std::uint32_t kMagicComm = 0xC0330001;
inline constexpr std::uint32_t kMagicGroup = 0x6B0E0002;
inline constexpr std::uint32_t kMagicDatatype = 0xD7E00003;
inline constexpr std::uint32_t kMagicOp = 0x0B000004;
inline constexpr std::uint32_t kMagicRequest = 0x3E900005;
inline constexpr std::uint32_t kMagicErrhandler = 0xE3300006;
inline constexpr std::uint32_t kMagicMessage = 0x35600007;
inline constexpr std::uint32_t kMagicInfo = 0x1AF00008;
inline constexpr std::uint32_t kMagicFreed = 0xDEADF3EE;
// A communicator or request of an epoch before the last Reinit rollback (models/reinit): never reused.
inline constexpr std::uint32_t kMagicRolledBack = 0xDEADEB0C;
}  // namespace ftmpi
