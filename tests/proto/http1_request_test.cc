#include "proto/http1_request.h"

#include <gtest/gtest.h>

namespace pacer::proto {
namespace {

Config base_config() {
  Config c;
  c.target.url = "http://example.test:8080/a?b=1";
  c.target.scheme = "http";
  c.target.host = "example.test";
  c.target.port = 8080;
  c.target.path = "/a?b=1";
  return c;
}

TEST(Http1Request, GetCarriesOnlyHostWithPort) {
  EXPECT_EQ(build_request(base_config()), "GET /a?b=1 HTTP/1.1\r\nHost: example.test:8080\r\n\r\n");
}

TEST(Http1Request, DefaultPortIsLeftOutOfHost) {
  Config c = base_config();
  c.target.port = 80;
  EXPECT_EQ(build_request(c), "GET /a?b=1 HTTP/1.1\r\nHost: example.test\r\n\r\n");
}

TEST(Http1Request, Ipv6HostIsBracketed) {
  Config c = base_config();
  c.target.host = "::1";
  EXPECT_EQ(build_request(c), "GET /a?b=1 HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n");
}

TEST(Http1Request, BodySetsContentLengthAndHeadersKeepTheirOrder) {
  Config c = base_config();
  c.method = "POST";
  c.headers = {{"Content-Type", "application/json"}, {"X-A", "1"}};
  c.body = std::string("{\"a\":1}\0x", 9);
  EXPECT_EQ(build_request(c), "POST /a?b=1 HTTP/1.1\r\nHost: example.test:8080\r\nContent-Type: "
                              "application/json\r\nX-A: 1\r\nContent-Length: 9\r\n\r\n" + *c.body);
}

TEST(Http1Request, UserHostHeaderReplacesPacersOwn) {
  Config c = base_config();
  c.headers = {{"host", "other.test"}};
  EXPECT_EQ(build_request(c), "GET /a?b=1 HTTP/1.1\r\nhost: other.test\r\n\r\n");
}

TEST(Http1Request, DisabledKeepAliveAsksTheServerToClose) {
  Config c = base_config();
  c.keep_alive = false;
  EXPECT_EQ(build_request(c), "GET /a?b=1 HTTP/1.1\r\nHost: example.test:8080\r\nConnection: close\r\n\r\n");
}

TEST(Http1Request, EmptyBodyStillSendsContentLengthZero) {
  Config c = base_config();
  c.method = "POST";
  c.body = std::string();
  EXPECT_EQ(build_request(c), "POST /a?b=1 HTTP/1.1\r\nHost: example.test:8080\r\nContent-Length: 0\r\n\r\n");
}

}  // namespace
}  // namespace pacer::proto
