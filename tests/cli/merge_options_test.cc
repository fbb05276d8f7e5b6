// pacer merge [options] FILE... (src/cli/merge_options.h).
#include "cli/merge_options.h"

#include <gtest/gtest.h>

#include "../support/cli_args.h"

#include <sstream>

namespace pacer::cli {
namespace {

using pacer::testing::Args;
using pacer::testing::error_of;
using pacer::testing::parse_args;

TEST(MergeOptions, FilesAndOptionsAreTakenInOrder) {
  auto parsed = parse_args({"merge", "--format", "json", "b.json", "-o", "/tmp/merged.json", "a.json", "--force",
                            "--latency"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->command, Command::kMerge);
  EXPECT_EQ(parsed->merge.paths, (Args{"b.json", "a.json"}));
  EXPECT_TRUE(parsed->merge.json_format);
  EXPECT_EQ(parsed->merge.output_path, "/tmp/merged.json");
  EXPECT_TRUE(parsed->merge.force);
  EXPECT_TRUE(parsed->merge.print_latency);
}

TEST(MergeOptions, DefaultsAreTextWithoutForce) {
  auto parsed = parse_args({"merge", "a.json"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_FALSE(parsed->merge.json_format);
  EXPECT_FALSE(parsed->merge.force);
  EXPECT_TRUE(parsed->merge.output_path.empty());
}

TEST(MergeOptions, AllowMissingAndStartTolerance) {
  auto defaults = parse_args({"merge", "a.json"});
  ASSERT_TRUE(defaults.ok());
  EXPECT_FALSE(defaults->merge.allow_missing);
  EXPECT_EQ(defaults->merge.start_tolerance_ns, kNsPerS);
  auto parsed = parse_args({"merge", "--allow-missing", "--start-tolerance", "250ms", "a.json"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_TRUE(parsed->merge.allow_missing);
  EXPECT_EQ(parsed->merge.start_tolerance_ns, 250 * kNsPerMs);
  EXPECT_NE(error_of({"merge", "--start-tolerance", "soon", "a.json"}).find("--start-tolerance"), std::string::npos);
}

TEST(MergeOptions, NoFilesIsRefused) {
  EXPECT_EQ(error_of({"merge"}), "merge: give at least one report file");
  EXPECT_EQ(error_of({"merge", "--force"}), "merge: give at least one report file");
}

TEST(MergeOptions, UnknownOptionsAndFormatsAreNamed) {
  EXPECT_NE(error_of({"merge", "-c", "10", "a.json"}).find("'-c'"), std::string::npos);
  EXPECT_NE(error_of({"merge", "--format", "xml", "a.json"}).find("--format: format must be"), std::string::npos);
  EXPECT_NE(error_of({"merge", "-o", "/nonexistent/dir/x.json", "a.json"}).find("/nonexistent/dir"),
            std::string::npos);
}

TEST(MergeOptions, HelpPrintsMergeUsage) {
  auto parsed = parse_args({"merge", "--bogus", "-h"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->command, Command::kHelp);
  EXPECT_EQ(parsed->help_text, merge_usage());
}

TEST(Usage, MergeUsageFitsIn80ColumnsAndListsItsOptions) {
  std::istringstream lines(merge_usage());
  std::string line;
  while (std::getline(lines, line)) EXPECT_LT(line.size(), 80u) << line;
  for (const char* needle : {"--format F", "-o, --output FILE", "--force", "--latency", "-h, --help"}) {
    EXPECT_NE(merge_usage().find(needle), std::string::npos) << needle;
  }
  EXPECT_NE(usage().find("pacer merge [options] FILE..."), std::string::npos);
}

}  // namespace
}  // namespace pacer::cli
