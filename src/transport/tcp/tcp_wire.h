// What TCP peers write on the wire: the hello that opens every connection and the header in front of every
// frame. Pure encoding/decoding, no sockets, so it is unit-tested on its own.
//
// Byte order: host order. All ranks of a job run the same binary on the same architecture (a job mixing
// endianness is not supported); the magic numbers catch a peer that disagrees.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "util/status.h"

namespace ftmpi::transport::tcp {

inline constexpr std::uint32_t kHelloMagic = 0x46544831;  // "FTH1"
inline constexpr std::uint16_t kWireVersion = 1;
inline constexpr size_t kMaxSecret = 64;

// The hello, exactly kHelloSize bytes: {u32 magic, u16 version, u16 secret_len, i32 rank, secret[64]}.
// The connecting side sends it first; the accepting side checks it and answers with its own hello, so both
// ends know the other holds the job's secret.
inline constexpr size_t kHelloSize = 4 + 2 + 2 + 4 + kMaxSecret;

struct Hello {
  int rank = -1;
  std::string_view secret;  // <= kMaxSecret bytes
};

// Writes the hello into `out` (kHelloSize bytes). Errc::arg if the secret is longer than kMaxSecret.
Status encode_hello(const Hello& h, std::span<std::byte, kHelloSize> out);

// Checks a received hello against what we expect. Returns the sender's rank, or Errc::other with a
// message saying what was wrong (bad magic, version, secret). The rank itself is checked by the caller.
Result<int> check_hello(std::span<const std::byte, kHelloSize> in, std::string_view expected_secret);

// The header in front of every frame: {u32 check, u16 hdr_len, u16 reserved = 0, u64 payload_len}, then
// hdr_len bytes of opaque header, then payload_len bytes of payload.
inline constexpr std::uint32_t kFrameCheck = 0x46544652;  // "FTFR"
inline constexpr size_t kFrameHeaderSize = 16;

// A goodbye is a frame header with the check word kFrameBye and no header or payload: the sender closes
// the connection on purpose (its transport is being destroyed, e.g. in MPI_Finalize), so the EOF that
// follows is not a loss.
inline constexpr std::uint32_t kFrameBye = 0x46544259;  // "FTBY"

struct FrameHeader {
  std::uint16_t hdr_len = 0;
  std::uint64_t payload_len = 0;
  bool bye = false;
  size_t total() const { return kFrameHeaderSize + hdr_len + payload_len; }
};

void encode_frame_header(const FrameHeader& fh, std::byte* out /* kFrameHeaderSize bytes */);
void encode_bye(std::byte* out /* kFrameHeaderSize bytes */);

// Decodes and validates a frame header (or a goodbye, with .bye set): the check word and reserved field
// must match, hdr_len must be
// <= max_hdr and payload_len <= max_payload. Errc::other with a message otherwise (the connection is then
// treated as corrupt).
Result<FrameHeader> decode_frame_header(const std::byte* in /* kFrameHeaderSize bytes */, size_t max_hdr,
                                        size_t max_payload);

}  // namespace ftmpi::transport::tcp
