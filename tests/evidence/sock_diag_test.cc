// The port count from sock_diag netlink (evidence/sock_diag.h) against the one
// from /proc/net/tcp{,6} (evidence/proc.h) on real sockets: the same counts.
#include "evidence/sock_diag.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <tuple>

#include "core/unique_fd.h"
#include "evidence/proc.h"

namespace pacer::evidence {
namespace {

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

// A listener on 127.0.0.1 and `n` connections to it from ephemeral ports.
struct Sockets {
  UniqueFd listener;
  std::vector<UniqueFd> clients;
  std::uint16_t port = 0;

  explicit Sockets(int n) : listener(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in a = loopback(0);
    socklen_t len = sizeof a;
    if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listener.get(), 16) != 0 ||
        ::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      return;
    }
    port = ntohs(a.sin_port);
    for (int i = 0; i < n; ++i) {
      UniqueFd c(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
      const sockaddr_in to = loopback(port);
      if (::connect(c.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) return;
      clients.push_back(std::move(c));
    }
  }
};

std::vector<std::tuple<std::string, std::string, std::uint64_t>> sorted(const std::vector<PortUse>& ports) {
  std::vector<std::tuple<std::string, std::string, std::uint64_t>> out;
  for (const PortUse& p : ports) out.emplace_back(p.local, p.remote, p.in_use);
  std::sort(out.begin(), out.end());
  return out;
}

std::pair<std::uint32_t, std::uint32_t> port_range() {
  auto text = read_small_file("/proc/sys/net/ipv4/ip_local_port_range", 256);
  auto range = text ? parse_port_range(*text) : std::nullopt;
  return range.value_or(std::pair<std::uint32_t, std::uint32_t>{32768, 60999});
}

TEST(SockDiag, CountsTheSameSocketsAsProcNetTcp) {
  const Sockets s(5);
  ASSERT_EQ(s.clients.size(), 5u);
  const auto [low, high] = port_range();
  std::vector<PortUse> netlink;
  if (!count_ports_netlink(s.port, low, high, netlink)) GTEST_SKIP() << "sock_diag netlink refused here";
  std::vector<PortUse> proc;
  for (const auto& [path, ipv6] : {std::pair{"/proc/net/tcp", false}, std::pair{"/proc/net/tcp6", true}}) {
    if (auto text = read_small_file(path, 64 * 1024 * 1024)) count_ports(*text, ipv6, s.port, low, high, proc);
  }
  ASSERT_EQ(netlink.size(), 1u);
  EXPECT_EQ(netlink[0].local, "127.0.0.1");
  EXPECT_EQ(netlink[0].remote, "127.0.0.1:" + std::to_string(s.port));
  EXPECT_EQ(netlink[0].in_use, 5u);  // the listener and the accepted sides are not counted
  EXPECT_EQ(sorted(netlink), sorted(proc));
}

// One dump covers both address families: an IPv6 listener on [::] takes IPv4 and
// IPv6 connections on one port, and both are counted, each under its own family.
TEST(SockDiag, OneCountHasTheIpv4AndTheIpv6ConnectionsToAPort) {
  UniqueFd listener(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in6 any{};
  any.sin6_family = AF_INET6;
  any.sin6_addr = in6addr_any;
  socklen_t len = sizeof any;
  const int off = 0;
  ::setsockopt(listener.get(), IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&any), sizeof any) != 0) GTEST_SKIP() << "no IPv6 here";
  ASSERT_EQ(::listen(listener.get(), 16), 0);
  ASSERT_EQ(::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&any), &len), 0);
  const std::uint16_t port = ntohs(any.sin6_port);
  std::vector<UniqueFd> clients;
  for (int i = 0; i < 2; ++i) {  // two over IPv4
    clients.emplace_back(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    const sockaddr_in to = loopback(port);
    ASSERT_EQ(::connect(clients.back().get(), reinterpret_cast<const sockaddr*>(&to), sizeof to), 0);
  }
  sockaddr_in6 to6{};
  to6.sin6_family = AF_INET6;
  to6.sin6_addr = in6addr_loopback;
  to6.sin6_port = htons(port);
  clients.emplace_back(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));  // and one over IPv6
  if (::connect(clients.back().get(), reinterpret_cast<const sockaddr*>(&to6), sizeof to6) != 0) {
    GTEST_SKIP() << "no ::1 here";
  }
  const auto [low, high] = port_range();
  std::vector<PortUse> netlink;
  if (!count_ports_netlink(port, low, high, netlink)) GTEST_SKIP() << "sock_diag netlink refused here";
  const std::string p = std::to_string(port);
  EXPECT_EQ(sorted(netlink), (std::vector<std::tuple<std::string, std::string, std::uint64_t>>{
                                 {"127.0.0.1", "127.0.0.1:" + p, 2}, {"::1", "[::1]:" + p, 1}}));
}

TEST(SockDiag, TheKernelsFilterKeepsOnlyLocalPortsInTheRange) {
  const Sockets s(2);
  ASSERT_EQ(s.clients.size(), 2u);
  std::vector<PortUse> none;
  if (!count_ports_netlink(s.port, 1, 2, none)) GTEST_SKIP() << "sock_diag netlink refused here";
  EXPECT_TRUE(none.empty());
  std::vector<PortUse> other_port;
  ASSERT_TRUE(count_ports_netlink(static_cast<std::uint16_t>(s.port == 1 ? 2 : 1), 1, 65535, other_port));
  EXPECT_TRUE(other_port.empty());
}

}  // namespace
}  // namespace pacer::evidence
