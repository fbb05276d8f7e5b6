// The JSON report's time series (report issue 17): written with the report, read
// back, and merged across shards interval by interval (src/report/timeseries_merge.h).
#include "report/timeseries_merge.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/interval_report.h"
#include "report/json.h"
#include "report/json_reader.h"
#include "report/merge.h"
#include "stats/hdr_codec.h"

namespace pacer::report {
namespace {

using json = nlohmann::json;

std::string interval_entry(std::uint64_t index, std::uint64_t completed, std::int64_t latency_ns,
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
  return timeseries_entry(render_interval_ndjson(in, true, 0, 2));
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
  r.timeseries = std::vector<std::string>{interval_entry(0, 100, latency_ns, 1, 5, 1000),
                                          interval_entry(1, 200, latency_ns, 0, 4, 9000)};
  return r;
}

TEST(TimeSeries, TheJsonReportCarriesItAndReadsItBack) {
  const RunReport r = shard(0, 1'000'000);
  const json doc = json::parse(render_json(r));
  ASSERT_TRUE(doc.contains("timeseries"));
  ASSERT_EQ(doc["timeseries"].size(), 2u);
  EXPECT_EQ(doc["timeseries"][1]["completed"], 200);
  EXPECT_EQ(doc["timeseries"][1]["latency_ns"]["count"], 200);
  EXPECT_TRUE(doc["timeseries"][0]["histogram"].is_string());
  auto back = read_json_report(render_json(r), "r.json");
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_TRUE(back->timeseries);
  EXPECT_EQ(json::parse((*back->timeseries)[1]), json::parse((*r.timeseries)[1]));
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
  auto merged = merge_reports({shard(0, 1'000'000), shard(1, 3'000'000)}, {"a.json", "b.json"}, MergeRules{});
  ASSERT_TRUE(merged) << merged.error().message;
  ASSERT_TRUE(merged->timeseries);
  ASSERT_EQ(merged->timeseries->size(), 2u);
  const json first = json::parse((*merged->timeseries)[0]);
  EXPECT_EQ(first["interval"], 0);
  EXPECT_EQ(first["completed"], 200);
  EXPECT_EQ(first["sent"], 202);
  EXPECT_EQ(first["errors"]["timeout"], 2);
  EXPECT_EQ(first["open_connections"], 10);
  EXPECT_DOUBLE_EQ(first["achieved_rate_per_s"].get<double>(), 200.0);
  EXPECT_FALSE(first.contains("shard"));
  const json second = json::parse((*merged->timeseries)[1]);
  EXPECT_EQ(second["oldest_in_flight_ns"], 9000);  // the largest, not the sum
  // The merged histogram is both shards' samples: half at 1 ms, half at 3 ms.
  auto hist = stats::decode_v2_base64(second["histogram"].get<std::string>());
  ASSERT_TRUE(hist);
  EXPECT_EQ(hist->total_count(), 400);
  EXPECT_EQ(second["latency_ns"]["count"], 400);
  EXPECT_EQ(second["latency_ns"]["p50"], hist->value_at_percentile(50));
  EXPECT_GE(second["latency_ns"]["p90"].get<std::int64_t>(), 2'990'000);
  EXPECT_LE(second["latency_ns"]["p50"].get<std::int64_t>(), 1'001'000);
}

TEST(TimeSeries, AShardWithoutOneLeavesTheMergeWithout) {
  RunReport b = shard(1, 3'000'000);
  b.timeseries.reset();
  auto merged = merge_reports({shard(0, 1'000'000), b}, {"a.json", "b.json"}, MergeRules{});
  ASSERT_TRUE(merged);
  EXPECT_FALSE(merged->timeseries);
}

TEST(TimeSeries, ACorruptIntervalHistogramIsRefusedNamingFileAndInterval) {
  RunReport b = shard(1, 3'000'000);
  json bad = json::parse((*b.timeseries)[1]);
  bad["histogram"] = "HISTFAAAAAAAA";
  (*b.timeseries)[1] = bad.dump();
  auto merged = merge_reports({shard(0, 1'000'000), b}, {"a.json", "b.json"}, MergeRules{});
  ASSERT_FALSE(merged);
  EXPECT_NE(merged.error().message.find("b.json: timeseries[1].histogram"), std::string::npos)
      << merged.error().message;
}

TEST(TimeSeries, ACountPastTwoToThe64IsRefusedNotWrapped) {
  RunReport a = shard(0, 1'000'000);
  RunReport b = shard(1, 1'000'000);
  json big = json::parse((*b.timeseries)[0]);
  big["sent"] = UINT64_MAX;
  (*b.timeseries)[0] = big.dump();
  auto merged = merge_reports({a, b}, {"a.json", "b.json"}, MergeRules{});
  ASSERT_FALSE(merged);
  EXPECT_NE(merged.error().message.find("b.json: timeseries[0]: the merged count would pass 2^64 - 1"),
            std::string::npos)
      << merged.error().message;
}

}  // namespace
}  // namespace pacer::report
