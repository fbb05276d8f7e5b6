#include "proxy/no_proxy.h"

#include <gtest/gtest.h>

namespace pacer::proxy {
namespace {

TEST(NoProxy, StarMatchesEveryHost) {
  EXPECT_TRUE(no_proxy_matches("*", "example.com"));
  EXPECT_TRUE(no_proxy_matches("a.test, *", "127.0.0.1"));
  EXPECT_FALSE(no_proxy_matches("", "example.com"));
}

TEST(NoProxy, EntriesThatCanNeverMatchAreNamed) {
  EXPECT_EQ(no_proxy_flaw("a.test, localhost:8080").value_or(""),
            "'localhost:8080' has a port (or is an IPv6 address with one): entries are host names, domains and "
            "addresses without ports, as curl reads them");
  EXPECT_NE(no_proxy_flaw("10.0.0.0/33").value_or("").find("0 to 32 for IPv4"), std::string::npos);
  EXPECT_NE(no_proxy_flaw("fd00::/129").value_or("").find("0 to 128 for IPv6"), std::string::npos);
  EXPECT_NE(no_proxy_flaw("[::1]:80").value_or("").find("has a port"), std::string::npos);
  EXPECT_NE(no_proxy_flaw("name.test/8").value_or("").find("only an IP address"), std::string::npos);
  EXPECT_FALSE(no_proxy_flaw("*, .a.test, 10.0.0.0/8, ::1, [fd00::1], fd00::/64, 127.0.0.1"));
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
