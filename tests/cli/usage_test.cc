// Help texts and the version line (src/cli/usage.cc).
#include "cli/cli.h"

#include <gtest/gtest.h>

#include <cctype>
#include <sstream>

namespace pacer::cli {
namespace {

void expect_lines_fit_80_columns(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    EXPECT_LT(line.size(), 80u) << line;
    EXPECT_EQ(line.find('\t'), std::string::npos) << line;
  }
}

void expect_mentions(const std::string& text, const std::vector<std::string>& needles) {
  for (const std::string& needle : needles) {
    EXPECT_NE(text.find(needle), std::string::npos) << "missing: " << needle;
  }
}

TEST(Usage, RunUsageFitsIn80Columns) { expect_lines_fit_80_columns(usage()); }

TEST(Usage, ServeUsageFitsIn80Columns) { expect_lines_fit_80_columns(serve_usage()); }

TEST(Usage, CertUsageFitsIn80Columns) { expect_lines_fit_80_columns(cert_usage()); }

TEST(Usage, MergeUsageFitsIn80Columns) { expect_lines_fit_80_columns(merge_usage()); }

TEST(Usage, ReportUsageFitsIn80ColumnsAndTheRunListsItsFiles) {
  expect_lines_fit_80_columns(report_usage());
  expect_mentions(report_usage(), {"--compare", "--max-regression LIST", "--csv PREFIX", "-o, --output FILE"});
  expect_mentions(usage(), {"--html FILE", "--csv PREFIX", "pacer report"});
}

TEST(Usage, RunUsageListsTheTlsOptions) {
  expect_mentions(usage(), {"-k, --insecure", "--cacert FILE", "--cert FILE", "--key FILE", "--no-tls-resume",
                            "https://", "pacer cert"});
  expect_mentions(serve_usage(), {"--tls CERT KEY"});
  expect_mentions(cert_usage(), {"--out DIR", "--host NAME", "--days N", "[30]"});
}

TEST(Usage, RunUsageListsEveryOption) {
  expect_mentions(usage(), {"-c, --connections", "-d, --duration", "-t, --threads",
                            "-H, --header", "--latency", "--timeout", "-v, --version",
                            "-h, --help", "-m, --method", "-b, --body", "-n, --requests",
                            "--disable-keepalive", "--warmup", "--no-record-timeouts",
                            "--http2", "--streams N", "--pipeline N"});
}

TEST(Usage, RunUsageListsIssue27sOptions) {
  expect_mentions(usage(), {"--config FILE", "--print-config", "PACER_<OPTION>", "--tags LIST", "--exclude-tags LIST",
                            "--csv-format F", "--csv-full-history"});
}

TEST(Usage, RunUsageListsEveryInputCapWithItsDefault) {
  expect_mentions(usage(), {"--max-request-body SIZE", "[64M]", "--max-capture-headers N", "[100]",
                            "--max-capture-header-bytes SIZE", "[64k]", "--max-capture-body SIZE", "[8M]"});
}

TEST(Usage, RunUsageExplainsTheLiveViewOptions) {
  expect_mentions(usage(), {"--refresh T", "[100ms]", "--plain", "NO_COLOR", "TERM=dumb"});
}

TEST(Usage, RunUsageExplainsTheWebView) {
  expect_mentions(usage(), {"--web [ADDR]", "[127.0.0.1:8089]", "--web-token TOKEN", "--web-linger T", "POST /stop",
                            "/events", "/report.json"});
}

TEST(Usage, RunUsageGivesWrkDefaults) {
  expect_mentions(usage(), {"[10]", "[10s]", "[2]", "[2s]", "[GET]"});
}

TEST(Usage, RunUsageExplainsUnitsCommandsAndExitCodes) {
  expect_mentions(usage(),
                  {"Durations: 2s, 250ms, 1m, 1h; a bare number is seconds. Counts: 10k, 1M.",
                   "serve", "demo", "@FILE", "@-", "@@x", "0  ok",
                   "1  run failed, or no request succeeded", "2  bad arguments"});
}

TEST(Usage, ServeUsageListsOptionsAndRoutes) {
  expect_mentions(serve_usage(), {"--listen ADDR:PORT", "-t, --threads", "--freeze-at",
                                  "--freeze-for", "--log-arrivals FILE", "-h, --help",
                                  "[127.0.0.1:8080]", "/bytes/N", "/delay/MS", "/pool/W/MS", "/status/CODE",
                                  "/fail/N", "/never", "/close", "/chunked/N", "/redirect",
                                  "/echo", "/stats"});
}

TEST(Usage, VersionLineNamesTheVersionAndBackend) {
  const std::string line = version_line();
  const std::string prefix = "pacer ";
  ASSERT_EQ(line.substr(0, prefix.size()), prefix) << line;
  const std::size_t bracket = line.find(" [");
  ASSERT_NE(bracket, std::string::npos) << line;
  EXPECT_EQ(line.back(), ']') << line;
  // X.Y.Z: digits and exactly two dots between them.
  const std::string version = line.substr(prefix.size(), bracket - prefix.size());
  int dots = 0;
  for (const char c : version) {
    if (c == '.') {
      ++dots;
    } else {
      EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(c))) << version;
    }
  }
  EXPECT_EQ(dots, 2) << version;
  // The engine a run would use: io_uring, or epoll (with why when io_uring cannot run).
  const std::string engine = line.substr(bracket + 2, line.size() - bracket - 3);
  EXPECT_TRUE(engine == "io_uring" || engine.rfind("epoll", 0) == 0) << line;
#ifdef PACER_VERSION
  EXPECT_EQ(version, PACER_VERSION);
#endif
}

}  // namespace
}  // namespace pacer::cli
