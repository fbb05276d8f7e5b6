// --web [ADDR], --web-token, --web-linger (src/cli/web_options.h) and their
// place on the command line.
#include "cli/web_options.h"

#include <gtest/gtest.h>

#include "../support/cli_args.h"

namespace pacer::cli {
namespace {

using pacer::testing::parse_args;

WebViewOptions web_of(std::vector<std::string> args) {
  auto parsed = parse_args(args);
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message);
  return parsed.ok() ? parsed->run.web : WebViewOptions{};
}

TEST(WebOptions, BareWebListensOnLoopbackPort8089) {
  const WebViewOptions web = web_of({"--web", "http://127.0.0.1:1/"});
  EXPECT_TRUE(web.enabled);
  EXPECT_EQ(web.host, "127.0.0.1");
  EXPECT_EQ(web.port, 8089);
  EXPECT_FALSE(web_of({"http://127.0.0.1:1/"}).enabled);
}

TEST(WebOptions, AddressMayFollowAsTheNextArgumentButAUrlDoesNot) {
  const WebViewOptions next = web_of({"--web", "0.0.0.0:9000", "http://127.0.0.1:1/"});
  EXPECT_EQ(next.host, "0.0.0.0");
  EXPECT_EQ(next.port, 9000);
  const WebViewOptions eq = web_of({"--web=[::1]:0", "http://127.0.0.1:1/"});
  EXPECT_EQ(eq.host, "::1");
  EXPECT_EQ(eq.port, 0);
  EXPECT_EQ(web_of({"--web=9001", "http://127.0.0.1:1/"}).port, 9001);
  EXPECT_EQ(web_of({"--web", ":9002", "http://127.0.0.1:1/"}).host, "127.0.0.1");
  EXPECT_EQ(web_of({"--web", "localhost:9003", "http://127.0.0.1:1/"}).host, "127.0.0.1");
  EXPECT_FALSE(looks_like_web_address("http://127.0.0.1:8080"));
  EXPECT_FALSE(looks_like_web_address("-d"));
  EXPECT_FALSE(looks_like_web_address("9000"));  // a bare port only with --web=9000
}

TEST(WebOptions, BadAddressesNameTheFlagAndTheReason) {
  WebViewOptions web;
  EXPECT_EQ(parse_web_address("1.2.3:80", "--web", web).error().message,
            "--web: '1.2.3:80' has an invalid IPv4 address (or use localhost) (expected 127.0.0.1:8089, "
            "[::1]:8089, :8089 or 8089)");
  EXPECT_FALSE(parse_web_address("127.0.0.1:70000", "--web", web).ok());
  EXPECT_FALSE(parse_web_address("::1:80", "--web", web).ok());
  EXPECT_FALSE(parse_web_address("[::1]", "--web", web).ok());
  EXPECT_FALSE(parse_web_address("example.com:80", "--web", web).ok());
  EXPECT_EQ(web.host, "127.0.0.1");  // untouched by the failures
  auto parsed = parse_args({"--web=nonsense", "http://127.0.0.1:1/"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().kind, ErrorKind::kBadArgument);
}

TEST(WebOptions, TokensAreUrlSafeAndLongEnough) {
  EXPECT_EQ(*parse_web_token("abcDEF12-._~", "--web-token"), "abcDEF12-._~");
  EXPECT_FALSE(parse_web_token("short", "--web-token").ok());
  EXPECT_FALSE(parse_web_token("has space in it", "--web-token").ok());
  EXPECT_FALSE(parse_web_token("amp&ersand1", "--web-token").ok());
  EXPECT_FALSE(parse_web_token(std::string(257, 'a'), "--web-token").ok());
}

TEST(WebOptions, TokenAndLingerNeedWeb) {
  auto token = parse_args({"--web-token", "abcdefgh12", "http://127.0.0.1:1/"});
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.error().message, "--web-token needs --web (the live web view it protects)");
  auto linger = parse_args({"--web-linger", "5s", "http://127.0.0.1:1/"});
  ASSERT_FALSE(linger.ok());
  EXPECT_EQ(linger.error().message, "--web-linger needs --web (the live web view it keeps serving)");
  const WebViewOptions web = web_of({"--web", "--web-token", "abcdefgh12", "--web-linger", "2.5s", "http://127.0.0.1:1/"});
  EXPECT_EQ(web.token, "abcdefgh12");
  EXPECT_EQ(web.linger_ns, 2500 * kNsPerMs);
}

}  // namespace
}  // namespace pacer::cli
