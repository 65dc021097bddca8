// Interface selection and dialing order of the TCP transport (transport/tcp/tcp_interfaces.h).
#include <gtest/gtest.h>

#include "transport/tcp/tcp_interfaces.h"

using namespace ftmpi::transport::tcp;

namespace {
LocalAddress addr(const char* ifname, const char* ip, int prefix, bool loopback = false) {
  LocalAddress a;
  a.ifname = ifname;
  a.ip = ip;
  auto ep = parse_endpoint(std::string(ip) + ":1");
  EXPECT_TRUE(ep.ok()) << ip;
  a.ep = ep.value();
  a.prefix_len = prefix;
  a.loopback = loopback;
  return a;
}
std::vector<LocalAddress> host() {
  return {addr("lo", "127.0.0.1", 8, true), addr("eth0", "198.18.4.11", 24), addr("docker0", "172.17.0.1", 16),
          addr("ib0", "10.9.0.5", 16)};
}
std::vector<std::string> ips(const std::vector<LocalAddress>& v) {
  std::vector<std::string> out;
  for (const auto& a : v) out.push_back(a.ip);
  return out;
}
}  // namespace

TEST(TcpInterfaces, DefaultIsEveryNonLoopbackIPv4) {
  auto s = select_addresses("", host());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(ips(s.value()), (std::vector<std::string>{"198.18.4.11", "172.17.0.1", "10.9.0.5"}));
  auto lo_only = select_addresses("", {addr("lo", "127.0.0.1", 8, true)});
  ASSERT_TRUE(lo_only.ok());
  EXPECT_EQ(ips(lo_only.value()), (std::vector<std::string>{"127.0.0.1"}));
}

TEST(TcpInterfaces, ByNameCidrAndAddress) {
  EXPECT_EQ(ips(select_addresses("eth0", host()).value()), (std::vector<std::string>{"198.18.4.11"}));
  EXPECT_EQ(ips(select_addresses("198.18.0.0/15", host()).value()), (std::vector<std::string>{"198.18.4.11"}));
  EXPECT_EQ(ips(select_addresses("10.9.0.5,lo", host()).value()), (std::vector<std::string>{"10.9.0.5", "127.0.0.1"}));
  EXPECT_EQ(ips(select_addresses("eth0,198.18.4.0/24", host()).value()), (std::vector<std::string>{"198.18.4.11"}));
}

TEST(TcpInterfaces, NoMatchIsAClearError) {
  for (const char* bad : {"eth9", "192.0.2.0/24", "198.18.0.0/99", "1.2.3/8", "10.0.0.0/x"}) {
    auto s = select_addresses(bad, host());
    EXPECT_FALSE(s.ok()) << bad;
    if (!s.ok()) {
      EXPECT_NE(s.status().message().find("FTMPI_TCP_IF"), std::string::npos) << s.status().message();
    }
  }
  auto s = select_addresses("eth9", host());
  EXPECT_NE(s.status().message().find("eth0 198.18.4.11"), std::string::npos);  // says what there is
}

TEST(TcpInterfaces, CardRoundTrip) {
  auto c = parse_card("198.18.4.11:4000,10.9.0.5:4000,[::1]:5");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(format_card(c.value()), "198.18.4.11:4000,10.9.0.5:4000,[::1]:5");
  for (const char* bad : {"", ",", "1.2.3.4:5,", "1.2.3.4", "host:5"}) EXPECT_FALSE(parse_card(bad).ok()) << bad;
}

TEST(TcpInterfaces, DialOrderForARemotePeer) {
  // The peer (another host) has lo, a docker bridge like ours, an address in our eth0 subnet, another one.
  auto card = parse_card("127.0.0.1:7,172.17.0.1:7,192.0.2.8:7,198.18.4.12:7").value();
  auto mine = host();
  auto sel = select_addresses("", mine).value();
  auto order = order_for_peer(card, false, sel, mine);
  EXPECT_EQ(format_card(order), "198.18.4.12:7,192.0.2.8:7,172.17.0.1:7,127.0.0.1:7");
  EXPECT_EQ(format_card(order_for_peer(card, true, sel, mine)), format_card(card));  // same host: as published
}

TEST(TcpInterfaces, Subnets) {
  auto a = parse_endpoint("198.18.4.11:1").value();
  auto b = parse_endpoint("198.19.0.1:1").value();
  EXPECT_TRUE(same_subnet(a, b, 15));
  EXPECT_FALSE(same_subnet(a, b, 16));
  EXPECT_TRUE(is_loopback(parse_endpoint("127.3.0.1:1").value()));
  EXPECT_TRUE(is_loopback(parse_endpoint("[::1]:1").value()));
  EXPECT_FALSE(same_subnet(a, parse_endpoint("[::1]:1").value(), 8));
}

TEST(TcpInterfaces, LocalAddressesHaveLoopback) {
  auto all = local_addresses();
  ASSERT_TRUE(all.ok());
  bool lo = false;
  for (const auto& x : all.value()) lo |= x.loopback;
  EXPECT_TRUE(lo);
}
