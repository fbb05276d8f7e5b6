// The report so far, summed from the intervals (src/web/partial_report.h).
#include "web/partial_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace pacer::web {
namespace {

report::IntervalReport interval(std::uint64_t index, const stats::Histogram& latency) {
  report::IntervalReport out;
  out.index = index;
  out.start_ns = static_cast<TimeNs>(index) * kNsPerS;
  out.duration_ns = kNsPerS;
  out.start_unix_ns = 1'700'000'000 * kNsPerS + out.start_ns;
  out.sent = 10;
  out.completed = 9;
  out.errors.timeout = 1;
  out.errors.status = 2;
  out.latency = &latency;
  return out;
}

TEST(PartialReport, SumsTheIntervalsOntoTheAskedForFields) {
  Config config;
  config.target.url = "http://127.0.0.1:1/";
  config.connections = 4;
  config.threads = 2;
  PartialReport so_far(config);
  EXPECT_EQ(so_far.report().url, "http://127.0.0.1:1/");
  EXPECT_EQ(so_far.report().threads, 2);
  stats::Histogram first = stats::Histogram::for_latency_ns();
  first.record(1000);
  stats::Histogram second = stats::Histogram::for_latency_ns();
  second.record(5000);
  second.record(7000);
  so_far.add(interval(0, first));
  so_far.add(interval(1, second));
  const report::RunReport& r = so_far.report();
  EXPECT_EQ(r.counters.requests_sent, 20u);
  EXPECT_EQ(r.counters.responses, 18u);
  EXPECT_EQ(r.counters.errors.timeout, 2u);
  EXPECT_EQ(r.counters.errors.status, 4u);
  EXPECT_EQ(r.latency.total_count(), 3u);
  EXPECT_EQ(r.measured_ns, 2 * kNsPerS);
  EXPECT_EQ(r.start_unix_ns, 1'700'000'000 * kNsPerS);
  EXPECT_FALSE(r.interrupted);
}

TEST(PartialReport, OpenModelTargetIsTheWindowsMeanRate) {
  Config config;
  config.load_model = LoadModel::kConstant;
  config.rate_per_s = 100;
  PartialReport so_far(config);
  stats::Histogram none = stats::Histogram::for_latency_ns();
  report::IntervalReport a = interval(0, none);
  a.target_rate_per_s = 100;
  report::IntervalReport b = interval(1, none);
  b.target_rate_per_s = 300;
  so_far.add(a);
  so_far.add(b);
  EXPECT_DOUBLE_EQ(so_far.report().target_rate_per_s, 200);
}

// Issue 31: a figure the intervals do not carry is null while the run goes, never 0.
TEST(PartialReport, FiguresNotYetKnownAreNullNotZero) {
  Config config;
  config.target.url = "http://127.0.0.1:1/";
  config.connections = 4;
  config.threads = 2;
  PartialReport so_far(config);
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  latency.record(1000);
  so_far.add(interval(0, latency));
  const auto j = nlohmann::json::parse(so_far.render_json());
  EXPECT_EQ(j["counts"]["responses"], 9);
  EXPECT_EQ(j["errors"]["timeout"], 1);
  for (const char* key : {"tls_handshakes", "tls_resumed"}) EXPECT_TRUE(j["counts"][key].is_null()) << key;
  for (const char* key : {"connect_time", "ttfb", "endpoints", "gates", "no_request_succeeded"}) {
    EXPECT_TRUE(j[key].is_null()) << key;
  }
}

// Issue 43 (13): the bytes, connects and status codes the intervals carry (and
// /metrics has live) are in the report so far, summed, not left out.
TEST(PartialReport, BytesConnectsAndStatusCodesAreTheIntervalsSums) {
  Config config;
  config.target.url = "http://127.0.0.1:1/";
  PartialReport so_far(config);
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  report::IntervalReport a = interval(0, latency);
  a.bytes_read = 1000;
  a.bytes_written = 400;
  a.connects = 4;
  a.status_counts[200] = 7;
  a.status_counts[503] = 2;
  report::IntervalReport b = interval(1, latency);
  b.bytes_read = 500;
  b.bytes_written = 200;
  b.connects = 1;
  b.status_counts[200] = 9;
  so_far.add(a);
  so_far.add(b);
  const auto j = nlohmann::json::parse(so_far.render_json());
  EXPECT_EQ(j["counts"]["bytes_read"], 1500);
  EXPECT_EQ(j["counts"]["bytes_written"], 600);
  EXPECT_EQ(j["counts"]["connects"], 5);
  EXPECT_EQ(j["status_codes"], nlohmann::json({{"200", 16}, {"503", 2}}));
  EXPECT_DOUBLE_EQ(j["rates"]["bytes_read_per_s"].get<double>(), 750);  // over the 2 s so far
}

}  // namespace
}  // namespace pacer::web
