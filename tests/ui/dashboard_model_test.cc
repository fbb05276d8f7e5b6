// The live view's model (src/ui/dashboard_model.h): what it accumulates from the
// engine's intervals and the --interval sums.
#include "ui/dashboard_model.h"

#include <gtest/gtest.h>

namespace pacer::ui {
namespace {

struct Interval {
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  report::IntervalReport report;
  Interval(std::uint64_t index, TimeNs duration_ns, std::uint64_t completed, std::int64_t latency_ns) {
    latency.record_n(latency_ns, static_cast<std::int64_t>(completed));
    report.index = index;
    report.start_ns = static_cast<TimeNs>(index) * duration_ns;
    report.duration_ns = duration_ns;
    report.completed = completed;
    report.sent = completed;
    report.latency = &latency;
    report.open_connections = 7;
  }
};

RunInfo ten_second_run() {
  RunInfo run;
  run.duration_ns = 10 * kNsPerS;
  run.warmup_ns = kNsPerS;
  return run;
}

TEST(DashboardModel, RefreshesAddUpTotalsAndTheRunWideLatency) {
  DashboardModel model(ten_second_run());
  Interval a(0, 100 * kNsPerMs, 100, 1'000'000);
  Interval b(1, 100 * kNsPerMs, 300, 9'000'000);
  b.report.errors.timeout = 2;
  model.on_refresh(a.report);
  model.on_refresh(b.report);
  const DashboardSnapshot s = model.snapshot();
  EXPECT_EQ(s.completed, 400u);
  EXPECT_EQ(s.measured_ns, 200 * kNsPerMs);
  EXPECT_EQ(s.elapsed_ns, kNsPerS + 200 * kNsPerMs);  // the warm-up comes first
  EXPECT_DOUBLE_EQ(s.average_rate_per_s, 2000.0);
  EXPECT_EQ(s.errors.timeout, 2u);
  EXPECT_EQ(s.run_latency.count, 400);
  EXPECT_EQ(s.run_latency.max_ns, b.latency.max());
  EXPECT_EQ(s.run_latency.p50_ns, b.latency.value_at_percentile(50));
  EXPECT_EQ(s.open_connections, 7u);
  EXPECT_FALSE(s.has_interval);  // no --interval has closed yet
}

TEST(DashboardModel, AnIntervalSetsTheLastFiguresAndAHistoryPoint) {
  DashboardModel model(ten_second_run());
  Interval a(0, kNsPerS, 500, 2'000'000);
  a.report.target_rate_per_s = 600.0;
  a.report.sent = 550;
  model.on_interval(a.report);
  const DashboardSnapshot s = model.snapshot();
  ASSERT_TRUE(s.has_interval);
  EXPECT_DOUBLE_EQ(s.current_rate_per_s, 500.0);
  EXPECT_EQ(s.target_rate_per_s, 600.0);
  EXPECT_EQ(s.sent_rate_per_s, 550.0);
  EXPECT_EQ(s.last.p99_ns, a.latency.value_at_percentile(99));
  ASSERT_EQ(s.history.size(), 1u);
  EXPECT_EQ(s.history[0].completed, 500u);
  EXPECT_EQ(s.history[0].p99_ns, s.last.p99_ns);
}

TEST(DashboardModel, TicksMoveTheClockButNeverBack) {
  DashboardModel model(ten_second_run());
  model.on_tick(500 * kNsPerMs);
  EXPECT_EQ(model.snapshot().elapsed_ns, 500 * kNsPerMs);
  model.on_tick(400 * kNsPerMs);
  EXPECT_EQ(model.snapshot().elapsed_ns, 500 * kNsPerMs);
}

TEST(DashboardModel, ALongRunKeepsABoundedHistoryThatStillAddsUp) {
  DashboardModel model(ten_second_run());
  std::uint64_t completed = 0;
  for (std::uint64_t i = 0; i < 5000; ++i) {
    Interval in(i, kNsPerS, 10 + i % 7, i == 1234 ? 50'000'000 : 1'000'000);
    completed += in.report.completed;
    model.on_interval(in.report);
  }
  const DashboardSnapshot s = model.snapshot();
  EXPECT_LE(s.history.size(), DashboardModel::kMaxHistory);
  EXPECT_GE(s.history.size(), DashboardModel::kMaxHistory / 2);
  std::uint64_t sum = 0;
  TimeNs ns = 0;
  std::int64_t worst = 0;
  for (const HistoryPoint& p : s.history) {
    sum += p.completed;
    ns += p.duration_ns;
    worst = std::max(worst, p.p99_ns);
  }
  EXPECT_EQ(sum, completed);
  EXPECT_EQ(ns, 5000 * kNsPerS);
  EXPECT_GE(worst, 49'000'000);  // the one bad second is not averaged away
}

TEST(DashboardModel, TheRequestsInFlightAreTheLastRefreshsGauges) {
  DashboardModel model(ten_second_run());
  Interval a(0, 100 * kNsPerMs, 100, 1'000'000);
  a.report.in_flight = 10;
  a.report.oldest_in_flight_ns = 3 * kNsPerMs;
  Interval b(1, 100 * kNsPerMs, 2, 1'000'000);  // a stall: 2 fast responses, the rest stuck
  b.report.in_flight = 9;
  b.report.oldest_in_flight_ns = 1'200 * kNsPerMs;
  b.report.in_flight_over_interval = 9;
  model.on_refresh(a.report);
  model.on_refresh(b.report);
  const DashboardSnapshot s = model.snapshot();
  EXPECT_EQ(s.in_flight, 9u);
  EXPECT_EQ(s.oldest_in_flight_ns, 1'200 * kNsPerMs);
  EXPECT_EQ(s.in_flight_over_interval, 9u);
}

TEST(DashboardModel, AStallIsAPeakInTheHistoryNotADip) {
  DashboardModel model(ten_second_run());
  Interval calm(0, kNsPerS, 1000, 2'000'000);
  calm.report.oldest_in_flight_ns = 1'500'000;
  Interval stall(1, kNsPerS, 3, 30'000);  // the few that complete in a freeze are fast
  stall.report.oldest_in_flight_ns = 900 * kNsPerMs;
  model.on_interval(calm.report);
  model.on_interval(stall.report);
  const DashboardSnapshot s = model.snapshot();
  ASSERT_EQ(s.history.size(), 2u);
  EXPECT_EQ(s.history[1].oldest_in_flight_ns, 900 * kNsPerMs);
  EXPECT_LT(s.history[1].p99_ns, s.history[0].p99_ns);  // p99 alone dips...
  EXPECT_EQ(model.snapshot().last.p99_ns, stall.latency.value_at_percentile(99));
}

TEST(DashboardModel, CompactedHistoryKeepsTheOldestRequestInFlight) {
  DashboardModel model(ten_second_run());
  for (std::uint64_t i = 0; i < DashboardModel::kMaxHistory + 1; ++i) {
    Interval in(i, kNsPerS, 10, 1'000'000);
    in.report.oldest_in_flight_ns = i == 7 ? 3 * kNsPerS : kNsPerMs;
    model.on_interval(in.report);
  }
  TimeNs oldest = 0;
  for (const HistoryPoint& p : model.snapshot().history) oldest = std::max(oldest, p.oldest_in_flight_ns);
  EXPECT_EQ(oldest, 3 * kNsPerS);
}

TEST(DashboardModel, TheBottleneckIsTheLastIntervalsAndGoesAwayWithIt) {
  RunInfo run = ten_second_run();
  run.open_model = true;
  run.connections = 10;
  DashboardModel model(run);
  Interval behind(0, kNsPerS, 200, 1'000'000);
  behind.report.target_rate_per_s = 1000.0;
  behind.report.service_ns_sum = 200 * 50 * kNsPerMs;
  behind.report.backlog = 800;
  model.on_interval(behind.report);
  ASSERT_TRUE(model.snapshot().bottleneck);
  EXPECT_EQ(model.snapshot().bottleneck->connections_needed, 50u);
  Interval caught_up = behind;
  caught_up.report.backlog = 0;
  model.on_interval(caught_up.report);
  EXPECT_FALSE(model.snapshot().bottleneck);
}

TEST(ErrorList, NamesOnlyTheClassesThatHappened) {
  stats::ErrorCounts e;
  EXPECT_EQ(error_list(e), "");
  e.connect = 1;
  e.status = 5;
  EXPECT_EQ(error_list(e), "connect 1, status 5");
  e.unsent = 7;
  e.goaway = 2;
  EXPECT_EQ(error_list(e), "connect 1, unsent 7, goaway 2, status 5");
}

}  // namespace
}  // namespace pacer::ui
