// pacer merge's rules about the set of reports (src/report/merge.h): missing
// shards, start times far apart, sums that would overflow, and what a shard's
// and an incomplete merge's text and JSON reports say about the part they cover.
#include "report/merge.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "report/json.h"
#include "report/json_reader.h"
#include "report/text.h"

namespace pacer::report {
namespace {

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

// Shard `index` of 3 of an open-model test: -R 6000 -c 30, 10 connections each.
RunReport open_shard(int index) {
  RunReport r;
  r.url = "http://10.0.0.1/";
  r.threads = 1;
  r.connections = 10;
  r.test_connections = 30;
  r.duration_ns = 4 * kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.load_model = LoadModel::kConstant;
  r.rate_per_s = 6000;
  r.target_rate_per_s = 2000;
  r.shard_index = index;
  r.shard_count = 3;
  r.measured_ns = 4 * kNsPerS;
  r.start_unix_ns = 1'796'000'000LL * kNsPerS + index * 10 * kNsPerMs;
  r.counters.requests_sent = 8000;
  r.counters.responses = 8000;
  r.counters.scheduled = 8000;
  r.counters.status_counts[200] = 8000;
  r.latency.record_n(1'000'000, 8000);
  return r;
}

std::vector<RunReport> shards_of(std::initializer_list<int> indexes) {
  std::vector<RunReport> out;
  for (int i : indexes) out.push_back(open_shard(i));
  return out;
}

std::vector<std::string> names_of(std::initializer_list<int> indexes) {
  std::vector<std::string> out;
  for (int i : indexes) out.push_back("s" + std::to_string(i) + ".json");
  return out;
}

// Whether `part` is in `text` once the report's wrapping (a line break and the
// 14-column indent under the labels) is read as the space it stands for.
bool contains(const std::string& text, const std::string& part) {
  std::string flat = text;
  const std::string wrap = "\n" + std::string(14, ' ');
  for (std::size_t at = flat.find(wrap); at != std::string::npos; at = flat.find(wrap, at)) flat.replace(at, wrap.size(), " ");
  return flat.find(part) != std::string::npos;
}

TEST(ShardReport, TextJudgesTheShardAgainstItsOwnShareAndSaysSo) {
  const RunReport r = open_shard(0);
  const std::string text = render_header(r) + render_text(r);
  EXPECT_TRUE(contains(text, "(shard 0 of 3)")) << text;
  EXPECT_TRUE(contains(text, "Load model:   open, constant 2000 requests/s (uniform arrivals), 10 connections."))
      << text;
  EXPECT_TRUE(contains(text, "shard 0 of 3: 2000 of 6000 requests/s, 10 of 30 connections.")) << text;
  EXPECT_TRUE(contains(text, "target 2000.00/s, sent 2000.00/s (100.0% of target)")) << text;
  EXPECT_FALSE(contains(text, "6000 requests/s (")) << text;
}

TEST(ShardReport, ClosedLoopShardSaysWhichPartOfConnectionsAndRequestsItRan) {
  RunReport r = open_shard(1);
  r.load_model = LoadModel::kClosed;
  r.request_count = 333;
  r.test_request_count = 1000;
  EXPECT_TRUE(contains(render_text(r), "shard 1 of 3: 333 of 1000 requests, 10 of 30 connections.")) << render_text(r);
}

TEST(ShardReport, JsonConfigIsTheShardsWithTheWholeTestBesideItAndRoundTrips) {
  RunReport r = open_shard(2);
  r.load_model = LoadModel::kRamp;
  r.rate_end_per_s = 9000;
  const auto doc = nlohmann::json::parse(render_json(r));
  const auto& c = doc["config"];
  EXPECT_EQ(c["rate_per_s"], 2000.0);
  EXPECT_EQ(c["rate_end_per_s"], 3000.0);
  EXPECT_EQ(c["connections"], 10);
  EXPECT_EQ(c["shard"]["index"], 2);
  EXPECT_EQ(c["shard"]["count"], 3);
  EXPECT_EQ(c["shard"]["whole_test"]["rate_per_s"], 6000.0);
  EXPECT_EQ(c["shard"]["whole_test"]["rate_end_per_s"], 9000.0);
  EXPECT_EQ(c["shard"]["whole_test"]["connections"], 30);
  auto back = read_json_report(render_json(r), "s2.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->rate_per_s, 6000.0);
  EXPECT_EQ(back->rate_end_per_s, 9000.0);
  EXPECT_EQ(back->test_connections, 30);
  EXPECT_EQ(nlohmann::json::parse(render_json(*back))["config"], c);
}

TEST(ShardReport, AVersion1ReportsRatesAreTheWholeTests) {
  auto doc = nlohmann::json::parse(render_json(open_shard(1)));
  doc["schema_version"] = 1;  // as pacer wrote a shard before version 2
  doc["config"]["rate_per_s"] = 6000.0;
  doc["config"]["shard"] = {{"index", 1}, {"count", 3}};
  auto read = read_json_report(doc.dump(), "old.json");
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->rate_per_s, 6000.0);
  EXPECT_EQ(read->test_connections, 0);  // unknown
  EXPECT_TRUE(contains(render_text(*read), "shard 1 of 3: 2000 of 6000 requests/s, 10 connections.")) << render_text(*read);
}

TEST(MergeRules, AnIncompleteSetIsRefusedNamingTheMissingShards) {
  auto merged = merge_reports(shards_of({0, 1}), names_of({0, 1}), MergeRules{});
  ASSERT_FALSE(merged.ok());
  EXPECT_EQ(merged.error().kind, ErrorKind::kBadInput);
  EXPECT_TRUE(contains(merged.error().message, "the test has 3 shards and shard 2 is missing")) << merged.error().message;
  EXPECT_TRUE(contains(merged.error().message, "--allow-missing")) << merged.error().message;
  auto two_missing = merge_reports(shards_of({1}), names_of({1}), MergeRules{});
  ASSERT_FALSE(two_missing.ok());
  EXPECT_TRUE(contains(two_missing.error().message, "shards 0, 2 are missing")) << two_missing.error().message;
  // --force (settings) does not stand for --allow-missing.
  MergeRules forced;
  forced.force = true;
  EXPECT_FALSE(merge_reports(shards_of({0, 1}), names_of({0, 1}), forced).ok());
}

TEST(MergeRules, AllowMissingJudgesTheRateAgainstTheShardsPresentAndSaysWhichAreMissing) {
  MergeRules rules;
  rules.allow_missing = true;
  auto merged = merge_reports(shards_of({0, 1}), names_of({0, 1}), rules);
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  ASSERT_TRUE(merged->merge.has_value());
  EXPECT_EQ(merged->merge->missing_shards, std::vector<int>{2});
  EXPECT_EQ(merged->shard_count, 3);
  EXPECT_EQ(merged->shards_covered, 2);
  const std::string text = render_header(*merged) + render_text(*merged);
  EXPECT_TRUE(contains(text, "MISSING:      shard 2 of 3")) << text;
  EXPECT_TRUE(contains(text, "open, constant 4000 requests/s")) << text;
  EXPECT_TRUE(contains(text, "shards 0, 1 of 3: 4000 of 6000 requests/s, 20 of 30 connections.")) << text;
  EXPECT_TRUE(contains(text, "target 4000.00/s")) << text;
  const auto doc = nlohmann::json::parse(render_json(*merged));
  EXPECT_EQ(doc["merge"]["missing_shards"], nlohmann::json::array({2}));
  EXPECT_EQ(doc["merge"]["complete"], false);
  EXPECT_EQ(doc["config"]["rate_per_s"], 4000.0);
  EXPECT_EQ(doc["config"]["shard"]["whole_test"]["rate_per_s"], 6000.0);
  EXPECT_TRUE(doc["config"]["shard"]["index"].is_null());
  // Such a report is no shard: merging it again is refused with the reason.
  auto again = read_json_report(render_json(*merged), "partial.json");
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(contains(again.error().message, "a merge that lacked shards")) << again.error().message;
}

TEST(MergeRules, ACompleteSetIsTheWholeTest) {
  auto merged = merge_reports(shards_of({2, 0, 1}), names_of({2, 0, 1}), MergeRules{});
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_TRUE(merged->merge->missing_shards.empty());
  EXPECT_EQ(merged->shard_count, 1);
  const std::string text = render_text(*merged);
  EXPECT_TRUE(contains(text, "open, constant 6000 requests/s (uniform arrivals), 30 connections.")) << text;
  EXPECT_FALSE(contains(text, "MISSING")) << text;
  EXPECT_FALSE(contains(text, "shard")) << text;
  EXPECT_EQ(nlohmann::json::parse(render_json(*merged))["merge"]["complete"], true);
}

TEST(MergeRules, ShardsOfTestsWithDifferentWholeFiguresAreRefused) {
  std::vector<RunReport> shards = shards_of({0, 1, 2});
  shards[1].test_connections = 60;
  auto merged = merge_reports(shards, names_of({0, 1, 2}), MergeRules{});
  ASSERT_FALSE(merged.ok());
  EXPECT_TRUE(contains(merged.error().message, "shard.whole_test.connections")) << merged.error().message;
}

TEST(MergeRules, StartTimesFurtherApartThanTheToleranceAreFlagged) {
  std::vector<RunReport> shards = shards_of({0, 1, 2});
  shards[2].start_unix_ns += 2500 * kNsPerMs;  // 2.52 s after shard 0
  auto merged = merge_reports(shards, names_of({0, 1, 2}), MergeRules{});
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->merge->start_spread_ns, 2520 * kNsPerMs);
  EXPECT_TRUE(merged->merge->starts_differ());
  const std::string text = render_text(*merged);
  EXPECT_TRUE(contains(text, "Start times:  the shards started 2.52s apart, more than the 1.00s tolerance")) << text;
  EXPECT_TRUE(contains(text, "First s0.json, last s2.json.")) << text;
  const auto doc = nlohmann::json::parse(render_json(*merged));
  EXPECT_EQ(doc["merge"]["start_times_differ"], true);
  EXPECT_DOUBLE_EQ(doc["merge"]["start_spread_s"].get<double>(), 2.52);
  EXPECT_DOUBLE_EQ(doc["merge"]["start_tolerance_s"].get<double>(), 1.0);

