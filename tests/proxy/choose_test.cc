#include "proxy/choose.h"

#include <gtest/gtest.h>

#include <map>

namespace pacer::proxy {
namespace {

Target target(const char* scheme, const char* host, std::uint16_t port) {
  Target t;
  t.scheme = scheme;
  t.host = host;
  t.port = port;
  return t;
}

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

std::optional<ProxyConfig> choose(const ProxyFlags& flags, const Target& t, std::map<std::string, std::string> vars) {
  auto chosen = choose_proxy(flags, t, env_of(std::move(vars)));
  EXPECT_TRUE(chosen) << chosen.error().message;
  return chosen ? *chosen : std::nullopt;
}

TEST(ChooseProxy, UpperCaseHttpProxyIsIgnoredAsCurlDoes) {
  EXPECT_FALSE(choose({}, target("http", "a.test", 80), {{"HTTP_PROXY", "127.0.0.1:1"}}));
  const auto p = choose({}, target("http", "a.test", 80), {{"http_proxy", "127.0.0.1:3128"}});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->port, 3128);
  EXPECT_EQ(p->source, "http_proxy");
}

// Issue 43 (7): going direct while HTTP_PROXY is set is said, once.
TEST(ChooseProxy, AnIgnoredUpperCaseHttpProxyIsNoted) {
  const auto notes = proxy_notes({}, target("http", "a.test", 80), env_of({{"HTTP_PROXY", "127.0.0.1:1"}}), false);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("HTTP_PROXY is set but not used"), std::string::npos) << notes[0];
  // Nothing to say when it would not have applied anyway, or another proxy is used.
  EXPECT_TRUE(proxy_notes({}, target("https", "a.test", 443), env_of({{"HTTP_PROXY", "127.0.0.1:1"}}), false).empty());
  EXPECT_TRUE(proxy_notes({}, target("http", "a.test", 80), env_of({{"HTTP_PROXY", "p:1"}, {"NO_PROXY", "a.test"}}), false).empty());
  EXPECT_TRUE(proxy_notes({"", {}, {}}, target("http", "a.test", 80), env_of({{"HTTP_PROXY", "p:1"}}), false).empty());
  EXPECT_TRUE(proxy_notes({}, target("http", "a.test", 80), env_of({}), false).empty());
}

// Issue 44 (14): a NO_PROXY entry that can never match is noted; --noproxy's is refused.
TEST(ChooseProxy, ANoProxyEntryThatCanNeverMatchIsNotedOrRefused) {
  const auto notes = proxy_notes({}, target("http", "a.test", 80),
                                 env_of({{"http_proxy", "p:1"}, {"NO_PROXY", "a.test:8080"}}), true);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("NO_PROXY: 'a.test:8080' has a port"), std::string::npos) << notes[0];
  ProxyFlags flags;
  flags.noproxy = "10.0.0.0/33";
  auto refused = choose_proxy(flags, target("http", "a.test", 80), env_of({{"http_proxy", "p:1"}}));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("--noproxy '10.0.0.0/33': the prefix length must be 0 to 32"),
            std::string::npos) << refused.error().message;
}

TEST(ChooseProxy, LowerCaseWinsForHttpsAndAllProxyIsTheFallback) {
  const auto lower = choose({}, target("https", "a.test", 443), {{"https_proxy", "l:1"}, {"HTTPS_PROXY", "u:2"}});
  ASSERT_TRUE(lower);
  EXPECT_EQ(lower->host, "l");
  const auto upper = choose({}, target("https", "a.test", 443), {{"HTTPS_PROXY", "u:2"}});
  ASSERT_TRUE(upper);
  EXPECT_EQ(upper->host, "u");
  const auto all = choose({}, target("http", "a.test", 80), {{"ALL_PROXY", "all:3"}});
  ASSERT_TRUE(all);
  EXPECT_EQ(all->source, "ALL_PROXY");
  // https_proxy is not used for http:// targets.
  EXPECT_FALSE(choose({}, target("http", "a.test", 80), {{"https_proxy", "l:1"}}));
  // An empty variable is unset.
  EXPECT_FALSE(choose({}, target("http", "a.test", 80), {{"http_proxy", ""}}));
}

TEST(ChooseProxy, EmptyProxyFlagTurnsTheEnvironmentOff) {
  ProxyFlags flags;
  flags.proxy = "";
  EXPECT_FALSE(choose(flags, target("http", "a.test", 80), {{"http_proxy", "p:1"}}));
}

TEST(ChooseProxy, NoProxyBypassesEvenTheFlagAndNoproxyReplacesIt) {
  ProxyFlags flags;
  flags.proxy = "p:1";
  EXPECT_FALSE(choose(flags, target("http", "www.a.test", 80), {{"NO_PROXY", "a.test"}}));
  EXPECT_FALSE(choose(flags, target("http", "www.a.test", 80), {{"no_proxy", "a.test"}, {"NO_PROXY", "b.test"}}));
  flags.noproxy = "";  // --noproxy '': nothing bypasses
  EXPECT_TRUE(choose(flags, target("http", "www.a.test", 80), {{"NO_PROXY", "a.test"}}));
  flags.noproxy = "*";
  EXPECT_FALSE(choose(flags, target("http", "www.a.test", 80), {}));
}

TEST(ChooseProxy, ProxyUserReplacesTheUrlsCredentials) {
  ProxyFlags flags;
  flags.proxy = "http://a:b@p:1";
  const auto from_url = choose(flags, target("http", "t", 80), {});
  ASSERT_TRUE(from_url);
  EXPECT_EQ(from_url->authorization, "Basic YTpi");
  flags.proxy_user = "Aladdin:open sesame";
  const auto from_flag = choose(flags, target("http", "t", 80), {});
  ASSERT_TRUE(from_flag);
  EXPECT_EQ(from_flag->authorization, "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
}

TEST(ChooseProxy, ABadUrlNamesWhereItCameFrom) {
  auto chosen = choose_proxy({}, target("https", "t", 443), env_of({{"https_proxy", "socks5://p:1"}}));
  ASSERT_FALSE(chosen);
  EXPECT_NE(chosen.error().message.find("https_proxy"), std::string::npos) << chosen.error().message;
}

}  // namespace
}  // namespace pacer::proxy
