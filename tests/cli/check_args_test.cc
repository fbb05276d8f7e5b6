// pacer --check-args: the run's options parsed and checked as for a run, then a
// different command (src/cli/cli.cc).
#include "cli/cli.h"

#include <gtest/gtest.h>

#include "../support/cli_args.h"

namespace pacer::cli {
namespace {

using pacer::testing::parse_args;

TEST(CheckArgs, ParsesTheRunAndSaysCheckInsteadOfRun) {
  auto parsed = parse_args({"--check-args", "-c", "8", "-R", "2000", "--shard", "1/4", "http://example.test/"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->command, Command::kCheckArgs);
  EXPECT_EQ(parsed->run.connections, 2);  // the shard's share, as the run would open
  EXPECT_EQ(parsed->run.shard_index, 1);
  EXPECT_EQ(parsed->run.target.host, "example.test");
}

TEST(CheckArgs, BadArgumentsAreTheRunsErrors) {
  auto parsed = parse_args({"--check-args", "-c", "0", "http://example.test/"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message, "-c: connections must be at least 1, got 0");
  EXPECT_FALSE(parse_args({"--check-args"}).ok());  // no URL
  EXPECT_FALSE(parse_args({"--check-args", "--shard", "4/4", "http://example.test/"}).ok());
}

TEST(CheckArgs, IsForARunNotTheDemo) {
  auto parsed = parse_args({"demo", "--check-args"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message,
            "--check-args checks a run's arguments (pacer --check-args [options] URL), not the demo's");
}

}  // namespace
}  // namespace pacer::cli
