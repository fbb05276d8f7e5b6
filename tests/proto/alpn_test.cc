// ALPN offer and check (src/proto/alpn.cc).
#include "proto/alpn.h"

#include <gtest/gtest.h>

namespace pacer::proto {
namespace {

TEST(Alpn, Http2OffersOnlyH2AndHttp11OffersOnlyHttp11) {
  EXPECT_EQ(alpn_protocols(true), std::vector<std::string>{"h2"});
  EXPECT_EQ(alpn_protocols(false), std::vector<std::string>{"http/1.1"});
}

TEST(Alpn, Http2FailsClearlyWhenTheServerDeclinesH2) {
  EXPECT_TRUE(alpn_mismatch(true, "h2").empty());
  EXPECT_EQ(alpn_mismatch(true, "http/1.1"), "--http2: the server did not negotiate h2 via ALPN");
  EXPECT_EQ(alpn_mismatch(true, ""), "--http2: the server did not negotiate h2 via ALPN");
}

TEST(Alpn, Http1AcceptsAnyOutcome) {
  EXPECT_TRUE(alpn_mismatch(false, "").empty());
  EXPECT_TRUE(alpn_mismatch(false, "http/1.1").empty());
}

}  // namespace
}  // namespace pacer::proto
