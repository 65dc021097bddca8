// The rank-level detector's datagram (ft/peer_watch.cpp sends and reads it; ft/rank_guardian.cpp reads it).
#pragma once
#include <cstdint>

#include "util/status.h"

namespace ftmpi::ft {

inline constexpr std::uint32_t kDetectorMagic = 0x46545244;  // "FTRD"

// {u32 magic, u32 job tag, u8 kind (DetectorMsg), u8 pad[3], i32 from, i32 about}. Host byte order (one
// architecture per job, as the TCP wire).
struct DetectorDatagram {
  std::uint32_t magic;
  std::uint32_t tag;
  std::uint8_t kind;
  std::uint8_t pad[3];
  std::int32_t from;
  std::int32_t about;
};
static_assert(sizeof(DetectorDatagram) == 20);

// A non-blocking UDP socket bound to any address on a kernel-chosen port: the detector's and a guardian's.
// `who` prefixes the error message. The caller owns the descriptor.
struct BoundUdp {
  int fd = -1;
  std::uint16_t port = 0;  // host byte order
};
Result<BoundUdp> bind_any_udp(const char* who);

}  // namespace ftmpi::ft