  MergeRules lenient;
  lenient.start_tolerance_ns = 3 * kNsPerS;
  auto within = merge_reports(shards, names_of({0, 1, 2}), lenient);
  ASSERT_TRUE(within.ok());
  EXPECT_FALSE(within->merge->starts_differ());
  EXPECT_FALSE(contains(render_text(*within), "Start times:"));
  EXPECT_EQ(nlohmann::json::parse(render_json(*within))["merge"]["start_times_differ"], false);
}

// The message of merging a and b, which must be refused as an overflow.
std::string overflow_refusal(const RunReport& a, const RunReport& b) {
  MergeRules rules;
  rules.allow_missing = true;
  auto merged = merge_reports({a, b}, {"s0.json", "s1.json"}, rules);
  EXPECT_FALSE(merged.ok()) << "merged: " << (merged.ok() ? render_text(*merged) : "");
  if (merged.ok()) return {};
  EXPECT_EQ(merged.error().kind, ErrorKind::kBadInput);
  EXPECT_TRUE(contains(merged.error().message, "s1.json")) << merged.error().message;
  return merged.error().message;
}

TEST(MergeRules, CountsThatWouldPass64BitsAreRefusedNamingTheField) {
  RunReport a = open_shard(0);
  RunReport b = open_shard(1);
  a.counters.responses = a.counters.requests_sent = kMax64 - 100;
  EXPECT_TRUE(contains(overflow_refusal(a, b), "counts.requests_sent"));
  a = open_shard(0);
  a.counters.status_counts[200] = b.counters.status_counts[200] = std::uint64_t{1} << 63;
  EXPECT_TRUE(contains(overflow_refusal(a, b), "status_codes.200"));
  a = open_shard(0);
  a.counters.errors.timeout = b.counters.errors.timeout = std::uint64_t{1} << 63;
  EXPECT_TRUE(contains(overflow_refusal(a, b), "errors.timeout"));
  // Each class fits, but responses plus failures would not.
  a = open_shard(0);
  a.counters.errors.read = kMax64 / 2;
  b.counters.errors.connect = kMax64 / 2;
  EXPECT_TRUE(contains(overflow_refusal(a, b), "errors"));
  // Nothing is changed by a refused sum.
  stats::Counters x = open_shard(0).counters;
  stats::Counters y;
  y.bytes_read = kMax64;
  x.bytes_read = 1;
  EXPECT_EQ(x.merge_checked(y), "counts.bytes_read");
  EXPECT_EQ(x.responses, 8000u);
  EXPECT_EQ(x.bytes_read, 1u);
}

TEST(MergeRules, HistogramCountsThatWouldPass63BitsAreRefused) {
  RunReport a = open_shard(0);
  RunReport b = open_shard(1);
  const std::int64_t half = (std::numeric_limits<std::int64_t>::max() / 2) + 1;
  a.latency.record_n(5'000, half);
  b.latency.record_n(7'000, half);
  EXPECT_TRUE(contains(overflow_refusal(a, b), "latency histogram")) << overflow_refusal(a, b);
}

TEST(MergeRules, AReportWhoseOwnCountsAddUpPast64BitsIsRefusedOnReading) {
  RunReport r = open_shard(0);
  r.counters.errors.connect = kMax64;
  r.counters.errors.read = 5;
  auto read = read_json_report(render_json(r), "s0.json");
  ASSERT_FALSE(read.ok());
  EXPECT_TRUE(contains(read.error().message, "s0.json")) << read.error().message;
  EXPECT_TRUE(contains(read.error().message, "past 2^64")) << read.error().message;
}

TEST(Counters, EveryFieldIsInTheFieldListsTheMergesWalk) {
  // A counter added to the struct but not to kFields would be merged by no one.
  EXPECT_EQ(stats::ErrorCounts::kFields.size() * sizeof(std::uint64_t), sizeof(stats::ErrorCounts));
  EXPECT_EQ(stats::Counters::kFields.size() * sizeof(std::uint64_t) + sizeof(stats::ErrorCounts) +
                sizeof(stats::Counters::status_counts),
            sizeof(stats::Counters));
  stats::ErrorCounts one;
  for (const auto& f : stats::ErrorCounts::kFields) one.*f.member = 1;
  stats::ErrorCounts sum;
  sum.merge(one);
  sum.merge(one);
  EXPECT_EQ(sum.socket_total(), 2 * (stats::ErrorCounts::kFields.size() - 1));  // status is no socket error
  EXPECT_EQ(sum.status, 2u);
}

}  // namespace
}  // namespace pacer::report
