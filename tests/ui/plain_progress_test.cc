// The plain progress line (src/ui/plain_progress.h).
#include "ui/plain_progress.h"

#include <gtest/gtest.h>

namespace pacer::ui {
namespace {

struct Fixture {
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  report::IntervalReport interval;
  RunInfo run;
  Fixture() {
    latency.record_n(150'000, 990);
    latency.record_n(4'000'000, 10);
    interval.index = 2;
    interval.start_ns = 2 * kNsPerS;
    interval.duration_ns = kNsPerS;
    interval.sent = 1001;
    interval.completed = 1000;
    interval.latency = &latency;
    interval.open_connections = 10;
    run.duration_ns = 10 * kNsPerS;
  }
};

TEST(PlainProgress, ClosedLoopLineGivesTimeRateLatencyErrorsAndConnections) {
  Fixture f;
  EXPECT_EQ(render_plain_line(f.interval, f.run, 3000),
            "[  3.0s / 10.0s] 1000.0 req/s, latency p50 150.01us p90 150.01us p99 150.01us max 4.00ms, "
            "errors 0, 10 connections open\n");
}

TEST(PlainProgress, OpenModelLineAddsTheScheduleAndErrorsAreListed) {
  Fixture f;
  f.run.warmup_ns = kNsPerS;
  f.interval.target_rate_per_s = 1200.0;
  f.interval.backlog = 3;
  f.interval.schedule_lag_ns = 2 * kNsPerMs;
  f.interval.errors.timeout = 2;
  f.interval.errors.status = 1;
  EXPECT_EQ(render_plain_line(f.interval, f.run, 3000),
            "[  4.0s / 11.0s] 1000.0 req/s (target 1200.0/s, sent 1001.0/s, lag 2.00ms, backlog 3), "
            "latency p50 150.01us p90 150.01us p99 150.01us max 4.00ms, errors 3 (timeout 2, status 1), "
            "10 connections open\n");
}

TEST(PlainProgress, LastLineWithTheDrainFoldedInNamesItAndRatesOverItsSpan) {
  // The second up to -d's end plus a 312 us drain: 1000 responses over 1.000312 s.
  Fixture f;
  f.interval.start_ns = 9 * kNsPerS;
  f.interval.duration_ns = kNsPerS + 312'000;
  f.interval.drain_ns = 312'000;
  EXPECT_EQ(render_plain_line(f.interval, f.run, 10000),
            "[ 10.0s / 10.0s] 999.7 req/s, latency p50 150.01us p90 150.01us p99 150.01us max 4.00ms, "
            "errors 0, 10 connections open (includes the 312.00us drain after the end)\n");
}

TEST(PlainProgress, AShardsLineSaysItIsTheShards) {
  Fixture f;
  f.run.shard_label = "shard 0/3";
  f.interval.target_rate_per_s = 1000.0;
  const std::string line = render_plain_line(f.interval, f.run, 3000);
  EXPECT_EQ(line.rfind("[  3.0s / 10.0s] shard 0/3: 1000.0 req/s (target 1000.0/s, sent 1001.0/s", 0), 0u) << line;
}

TEST(PlainProgress, RequestCountRunCountsResponsesAndAnEmptyIntervalHasNoLatency) {
  Fixture f;
  f.run.duration_ns = 0;
  f.run.request_count = 5000;
  f.latency.reset();
  f.interval.completed = 0;
  const std::string line = render_plain_line(f.interval, f.run, 3000);
  EXPECT_EQ(line.rfind("[  3.0s, 3000/5000 responses] 0.0 req/s, latency -, errors 0", 0), 0u) << line;
}

TEST(PlainProgress, TheOldestRequestInFlightShowsAStall) {
  Fixture f;
  f.run.interval_ns = kNsPerS;
  f.interval.in_flight = 10;
  f.interval.oldest_in_flight_ns = 1'250 * kNsPerMs;
  f.interval.in_flight_over_interval = 8;
  const std::string line = render_plain_line(f.interval, f.run, 3000);
  EXPECT_NE(line.find("max 4.00ms, in flight 10 (oldest 1.25s, 8 older than 1s), errors 0"), std::string::npos)
      << line;
  f.interval.in_flight_over_interval = 0;
  f.interval.oldest_in_flight_ns = 0;  // sent in the wake-up that closed the interval (issue 31: not "0.00us")
  EXPECT_NE(render_plain_line(f.interval, f.run, 3000).find(", in flight 10 (oldest <1us), errors 0"),
            std::string::npos);
  f.interval.oldest_in_flight_ns = 2 * kNsPerMs;
  EXPECT_NE(render_plain_line(f.interval, f.run, 3000).find(", in flight 10 (oldest 2.00ms), errors 0"),
            std::string::npos);
}

TEST(PlainProgress, AnOpenModelCappedByItsConnectionsSaysSoWithTheArithmetic) {
  Fixture f;
  f.run.connections = 10;
  f.interval.target_rate_per_s = 1000.0;
  f.interval.completed = 200;
  f.interval.service_ns_sum = 200 * 50 * kNsPerMs;
  f.interval.backlog = 800;
  f.interval.errors.unsent = 5;
  const std::string line = render_plain_line(f.interval, f.run, 3000);
  EXPECT_NE(line.find("errors 5 (unsent 5)"), std::string::npos) << line;
  EXPECT_NE(line.find("; bottleneck: 10 conns / 50.00ms ~ 200/s < target 1.00k/s: raise -c to ~50\n"),
            std::string::npos)
      << line;
}

TEST(PlainProgress, IsOneLineWithoutEscapesOrCarriageReturns) {
  Fixture f;
  const std::string line = render_plain_line(f.interval, f.run, 0);
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  EXPECT_EQ(line.find('\r'), std::string::npos);
  EXPECT_EQ(line.find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace pacer::ui
