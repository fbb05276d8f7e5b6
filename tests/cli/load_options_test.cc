// The open-model options: -R, --stages, --arrival, --seed, --deadline.
#include <gtest/gtest.h>

#include "../support/cli_args.h"

#include <sstream>

#include "cli/cli.h"
#include "cli/load_options.h"

namespace pacer::cli {
namespace {

using pacer::testing::parse_args;

std::string error_of(std::vector<std::string> args) {
  auto parsed = parse_args(std::move(args));
  return parsed.ok() ? std::string("(accepted)") : parsed.error().message;
}

Config run_config(std::vector<std::string> args) {
  auto parsed = parse_args(std::move(args));
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message);
  return parsed.ok() ? parsed->run : Config{};
}

TEST(LoadOptions, ClosedLoopIsTheDefault) {
  const Config c = run_config({"http://h/"});
  EXPECT_EQ(c.load_model, LoadModel::kClosed);
  EXPECT_FALSE(c.is_open_model());
}

TEST(LoadOptions, ConstantRateAcceptsSuffixesAndDecimals) {
  const Config c = run_config({"-R", "2k", "http://h/"});
  EXPECT_EQ(c.load_model, LoadModel::kConstant);
  EXPECT_DOUBLE_EQ(c.rate_per_s, 2000);
  EXPECT_DOUBLE_EQ(run_config({"-R0.5", "http://h/"}).rate_per_s, 0.5);
  EXPECT_DOUBLE_EQ(run_config({"--rate=1.5M", "http://h/"}).rate_per_s, 1.5e6);
}

TEST(LoadOptions, RampTakesStartAndEndRates) {
  const Config c = run_config({"-R", "100:5k", "http://h/"});
  EXPECT_EQ(c.load_model, LoadModel::kRamp);
  EXPECT_DOUBLE_EQ(c.rate_per_s, 100);
  EXPECT_DOUBLE_EQ(c.rate_end_per_s, 5000);
  EXPECT_DOUBLE_EQ(run_config({"-R", "0:10", "http://h/"}).rate_end_per_s, 10);
}

TEST(LoadOptions, BadRatesAreRefusedNamingTheFlag) {
  EXPECT_EQ(error_of({"-R", "0", "http://h/"}), "-R: rate must be greater than 0, got 0");
  EXPECT_EQ(error_of({"-R", "fast", "http://h/"}),
            "-R: 'fast' is not a rate (requests per second, e.g. 2000 or 1.5k)");
  EXPECT_EQ(error_of({"-R", "0:0", "http://h/"}), "-R: a ramp from 0 to 0 sends nothing");
  EXPECT_EQ(error_of({"-R", "1:2:3", "http://h/"}),
            "-R: '2:3' is not a rate (requests per second, e.g. 2000 or 1.5k)");
  EXPECT_EQ(error_of({"-R", "-5", "http://h/"}),
            "-R: '-5' is not a rate (requests per second, e.g. 2000 or 1.5k)");
}

TEST(LoadOptions, StagesSetTheModelAndTheDuration) {
  const Config c = run_config({"--stages", "30s:100,1m:1000,30s:0", "http://h/"});
  EXPECT_EQ(c.load_model, LoadModel::kStages);
  ASSERT_EQ(c.stages.size(), 3u);
  EXPECT_EQ(c.stages[1].duration_ns, 60 * kNsPerS);
  EXPECT_DOUBLE_EQ(c.stages[1].target_rate_per_s, 1000);
  EXPECT_EQ(c.duration_ns, 120 * kNsPerS);
}

TEST(LoadOptions, MalformedStageListsAreRefused) {
  EXPECT_EQ(error_of({"--stages", "30s", "http://h/"}),
            "--stages: stage '30s' is not DURATION:RATE (e.g. --stages 30s:100,1m:1000,30s:0)");
  EXPECT_EQ(error_of({"--stages", "30s:100,,1m:5", "http://h/"}),
            "--stages: stage '' is not DURATION:RATE (e.g. --stages 30s:100,1m:1000,30s:0)");
  EXPECT_EQ(error_of({"--stages", "0s:100", "http://h/"}), "--stages: stage '0s:100' has no duration");
  // Each stage fits a duration, but together they pass the longest one (2e6 h is 7.2e18 ns).
  EXPECT_EQ(error_of({"--stages", "2000000h:5,2000000h:5", "http://h/"}),
            "--stages: the stages together last too long (at stage '2000000h:5')");
  EXPECT_EQ(error_of({"--stages", "10s:0,5s:0", "http://h/"}),
            "--stages: every stage has rate 0, so nothing would be sent");
  EXPECT_NE(error_of({"--stages", "10x:5", "http://h/"}).find("--stages"), std::string::npos);
}

TEST(LoadOptions, ConflictingCombinationsAreRefused) {
  EXPECT_EQ(error_of({"-R", "100", "--stages", "1s:5", "http://h/"}),
            "--stages and -R both set the rate; give one of them");
  EXPECT_EQ(error_of({"-d", "5s", "--stages", "1s:5", "http://h/"}),
            "--stages sets the duration (the stages' total); leave out -d");
  EXPECT_EQ(error_of({"-R", "1:100", "-n", "50", "http://h/"}),
            "-n cannot be combined with a ramp (-R A:B) or --stages: their rate depends on the duration");
  EXPECT_EQ(error_of({"--stages", "1s:5", "-n", "50", "http://h/"}),
            "-n cannot be combined with a ramp (-R A:B) or --stages: their rate depends on the duration");
  EXPECT_EQ(error_of({"--deadline", "1s", "http://h/"}), "--deadline needs an open model: give -R or --stages");
  EXPECT_EQ(error_of({"--arrival", "poisson", "http://h/"}), "--arrival needs an open model: give -R or --stages");
}

TEST(LoadOptions, ConstantRateWithARequestCountIsAllowed) {
  const Config c = run_config({"-R", "100", "-n", "50", "http://h/"});
  EXPECT_EQ(c.request_count, 50u);
  EXPECT_FALSE(c.duration_given);
}

TEST(LoadOptions, ArrivalSeedAndDeadline) {
  const Config c = run_config({"-R", "100", "--arrival", "poisson", "--seed", "42", "--deadline", "250ms", "http://h/"});
  EXPECT_TRUE(c.poisson);
  EXPECT_EQ(c.seed, 42u);
  EXPECT_EQ(c.deadline_ns, 250 * kNsPerMs);
  EXPECT_EQ(error_of({"-R", "100", "--arrival", "bursty", "http://h/"}),
            "--arrival: arrival must be 'uniform' or 'poisson', got 'bursty'");
  EXPECT_EQ(error_of({"-R", "100", "--deadline", "0", "http://h/"}),
            "--deadline: deadline must be greater than 0, got 0");
}

TEST(LoadOptions, RatesAboveWhatOneProcessCanScheduleAreRefusedWithTheRange) {
  const std::string range = "at most 10M per process";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"-R", "1G", "http://h/"},
           {"-R", "10000001", "http://h/"},
           {"-R", "100:20M", "http://h/"},
           {"--stages", "1s:5M,1s:11M", "http://h/"},
           {"-R", "30M", "--shard", "1/2", "http://h/"},
       }) {
    const std::string error = error_of(args);
    EXPECT_NE(error.find(range), std::string::npos) << args[1] << ": " << error;
  }
  EXPECT_NE(error_of({"--stages", "1s:5M,1s:11M", "http://h/"}).find("--stages"), std::string::npos);
}

