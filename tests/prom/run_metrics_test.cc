// The run's figures as metric families (src/prom/run_metrics.h).
#include "prom/run_metrics.h"

#include <gtest/gtest.h>

#include "prom/exposition.h"

namespace pacer::prom {
namespace {

const Family* find(const std::vector<Family>& families, std::string_view name) {
  for (const Family& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string label(const Labels& labels, std::string_view name) {
  for (const Label& l : labels) {
    if (l.name == name) return l.value;
  }
  return "";
}

double value_of(const std::vector<Family>& families, std::string_view name, std::string_view label_name = "",
                std::string_view label_value = "") {
  const Family* f = find(families, name);
  if (f == nullptr) return -1;
  for (const Sample& s : f->samples) {
    if (label_name.empty() || label(s.labels, label_name) == label_value) return s.value;
  }
  return -1;
}

Config shard_config() {
  Config c;
  c.shard_index = 1;
  c.shard_count = 2;
  c.load_model = LoadModel::kConstant;
  c.rate_per_s = 100;
  c.prometheus.labels = {{"team", "checkout"}};
  return c;
}

TEST(RunMetrics, ConstantLabelsAreRunIdShardAndTheUsersInOrder) {
  const Labels labels = constant_labels(shard_config(), "abc");
  ASSERT_EQ(labels.size(), 3u);
  EXPECT_EQ(labels[0].name, "run_id");
  EXPECT_EQ(labels[0].value, "abc");
  EXPECT_EQ(labels[1].name, "shard");
  EXPECT_EQ(labels[1].value, "1");
  EXPECT_EQ(labels[2].name, "team");
  EXPECT_EQ(constant_labels(Config{}, "x").size(), 1u);  // no shard label without --shard
}

TEST(RunMetrics, IntervalsAddUpAndGaugesAreTheLastOnes) {
  const Config config = shard_config();
  RunMetrics metrics(config, constant_labels(config, "abc"));
  auto names = std::make_shared<stats::NameTable>(10);
  const stats::NameId a = names->intern("GET /a");
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  latency.record(2'000'000);
  std::vector<stats::NameIntervalCounts> per_name(names->size());
  per_name[a] = {4, 1};
  for (int i = 0; i < 2; ++i) {
    report::IntervalReport interval;
    interval.index = static_cast<std::uint64_t>(i);
    interval.duration_ns = kNsPerS;
    interval.sent = 5;
    interval.completed = 4;
    interval.scheduled = 5;
    interval.errors.timeout = 1;
    interval.latency = &latency;
    interval.open_connections = 7 + static_cast<std::uint64_t>(i);
    interval.target_rate_per_s = 50;
    interval.names = per_name;
    interval.name_table = names;
    metrics.add_interval(interval);
  }
  const std::vector<Family> families = metrics.families();
  EXPECT_EQ(value_of(families, "pacer_requests_sent"), 10);
  EXPECT_EQ(value_of(families, "pacer_responses"), 8);
  EXPECT_EQ(value_of(families, "pacer_arrivals_scheduled"), 10);
  EXPECT_EQ(value_of(families, "pacer_errors", "class", "timeout"), 2);
  EXPECT_EQ(value_of(families, "pacer_errors", "class", "connect"), 0);  // every class, zero or not
  EXPECT_EQ(value_of(families, "pacer_connections_open"), 8);
  EXPECT_EQ(value_of(families, "pacer_target_rate_per_second"), 50);
  EXPECT_EQ(value_of(families, "pacer_achieved_rate_per_second"), 4);
  EXPECT_EQ(value_of(families, "pacer_endpoint_responses", "endpoint", "GET /a"), 8);
  EXPECT_EQ(value_of(families, "pacer_endpoint_errors", "endpoint", "GET /a"), 2);
  EXPECT_EQ(value_of(families, "pacer_run_finished"), 0);
  const Family* hist = find(families, "pacer_latency_seconds");
  ASSERT_NE(hist, nullptr);
  ASSERT_EQ(hist->histograms.size(), 1u);
  EXPECT_EQ(hist->histograms[0].count, 2u);
  EXPECT_EQ(label(hist->histograms[0].labels, "shard"), "1");
  // Known only at the end: no samples yet.
  EXPECT_TRUE(find(families, "pacer_responses_by_code")->samples.empty());
  EXPECT_TRUE(find(families, "pacer_ttfb_seconds")->histograms.empty());
}

TEST(RunMetrics, EachEndpointsLatencyMovesWithTheIntervalsAndAResetStartsEverythingAgain) {
  const Config config = shard_config();
  RunMetrics metrics(config, constant_labels(config, "abc"));
  auto names = std::make_shared<stats::NameTable>(10);
  const stats::NameId a = names->intern("GET /a");
  const stats::NameId b = names->intern("GET /b");
  stats::NameHistograms by_name;
  by_name.record_n(a, 2'000'000, 3);
  by_name.record_n(b, 9'000'000, 1);
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  by_name.merge_into(latency);
  std::vector<stats::NameIntervalCounts> per_name(names->size());
  per_name[a] = {3, 0};
  per_name[b] = {1, 0};
  auto interval = [&](std::uint64_t index, bool reset) {
    report::IntervalReport in;
    in.index = index;
    in.duration_ns = kNsPerS;
    in.sent = in.completed = 4;
    in.latency = &latency;
    in.latency_by_name = &by_name;
    in.names = per_name;
    in.name_table = names;
    in.stats_reset = reset;
    return in;
  };
  metrics.add_interval(interval(0, false));
  metrics.add_interval(interval(1, false));
  auto endpoint_count = [&](const char* name) {
    const std::vector<Family> families = metrics.families();
    for (const HistogramSample& h : find(families, "pacer_endpoint_latency_seconds")->histograms) {
      if (label(h.labels, "endpoint") == name) return static_cast<double>(h.count);
    }
    return -1.0;
  };
  EXPECT_EQ(endpoint_count("GET /a"), 6);  // before the final report: from the intervals
  EXPECT_EQ(endpoint_count("GET /b"), 2);
  metrics.add_interval(interval(2, true));  // the statistics start again at its start
  EXPECT_EQ(endpoint_count("GET /a"), 3);
  EXPECT_EQ(value_of(metrics.families(), "pacer_responses"), 4);
  EXPECT_EQ(value_of(metrics.families(), "pacer_endpoint_responses", "endpoint", "GET /b"), 1);
}

TEST(RunMetrics, TheFinalReportAddsStatusCodesBytesAndEndpointHistograms) {
  const Config config = shard_config();
  RunMetrics metrics(config, constant_labels(config, "abc"));
  report::RunReport r;
  r.counters.requests_sent = 9;
  r.counters.responses = 8;
  r.counters.bytes_read = 1234;
  r.counters.status_counts[200] = 6;
  r.counters.status_counts[503] = 2;
  r.counters.errors.status = 2;
  r.measured_ns = 2 * kNsPerS;
  r.ttfb.record(1000);
  report::EndpointReport e;
  e.name = "bad\nname";
  e.counts.responses = 8;
  e.counts.errors.status = 2;
  e.latency.record(5000);
  r.endpoints.push_back(std::move(e));
  metrics.finish(r);
  const std::vector<Family> families = metrics.families();
  EXPECT_EQ(value_of(families, "pacer_responses_by_code", "code", "503"), 2);
  EXPECT_EQ(value_of(families, "pacer_responses_by_code", "class", "2xx"), 6);
  EXPECT_EQ(value_of(families, "pacer_received_bytes"), 1234);
  EXPECT_EQ(value_of(families, "pacer_achieved_rate_per_second"), 4);
  EXPECT_EQ(value_of(families, "pacer_run_finished"), 1);
  EXPECT_EQ(value_of(families, "pacer_endpoint_errors", "endpoint", "bad?name"), 2);  // printable, as reports show it
  EXPECT_EQ(find(families, "pacer_ttfb_seconds")->histograms.at(0).count, 1u);
  EXPECT_EQ(find(families, "pacer_endpoint_latency_seconds")->histograms.at(0).count, 1u);
}

TEST(RunMetrics, EveryNameFollowsPrometheusConventions) {
  Config config = shard_config();
  config.scenario_path = "s.lua";
  RunMetrics metrics(config, constant_labels(config, "abc"));
  metrics.finish(report::RunReport{});
  for (const Family& f : metrics.families()) {
    EXPECT_TRUE(is_metric_name(f.name)) << f.name;
    EXPECT_EQ(f.name.rfind("pacer_", 0), 0u) << f.name;
    EXPECT_FALSE(f.help.empty()) << f.name;
    EXPECT_EQ(f.name.find("_total"), std::string::npos) << f.name;  // the counter's samples add it
    if (!f.unit.empty()) {
      EXPECT_EQ(f.name.substr(f.name.size() - f.unit.size()), f.unit) << f.name;
    }
    for (const Sample& s : f.samples) {
      for (const Label& l : s.labels) EXPECT_TRUE(is_label_name(l.name)) << l.name;
    }
  }
  EXPECT_GE(value_of(metrics.families(), "pacer_errors", "class", "check"), 0);  // a scenario's classes
}

}  // namespace
}  // namespace pacer::prom
