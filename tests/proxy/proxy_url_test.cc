#include "proxy/proxy_url.h"

#include <gtest/gtest.h>

namespace pacer::proxy {
namespace {

TEST(ProxyUrl, HostAloneTakesCurlsDefaultPort) {
  auto url = parse_proxy_url("proxy.example");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->host, "proxy.example");
  EXPECT_EQ(url->port, 1080);
  EXPECT_FALSE(url->has_credentials);
  EXPECT_EQ(url->shown(), "http://proxy.example:1080");
}

TEST(ProxyUrl, SchemeCredentialsPortAndSlashAreRead) {
  auto url = parse_proxy_url("HTTP://al%40ice:p%3Ass@127.0.0.1:3128/");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_EQ(url->port, 3128);
  EXPECT_TRUE(url->has_credentials);
  EXPECT_EQ(url->user, "al@ice");
  EXPECT_EQ(url->password, "p:ss");
  EXPECT_EQ(url->shown(), "http://127.0.0.1:3128");  // never the password
}

TEST(ProxyUrl, PasswordMayContainAtSigns) {
  auto url = parse_proxy_url("u:a@b@h:1");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->user, "u");
  EXPECT_EQ(url->password, "a@b");
  EXPECT_EQ(url->host, "h");
}

TEST(ProxyUrl, Ipv6NeedsBrackets) {
  auto url = parse_proxy_url("http://[::1]:8080");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->port, 8080);
  EXPECT_EQ(url->shown(), "http://[::1]:8080");
  EXPECT_FALSE(parse_proxy_url("::1:8080"));
  EXPECT_FALSE(parse_proxy_url("[::1"));
  // Brackets hold an IPv6 address only, and a host has no brackets (the fuzzer's
  // "[[]" read as the host "[", shown as "http://[:1080", which did not read back).
  for (const char* bad : {"[[]", "[h]:80", "[]:80", "[1.2.3.4]", "a]b:80", "a[b"}) EXPECT_FALSE(parse_proxy_url(bad)) << bad;
  auto mapped = parse_proxy_url("[::ffff:127.0.0.1]:3128");
  ASSERT_TRUE(mapped);
  EXPECT_EQ(parse_proxy_url(mapped->shown())->host, "::ffff:127.0.0.1");
}

TEST(ProxyUrl, OtherSchemesAreRefusedByName) {
  auto socks = parse_proxy_url("socks5://h:1080");
  ASSERT_FALSE(socks);
  EXPECT_NE(socks.error().message.find("socks5://"), std::string::npos);
  EXPECT_FALSE(parse_proxy_url("https://h:443"));
}

TEST(ProxyUrl, BadPortsHostsAndEscapesAreRefused) {
  for (const char* bad : {"", "h:", "h:0", "h:65536", "h:80x", "http://:80", "h:80/path", "u%zz@h", "u%4@h", "a b:1"}) {
    EXPECT_FALSE(parse_proxy_url(bad)) << bad;
  }
}

// Issue 44 (13): a CR/LF in a proxy URL is named as such, not as an IPv6 address without brackets.
TEST(ProxyUrl, AControlCharacterOrSpaceIsNamed) {
  for (const char* bad : {"http://127.0.0.1:3128\r\n", "http://prox\ny:3128", "http://a b:1", "http://a:1\x1b"}) {
    const auto url = parse_proxy_url(bad);
    ASSERT_FALSE(url) << bad;
    EXPECT_NE(url.error().message.find("no control character or space"), std::string::npos) << url.error().message;
  }
}

TEST(ProxyUrl, BasicAuthorizationIsBase64OfUserColonPassword) {
  EXPECT_EQ(basic_authorization("Aladdin", "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");  // RFC 7617
  EXPECT_EQ(basic_authorization("u", ""), "Basic dTo=");
}

}  // namespace
}  // namespace pacer::proxy
