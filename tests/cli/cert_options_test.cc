// pacer cert [options] (src/cli/cert_options.h).
#include "cli/cert_options.h"

#include <gtest/gtest.h>

#include "../support/cli_args.h"

namespace pacer::cli {
namespace {

using pacer::testing::parse_args;

TEST(CertOptions, OutAloneCoversLocalhostForThirtyDays) {
  auto parsed = parse_args({"cert", "--out", "/tmp"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->command, Command::kCert);
  EXPECT_EQ(parsed->cert.out_dir, "/tmp");
  EXPECT_EQ(parsed->cert.hosts, (std::vector<std::string>{"localhost", "127.0.0.1", "::1"}));
  EXPECT_EQ(parsed->cert.valid_days, 30);
}

TEST(CertOptions, HostsReplaceTheDefaultsInOrder) {
  auto parsed = parse_args({"cert", "--host", "a.test", "--out", "/tmp", "--host", "10.0.0.1", "--days", "2"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->cert.hosts, (std::vector<std::string>{"a.test", "10.0.0.1"}));
  EXPECT_EQ(parsed->cert.valid_days, 2);
}

TEST(CertOptions, MistakesAreRefusedNamingTheFlag) {
  const auto error_of = [](const pacer::testing::Args& args) {
    auto parsed = parse_args(args);
    EXPECT_FALSE(parsed.ok());
    return parsed.ok() ? std::string() : parsed.error().message;
  };
  EXPECT_EQ(error_of({"cert"}), "cert: --out DIR is required (where cert.pem and key.pem go)");
  EXPECT_EQ(error_of({"cert", "--out", "/dev/null"}), "--out: '/dev/null' exists and is not a directory");
  EXPECT_EQ(error_of({"cert", "--out", "/tmp", "--host", "a,b"}),
            "--host: 'a,b' is not a host name or address (one per --host)");
  EXPECT_EQ(error_of({"cert", "--out", "/tmp", "--days", "0"}), "--days: days must be from 1 to 3650, got 0");
  EXPECT_EQ(error_of({"cert", "--out", "/tmp", "extra"}), "cert: unexpected argument 'extra' (see pacer cert --help)");
}

TEST(CertOptions, HelpGivesTheCertUsage) {
  auto parsed = parse_args({"cert", "-h"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->command, Command::kHelp);
  EXPECT_EQ(parsed->help_text, cert_usage());
}

}  // namespace
}  // namespace pacer::cli
