#include "proxy/no_proxy.h"

#include <gtest/gtest.h>

namespace pacer::proxy {
namespace {

TEST(NoProxy, StarMatchesEveryHost) {
  EXPECT_TRUE(no_proxy_matches("*", "example.com"));
  EXPECT_TRUE(no_proxy_matches("a.test, *", "127.0.0.1"));
  EXPECT_FALSE(no_proxy_matches("", "example.com"));
}

TEST(NoProxy, ANameMatchesItselfAndItsSubdomainsOnly) {
  EXPECT_TRUE(no_proxy_matches("example.com", "example.com"));
  EXPECT_TRUE(no_proxy_matches("example.com", "www.example.com"));
  EXPECT_TRUE(no_proxy_matches(".example.com", "www.example.com"));
  EXPECT_TRUE(no_proxy_matches(".example.com", "example.com"));
  EXPECT_FALSE(no_proxy_matches("example.com", "notexample.com"));
  EXPECT_FALSE(no_proxy_matches("www.example.com", "example.com"));
  EXPECT_TRUE(no_proxy_matches("EXAMPLE.com", "Www.Example.COM."));
}

TEST(NoProxy, EntriesAreSeparatedByCommasAndSpaces) {
  EXPECT_TRUE(no_proxy_matches("a.test,  b.test", "b.test"));
  EXPECT_TRUE(no_proxy_matches("a.test b.test", "x.b.test"));
  EXPECT_FALSE(no_proxy_matches("a.test,b.test", "c.test"));
}

TEST(NoProxy, AddressesMatchExactlyOrByCidr) {
  EXPECT_TRUE(no_proxy_matches("127.0.0.1", "127.0.0.1"));
  EXPECT_FALSE(no_proxy_matches("127.0.0.1", "127.0.0.2"));
  EXPECT_TRUE(no_proxy_matches("10.0.0.0/8", "10.2.3.4"));
  EXPECT_FALSE(no_proxy_matches("10.0.0.0/8", "11.2.3.4"));
  EXPECT_TRUE(no_proxy_matches("::1", "[::1]"));
  EXPECT_TRUE(no_proxy_matches("fd00::/16", "fd00::8"));
  EXPECT_FALSE(no_proxy_matches("fd00::/16", "fd01::8"));
  EXPECT_FALSE(no_proxy_matches("127.0.0.1", "::1"));
  // A name entry never matches an address by its text's tail.
  EXPECT_FALSE(no_proxy_matches("0.0.1", "127.0.0.1"));
}

TEST(NoProxy, BadCidrMatchesNothing) {
  EXPECT_FALSE(no_proxy_matches("10.0.0.0/33", "10.0.0.1"));
  EXPECT_FALSE(no_proxy_matches("10.0.0.0/", "10.0.0.1"));
}

}  // namespace
}  // namespace pacer::proxy
