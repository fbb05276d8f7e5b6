// getopt_long-style scanning (src/cli/option_scan.h), against a small table.
#include "cli/option_scan.h"

#include <gtest/gtest.h>

#include <array>

namespace pacer::cli {
namespace {

enum : int { kAll, kBrief, kCount, kName };

constexpr std::array<OptionSpec, 4> kSpecs{{
    {kAll, 'a', "all", false},
    {kBrief, 'b', "brief", false},
    {kCount, 'c', "count", true},
    {kName, '\0', "name", true},
}};

ScanResult scan(const std::vector<std::string>& args) {
  return scan_options(args, kSpecs, "tool --help");
}

TEST(OptionScan, ClusteredSwitchesAreEachRecorded) {
  const ScanResult result = scan({"-ab"});
  ASSERT_FALSE(result.first_error) << result.first_error->message;
  ASSERT_EQ(result.options.size(), 2u);
  EXPECT_EQ(result.options[0].id, kAll);
  EXPECT_EQ(result.options[0].flag, "-a");
  EXPECT_EQ(result.options[1].id, kBrief);
}

TEST(OptionScan, RestOfAClusterAfterAValuedOptionIsItsValue) {
  const ScanResult result = scan({"-acb5"});
  ASSERT_FALSE(result.first_error);
  ASSERT_EQ(result.options.size(), 2u);
  EXPECT_EQ(result.options[1].id, kCount);
  EXPECT_EQ(result.options[1].value, "b5");
}

TEST(OptionScan, LoneDashIsPositional) {
  const ScanResult result = scan({"-", "x"});
  EXPECT_TRUE(result.options.empty());
  EXPECT_EQ(result.positionals, (std::vector<std::string>{"-", "x"}));
}

TEST(OptionScan, LongOnlyOptionHasNoShortForm) {
  const ScanResult result = scan({"--name", "n", "-n"});
  ASSERT_EQ(result.options.size(), 1u);
  EXPECT_EQ(result.options[0].value, "n");
  ASSERT_TRUE(result.first_error);
  EXPECT_EQ(result.first_error->message, "unknown option '-n' (see tool --help)");
}

TEST(OptionScan, EmptyValueAfterEqualsIsAValue) {
  const ScanResult result = scan({"--name="});
  ASSERT_FALSE(result.first_error);
  ASSERT_EQ(result.options.size(), 1u);
  EXPECT_EQ(result.options[0].value, "");
}

TEST(OptionScan, FirstErrorIsKeptAndScanningContinues) {
  const ScanResult result = scan({"--nope", "-z", "p", "-a", "-c"});
  ASSERT_TRUE(result.first_error);
  EXPECT_EQ(result.first_error->message, "unknown option '--nope' (see tool --help)");
  EXPECT_TRUE(result.has(kAll));
  EXPECT_FALSE(result.has(kCount));
  EXPECT_EQ(result.positionals, (std::vector<std::string>{"p"}));
}

TEST(OptionScan, OptionsAndPositionalsKeepTheirOrder) {
  const ScanResult result = scan({"p1", "-c", "1", "p2", "--count=2", "--", "-a", "--all"});
  ASSERT_FALSE(result.first_error);
  ASSERT_EQ(result.options.size(), 2u);
  EXPECT_EQ(result.options[0].value, "1");
  EXPECT_EQ(result.options[1].flag, "--count");
  EXPECT_EQ(result.options[1].value, "2");
  EXPECT_EQ(result.positionals, (std::vector<std::string>{"p1", "p2", "-a", "--all"}));
}

}  // namespace
}  // namespace pacer::cli
