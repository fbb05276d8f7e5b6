// pacer report [options] FILE... (src/cli/report_options.h), --html/--csv on a run,
// and the command line the HTML report's header shows (cli::quote_command_line).
#include "cli/report_options.h"

#include <gtest/gtest.h>

#include "../support/cli_args.h"

namespace pacer::cli {
namespace {

using pacer::testing::Args;
using pacer::testing::error_of;
using pacer::testing::parse_args;

TEST(ReportOptions, FilesAndOptionsAreTaken) {
  auto parsed = parse_args({"report", "a.json", "-o", "/tmp/r.html", "b.json", "--csv", "/tmp/r", "--force"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->command, Command::kReport);
  EXPECT_EQ(parsed->report.paths, (Args{"a.json", "b.json"}));
  EXPECT_EQ(parsed->report.output_path, "/tmp/r.html");
  EXPECT_EQ(parsed->report.csv_prefix, "/tmp/r");
  EXPECT_TRUE(parsed->report.force);
  EXPECT_FALSE(parsed->report.compare);
}

TEST(ReportOptions, CompareTakesTwoFilesAndBounds) {
  auto parsed = parse_args({"report", "--compare", "base.json", "cand.json", "--max-regression", "p99=10%,rps=5%"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_TRUE(parsed->report.compare);
  EXPECT_EQ(parsed->report.max_regression, "p99=10%,rps=5%");
  EXPECT_NE(error_of({"report", "--compare", "a.json"}).find("give two reports"), std::string::npos);
  EXPECT_NE(error_of({"report", "--compare", "a", "b", "c"}).find("(got 3)"), std::string::npos);
  EXPECT_NE(error_of({"report", "a", "-o", "/tmp/x.html", "--max-regression", "p99=1%"}).find("needs --compare"),
            std::string::npos);
  EXPECT_NE(error_of({"report", "a", "b", "--compare", "--max-regression", "p99<10%"}).find("--max-regression"),
            std::string::npos);
}

TEST(ReportOptions, SomethingToWriteAndAFileAreRequired) {
  EXPECT_TRUE(parse_args({"report", "a.json"}).ok());  // prints the report's text
  EXPECT_NE(error_of({"report", "-o", "/tmp/x.html"}).find("at least one JSON report"), std::string::npos);
  EXPECT_NE(error_of({"report", "a.json", "-o", "/no/such/dir/x.html"}).find("-o"), std::string::npos);
}

TEST(ReportOptions, HelpIsTheReportsUsage) {
  auto parsed = parse_args({"report", "--help"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->command, Command::kHelp);
  EXPECT_NE(parsed->help_text.find("--max-regression"), std::string::npos);
}

TEST(RunOutputs, HtmlAndCsvAreOutputFilesCheckedBeforeTheRun) {
  auto parsed = parse_args({"--html", "/tmp/pacer-r.html", "--csv", "/tmp/pacer-r", "http://127.0.0.1:1/"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->run.html_path, "/tmp/pacer-r.html");
  EXPECT_EQ(parsed->run.csv_prefix, "/tmp/pacer-r");
  EXPECT_TRUE(parsed->run.keeps_timeseries());
  EXPECT_EQ(parsed->run.output_files().size(), 4u);
  EXPECT_NE(error_of({"--html", "/tmp/pacer-r.html", "-o", "/tmp/pacer-r.html", "http://127.0.0.1:1/"})
                .find("give each output its own file"),
            std::string::npos);
  auto plain = parse_args({"http://127.0.0.1:1/"});
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->run.keeps_timeseries());
}

TEST(RunOutputs, TheCommandLineIsKeptShellQuoted) {
  EXPECT_EQ(quote_command_line({"-c", "10", "-H", "X-A: b c", "http://h/?q=1&r=it's"}),
            "pacer -c 10 -H 'X-A: b c' 'http://h/?q=1&r=it'\\''s'");
  auto parsed = parse_args({"-d", "1s", "http://127.0.0.1:1/"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->run.command_line, "pacer -d 1s http://127.0.0.1:1/");
}

}  // namespace
}  // namespace pacer::cli
