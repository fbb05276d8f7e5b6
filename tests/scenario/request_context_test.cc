// RequestContext (issue 42): the URL's path as a prefix of every path a user
// gives (Locust's base URL), and an absolute URL of the run's origin sent as it is.
#include "scenario/request_context.h"

#include <gtest/gtest.h>

#include "cli/units.h"

namespace pacer::scenario {
namespace {

Config config_for(std::string_view url) {
  Config config;
  auto target = cli::parse_url(url);
  EXPECT_TRUE(target) << url;
  config.target = *target;
  return config;
}

TEST(RequestContext, TheUrlsPathWithoutItsTrailingSlashOrQueryIsThePrefix) {
  const Config docs = config_for("http://127.0.0.1:8080/docs");
  EXPECT_EQ(RequestContext(docs).path_prefix(), "/docs");
  const Config slash = config_for("http://127.0.0.1:8080/docs/?x=1");
  EXPECT_EQ(RequestContext(slash).path_prefix(), "/docs");
  const Config root = config_for("http://127.0.0.1:8080/");
  EXPECT_EQ(RequestContext(root).path_prefix(), "");
  const Config bare = config_for("http://127.0.0.1:8080");
  EXPECT_EQ(RequestContext(bare).path_prefix(), "");
}

TEST(RequestContext, AFullPathIsThePrefixThenThePath) {
  const Config docs = config_for("http://127.0.0.1:8080/docs/");
  RequestContext context(docs);
  EXPECT_EQ(context.full_path("/"), "/docs/");
  EXPECT_EQ(context.full_path("/a?b=1"), "/docs/a?b=1");
  const Config root = config_for("http://127.0.0.1:8080/");
  RequestContext plain(root);
  const std::string_view given = "/a";
  EXPECT_EQ(plain.full_path(given).data(), given.data()) << "no prefix: the path itself, not a copy";
}

TEST(RequestContext, AnAbsoluteUrlOfTheSameOriginGivesItsPathAndQuery) {
  const Config docs = config_for("http://127.0.0.1:8080/docs");
  RequestContext context(docs);
  auto same = [&](std::string_view url) {
    const UrlPlace p = context.place(url);
    EXPECT_EQ(p.origin, 0) << url;
    EXPECT_TRUE(p.error.empty()) << url;
    return std::string(p.path);
  };
  EXPECT_EQ(same("http://127.0.0.1:8080/x?y=1#frag"), "/x?y=1");
  EXPECT_EQ(same("HTTP://127.0.0.1:8080"), "/");
  EXPECT_EQ(same("http://127.0.0.1:8080?q"), "/?q");
  const Config port80 = config_for("http://example.test/");
  EXPECT_EQ(RequestContext(port80).place("http://EXAMPLE.test:80/a").path, "/a");
  EXPECT_EQ(RequestContext(port80).place("http://EXAMPLE.test:80/a").origin, 0);
}

TEST(RequestContext, AnotherOriginHasItsOwnHostHeaderAndCookieHost) {
  const Config docs = config_for("http://127.0.0.1:8080/docs");
  RequestContext context(docs);
  const UrlPlace other = context.place("http://Other.Test:8097/x");
  ASSERT_EQ(other.origin, 1);
  EXPECT_EQ(other.path, "/x") << "the run's prefix is not put before another origin's path";
  EXPECT_EQ(context.host_header(0), "127.0.0.1:8080");
  EXPECT_EQ(context.host_header(1), "other.test:8097");
  User u;
  u.origin = 1;
  u.request = "GET /x HTTP/1.1\r\n";
  EXPECT_EQ(context.cookie_origin(u).host, "other.test");
  EXPECT_FALSE(context.cookie_origin(u).secure);
  u.origin = 0;
  EXPECT_EQ(context.cookie_origin(u).host, "127.0.0.1");
}

}  // namespace
}  // namespace pacer::scenario
