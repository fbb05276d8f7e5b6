// Scenario figures through the JSON report and `pacer merge` (src/report/json_reader.h,
// src/report/merge.h): tasks, names, check and script errors and messages of
// several shards add up to the whole test's, exactly (task durations are
// histograms), and shards of different scenarios are refused.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "report/json.h"
#include "report/json_reader.h"
#include "report/merge.h"

namespace pacer::report {
namespace {

// One shard of a two-shard scenario run: two tasks, requests under two names
// (the second only in shard 1), a check error on a failed request, messages.
RunReport scenario_shard(int index) {
  RunReport r;
  r.url = "http://127.0.0.1:8080/";
  r.threads = 1;
  r.connections = 4;
  r.shard_index = index;
  r.shard_count = 2;
  r.measured_ns = 5 * kNsPerS;
  r.start_unix_ns = 1000 * kNsPerS;
  scenario::ScenarioStats& s = r.scenario;
  s.active = true;
  s.user_limit = 4;
  s.users_started = 4 + static_cast<std::uint64_t>(index);
  s.tasks.push_back(scenario::TaskRow{"browse"});
  s.tasks.push_back(scenario::TaskRow{"buy"});
  for (int i = 0; i < 100 * (index + 1); ++i) s.tasks[0].duration.record((1 + i) * kNsPerMs * (index + 1));
  s.tasks[0].count = static_cast<std::uint64_t>(100 * (index + 1));
  s.tasks[0].failures = 2;
  s.tasks[1].duration.record(40 * kNsPerMs);
  s.tasks[1].count = 1;
  s.names.push_back(scenario::NameRow{"home", 300, 3, 1});
  if (index == 1) s.names.push_back(scenario::NameRow{"checkout", 7, 0, 2});
  s.check = index == 1 ? 3 : 1;
  s.check_on_errors = 1;
  s.script = static_cast<std::uint64_t>(index);
  s.note("check", "home", "no basket");
  if (index == 1) s.note("script", "buy:task", "attempt to index a nil value");
  return r;
}

std::vector<RunReport> read_back(const std::vector<RunReport>& shards) {
  std::vector<RunReport> out;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    auto read = read_json_report(render_json(shards[i]), "shard" + std::to_string(i) + ".json");
    EXPECT_TRUE(read.ok()) << read.error().message;
    if (read.ok()) out.push_back(std::move(*read));
  }
  return out;
}

const std::vector<std::string> kFiles = {"shard0.json", "shard1.json"};

TEST(MergeScenario, AScenarioRoundTripsThroughTheJsonReport) {
  const RunReport shard = scenario_shard(1);
  const std::vector<RunReport> read = read_back({shard});
  ASSERT_EQ(read.size(), 1u);
  const scenario::ScenarioStats& s = read[0].scenario;
  ASSERT_TRUE(s.active);
  EXPECT_EQ(s.users_started, 5u);
  EXPECT_EQ(s.check, 3u);
  EXPECT_EQ(s.check_on_errors, 1u);
  EXPECT_EQ(s.check - s.check_on_errors, shard.scenario.check - shard.scenario.check_on_errors);
  ASSERT_EQ(s.tasks.size(), 2u);
  EXPECT_EQ(s.tasks[0].name, "browse");
  EXPECT_EQ(s.tasks[0].count, 200u);
  EXPECT_EQ(s.tasks[0].duration.total_count(), 200);
  EXPECT_EQ(s.tasks[0].duration.value_at_percentile(99), shard.scenario.tasks[0].duration.value_at_percentile(99));
  ASSERT_EQ(s.names.size(), 2u);
  EXPECT_EQ(s.names[1].name, "checkout");
  EXPECT_EQ(s.names[1].checks, 2u);
  ASSERT_EQ(s.messages.size(), 2u);
  EXPECT_EQ(s.messages[1].where, "buy:task");
}

TEST(MergeScenario, ShardsAddUpToTheWholeTest) {
  const std::vector<RunReport> shards = read_back({scenario_shard(0), scenario_shard(1)});
  auto merged = merge_reports(shards, kFiles, MergeRules{});
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const scenario::ScenarioStats& s = merged->scenario;
  ASSERT_TRUE(s.active);
  EXPECT_EQ(s.users_started, 9u);
  EXPECT_EQ(s.user_limit, 8u);
  EXPECT_EQ(s.check, 4u);
  EXPECT_EQ(s.check_on_errors, 2u);
  EXPECT_EQ(s.script, 1u);
  ASSERT_EQ(s.tasks.size(), 2u);
  EXPECT_EQ(s.tasks[0].count, 300u);
  EXPECT_EQ(s.tasks[0].failures, 4u);
  EXPECT_EQ(s.tasks[0].duration.total_count(), 300);
  // The slowest tasks are shard 1's: the merged p99 is theirs, not an average.
  EXPECT_EQ(s.tasks[0].duration.max(), shards[1].scenario.tasks[0].duration.max());
  // Rank 297 of the 300 is shard 1's 197th of 200.
  EXPECT_EQ(s.tasks[0].duration.value_at_percentile(99), shards[1].scenario.tasks[0].duration.value_at_percentile(98.5));
  EXPECT_EQ(s.tasks[1].count, 2u);
  ASSERT_EQ(s.names.size(), 2u);
  EXPECT_EQ(s.names[0].name, "home");
  EXPECT_EQ(s.names[0].requests, 600u);
  EXPECT_EQ(s.names[0].checks, 2u);
  EXPECT_EQ(s.names[1].requests, 7u);
  ASSERT_EQ(s.messages.size(), 2u);
  EXPECT_EQ(s.messages[0].count, 2u);  // "no basket" came in both shards
}

TEST(MergeScenario, ShardsOfOtherTasksOrWithoutAScenarioAreRefusedUnlessForced) {
  RunReport other = scenario_shard(1);
  other.scenario.tasks[1].name = "sell";
  auto refused = merge_reports({scenario_shard(0), other}, kFiles, MergeRules{});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("differ in scenario.tasks ('browse, buy' vs 'browse, sell')"),
            std::string::npos) << refused.error().message;
  RunReport plain = scenario_shard(1);
  plain.scenario = scenario::ScenarioStats{};
  refused = merge_reports({scenario_shard(0), plain}, kFiles, MergeRules{});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("scenario.tasks"), std::string::npos) << refused.error().message;
  MergeRules force;
  force.force = true;
  auto forced = merge_reports({scenario_shard(0), other}, kFiles, force);
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  EXPECT_EQ(forced->scenario.tasks[1].count, 2u);
}

