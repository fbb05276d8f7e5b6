// Durations, counts and URLs as users type them (src/cli/units.h).
#include "cli/units.h"

#include <gtest/gtest.h>

namespace pacer::cli {
namespace {

TimeNs duration_of(std::string_view text) {
  auto ns = parse_duration(text, "-d");
  EXPECT_TRUE(ns.ok()) << text << ": " << (ns.ok() ? "" : ns.error().message);
  return ns.ok() ? *ns : -1;
}

std::uint64_t count_of(std::string_view text) {
  auto count = parse_count(text, "-c");
  EXPECT_TRUE(count.ok()) << text << ": " << (count.ok() ? "" : count.error().message);
  return count.ok() ? *count : 0;
}

std::string count_error(std::string_view text) {
  auto count = parse_count(text, "-c");
  EXPECT_FALSE(count.ok()) << text << " was accepted as " << (count.ok() ? *count : 0);
  if (count.ok()) return {};
  EXPECT_EQ(count.error().kind, ErrorKind::kBadArgument);
  return count.error().message;
}

std::string url_error(std::string_view text) {
  auto target = parse_url(text);
  EXPECT_FALSE(target.ok()) << text << " was accepted";
  if (target.ok()) return {};
  EXPECT_EQ(target.error().kind, ErrorKind::kBadArgument);
  return target.error().message;
}

TEST(Units, DurationAcceptsEveryUnit) {
  EXPECT_EQ(duration_of("250us"), 250 * kNsPerUs);
  EXPECT_EQ(duration_of("250ms"), 250 * kNsPerMs);
  EXPECT_EQ(duration_of("2s"), 2 * kNsPerS);
  EXPECT_EQ(duration_of("3m"), 180 * kNsPerS);
  EXPECT_EQ(duration_of("2h"), 7200 * kNsPerS);
}

TEST(Units, BareDurationIsSeconds) {
  EXPECT_EQ(duration_of("10"), 10 * kNsPerS);
  EXPECT_EQ(duration_of("0"), 0);
}

TEST(Units, DurationUnitsIgnoreCaseAsWrkDoes) {
  EXPECT_EQ(duration_of("2S"), 2 * kNsPerS);
  EXPECT_EQ(duration_of("2M"), 120 * kNsPerS);
  EXPECT_EQ(duration_of("5MS"), 5 * kNsPerMs);
}

TEST(Units, DecimalDurationsAreExact) {
  EXPECT_EQ(duration_of("1.5s"), 1'500'000'000);
  EXPECT_EQ(duration_of("0.1s"), 100 * kNsPerMs);
  EXPECT_EQ(duration_of("1.5m"), 90 * kNsPerS);
  EXPECT_EQ(duration_of(".5s"), 500 * kNsPerMs);
  EXPECT_EQ(duration_of("0.000000001s"), 1);
  EXPECT_EQ(duration_of("1.5us"), 1'500);
}

TEST(Units, DurationFinerThanANanosecondIsTruncated) {
  EXPECT_EQ(duration_of("0.0005us"), 0);
}

TEST(Units, MalformedDurationIsRefusedNamingTheFlag) {
  for (const char* text : {"", "s", "abc", "10x", "10 s", "-1s", "1.2.3s", "1e3", "10sec", "."}) {
    auto ns = parse_duration(text, "--timeout");
    ASSERT_FALSE(ns.ok()) << "'" << text << "' was accepted";
    EXPECT_EQ(ns.error().kind, ErrorKind::kBadArgument);
    EXPECT_EQ(ns.error().message.rfind("--timeout: '", 0), 0u) << ns.error().message;
    EXPECT_NE(ns.error().message.find("is not a duration"), std::string::npos);
  }
}

TEST(Units, DurationThatOverflowsIsRefused) {
  auto ns = parse_duration("999999999999999999h", "-d");
  ASSERT_FALSE(ns.ok());
  EXPECT_EQ(ns.error().message, "-d: duration '999999999999999999h' is too long");
}

TEST(Units, CountAcceptsSiSuffixes) {
  EXPECT_EQ(count_of("100"), 100u);
  EXPECT_EQ(count_of("10k"), 10'000u);
  EXPECT_EQ(count_of("10K"), 10'000u);
  EXPECT_EQ(count_of("2M"), 2'000'000u);
  EXPECT_EQ(count_of("3G"), 3'000'000'000u);
  EXPECT_EQ(count_of("0"), 0u);
}

TEST(Units, DecimalCountIsAcceptedWhenTheResultIsWhole) {
  EXPECT_EQ(count_of("1.5k"), 1'500u);
  EXPECT_EQ(count_of("2.25M"), 2'250'000u);
  EXPECT_EQ(count_of("0.001k"), 1u);
  EXPECT_EQ(count_of("7.0"), 7u);
}

TEST(Units, DecimalCountThatIsNotWholeIsRefused) {
  EXPECT_EQ(count_error("1.5"), "-c: '1.5' is not a whole number");
  EXPECT_EQ(count_error("1.0005k"), "-c: '1.0005k' is not a whole number");
}

TEST(Units, LowercaseMIsNotACountSuffix) {
  const std::string message = count_error("10m");
  EXPECT_EQ(message.rfind("-c: '10m' is not a count", 0), 0u) << message;
  EXPECT_NE(message.find("M for million"), std::string::npos) << message;
}

TEST(Units, MalformedCountIsRefusedNamingTheFlag) {
  for (const char* text : {"", "abc", "-5", "+5", "10x", "1g", "10 ", " 10", "1kk", "0x10"}) {
    EXPECT_EQ(count_error(text).rfind(std::string("-c: '") + text + "' is not a count", 0), 0u)
        << "'" << text << "'";
  }
}

TEST(Units, ByteSizesAreBinaryInEverySpelling) {
  const auto size_of = [](const char* text) {
    auto parsed = parse_byte_size(text, "--max-request-body");
    EXPECT_TRUE(parsed.ok()) << text;
    return parsed.ok() ? *parsed : 0;
  };
  EXPECT_EQ(size_of("4096"), 4096u);
  EXPECT_EQ(size_of("12B"), 12u);
  for (const char* text : {"64k", "64K", "64KB", "64KiB", "64kib"}) EXPECT_EQ(size_of(text), 65'536u) << text;
  for (const char* text : {"16M", "16m", "16MB", "16MiB"}) EXPECT_EQ(size_of(text), 16u << 20) << text;
  EXPECT_EQ(size_of("1G"), 1u << 30);
  EXPECT_EQ(size_of("1.5k"), 1536u);
}

TEST(Units, MalformedByteSizeIsRefusedNamingTheFlag) {
  for (const char* text : {"", "lots", "-1", "10x", "1T", "1.0001k", "1kk"}) {
    auto parsed = parse_byte_size(text, "--max-capture-body");
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.error().message.rfind(std::string("--max-capture-body: '") + text + "' is not", 0), 0u)
        << parsed.error().message;
  }
}

TEST(Units, PortNumberIsDigitsUpTo65535) {
  EXPECT_EQ(parse_port_number("0"), 0);
  EXPECT_EQ(parse_port_number("65535"), 65535);
  EXPECT_EQ(parse_port_number("65536"), std::nullopt);
  EXPECT_EQ(parse_port_number("8o"), std::nullopt);
  EXPECT_EQ(parse_port_number(""), std::nullopt);
  EXPECT_EQ(parse_port_number("000080"), std::nullopt);
}

TEST(Units, HttpUrlGetsDefaultPortAndPath) {
  auto target = parse_url("http://example.com");
  ASSERT_TRUE(target.ok()) << target.error().message;
  EXPECT_EQ(target->url, "http://example.com");
  EXPECT_EQ(target->scheme, "http");
  EXPECT_EQ(target->host, "example.com");
  EXPECT_EQ(target->port, 80);
  EXPECT_FALSE(target->has_explicit_port);
  EXPECT_EQ(target->path, "/");
  EXPECT_FALSE(target->is_tls());
  EXPECT_EQ(target->host_header(), "example.com");
}

TEST(Units, HttpsUrlDefaultsToPort443) {
  auto target = parse_url("https://example.com/a");
  ASSERT_TRUE(target.ok()) << target.error().message;
  EXPECT_EQ(target->scheme, "https");
  EXPECT_EQ(target->port, 443);
  EXPECT_TRUE(target->is_tls());
  EXPECT_EQ(target->path, "/a");
}

TEST(Units, SchemeIsCaseInsensitive) {
  auto target = parse_url("HTTPS://Example.com/");
  ASSERT_TRUE(target.ok()) << target.error().message;
  EXPECT_EQ(target->scheme, "https");
  EXPECT_EQ(target->host, "Example.com");
}

TEST(Units, ExplicitPortIsKept) {
  auto target = parse_url("http://127.0.0.1:8080/index.html");
  ASSERT_TRUE(target.ok()) << target.error().message;
  EXPECT_EQ(target->host, "127.0.0.1");
  EXPECT_EQ(target->port, 8080);
  EXPECT_TRUE(target->has_explicit_port);
  EXPECT_EQ(target->path, "/index.html");
  EXPECT_EQ(target->host_header(), "127.0.0.1:8080");
}

TEST(Units, QueryIsKeptAndFragmentDropped) {
  auto target = parse_url("http://h/search?q=1&r=2#results");
  ASSERT_TRUE(target.ok()) << target.error().message;
  EXPECT_EQ(target->path, "/search?q=1&r=2");
  EXPECT_EQ(target->url, "http://h/search?q=1&r=2#results");
}

TEST(Units, QueryWithoutPathGetsASlash) {
  auto target = parse_url("http://h:81?q=1");
  ASSERT_TRUE(target.ok()) << target.error().message;
  EXPECT_EQ(target->port, 81);
  EXPECT_EQ(target->path, "/?q=1");
}

TEST(Units, FragmentOnlyLeavesTheDefaultPath) {
  auto target = parse_url("http://h#top");
  ASSERT_TRUE(target.ok()) << target.error().message;
  EXPECT_EQ(target->host, "h");
  EXPECT_EQ(target->path, "/");
}

TEST(Units, Ipv6LiteralInBracketsIsUnbracketedInHost) {
  auto target = parse_url("http://[::1]:8080/x");
  ASSERT_TRUE(target.ok()) << target.error().message;
  EXPECT_EQ(target->host, "::1");
  EXPECT_EQ(target->port, 8080);
  EXPECT_EQ(target->path, "/x");
  EXPECT_EQ(target->host_header(), "[::1]:8080");
}

TEST(Units, Ipv6LiteralWithoutPortGetsTheDefault) {
  auto target = parse_url("https://[2001:db8::1]");
  ASSERT_TRUE(target.ok()) << target.error().message;
  EXPECT_EQ(target->host, "2001:db8::1");
  EXPECT_EQ(target->port, 443);
  EXPECT_EQ(target->path, "/");
}

TEST(Units, EmptyPortMeansTheDefaultPort) {
  auto target = parse_url("http://h:/p");
  ASSERT_TRUE(target.ok()) << target.error().message;
  EXPECT_EQ(target->port, 80);
  EXPECT_FALSE(target->has_explicit_port);
}

TEST(Units, UrlWithoutSchemeIsRefused) {
  EXPECT_EQ(url_error("localhost:8080/"),
            "URL 'localhost:8080/' has no scheme (expected http:// or https://)");
  EXPECT_EQ(url_error(""), "URL '' has no scheme (expected http:// or https://)");
  EXPECT_EQ(url_error("://h/"), "URL '://h/' has no scheme (expected http:// or https://)");
}

TEST(Units, UnsupportedSchemeIsRefused) {
  EXPECT_EQ(url_error("ftp://h/"),
            "unsupported scheme 'ftp' in URL 'ftp://h/' (expected http or https)");
}

TEST(Units, UrlWithoutHostIsRefused) {
  EXPECT_EQ(url_error("http:///path"), "URL 'http:///path' has no host");
  EXPECT_EQ(url_error("http://:8080/"), "URL 'http://:8080/' has no host");
  EXPECT_EQ(url_error("http://[]:80/"), "URL 'http://[]:80/' has no host");
}

TEST(Units, BadPortIsRefused) {
  for (const char* url : {"http://h:0/", "http://h:65536/", "http://h:80a/", "http://h:-1/",
                          "http://[::1]:99999/"}) {
    const std::string message = url_error(url);
    EXPECT_NE(message.find("has an invalid port"), std::string::npos) << message;
    EXPECT_NE(message.find(url), std::string::npos) << message;
  }
}

TEST(Units, MalformedIpv6IsRefused) {
  EXPECT_EQ(url_error("http://[::1/"), "URL 'http://[::1/' has an unclosed '[' in its host");
  EXPECT_EQ(url_error("http://[zz::1]/"),
            "URL 'http://[zz::1]/' has an invalid IPv6 address 'zz::1'");
  EXPECT_NE(url_error("http://::1:80/").find("in brackets"), std::string::npos);
  EXPECT_NE(url_error("http://[::1]x/").find("unexpected text 'x'"), std::string::npos);
}

TEST(Units, UserInfoIsRefusedWithAHint) {
  EXPECT_NE(url_error("http://user:pw@h/").find("Authorization"), std::string::npos);
}

TEST(Units, SpacesAndControlCharactersInUrlAreRefused) {
  EXPECT_NE(url_error("http://h/a b").find("percent-encode"), std::string::npos);
  EXPECT_NE(url_error("http://h/a\r\nX: y").find("percent-encode"), std::string::npos);
}

TEST(Units, InvalidHostCharactersAreRefused) {
  EXPECT_EQ(url_error("http://a<b>/"), "URL 'http://a<b>/' has an invalid host 'a<b>'");
}

}  // namespace
}  // namespace pacer::cli
