// Encoding and checking of the TCP transport's hello and frame header, and address parsing.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>

#include "transport/tcp/tcp_socket.h"
#include "transport/tcp/tcp_wire.h"

using namespace ftmpi::transport::tcp;

TEST(TcpWire, HelloRoundTrip) {
  std::array<std::byte, kHelloSize> buf{};
  ASSERT_TRUE(encode_hello({7, "s3cret"}, buf).ok());
  auto r = check_hello(buf, "s3cret");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), 7);
}

TEST(TcpWire, HelloRejectsWrongSecretMagicVersion) {
  std::array<std::byte, kHelloSize> buf{};
  ASSERT_TRUE(encode_hello({1, "right"}, buf).ok());
  EXPECT_FALSE(check_hello(buf, "wrong").ok());
  EXPECT_FALSE(check_hello(buf, "righ").ok());
  EXPECT_FALSE(check_hello(buf, "").ok());
  auto bad = buf;
  bad[0] ^= std::byte{1};
  EXPECT_FALSE(check_hello(bad, "right").ok());
  bad = buf;
  bad[4] ^= std::byte{1};  // version
  EXPECT_FALSE(check_hello(bad, "right").ok());
  bad = buf;
  bad[6] = std::byte{200};  // secret length beyond the field
  EXPECT_FALSE(check_hello(bad, "right").ok());
}

TEST(TcpWire, HelloSecretLimit) {
  std::array<std::byte, kHelloSize> buf{};
  std::string s64(64, 'x'), s65(65, 'x');
  EXPECT_TRUE(encode_hello({0, s64}, buf).ok());
  EXPECT_TRUE(check_hello(buf, s64).ok());
  EXPECT_FALSE(encode_hello({0, s65}, buf).ok());
}

TEST(TcpWire, FrameHeaderBounds) {
  std::byte b[kFrameHeaderSize];
  encode_frame_header({64, 1000}, b);
  auto fh = decode_frame_header(b, 64, 1000);
  ASSERT_TRUE(fh.ok());
  EXPECT_EQ(fh->hdr_len, 64);
  EXPECT_EQ(fh->payload_len, 1000u);
  EXPECT_EQ(fh->total(), kFrameHeaderSize + 1064);
  EXPECT_FALSE(decode_frame_header(b, 63, 1000).ok());
  EXPECT_FALSE(decode_frame_header(b, 64, 999).ok());
  encode_frame_header({0, ~0ull}, b);
  EXPECT_FALSE(decode_frame_header(b, 64, 1 << 20).ok());
  encode_frame_header({0, 0}, b);
  b[1] ^= std::byte{0x10};
  EXPECT_FALSE(decode_frame_header(b, 64, 1 << 20).ok());
  encode_frame_header({0, 0}, b);
  b[7] = std::byte{1};  // reserved field
  EXPECT_FALSE(decode_frame_header(b, 64, 1 << 20).ok());
}

TEST(TcpWire, Goodbye) {
  std::byte b[kFrameHeaderSize];
  encode_bye(b);
  auto fh = decode_frame_header(b, 64, 1000);
  ASSERT_TRUE(fh.ok());
  EXPECT_TRUE(fh->bye);
  EXPECT_EQ(fh->total(), kFrameHeaderSize);
  b[8] = std::byte{1};  // a goodbye carries nothing
  EXPECT_FALSE(decode_frame_header(b, 64, 1000).ok());
  encode_frame_header({1, 2}, b);
  EXPECT_FALSE(decode_frame_header(b, 64, 1000)->bye);
}

TEST(TcpSocket, ParseEndpoint) {
  auto a = parse_endpoint("127.0.0.1:5000");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(format_endpoint(a.value()), "127.0.0.1:5000");
  auto b = parse_endpoint("[::1]:65535");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(format_endpoint(b.value()), "[::1]:65535");
  for (const char* bad : {"", ":", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
                          "127.0.0.1:12x", "host.example:80", ":80", "1.2.3.4:99999999999999"})
    EXPECT_FALSE(parse_endpoint(bad).ok()) << bad;
}

TEST(TcpSocket, InterfaceAddress) {
  auto ip = resolve_interface_address("127.0.0.1");
  ASSERT_TRUE(ip.ok());
  EXPECT_EQ(ip.value(), "127.0.0.1");
  auto lo = resolve_interface_address("lo");
  ASSERT_TRUE(lo.ok()) << lo.status().message();
  EXPECT_EQ(lo.value(), "127.0.0.1");
  EXPECT_FALSE(resolve_interface_address("no-such-if0").ok());
}
