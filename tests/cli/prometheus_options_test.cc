// --prometheus-remote-write, --prometheus-label, --prometheus-basic-auth,
// --prometheus-bearer-token, --prometheus-timeout and --run-id
// (src/cli/prometheus_options.cc) through the full parser.
#include "cli/prometheus_options.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "../support/cli_args.h"

namespace pacer::cli {
namespace {

using pacer::testing::error_of;
using pacer::testing::parse_args;

TEST(PrometheusOptions, EachOptionSetsItsField) {
  auto parsed = parse_args({"--prometheus-remote-write", "https://prom.example:9090/api/v1/write",
                            "--prometheus-label", "team=checkout", "--prometheus-label", "env=a=b",
                            "--prometheus-bearer-token", "tok", "--prometheus-timeout", "2s", "--run-id",
                            "nightly-42", "http://localhost/"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  const PrometheusOptions& p = parsed->run.prometheus;
  EXPECT_EQ(p.remote_write_url, "https://prom.example:9090/api/v1/write");
  ASSERT_EQ(p.labels.size(), 2u);
  EXPECT_EQ(p.labels[0], (std::pair<std::string, std::string>{"team", "checkout"}));
  EXPECT_EQ(p.labels[1], (std::pair<std::string, std::string>{"env", "a=b"}));
  EXPECT_EQ(p.bearer_token, "tok");
  EXPECT_EQ(p.timeout_ns, 2 * kNsPerS);
  EXPECT_EQ(p.run_id, "nightly-42");
}

TEST(PrometheusOptions, BasicAuthFromAFileKeepsItOutOfArgv) {
  char path[] = "/tmp/pacer_prom_auth_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "user:pass\n", 10), 10);
  ::close(fd);
  auto parsed = parse_args({"--prometheus-remote-write", "http://127.0.0.1:9090/api/v1/write",
                            "--prometheus-basic-auth", std::string("@") + path, "http://localhost/"});
  ::unlink(path);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->run.prometheus.basic_auth, "user:pass");
}

TEST(PrometheusOptions, BadValuesNameTheFlag) {
  const std::string url = "http://127.0.0.1:9090/api/v1/write";
  EXPECT_NE(error_of({"--prometheus-remote-write", "prom:9090", "http://localhost/"}).find("--prometheus-remote-write"),
            std::string::npos);
  EXPECT_NE(error_of({"--prometheus-remote-write", url, "--prometheus-label", "nolabel", "http://localhost/"})
                .find("NAME=VALUE"),
            std::string::npos);
  EXPECT_NE(error_of({"--prometheus-remote-write", url, "--prometheus-label", "1x=y", "http://localhost/"})
                .find("not a label name"),
            std::string::npos);
  EXPECT_NE(error_of({"--prometheus-remote-write", url, "--prometheus-label", "__name__=y", "http://localhost/"})
                .find("not a label name"),
            std::string::npos);
  EXPECT_NE(error_of({"--prometheus-remote-write", url, "--prometheus-label", "shard=3", "http://localhost/"})
                .find("sets the label 'shard' itself"),
            std::string::npos);
  EXPECT_NE(error_of({"--prometheus-remote-write", url, "--prometheus-label", "a=1", "--prometheus-label", "a=2",
                      "http://localhost/"})
                .find("given twice"),
            std::string::npos);
  EXPECT_NE(error_of({"--prometheus-remote-write", url, "--prometheus-label", "a=", "http://localhost/"})
                .find("empty value"),
            std::string::npos);
  EXPECT_NE(error_of({"--prometheus-remote-write", url, "--prometheus-basic-auth", "nocolon", "http://localhost/"})
                .find("USER:PASSWORD"),
            std::string::npos);
  EXPECT_NE(error_of({"--prometheus-remote-write", url, "--prometheus-timeout", "0s", "http://localhost/"})
                .find("--prometheus-timeout"),
            std::string::npos);
  EXPECT_NE(error_of({"--web", "--run-id", "has space", "http://localhost/"}).find("--run-id"), std::string::npos);
  EXPECT_NE(error_of({"--prometheus-remote-write", url, "--prometheus-basic-auth", "@/nonexistent/pacer",
                      "http://localhost/"})
                .find("cannot read '/nonexistent/pacer'"),
            std::string::npos);
}

TEST(PrometheusOptions, ALabelValueThatIsNotPrintableUtf8IsRefused) {
  const std::string url = "http://127.0.0.1:9090/api/v1/write";
  for (const char* value : {"team=a\x1b[2Jb", "team=caf\xe9", "team=two\nlines"}) {
    EXPECT_NE(error_of({"--prometheus-remote-write", url, "--prometheus-label", value, "http://localhost/"})
                  .find("--prometheus-label: label 'team' has a value that is not printable"),
              std::string::npos)
        << value;
  }
}

TEST(PrometheusOptions, CredentialsNeedThePushAndLabelsNeedAnExport) {
  EXPECT_NE(error_of({"--prometheus-bearer-token", "t", "http://localhost/"}).find("needs --prometheus-remote-write"),
            std::string::npos);
  EXPECT_NE(error_of({"--prometheus-label", "a=b", "http://localhost/"}).find("--web"), std::string::npos);
  EXPECT_TRUE(parse_args({"--web", "--prometheus-label", "a=b", "http://localhost/"}).ok());
  EXPECT_NE(error_of({"--prometheus-remote-write", "http://127.0.0.1:1/", "--prometheus-basic-auth", "u:p",
                      "--prometheus-bearer-token", "t", "http://localhost/"})
                .find("one or the other"),
            std::string::npos);
}

}  // namespace
}  // namespace pacer::cli
