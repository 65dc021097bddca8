#include "transport/tcp/tcp_wire.h"

#include <cstring>
#include <string>

namespace ftmpi::transport::tcp {
namespace {

template <class T>
void put(std::byte* at, T v) {
  std::memcpy(at, &v, sizeof v);
}
template <class T>
T get(const std::byte* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}

// Compares without an early exit, so the time taken does not tell a stranger how much it got right.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

Status encode_hello(const Hello& h, std::span<std::byte, kHelloSize> out) {
  if (h.secret.size() > kMaxSecret) return Status(Errc::arg, "tcp: job secret longer than 64 bytes");
  std::memset(out.data(), 0, out.size());
  put<std::uint32_t>(out.data(), kHelloMagic);
  put<std::uint16_t>(out.data() + 4, kWireVersion);
  put<std::uint16_t>(out.data() + 6, static_cast<std::uint16_t>(h.secret.size()));
  put<std::int32_t>(out.data() + 8, h.rank);
  if (!h.secret.empty()) std::memcpy(out.data() + 12, h.secret.data(), h.secret.size());
  return Status::Ok();
}

Result<int> check_hello(std::span<const std::byte, kHelloSize> in, std::string_view expected_secret) {
  if (get<std::uint32_t>(in.data()) != kHelloMagic) return Status(Errc::other, "bad hello magic");
  std::uint16_t version = get<std::uint16_t>(in.data() + 4);
  if (version != kWireVersion)
    return Status(Errc::other, "unsupported wire version " + std::to_string(version));
  std::uint16_t len = get<std::uint16_t>(in.data() + 6);
  if (len > kMaxSecret) return Status(Errc::other, "bad secret length");
  std::string_view secret(reinterpret_cast<const char*>(in.data() + 12), len);
  if (!same_secret(secret, expected_secret)) return Status(Errc::other, "wrong job secret");
  return get<std::int32_t>(in.data() + 8);
}

void encode_frame_header(const FrameHeader& fh, std::byte* out) {
  put<std::uint32_t>(out, kFrameCheck);
  put<std::uint16_t>(out + 4, fh.hdr_len);
  put<std::uint16_t>(out + 6, 0);
  put<std::uint64_t>(out + 8, fh.payload_len);
}

void encode_bye(std::byte* out) {
  std::memset(out, 0, kFrameHeaderSize);
  put<std::uint32_t>(out, kFrameBye);
}

Result<FrameHeader> decode_frame_header(const std::byte* in, size_t max_hdr, size_t max_payload) {
  std::uint32_t check = get<std::uint32_t>(in);
  if ((check != kFrameCheck && check != kFrameBye) || get<std::uint16_t>(in + 6) != 0)
    return Status(Errc::other, "bad frame header check word");
  FrameHeader fh;
  if (check == kFrameBye) {
    if (get<std::uint16_t>(in + 4) != 0 || get<std::uint64_t>(in + 8) != 0)
      return Status(Errc::other, "bad goodbye");
    fh.bye = true;
    return fh;
  }
  fh.hdr_len = get<std::uint16_t>(in + 4);
  fh.payload_len = get<std::uint64_t>(in + 8);
  if (fh.hdr_len > max_hdr)
    return Status(Errc::other, "frame header length " + std::to_string(fh.hdr_len) + " too large");
  if (fh.payload_len > max_payload)
    return Status(Errc::other, "frame payload length " + std::to_string(fh.payload_len) + " too large");
  return fh;
}

}  // namespace ftmpi::transport::tcp
