// What stored and shown copies of the command line say (src/cli/secrets.h):
// no password, token, credential header or cookie value (issue 44).
#include "cli/secrets.h"

#include <gtest/gtest.h>

#include "../support/cli_args.h"
#include "cli/cli.h"

namespace pacer::cli {
namespace {

struct Case {
  const char* option;
  const char* given;
  const char* shown;
};

constexpr Case kCases[] = {
    {"proxy", "http://puser:PW@127.0.0.1:3128", "http://127.0.0.1:3128"},
    {"proxy", "127.0.0.1:3128", "127.0.0.1:3128"},
    {"user", "buser:PW2", "buser:***"},
    {"proxy-user", "puser:PW3", "puser:***"},
    {"web-token", "TOKEN", "***"},
    {"prometheus-bearer-token", "@token.txt", "@token.txt"},
    {"prometheus-basic-auth", "u:PW", "u:***"},
    {"prometheus-remote-write", "https://ru:RPW@h:9090/api/v1/write", "https://ru:***@h:9090/api/v1/write"},
    {"prometheus-remote-write", "https://h:9090/a@b", "https://h:9090/a@b"},
    {"header", "authorization: Bearer X", "authorization: ***"},
    {"header", "Proxy-Authorization : Basic X", "Proxy-Authorization : ***"},
    {"header", "X-Trace: 1", "X-Trace: 1"},
    {"cookie", "a=1; b=2", "a=***; b=***"},
    {"cookie", "@cookies.txt", "@cookies.txt"},
    {"connections", "10", "10"},
};

TEST(Secrets, EachSecretValueIsHiddenAndTheRestKept) {
  for (const Case& c : kCases) EXPECT_EQ(shown_value(c.option, c.given), c.shown) << c.option << " " << c.given;
}

TEST(Secrets, TheStoredCommandLineHidesSecretsInEveryForm) {
  auto parsed = pacer::testing::parse_args({"--web", "-xhttp://puser:PW@127.0.0.1:3128", "--user=buser:PW2", "--web-token",
                                            "WTOKEN12", "-H", "Cookie: s=CK", "--cookie", "c=CK2", "-c", "2",
                                            "http://127.0.0.1:1/"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const std::string& line = parsed->run.command_line;
  for (const char* secret : {"PW", "WTOKEN", "CK"}) EXPECT_EQ(line.find(secret), std::string::npos) << line;
  EXPECT_EQ(line, "pacer --web -xhttp://127.0.0.1:3128 '--user=buser:***' --web-token '***' -H 'Cookie: ***' "
                  "--cookie 'c=***' -c 2 http://127.0.0.1:1/");
}

}  // namespace
}  // namespace pacer::cli
