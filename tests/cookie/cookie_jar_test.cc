// The cookie jar against RFC 6265's examples (section 3.1) and rules (section 5).
#include "cookie/cookie_jar.h"

#include <gtest/gtest.h>

#include <string>

#include "cookie/cookie_file.h"

namespace pacer::cookie {
namespace {

// 2021-06-09 10:18:14 UTC, the expiry of section 3.1's `lang` cookie, minus a day.
constexpr std::int64_t kBefore2021 = 1623233894 - 86400;

std::string header(const CookieJar& jar, std::string_view host, std::string_view path, bool secure,
                   std::int64_t now_s = kBefore2021) {
  std::string out;
  jar.append_header(out, Origin{host, path, secure}, now_s);
  return out;
}

TEST(CookieDate, ParsesTheFormsSection511Accepts) {
  std::int64_t t = 0;
  ASSERT_TRUE(parse_cookie_date("Wed, 09 Jun 2021 10:18:14 GMT", t));
  EXPECT_EQ(t, 1623233894);
  ASSERT_TRUE(parse_cookie_date("Sun, 06 Nov 1994 08:49:37 GMT", t));
  EXPECT_EQ(t, 784111777);
  ASSERT_TRUE(parse_cookie_date("Sunday, 06-Nov-94 08:49:37 GMT", t));  // RFC 850, two-digit year
  EXPECT_EQ(t, 784111777);
  ASSERT_TRUE(parse_cookie_date("Sun Nov  6 08:49:37 1994", t));  // asctime
  EXPECT_EQ(t, 784111777);
  EXPECT_FALSE(parse_cookie_date("Wed, 09 Jun 2021", t));            // no time
  EXPECT_FALSE(parse_cookie_date("Wed, 32 Jun 2021 10:18:14", t));   // day 32
  EXPECT_FALSE(parse_cookie_date("Wed, 09 Jun 1600 10:18:14", t));   // before 1601
  EXPECT_FALSE(parse_cookie_date("Wed, 09 Jun 2021 24:00:00", t));   // hour 24
  EXPECT_FALSE(parse_cookie_date("tomorrow", t));
}

TEST(CookieJar, Section31ExamplesSessionAndPersistentCookiesAreSentBack) {
  CookieJar jar;
  const Origin from{"example.com", "/", true};
  EXPECT_EQ(jar.store("SID=31d4d96e407aad42; Path=/; Domain=example.com", from, kBefore2021), Stored::kStored);
  EXPECT_EQ(header(jar, "example.com", "/", true), "SID=31d4d96e407aad42");
  // The Domain attribute: subdomains get it too.
  EXPECT_EQ(header(jar, "www.example.com", "/", true), "SID=31d4d96e407aad42");
  EXPECT_EQ(jar.store("SID=31d4d96e407aad42; Path=/; Secure; HttpOnly", from, kBefore2021), Stored::kStored);
  EXPECT_EQ(jar.store("lang=en-US; Path=/; Domain=example.com", from, kBefore2021), Stored::kStored);
  // The second SID (same name, domain and path) replaced the first, keeping its
  // place: now host-only and Secure.
  EXPECT_EQ(jar.size(), 2u);
  EXPECT_EQ(header(jar, "example.com", "/", true), "SID=31d4d96e407aad42; lang=en-US");
  EXPECT_EQ(header(jar, "example.com", "/", false), "lang=en-US");
  EXPECT_EQ(header(jar, "www.example.com", "/", true), "lang=en-US");
}

TEST(CookieJar, Section31ExpiresPersistsUntilItsDateAndAPastDateDeletes) {
  CookieJar jar;
  const Origin from{"example.com", "/", false};
  jar.store("lang=en-US; Expires=Wed, 09 Jun 2021 10:18:14 GMT", from, kBefore2021);
  EXPECT_EQ(header(jar, "example.com", "/", false), "lang=en-US");
  EXPECT_EQ(header(jar, "example.com", "/", false, 1623233894), "");  // at its expiry: gone
  EXPECT_EQ(jar.store("lang=; Expires=Sun, 06 Nov 1994 08:49:37 GMT", from, kBefore2021), Stored::kDeleted);
  EXPECT_EQ(jar.size(), 0u);
  EXPECT_EQ(header(jar, "example.com", "/", false), "");
}

TEST(CookieJar, MaxAgeWinsOverExpiresInEitherOrderAndZeroDeletes) {
  CookieJar jar;
  const Origin from{"h", "/", false};
  jar.store("a=1; Max-Age=10; Expires=Sun, 06 Nov 1994 08:49:37 GMT", from, 1000);
  jar.store("b=2; Expires=Sun, 06 Nov 1994 08:49:37 GMT; Max-Age=10", from, 1000);
  EXPECT_EQ(header(jar, "h", "/", false, 1009), "a=1; b=2");
  EXPECT_EQ(header(jar, "h", "/", false, 1010), "");
  jar.store("c=3", from, 1000);
  EXPECT_EQ(jar.store("c=3; Max-Age=0", from, 1000), Stored::kDeleted);
  EXPECT_EQ(jar.store("a=1; Max-Age=-5", from, 1000), Stored::kDeleted);
  EXPECT_EQ(jar.size(), 1u);  // b, expired by its Max-Age only at 1010
  jar.store("d=4; Max-Age=junk", from, 1000);  // an unreadable Max-Age is ignored: a session cookie
  EXPECT_EQ(header(jar, "h", "/", false, 1 << 30), "d=4");
}

TEST(CookieJar, PathDefaultsToTheRequestDirectoryAndMatchesBySegments) {
  CookieJar jar;
  jar.store("a=1", Origin{"h", "/docs/web/page", false}, 0);  // default path /docs/web
  jar.store("b=2; Path=/docs", Origin{"h", "/x", false}, 0);
  jar.store("c=3; Path=relative", Origin{"h", "/top", false}, 0);  // not a path: the default, "/"
  EXPECT_EQ(header(jar, "h", "/docs/web", false, 1), "a=1; b=2; c=3");  // longer path first
  EXPECT_EQ(header(jar, "h", "/docs/web/x", false, 1), "a=1; b=2; c=3");
  EXPECT_EQ(header(jar, "h", "/docs/webby", false, 1), "b=2; c=3");
  EXPECT_EQ(header(jar, "h", "/docsy", false, 1), "c=3");
  EXPECT_TRUE(path_matches("/docs/", "/docs/"));
  EXPECT_TRUE(path_matches("/docs/a", "/docs/"));
  EXPECT_EQ(default_path("/"), "/");
  EXPECT_EQ(default_path("/a"), "/");
  EXPECT_EQ(default_path("/a/b"), "/a");
}

TEST(CookieJar, AForeignDomainOrSecureOverHttpIsRefusedAndIpsMatchOnlyThemselves) {
  CookieJar jar;
  EXPECT_EQ(jar.store("a=1; Domain=other.com", Origin{"example.com", "/", false}, 0), Stored::kIgnored);
  EXPECT_EQ(jar.store("a=1; Domain=www.example.com", Origin{"example.com", "/", false}, 0), Stored::kIgnored);
  EXPECT_EQ(jar.store("a=1; Domain=.EXAMPLE.com", Origin{"www.example.com", "/", false}, 0), Stored::kStored);
  EXPECT_EQ(jar.store("s=1; Secure", Origin{"example.com", "/", false}, 0), Stored::kIgnored);
  EXPECT_EQ(jar.store("noequals", Origin{"example.com", "/", false}, 0), Stored::kIgnored);
  EXPECT_EQ(jar.store("=v", Origin{"example.com", "/", false}, 0), Stored::kIgnored);
  EXPECT_EQ(jar.store("a=1\r\nX-Injected: 1", Origin{"example.com", "/", false}, 0), Stored::kIgnored);
  EXPECT_EQ(jar.store(std::string("a=1\0b", 5), Origin{"example.com", "/", false}, 0), Stored::kIgnored);
  EXPECT_FALSE(domain_matches("1.2.3.4", "2.3.4"));
  EXPECT_TRUE(domain_matches("1.2.3.4", "1.2.3.4"));
  EXPECT_EQ(header(jar, "example.com", "/", false, 1), "a=1");
}

// Issue 44 (15): RFC 6265bis's prefixes, as browsers keep them.
TEST(CookieJar, PrefixedCookiesThatBreakTheirPrefixsRulesAreRefused) {
  CookieJar jar;
  const Origin http{"example.com", "/a/b", false};
  const Origin https{"example.com", "/a/b", true};
  EXPECT_EQ(jar.store("__Host-id=1; Path=/", http, 0), Stored::kIgnored);
  EXPECT_EQ(jar.store("__Secure-id=1", http, 0), Stored::kIgnored);
  EXPECT_EQ(jar.store("__secure-low=1", http, 0), Stored::kIgnored);  // without case
  EXPECT_EQ(jar.store("__Secure-id=1", https, 0), Stored::kIgnored);  // no Secure attribute
  EXPECT_EQ(jar.store("__Host-id=1; Secure", https, 0), Stored::kIgnored);  // no Path=/
  EXPECT_EQ(jar.store("__Host-id=1; Secure; Path=/; Domain=example.com", https, 0), Stored::kIgnored);
  EXPECT_EQ(header(jar, "example.com", "/a/b", false, 1), "");
  EXPECT_EQ(jar.store("__Secure-s=2; Secure", https, 0), Stored::kStored);
  EXPECT_EQ(jar.store("__Host-h=3; Secure; Path=/", https, 0), Stored::kStored);
  EXPECT_EQ(header(jar, "example.com", "/a/b", true, 1), "__Secure-s=2; __Host-h=3");
}

TEST(CookieJar, ASecondSetReplacesTheValueAndKeepsItsPlace) {
  CookieJar jar;
  const Origin from{"h", "/", false};
  jar.store("a=1", from, 0);
  jar.store("b=2", from, 0);
  jar.store("a=9", from, 0);
  EXPECT_EQ(jar.size(), 2u);
  EXPECT_EQ(header(jar, "h", "/", false, 1), "a=9; b=2");
  ASSERT_NE(jar.find("b", Origin{"h", "/", false}, 1), nullptr);
  EXPECT_EQ(jar.find("b", Origin{"h", "/", false}, 1)->value, "2");
  EXPECT_EQ(jar.remove("a"), 1u);
  EXPECT_EQ(header(jar, "h", "/", false, 1), "b=2");
  jar.clear();
  EXPECT_EQ(jar.size(), 0u);
}

TEST(CookieJar, AHostileServerCannotGrowItPastItsCaps) {
  CookieJar jar;
  const Origin from{"h", "/", false};
  for (int i = 0; i < 1000; ++i) jar.store("c" + std::to_string(i) + "=v", from, 0);
  EXPECT_EQ(jar.size(), CookieJar::kMaxCookies);
  // The oldest went first: the last 50 remain.
  EXPECT_EQ(jar.find("c949", from, 1), nullptr);
  EXPECT_NE(jar.find("c950", from, 1), nullptr);
  EXPECT_NE(jar.find("c999", from, 1), nullptr);
  const std::string big(CookieJar::kMaxCookieBytes, 'x');
  EXPECT_EQ(jar.store("big=" + big, from, 0), Stored::kIgnored);
  EXPECT_EQ(jar.store("p=1; Path=/" + std::string(CookieJar::kMaxPathBytes, 'p'), from, 0), Stored::kIgnored);
}

TEST(CookieJar, SetFromCodeMakesHostOnlyOrDomainCookies) {
  CookieJar jar;
  const Origin from{"www.example.com", "/", false};
  EXPECT_EQ(jar.set("a", "1", from, "", "", -1, false, 0), Stored::kStored);
  EXPECT_EQ(jar.set("b", "2", from, ".Example.com", "/x", -1, false, 0), Stored::kStored);
  EXPECT_EQ(jar.set("c", "3", from, "", "", 5, false, 0), Stored::kStored);
  EXPECT_EQ(header(jar, "www.example.com", "/x", false, 1), "b=2; a=1; c=3");
  EXPECT_EQ(header(jar, "api.example.com", "/x/y", false, 6), "b=2");
  EXPECT_EQ(jar.set("a", "", from, "", "", 0, false, 0), Stored::kDeleted);
  EXPECT_EQ(header(jar, "www.example.com", "/", false, 1), "c=3");
}

TEST(CookieFile, ReadsCurlsCookiesTxtWithHttpOnlyAndComments) {
  const std::string text =
      "# Netscape HTTP Cookie File\n"
      "\n"
      ".example.com\tTRUE\t/\tFALSE\t0\tsid\tabc\n"
      "#HttpOnly_example.com\tFALSE\t/app\tFALSE\t4000000000\ttok\txyz\r\n"
      "example.com\tFALSE\t/\tTRUE\t0\tsec\t1\n"
      "example.com\tFALSE\t/\tFALSE\t100\told\tgone\n";
  CookieJar jar;
  ASSERT_TRUE(load_cookie_file(text, "f", 1000, jar));
  EXPECT_EQ(jar.size(), 3u);  // the expired one is skipped
  EXPECT_EQ(header(jar, "example.com", "/app/x", false, 1000), "tok=xyz; sid=abc");
  EXPECT_EQ(header(jar, "www.example.com", "/app/x", true, 1000), "sid=abc");
  EXPECT_TRUE(jar.at(1).http_only);
  auto bad = load_cookie_file("example.com\tFALSE\t/\n", "cookies.txt", 0, jar);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("cookies.txt, line 1"), std::string::npos);
}

TEST(CookiePairs, AreCheckedAndJoined) {
  auto ok = parse_cookie_pairs(" a=1 ;b=2; ", "--cookie");
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, "a=1; b=2");
  EXPECT_FALSE(parse_cookie_pairs("novalue", "--cookie"));
  EXPECT_FALSE(parse_cookie_pairs("a=1\r\nX: y", "--cookie"));
  EXPECT_FALSE(parse_cookie_pairs(";", "--cookie"));
}

}  // namespace
}  // namespace pacer::cookie
