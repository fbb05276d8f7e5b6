#include "cli/connect_options.h"

#include <gtest/gtest.h>

#include "cli/run_draft.h"
#include "cli/units.h"

namespace pacer::cli::connect {
namespace {

const proxy::EnvLookup kNoEnv = [](std::string_view) -> std::optional<std::string> { return std::nullopt; };

Config config_for(const char* url) {
  Config c;
  c.target = *parse_url(url);
  return c;
}

// The options applied through the module's own rows (an id not among them is an error).
Status apply_all(Config& config, Flags& flags, std::initializer_list<std::pair<int, const char*>> options) {
  RunDraft draft;
  draft.config = config;
  draft.connect = flags;
  std::vector<ScannedOption> scanned;
  for (const auto& [id, value] : options) scanned.push_back({id, "--flag", value});
  const Status applied = apply_options(std::span<const ScannedOption>(scanned), option_rows(), draft);
  config = std::move(draft.config);
  flags = std::move(draft.connect);
  return applied;
}

const Header* header(const Config& c, const char* name) {
  for (const Header& h : c.headers) {
    if (h.name == name) return &h;
  }
  return nullptr;
}

TEST(ConnectOptions, UserAddsBasicAuthorizationUnlessOneIsGiven) {
  Config c = config_for("http://h/");
  Flags f;
  ASSERT_TRUE(apply_all(c, f, {{opt::kUser, "Aladdin:open sesame"}}));
  ASSERT_TRUE(finish(c, f, kNoEnv));
  ASSERT_NE(header(c, "Authorization"), nullptr);
  EXPECT_EQ(header(c, "Authorization")->value, "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  Config given = config_for("http://h/");
  given.headers.push_back({"authorization", "Bearer t"});
  ASSERT_TRUE(finish(given, f, kNoEnv));
  EXPECT_EQ(given.headers.size(), 1u);
  Flags empty_user;
  EXPECT_FALSE(apply_all(c, empty_user, {{opt::kUser, ":pw"}}));
}

TEST(ConnectOptions, ForwardedHttpCarriesProxyAuthorizationAndTunnelsDoNot) {
  Config http = config_for("http://h/");
  Flags f;
  ASSERT_TRUE(apply_all(http, f, {{opt::kProxy, "http://a:b@127.0.0.1:3128"}}));
  ASSERT_TRUE(finish(http, f, kNoEnv));
  ASSERT_TRUE(http.proxy);
  EXPECT_FALSE(http.proxy->tunnel);
  ASSERT_NE(header(http, "Proxy-Authorization"), nullptr);
  EXPECT_EQ(header(http, "Proxy-Authorization")->value, "Basic YTpi");
  Config https = config_for("https://h/");
  ASSERT_TRUE(finish(https, f, kNoEnv));
  ASSERT_TRUE(https.proxy);
  EXPECT_TRUE(https.proxy->tunnel);
  EXPECT_EQ(header(https, "Proxy-Authorization"), nullptr);  // it goes in the CONNECT, never to the target
  Config h2c = config_for("http://h/");
  h2c.http2 = true;
  ASSERT_TRUE(finish(h2c, f, kNoEnv));
  EXPECT_TRUE(h2c.proxy->tunnel);
}

TEST(ConnectOptions, MistakesBetweenOptionsAreRefused) {
  Flags f;
  Config h3 = config_for("https://h/");
  h3.http3 = true;
  ASSERT_TRUE(apply_all(h3, f, {{opt::kProxy, "127.0.0.1:3128"}}));
  const Status quic = finish(h3, f, kNoEnv);
  ASSERT_FALSE(quic);
  EXPECT_EQ(quic.error().kind, ErrorKind::kBadInput);
  Flags user_only;
  Config c = config_for("http://h/");
  ASSERT_TRUE(apply_all(c, user_only, {{opt::kProxyUser, "a:b"}}));
  EXPECT_FALSE(finish(c, user_only, kNoEnv));
  Flags bind;
  Config unix_socket = config_for("http://h/");
  unix_socket.unix_socket_path = "/tmp/s";
  ASSERT_TRUE(apply_all(unix_socket, bind, {{opt::kBind, "127.0.0.2"}}));
  EXPECT_FALSE(finish(unix_socket, bind, kNoEnv));
  Flags bad_bind;
  EXPECT_FALSE(apply_all(c, bad_bind, {{opt::kBind, "localhost"}}));
}

TEST(ConnectOptions, BindRangeIsExpandedToLiterals) {
  Config c = config_for("http://h/");
  Flags f;
  ASSERT_TRUE(apply_all(c, f, {{opt::kBind, "127.0.0.2-127.0.0.4"}}));
  EXPECT_EQ(c.bind_addresses, (std::vector<std::string>{"127.0.0.2", "127.0.0.3", "127.0.0.4"}));
}

}  // namespace
}  // namespace pacer::cli::connect
