#include "proxy/connect_tunnel.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "core/unique_fd.h"

namespace pacer::proxy {
namespace {

TEST(ConnectReply, IncompleteUntilTheBlankLine) {
  EXPECT_EQ(parse_connect_reply("").state, ConnectReply::State::kIncomplete);
  EXPECT_EQ(parse_connect_reply("HTTP/1.1 200 Connection established\r\n").state, ConnectReply::State::kIncomplete);
  EXPECT_EQ(parse_connect_reply("HTT").state, ConnectReply::State::kIncomplete);
}

TEST(ConnectReply, DoneGivesTheStatusAndTheReplysLength) {
  const std::string reply = "HTTP/1.1 200 Connection established\r\nVia: squid\r\n\r\n";
  const std::string received = reply + "\x16\x03\x01";  // the tunnel's first bytes follow
  const ConnectReply r = parse_connect_reply(received);
  ASSERT_EQ(r.state, ConnectReply::State::kDone);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.header_bytes, reply.size());
  EXPECT_EQ(r.reason, "Connection established");
  const ConnectReply refused = parse_connect_reply("HTTP/1.0 407 Proxy Authentication Required\r\n\r\nbody");
  ASSERT_EQ(refused.state, ConnectReply::State::kDone);
  EXPECT_EQ(refused.status, 407);
  const ConnectReply bare = parse_connect_reply("HTTP/1.1 200\n\n");
  ASSERT_EQ(bare.state, ConnectReply::State::kDone);
  EXPECT_EQ(bare.header_bytes, 14u);
  // The first empty line ends it, whichever line ending it has.
  EXPECT_EQ(parse_connect_reply("HTTP/1.1 200\n\nxx\r\n\r\n").header_bytes, 14u);
  EXPECT_EQ(parse_connect_reply("HTTP/1.1 200\r\n\r\n\n\n").header_bytes, 16u);
}

TEST(ConnectReply, GarbageIsMalformedAtOnce) {
  for (const char* bad : {"SSH-2.0", "HTTP/2 200\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 200OK\r\n\r\n",
                          "HTTP/1.1 099 x\r\n\r\n", "HTTP/1.1  200\r\n\r\n"}) {
    EXPECT_EQ(parse_connect_reply(bad).state, ConnectReply::State::kMalformed) << bad;
  }
}

// Issue 44 (13): a head past the cap is too large, not "not HTTP/1.x".
TEST(ConnectReply, AHeadPastTheCapIsTooLargeNotMalformed) {
  EXPECT_EQ(parse_connect_reply("HTTP/1.1 200 OK\r\n" + std::string(kMaxReplyBytes, 'a')).state,
            ConnectReply::State::kTooLarge);
  EXPECT_EQ(parse_connect_reply("HTTP/1.1 200 OK\r\nX: " + std::string(kMaxReplyBytes, 'a') + "\r\n\r\n").state,
            ConnectReply::State::kTooLarge);
}

TEST(ConnectRequest, NamesTheTargetAndCarriesCredentials) {
  Target t;
  t.host = "::1";
  t.port = 8443;
  ProxyConfig p;
  EXPECT_EQ(connect_request(t, p), "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\n\r\n");
  p.authorization = "Basic YTpi";
  t.host = "a.test";
  EXPECT_EQ(connect_request(t, p), "CONNECT a.test:8443 HTTP/1.1\r\nHost: a.test:8443\r\nProxy-Authorization: Basic YTpi\r\n\r\n");
}

// A socket pair stands in for the proxy: no network.
struct Pair {
  UniqueFd client;
  UniqueFd proxy;
  Pair() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
    client.reset(fds[0]);
    proxy.reset(fds[1]);
  }
  std::string received() {
    char buf[512];
    const ssize_t n = ::read(proxy.get(), buf, sizeof buf);
    return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  }
  void answer(std::string_view s) { ASSERT_EQ(::write(proxy.get(), s.data(), s.size()), static_cast<ssize_t>(s.size())); }
};

TEST(TunnelStep, SendsWaitsThenLeavesTheTunnelsBytesInTheSocket) {
  Pair pair;
  const std::string request = "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n";
  std::uint32_t sent = 0;
  EXPECT_EQ(tunnel_step(pair.client.get(), request, sent).status, TunnelStatus::kWantRead);
  EXPECT_EQ(sent, request.size());
  EXPECT_EQ(pair.received(), request);
  pair.answer("HTTP/1.1 200 Connection");
  EXPECT_EQ(tunnel_step(pair.client.get(), request, sent).status, TunnelStatus::kWantRead);
  pair.answer(" established\r\n\r\nTLS");
  const TunnelProgress open = tunnel_step(pair.client.get(), request, sent);
  EXPECT_EQ(open.status, TunnelStatus::kOpen);
  EXPECT_EQ(open.http_status, 200);
  char rest[8];
  ASSERT_EQ(::read(pair.client.get(), rest, sizeof rest), 3);
  EXPECT_EQ(std::string(rest, 3), "TLS");
}

TEST(TunnelStep, RefusalCarriesTheProxysStatus) {
  Pair pair;
  std::uint32_t sent = 0;
  pair.answer("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n");
  const TunnelProgress p = tunnel_step(pair.client.get(), "CONNECT a:1 HTTP/1.1\r\n\r\n", sent);
  EXPECT_EQ(p.status, TunnelStatus::kRefused);
  EXPECT_EQ(p.http_status, 407);
  char text[256];
  EXPECT_NE(std::string(describe_refusal(407, text, sizeof text)).find("407"), std::string::npos);
  EXPECT_NE(std::string(describe_refusal(407, text, sizeof text)).find("--proxy-user"), std::string::npos);
}

TEST(TunnelStep, CloseAndGarbageFail) {
  {
    Pair pair;
    std::uint32_t sent = 0;
    pair.proxy.reset();
    const TunnelProgress p = tunnel_step(pair.client.get(), "CONNECT a:1 HTTP/1.1\r\n\r\n", sent);
    EXPECT_EQ(p.status, TunnelStatus::kFailed);
  }
  {
    Pair pair;
    std::uint32_t sent = 0;
    pair.answer("SSH-2.0-OpenSSH\r\n");
    const TunnelProgress p = tunnel_step(pair.client.get(), "CONNECT a:1 HTTP/1.1\r\n\r\n", sent);
    EXPECT_EQ(p.status, TunnelStatus::kFailed);
    EXPECT_EQ(p.err, EPROTO);
  }
}

TEST(TunnelBlocking, AHeadPastTheCapSaysItIsTooLong) {
  Pair pair;
  pair.answer("HTTP/1.1 200 OK\r\nX: " + std::string(2 * kMaxReplyBytes, 'a'));
  const Status failed = tunnel_blocking(pair.client.get(), "CONNECT a:1 HTTP/1.1\r\n\r\n", kNsPerS);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("head longer than 8 KiB"), std::string::npos) << failed.error().message;
}

TEST(TunnelBlocking, ReportsTheStatusAndTimesOut) {
  Pair pair;
  pair.answer("HTTP/1.1 403 Forbidden\r\n\r\n");
  const Status refused = tunnel_blocking(pair.client.get(), "CONNECT a:1 HTTP/1.1\r\n\r\n", kNsPerS);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("403"), std::string::npos);
  Pair silent;
  const Status late = tunnel_blocking(silent.client.get(), "CONNECT a:1 HTTP/1.1\r\n\r\n", 50 * kNsPerMs);
  ASSERT_FALSE(late);
  EXPECT_NE(late.error().message.find("--timeout"), std::string::npos);
}

}  // namespace
}  // namespace pacer::proxy
