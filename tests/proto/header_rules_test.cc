// The one header rule every source of headers goes through (proto/header_rules.h).
#include "proto/header_rules.h"

#include <gtest/gtest.h>

namespace pacer::proto {
namespace {

HeaderContext without_body() { return HeaderContext{}; }

HeaderContext with_body(std::size_t bytes) {
  HeaderContext c;
  c.body_bytes = bytes;
  return c;
}

TEST(HeaderRules, PlainHeadersPass) {
  EXPECT_EQ(header_problem("X-Id", "a\tb c", without_body()), "");
  EXPECT_EQ(header_problem("Content-Length", "5", with_body(5)), "");
  EXPECT_EQ(header_problem("Content-Length", "0", without_body()), "");
}

TEST(HeaderRules, FramingHeadersAreRefused) {
  EXPECT_NE(header_problem("Transfer-Encoding", "chunked", with_body(3)).find("contradicts the framing"),
            std::string::npos);
  EXPECT_NE(header_problem("content-length", "0", with_body(3)).find("contradicts the body, which is 3 bytes"),
            std::string::npos);
  EXPECT_NE(header_problem("Content-Length", "7", without_body()).find("on a request without a body"),
            std::string::npos);
}

TEST(HeaderRules, ControlCharactersAreRefusedAndNeverEchoed) {
  for (const std::string_view value : {std::string_view("a\0b", 3), std::string_view("a\r\nX: y"),
                                       std::string_view("a\nb"), std::string_view("\x1b]0;x\x07")}) {
    const std::string problem = header_problem("X-A", value, without_body());
    EXPECT_NE(problem.find("a control character"), std::string::npos) << problem;
  }
  const std::string named = header_problem(std::string_view("X\r\nEvil\0", 8), "v", without_body());
  EXPECT_NE(named.find("is not a valid HTTP token"), std::string::npos);
  EXPECT_EQ(named.find_first_of(std::string_view("\r\n\0", 3)), std::string::npos) << named;
}

TEST(HeaderRules, ConnectionSpecificHeadersOnlyUnderHttp2) {
  HeaderContext h2;
  h2.http2 = true;
  EXPECT_NE(header_problem("Connection", "close", h2).find("connection-specific"), std::string::npos);
  EXPECT_EQ(header_problem("TE", "trailers", h2), "");
  EXPECT_EQ(header_problem("Connection", "close", without_body()), "");
}

TEST(HeaderRules, ASecondHostIsRefusedWhateverItsCase) {
  EXPECT_EQ(header_list_problem({{"Host", "a"}, {"X", "1"}}, without_body()), "");
  const std::string problem = header_list_problem({{"Host", "a"}, {"HOST", "b"}}, without_body());
  EXPECT_NE(problem.find("a second Host header ('HOST: b')"), std::string::npos) << problem;
}

TEST(HeaderRules, TheBodyFlagIsNamedWhenGiven) {
  HeaderContext c;
  c.body_flag = "-b";
  EXPECT_NE(header_problem("Content-Length", "3", c).find("or give the body with -b"), std::string::npos);
}

}  // namespace
}  // namespace pacer::proto
