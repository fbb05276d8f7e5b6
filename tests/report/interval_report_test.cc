// The --timeseries NDJSON line: golden files from fixed intervals.
#include "report/interval_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/golden.h"
#include "stats/hdr_codec.h"

namespace pacer::report {
namespace {

using pacer::testing::expect_matches_golden;

struct Fixture {
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  IntervalReport interval;
  Fixture() {
    latency.record_n(150'000, 990);
    latency.record_n(4'000'000, 10);
    interval.index = 3;
    interval.start_ns = 3 * kNsPerS;
    interval.start_unix_ns = 1'796'134'801'123'456'789;  // 2026-12-01T14:20:01.123456789Z
    interval.duration_ns = kNsPerS;
    interval.sent = 1001;
    interval.completed = 1000;
    interval.target_rate_per_s = 1000.0;
    interval.errors.timeout = 1;
    interval.latency = &latency;
    interval.open_connections = 10;
    interval.backlog = 2;
    interval.schedule_lag_ns = 1'500'000;
    interval.in_flight = 12;
    interval.oldest_in_flight_ns = 1'250'000'000;
    interval.in_flight_over_interval = 3;
    interval.errors.unsent = 4;
  }
};

TEST(IntervalNdjson, OpenModelLineMatchesGolden) {
  Fixture f;
  expect_matches_golden(render_interval_ndjson(f.interval, false), "interval_open.ndjson");
}

TEST(IntervalNdjson, ClosedLoopLineWithHistogramMatchesGolden) {
  Fixture f;
  f.interval.target_rate_per_s.reset();
  expect_matches_golden(render_interval_ndjson(f.interval, true), "interval_closed_histogram.ndjson");
}

TEST(IntervalNdjson, CarriesTheWallClockAtItsStartInRfc3339Utc) {
  Fixture f;
  const auto j = nlohmann::json::parse(render_interval_ndjson(f.interval, false));
  EXPECT_EQ(j["start_time"], "2026-12-01T14:20:01.123456Z");
  EXPECT_EQ(j["start_s"], 3.0);
  f.interval.start_unix_ns = 0;
  EXPECT_EQ(nlohmann::json::parse(render_interval_ndjson(f.interval, false))["start_time"],
            "1970-01-01T00:00:00.000000Z");
}

TEST(IntervalNdjson, TheDrainsRecordIsMarkedAndOnlyIt) {
  // The 0.3 ms after -d's end: its own record (issue 31), marked, rates over it.
  Fixture f;
  EXPECT_EQ(nlohmann::json::parse(render_interval_ndjson(f.interval, false))["drain"], false);
  f.interval.duration_ns = 300'000;
  f.interval.drain_ns = 300'000;
  f.interval.completed = 12;
  f.interval.target_rate_per_s.reset();
  const auto j = nlohmann::json::parse(render_interval_ndjson(f.interval, false));
  EXPECT_EQ(j["drain"], true);
  EXPECT_DOUBLE_EQ(j["drain_s"].get<double>(), 0.0003);
  EXPECT_TRUE(j["target_rate_per_s"].is_null());
  EXPECT_NEAR(j["achieved_rate_per_s"].get<double>(), 12 / 0.0003, 1e-6);
  // Folded in (the engine could not cut at the end): part of the record only.
  f.interval.duration_ns = kNsPerS + 300'000;
  EXPECT_EQ(nlohmann::json::parse(render_interval_ndjson(f.interval, false))["drain"], false);
}

TEST(IntervalNdjson, IsOneLineWhoseHistogramDecodesToTheInterval) {
  Fixture f;
  f.interval.target_rate_per_s.reset();
  const std::string line = render_interval_ndjson(f.interval, true);
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  const auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["achieved_rate_per_s"], 1000.0);
  EXPECT_EQ(j["latency_ns"]["count"], 1000);
  EXPECT_EQ(j["open_connections"], 10);
  EXPECT_TRUE(j["backlog"].is_null());  // closed loop: no backlog, no schedule
  EXPECT_TRUE(j["schedule_lag_ns"].is_null());
  // The requests in flight are there in the closed loop too: a stall shows in them.
  EXPECT_EQ(j["in_flight"], 12);
  EXPECT_EQ(j["oldest_in_flight_ns"], 1'250'000'000);
  EXPECT_EQ(j["in_flight_over_interval"], 3);
  EXPECT_EQ(j["errors"]["unsent"], 4);
  auto decoded = stats::decode_v2_base64(j["histogram"].get<std::string>());
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  EXPECT_EQ(decoded->total_count(), 1000);
  EXPECT_EQ(decoded->value_at_percentile(50), f.latency.value_at_percentile(50));
  // V2 keeps no exact max: the decoded top is its bucket's highest equivalent value.
  EXPECT_EQ(decoded->value_at_percentile(99.5), f.latency.highest_equivalent(f.latency.value_at_percentile(99.5)));
}

// A scenario's check and script errors follow the request errors in the line's
// errors object; a run without a scenario has neither key.
TEST(IntervalNdjson, AScenarioIntervalCarriesItsCheckAndScriptErrors) {
  Fixture f;
  const auto plain = nlohmann::json::parse(render_interval_ndjson(f.interval, false));
  EXPECT_FALSE(plain["errors"].contains("check"));
  EXPECT_FALSE(plain["errors"].contains("script"));
  f.interval.scenario_errors = stats::ScenarioErrorCounts{7, 2};
  const auto j = nlohmann::json::parse(render_interval_ndjson(f.interval, false));
  EXPECT_EQ(j["errors"]["check"], 7);
  EXPECT_EQ(j["errors"]["script"], 2);
  EXPECT_EQ(j["errors"]["timeout"], 1);
}

}  // namespace
}  // namespace pacer::report