TEST(LoadOptions, RatesUpToTheRangeAreAccepted) {
  EXPECT_DOUBLE_EQ(run_config({"-R", "10M", "http://h/"}).rate_per_s, 10e6);
  EXPECT_DOUBLE_EQ(run_config({"-R", "0:10M", "http://h/"}).rate_end_per_s, 10e6);
  // -R is the whole run's rate: each of 4 shards schedules a quarter of it.
  EXPECT_DOUBLE_EQ(run_config({"-R", "40M", "--shard", "0/4", "http://h/"}).rate_per_s, 40e6);
  // Rates below one request in the run are schedulable: the run lasts its duration.
  EXPECT_DOUBLE_EQ(run_config({"-R", "0.000001", "-d", "1s", "http://h/"}).rate_per_s, 1e-6);
}

TEST(LoadOptions, GiveUpTakesAPositiveDurationAndDefaultsToTenTimeouts) {
  EXPECT_EQ(run_config({"http://h/"}).give_up_period_ns(), 20 * kNsPerS);
  EXPECT_EQ(run_config({"--timeout", "300ms", "http://h/"}).give_up_period_ns(), 3 * kNsPerS);
  EXPECT_EQ(run_config({"--give-up", "1m", "http://h/"}).give_up_period_ns(), 60 * kNsPerS);
  EXPECT_EQ(error_of({"--give-up", "0", "http://h/"}), "--give-up: give-up period must be greater than 0, got 0");
}

}  // namespace
}  // namespace pacer::cli
