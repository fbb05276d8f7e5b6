// The JSON report's time series (report issue 17): written with the report, read
// back, and merged across shards interval by interval (src/report/timeseries_merge.h).
#include "report/timeseries_merge.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/interval_report.h"
#include "report/json.h"
#include "report/json_reader.h"
#include "report/merge.h"
#include "report/series_json.h"
#include "stats/hdr_codec.h"

namespace pacer::report {
namespace {

using json = nlohmann::json;

SeriesPoint interval_point(std::uint64_t index, std::uint64_t completed, std::int64_t latency_ns,
                           std::uint64_t timeouts, std::uint64_t open_connections, TimeNs oldest_ns) {
  stats::Histogram h = stats::Histogram::for_latency_ns();
  h.record_n(latency_ns, static_cast<std::int64_t>(completed));
  IntervalReport in;
  in.index = index;
  in.start_ns = static_cast<TimeNs>(index) * kNsPerS;
  in.duration_ns = kNsPerS;
  in.start_unix_ns = 1'796'000'000'000'000'000 + in.start_ns;
  in.sent = completed + 1;
  in.completed = completed;
  in.errors.timeout = timeouts;
  in.latency = &h;
  in.open_connections = open_connections;
  in.oldest_in_flight_ns = oldest_ns;
  return make_series_point(in, 0, 2);
}

RunReport shard(int index, std::int64_t latency_ns) {
  RunReport r;
  r.url = "http://127.0.0.1:1/";
  r.threads = 1;
  r.connections = 5;
  r.duration_ns = 2 * kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.shard_index = index;
  r.shard_count = 2;
  r.test_connections = 10;
  r.start_unix_ns = 1'796'000'000'000'000'000;
  r.measured_ns = 2 * kNsPerS;
  r.counters.responses = 300;
  r.counters.status_counts[200] = 300;
  r.latency.record_n(latency_ns, 300);
  r.timeseries = std::vector<SeriesPoint>{interval_point(0, 100, latency_ns, 1, 5, 1000),
                                          interval_point(1, 200, latency_ns, 0, 4, 9000)};
  for (SeriesPoint& p : *r.timeseries) p.shard_index = index;
  return r;
}

Result<RunReport> merge_two(const RunReport& a, const RunReport& b) {
  return merge_reports({a, b}, {"a.json", "b.json"}, MergeRules{});
}

TEST(TimeSeries, TheJsonReportCarriesItAndReadsItBack) {
  const RunReport r = shard(0, 1'000'000);
  const json doc = json::parse(render_json(r));
  ASSERT_TRUE(doc.contains("timeseries"));
  ASSERT_EQ(doc["timeseries"].size(), 2u);
  EXPECT_EQ(doc["timeseries"][1]["completed"], 200);
  EXPECT_EQ(doc["timeseries"][1]["latency_ns"]["count"], 200);
  EXPECT_TRUE(doc["timeseries"][0]["histogram"].is_string());
  // The report's entry is the interval's line with its histogram.
  EXPECT_EQ(doc["timeseries"][1], json::parse(render_series_ndjson((*r.timeseries)[1], true)));
  auto back = read_json_report(render_json(r), "r.json");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_TRUE(back->timeseries);
  ASSERT_EQ(back->timeseries->size(), 2u);
  // The same object again, but for the summary's top values (V2 keeps no exact
  // max: a decoded histogram's is its bucket's highest equivalent value).
  nlohmann::ordered_json again = series_point_json((*back->timeseries)[1], true);
  nlohmann::ordered_json before = series_point_json((*r.timeseries)[1], true);
  EXPECT_EQ(again["latency_ns"]["count"], before["latency_ns"]["count"]);
  again.erase("latency_ns");
  before.erase("latency_ns");
  EXPECT_EQ(again, before);
}

TEST(TimeSeries, AReportWithoutOneHasNoField) {
  RunReport r = shard(0, 1'000'000);
  r.timeseries.reset();
  EXPECT_FALSE(json::parse(render_json(r)).contains("timeseries"));
  auto back = read_json_report(render_json(r), "r.json");
  ASSERT_TRUE(back);
  EXPECT_FALSE(back->timeseries);
}

TEST(TimeSeries, ShardsMergeIntervalByIntervalExactly) {
  auto merged = merge_two(shard(0, 1'000'000), shard(1, 3'000'000));
  ASSERT_TRUE(merged) << merged.error().message;
  ASSERT_TRUE(merged->timeseries);
  ASSERT_EQ(merged->timeseries->size(), 2u);
  const SeriesPoint& first = (*merged->timeseries)[0];
  EXPECT_EQ(first.index, 0u);
  EXPECT_EQ(first.completed, 200u);
  EXPECT_EQ(first.sent, 202u);
  EXPECT_EQ(first.errors.timeout, 2u);
  EXPECT_EQ(first.open_connections, 10u);
  EXPECT_EQ(first.shard_count, 1);
  const json first_json = json::parse(render_series_ndjson(first, true));
  EXPECT_DOUBLE_EQ(first_json["achieved_rate_per_s"].get<double>(), 200.0);
  EXPECT_FALSE(first_json.contains("shard"));
  const SeriesPoint& second = (*merged->timeseries)[1];
  EXPECT_EQ(second.oldest_in_flight_ns, 9000);  // the largest, not the sum
  // The merged histogram is both shards' samples: half at 1 ms, half at 3 ms.
  EXPECT_EQ(second.latency.total_count(), 400);
  const json second_json = series_point_json(second, true);
  auto hist = stats::decode_v2_base64(second_json["histogram"].get<std::string>());
  ASSERT_TRUE(hist);
  EXPECT_EQ(hist->total_count(), 400);
  EXPECT_EQ(second_json["latency_ns"]["count"], 400);
  EXPECT_EQ(second_json["latency_ns"]["p50"], hist->value_at_percentile(50));
  EXPECT_GE(second_json["latency_ns"]["p90"].get<std::int64_t>(), 2'990'000);
  EXPECT_LE(second_json["latency_ns"]["p50"].get<std::int64_t>(), 1'001'000);
}

TEST(TimeSeries, AShardWithoutOneLeavesTheMergeWithout) {
  RunReport b = shard(1, 3'000'000);
  b.timeseries.reset();
  auto merged = merge_two(shard(0, 1'000'000), b);
  ASSERT_TRUE(merged);
  EXPECT_FALSE(merged->timeseries);
}

TEST(TimeSeries, AShorterShardAddsToTheIntervalsItHas) {
  RunReport b = shard(1, 3'000'000);
  b.timeseries->pop_back();
  auto merged = merge_two(shard(0, 1'000'000), b);
  ASSERT_TRUE(merged) << merged.error().message;
  ASSERT_EQ(merged->timeseries->size(), 2u);
  EXPECT_EQ((*merged->timeseries)[0].completed, 200u);
  EXPECT_EQ((*merged->timeseries)[1].completed, 200u);  // a's alone
  EXPECT_EQ((*merged->timeseries)[1].index, 1u);
}

TEST(TimeSeries, ACorruptIntervalHistogramIsRefusedNamingFileAndInterval) {
  json bad = json::parse(render_json(shard(1, 3'000'000)));
  bad["timeseries"][1]["histogram"] = "HISTFAAAAAAAA";
  auto read = read_json_report(bad.dump(), "b.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(read.error().message.find("b.json: timeseries[1].histogram"), std::string::npos) << read.error().message;
}

TEST(TimeSeries, ACountPastTwoToThe64IsRefusedNotWrapped) {
  RunReport b = shard(1, 1'000'000);
  (*b.timeseries)[0].sent = UINT64_MAX;
  auto merged = merge_two(shard(0, 1'000'000), b);
  ASSERT_FALSE(merged);
  EXPECT_NE(merged.error().message.find("b.json: timeseries[0]: the merged count would pass 2^64 - 1"),
            std::string::npos)
      << merged.error().message;
  // A status code's, an endpoint's and an error class's alike.
  for (int which = 0; which < 3; ++which) {
    RunReport a = shard(0, 1'000'000);
    RunReport c = shard(1, 1'000'000);
    SeriesPoint& pa = (*a.timeseries)[1];
    SeriesPoint& pc = (*c.timeseries)[1];
    if (which == 0) {
      pa.status_codes = {{200, 10}};
      pc.status_codes = {{200, UINT64_MAX - 5}};
    } else if (which == 1) {
      pa.endpoints.push_back({"/x", 10, 0, 0, std::nullopt});
      pc.endpoints.push_back({"/x", UINT64_MAX, 0, 0, std::nullopt});
    } else {
      pa.errors.goaway = 1;
      pc.errors.goaway = UINT64_MAX;
    }
    auto refused = merge_reports({a, c}, {"a.json", "c.json"}, MergeRules{});
    ASSERT_FALSE(refused) << which;
    EXPECT_NE(refused.error().message.find("c.json: timeseries[1]: the merged count would pass 2^64 - 1"),
              std::string::npos)
        << refused.error().message;
  }
}

TEST(TimeSeries, TheMergeAddsTakesTheLargestOrTheEarliestPerFigure) {
  RunReport a = shard(0, 1'000'000);
  RunReport b = shard(1, 1'000'000);
  SeriesPoint& pa = (*a.timeseries)[0];
  SeriesPoint& pb = (*b.timeseries)[0];
  pa.target_rate_per_s = 100;
  pb.target_rate_per_s = 150;
  pa.schedule_lag_ns = 5'000;
  pb.schedule_lag_ns = 2'000;
  pa.backlog = 3;
  pb.backlog = 4;
  pa.users = 2;
  pb.users = 5;
  pb.start_ns = 1'000;  // b's interval started 1 us after its own start
  pb.start_unix_ns = pa.start_unix_ns + 2'000;
  pb.duration_ns = kNsPerS + 7;
  pb.drain_ns = 7;
  pb.stats_reset = true;
  pa.scenario_errors = stats::ScenarioErrorCounts{1, 0};
  pb.scenario_errors = stats::ScenarioErrorCounts{2, 3};
  pa.status_codes = {{200, 90}, {503, 1}};
  pb.status_codes = {{200, 80}, {404, 2}};
  auto merged = merge_two(a, b);
  ASSERT_TRUE(merged) << merged.error().message;
  const SeriesPoint& m = (*merged->timeseries)[0];
  EXPECT_EQ(m.target_rate_per_s, 250.0);
  EXPECT_EQ(m.schedule_lag_ns, 5'000);
  EXPECT_EQ(m.backlog, 7u);
  EXPECT_EQ(m.users, 7u);
  EXPECT_EQ(m.start_ns, 0);
  EXPECT_EQ(m.start_unix_ns, pa.start_unix_ns);
  EXPECT_EQ(m.duration_ns, kNsPerS + 7);
  EXPECT_EQ(m.drain_ns, 7);
  EXPECT_TRUE(m.stats_reset);
  ASSERT_TRUE(m.scenario_errors);
  EXPECT_EQ(m.scenario_errors->check, 3u);
  EXPECT_EQ(m.scenario_errors->script, 3u);
  EXPECT_EQ(m.status_codes, (std::vector<StatusCount>{{200, 170}, {404, 2}, {503, 1}}));
}

TEST(TimeSeries, EndpointsMergeByNameWorkersFollowOneAnotherEvidenceIsTheFirstShards) {
  RunReport a = shard(0, 1'000'000);
  RunReport b = shard(1, 1'000'000);
  SeriesPoint& pa = (*a.timeseries)[0];
  SeriesPoint& pb = (*b.timeseries)[0];
  stats::Histogram fast = stats::Histogram::for_latency_ns();
  fast.record_n(1'000'000, 10);
  stats::Histogram slow = stats::Histogram::for_latency_ns();
  slow.record_n(9'000'000, 30);
  pa.endpoints = {{"/a", 10, 1, 1, stats::PackedHistogram(fast)}, {"/old", 4, 0, 0, std::nullopt}};
  pb.endpoints = {{"/b", 5, 0, 0, stats::PackedHistogram(slow)},
                  {"/a", 30, 2, 0, stats::PackedHistogram(slow)},
                  {"/old", 1, 0, 0, stats::PackedHistogram(fast)}};
  pa.workers = {{kNsPerS, 1, 2, 3, 4}};
  pb.workers = {{kNsPerS, 5, 6, 7, 8}, {kNsPerS, 9, 10, 11, 12}};
  evidence::IntervalEvidence sample_b;
  sample_b.verdicts = {"b's verdict"};
  pb.evidence = sample_b;  // a's interval was not sampled: b's is the merge's
  (*b.timeseries)[1].evidence = sample_b;
  evidence::IntervalEvidence sample_a;
  sample_a.verdicts = {"a's verdict"};
  (*a.timeseries)[1].evidence = sample_a;
  auto merged = merge_two(a, b);
  ASSERT_TRUE(merged) << merged.error().message;
  const SeriesPoint& m = (*merged->timeseries)[0];
  ASSERT_EQ(m.endpoints.size(), 3u);
  EXPECT_EQ(m.endpoints[0].name, "/a");  // in the order first seen
  EXPECT_EQ(m.endpoints[0].completed, 40u);
  EXPECT_EQ(m.endpoints[0].errors, 3u);
  EXPECT_EQ(m.endpoints[0].failed, 1u);
  ASSERT_TRUE(m.endpoints[0].latency);
  EXPECT_EQ(m.endpoints[0].latency->total_count(), 40);
  EXPECT_EQ(m.endpoints[0].latency->unpack().value_at_percentile(50), slow.value_at_percentile(50));
  EXPECT_EQ(m.endpoints[1].name, "/old");
  ASSERT_TRUE(m.endpoints[1].latency);  // the shard that had one
  EXPECT_EQ(m.endpoints[1].latency->total_count(), 10);
  EXPECT_EQ(m.endpoints[2].name, "/b");
  ASSERT_EQ(m.workers.size(), 3u);
  EXPECT_EQ(m.workers[0].runnable_ns, 4);
  EXPECT_EQ(m.workers[2].runnable_ns, 12);
  ASSERT_TRUE(m.evidence);
  EXPECT_EQ(m.evidence->verdicts, std::vector<std::string>{"b's verdict"});
  ASSERT_TRUE((*merged->timeseries)[1].evidence);
  EXPECT_EQ((*merged->timeseries)[1].evidence->verdicts, std::vector<std::string>{"a's verdict"});
}

TEST(TimeSeries, AHistogramOfAnotherLayoutIsRefusedNamingFileAndInterval) {
  RunReport b = shard(1, 1'000'000);
  stats::Histogram other(1, 1'000'000, 2);
  other.record(5);
  (*b.timeseries)[1].endpoints.push_back({"/x", 1, 0, 0, stats::PackedHistogram(other)});
  RunReport a = shard(0, 1'000'000);
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  latency.record(5);
  (*a.timeseries)[1].endpoints.push_back({"/x", 1, 0, 0, stats::PackedHistogram(latency)});
  auto merged = merge_two(a, b);
  ASSERT_FALSE(merged);
  EXPECT_EQ(merged.error().message, "b.json: timeseries[1].endpoints[\"/x\"].histogram: not the latency layout");
}

}  // namespace
}  // namespace pacer::report