TEST(MergeScenario, ASumPastTheLargestCountIsRefusedNotWrapped) {
  RunReport a = scenario_shard(0);
  RunReport b = scenario_shard(1);
  b.scenario.check = UINT64_MAX;
  b.scenario.check_on_errors = 0;
  auto refused = merge_reports({a, b}, kFiles, MergeRules{});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(refused.error().message.find("scenario.errors"), std::string::npos) << refused.error().message;
  b = scenario_shard(1);
  b.scenario.tasks[0].count = UINT64_MAX;
  refused = merge_reports({a, b}, kFiles, MergeRules{});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("scenario.tasks[0]"), std::string::npos) << refused.error().message;
}

TEST(MergeScenario, AReportWithoutTaskHistogramsReadsWithoutItsScenario) {
  nlohmann::json doc = nlohmann::json::parse(render_json(scenario_shard(0)));
  for (auto& task : doc["scenario"]["tasks"]) task.erase("duration_histogram");
  auto read = read_json_report(doc.dump(), "old.json");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_FALSE(read->scenario.active);
}

TEST(MergeScenario, ATaskHistogramThatDisagreesWithItsCountIsRefused) {
  nlohmann::json doc = nlohmann::json::parse(render_json(scenario_shard(0)));
  doc["scenario"]["tasks"][0]["count"] = 99;
  auto read = read_json_report(doc.dump(), "edited.json");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("edited.json: scenario.tasks[0].duration_histogram"), std::string::npos)
      << read.error().message;
}

}  // namespace
}  // namespace pacer::report
