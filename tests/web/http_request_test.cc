// The web view's request head parser (src/web/http_request.h).
#include "web/http_request.h"

#include <string>

#include <gtest/gtest.h>

namespace pacer::web {
namespace {

TEST(HttpRequest, CompleteHeadGivesMethodPathQueryAndTheFieldsRoutesRead) {
  const std::string head =
      "GET /events?token=abc&x=1 HTTP/1.1\r\nHost: 127.0.0.1:8089\r\nOrigin: http://127.0.0.1:8089\r\n"
      "authorization:  Bearer t0k3n \r\nLast-Event-ID: 41\r\nX-Other: y\r\n"
      "ACCEPT: application/openmetrics-text;version=1.0.0\r\n\r\n";
  const ParsedHead parsed = parse_request_head(head, 8192);
  ASSERT_EQ(parsed.state, HeadState::kComplete);
  EXPECT_EQ(parsed.request.method, "GET");
  EXPECT_EQ(parsed.request.path, "/events");
  EXPECT_EQ(parsed.request.query, "token=abc&x=1");
  EXPECT_EQ(parsed.request.host, "127.0.0.1:8089");
  EXPECT_EQ(parsed.request.origin, "http://127.0.0.1:8089");
  EXPECT_EQ(parsed.request.authorization, "Bearer t0k3n");
  EXPECT_EQ(parsed.request.last_event_id, "41");
  EXPECT_EQ(parsed.request.accept, "application/openmetrics-text;version=1.0.0");
  EXPECT_EQ(query_param(parsed.request.query, "token"), "abc");
  EXPECT_EQ(query_param(parsed.request.query, "x"), "1");
  EXPECT_EQ(query_param(parsed.request.query, "tok"), "");
}

TEST(HttpRequest, PartialHeadAsksForMoreAndOversizedHeadIsRefused) {
  EXPECT_EQ(parse_request_head("GET / HTTP/1.1\r\nHost: a\r\n", 8192).state, HeadState::kIncomplete);
  const std::string big = "GET / HTTP/1.1\r\nX: " + std::string(9000, 'a');
  EXPECT_EQ(parse_request_head(big, 8192).state, HeadState::kTooLarge);
  const std::string big_but_whole = "GET / HTTP/1.1\r\nX: " + std::string(9000, 'a') + "\r\n\r\n";
  EXPECT_EQ(parse_request_head(big_but_whole, 8192).state, HeadState::kTooLarge);
  EXPECT_EQ(parse_request_head("GET / HTTP/1.1\n\n", 8192).state, HeadState::kComplete);  // bare LF
}

TEST(HttpRequest, MalformedHeadsAreBad) {
  for (const char* head : {"GET /\r\n\r\n", "GET / HTTP/2\r\n\r\n", "GET x HTTP/1.1\r\n\r\n",
                           "G(T / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nNo colon\r\n\r\n",
                           "GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", "GET / HTTP/1.1\r\nA: b\x01\r\n\r\n",
                           "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "GET /a b HTTP/1.1\r\n\r\n",
                           "GET / HTTP/1.1\r\nHost:\r\nhost: b\r\n\r\n",
                           "POST / HTTP/1.1\r\nOrigin: http://evil\r\nOrigin: http://a\r\n\r\n",
                           "GET / HTTP/1.1\r\nAuthorization: Bearer x\r\nauthorization: Bearer y\r\n\r\n"}) {
    EXPECT_EQ(parse_request_head(head, 8192).state, HeadState::kBad) << head;
  }
}

TEST(HttpRequest, TokensCompareWhole) {
  EXPECT_TRUE(equal_constant_time("secret-token", "secret-token"));
  EXPECT_FALSE(equal_constant_time("secret-token", "secret-tokeN"));
  EXPECT_FALSE(equal_constant_time("secret-token", "secret-token2"));
  EXPECT_FALSE(equal_constant_time("secret-token", ""));
}

}  // namespace
}  // namespace pacer::web
