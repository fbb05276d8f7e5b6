// ALPN offer and check (src/proto/alpn.cc).
#include "proto/alpn.h"

#include <gtest/gtest.h>

namespace pacer::proto {
namespace {

TEST(Alpn, Http2OffersOnlyH2InWireFormat) {
  EXPECT_EQ(alpn_offer(true), std::string_view("\x02h2", 3));
  EXPECT_EQ(alpn_offer(false), std::string_view("\x08http/1.1", 9));
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
