// The JSON report: golden files from fixed RunReports. The end-to-end tests
// validate real runs against docs/report.schema.json.
#include "report/json.h"

#include <gtest/gtest.h>

#include "../support/golden.h"


#include <nlohmann/json.hpp>

namespace pacer::report {
namespace {

using pacer::testing::expect_matches_golden;

RunReport fixed_report() {
  RunReport r;
  r.url = "http://127.0.0.1:8080/";
  r.threads = 2;
  r.connections = 10;
  r.duration_ns = 10 * kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.start_unix_ns = 1'796'000'000'123'000'000;
  r.measured_ns = 10 * kNsPerS;
  r.counters.responses = 1000;
  r.counters.requests_sent = 1003;
  r.counters.bytes_read = 80'000;
  r.counters.connects = 10;
  r.counters.status_counts[200] = 990;
  r.counters.status_counts[503] = 10;
  r.counters.errors.status = 10;
  r.counters.errors.timeout = 3;
  r.latency.record_n(250'000, 997);
  r.latency.record_n(2'000'500'000, 3);
  r.latency_censored.record_n(2'000'500'000, 3);
  r.connect.record_n(120'000, 10);
  r.slo = {LatencyGate{LatencyGate::Statistic::kPercentile, 99.9, kNsPerS, false, "p99.9<1s"}};
  return r;
}

TEST(JsonReport, ClosedLoopRunMatchesGolden) {
  expect_matches_golden(render_json(fixed_report()), "report_closed.json");
}

TEST(JsonReport, OpenModelRunMatchesGolden) {
  RunReport r = fixed_report();
  r.load_model = LoadModel::kRamp;
  r.rate_per_s = 100;
  r.rate_end_per_s = 200;
  r.target_rate_per_s = 150;
  r.counters.scheduled = 1500;
  r.counters.peak_backlog = 4;
  r.service.record_n(200'000, 1000);
  r.queue_delay.record_n(50'000, 1000);
  expect_matches_golden(render_json(r), "report_ramp.json");
}

TEST(JsonReport, CarriesTheNumbersThatMatter) {
  const auto j = nlohmann::json::parse(render_json(fixed_report()));
  EXPECT_EQ(j["schema_version"], kJsonSchemaVersion);
  EXPECT_EQ(j["counts"]["responses"], 1000);
  EXPECT_EQ(j["counts"]["successes"], 990);
  EXPECT_EQ(j["status_codes"]["503"], 10);
  EXPECT_EQ(j["errors"]["timeout"], 3);
  EXPECT_DOUBLE_EQ(j["error_rate"].get<double>(), 13.0 / 1003.0);
  EXPECT_EQ(j["latency"]["censored_count"], 3);
  EXPECT_EQ(j["latency"]["lower_bound_percentiles"], nlohmann::json::array({"99.9", "99.99", "100"}));
  EXPECT_FALSE(j["gates"]["passed"]);
  EXPECT_TRUE(j["service_time"].is_null());
  EXPECT_TRUE(j["rates"]["target_per_s"].is_null());
  EXPECT_EQ(j["start_time"], "2026-11-30T00:53:20.123Z");  // date -u -d @1796000000
}

}  // namespace
// Arrivals due before the end of -d but sent in a long drain (a stall at the end)
// were sent: the sent rate covers the window the target covers, not the drain too.
TEST(JsonReport, ALongDrainDoesNotReadAsFallingBehind) {
  RunReport r = fixed_report();
  r.load_model = LoadModel::kConstant;
  r.rate_per_s = 100;
  r.target_rate_per_s = 100;
  r.counters.scheduled = 1000;
  r.counters.requests_sent = 1000;
  r.measured_ns = 12 * kNsPerS;  // -d 10s, then a 2 s drain
  const auto j = nlohmann::json::parse(render_json(r));
  EXPECT_DOUBLE_EQ(j["rates"]["sent_per_s"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(j["rates"]["sent_to_target"].get<double>(), 1.0);
  EXPECT_NEAR(j["rates"]["completed_per_s"].get<double>(), 1000.0 / 12, 1e-9);
}

}  // namespace pacer::report
