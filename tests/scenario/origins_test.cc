// Origins (issue 42): the run's origin and the others a scenario's users name
// by an absolute URL, each with its id, Host header, cookie host and default
// name prefix; what is refused (a scheme, user info, a port, past the cap, --proxy).
#include "scenario/origins.h"

#include <gtest/gtest.h>

#include <string>

#include "cli/units.h"

namespace pacer::scenario {
namespace {

Config origins_config(std::string_view url) {
  Config config;
  auto target = cli::parse_url(url);
  EXPECT_TRUE(target) << url;
  config.target = *target;
  return config;
}

TEST(Origins, TheRunsOwnOriginIsZeroWhateverTheCaseOrTheDefaultPortSpelledOut) {
  const Config config = origins_config("https://Example.test/base");
  Origins origins(config);
  EXPECT_EQ(origins.place("https://example.TEST:443/x").origin, 0);
  EXPECT_EQ(origins.place("HTTPS://example.test/x?q=1").path, "/x?q=1");
  EXPECT_EQ(origins.size(), 1u);
}

TEST(Origins, EachOtherOriginGetsTheNextIdOnceAndItsOwnNames) {
  const Config config = origins_config("http://127.0.0.1:8080/");
  Origins origins(config);
  const UrlPlace a = origins.place("http://127.0.0.1:8097/x");
  const UrlPlace b = origins.place("https://Api.Test/v1?k=2#frag");
  const UrlPlace c = origins.place("http://[::1]:9000");
  const UrlPlace again = origins.place("http://127.0.0.1:8097/y");
  ASSERT_TRUE(a.error.empty() && b.error.empty() && c.error.empty() && again.error.empty());
  EXPECT_EQ(a.origin, 1);
  EXPECT_EQ(b.origin, 2);
  EXPECT_EQ(c.origin, 3);
  EXPECT_EQ(again.origin, 1);
  EXPECT_EQ(b.path, "/v1?k=2");
  EXPECT_EQ(c.path, "/");
  EXPECT_EQ(origins.at(1).host_header, "127.0.0.1:8097");
  EXPECT_EQ(origins.at(2).host_header, "api.test") << "https's default port is left out";
  EXPECT_EQ(origins.at(3).host_header, "[::1]:9000");
  EXPECT_EQ(origins.at(3).target.host, "::1");
  EXPECT_EQ(origins.at(2).cookie_host, "api.test");
  EXPECT_TRUE(origins.at(2).target.is_tls());
  EXPECT_EQ(origins.at(2).target.port, 443);
  EXPECT_EQ(origins.at(1).prefix, "http://127.0.0.1:8097");
  EXPECT_EQ(origins.at(2).prefix, "https://api.test");
}

TEST(Origins, ABadUrlIsRefusedWithAReasonAndAddsNoOrigin) {
  const Config config = origins_config("http://127.0.0.1:8080/");
  Origins origins(config);
  for (const char* url : {"ftp://h/x", "http://user:pw@h/x", "http://h:0/x", "http://h:70000/x", "http://h:8x/x",
                          "http://:8080/x", "http://h%20x/y", "http://[zz]/x"}) {
    const UrlPlace p = origins.place(url);
    EXPECT_FALSE(p.error.empty()) << url;
  }
  EXPECT_EQ(origins.size(), 1u);
}

TEST(Origins, PastSixteenOtherOriginsARequestIsRefusedNamingTheCap) {
  const Config config = origins_config("http://127.0.0.1:8080/");
  Origins origins(config);
  for (int i = 0; i < static_cast<int>(Origins::kMaxOthers); ++i) {
    const UrlPlace p = origins.place("http://127.0.0.1:" + std::to_string(9000 + i) + "/");
    ASSERT_TRUE(p.error.empty()) << i;
    EXPECT_EQ(p.origin, i + 1);
  }
  const UrlPlace past = origins.place("http://127.0.0.1:9999/");
  EXPECT_NE(past.error.find("16"), std::string_view::npos) << past.error;
  EXPECT_EQ(origins.place("http://127.0.0.1:9000/again").origin, 1) << "a known one still goes";
  EXPECT_EQ(origins.place("http://127.0.0.1:8080/own").origin, 0);
}

TEST(Origins, ThroughAProxyOnlyTheRunsOriginGoes) {
  Config config = origins_config("http://127.0.0.1:8080/");
  config.proxy.emplace();
  config.proxy->source = "--proxy";
  Origins origins(config);
  EXPECT_TRUE(origins.place("http://127.0.0.1:8080/x").error.empty());
  const UrlPlace other = origins.place("http://127.0.0.1:8097/x");
  EXPECT_NE(other.error.find("--proxy"), std::string_view::npos) << other.error;
}

}  // namespace
}  // namespace pacer::scenario
