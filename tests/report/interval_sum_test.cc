// Summing short intervals into --interval ones (src/report/interval_sum.h).
#include "report/interval_sum.h"

#include <gtest/gtest.h>

#include <vector>

namespace pacer::report {
namespace {

TEST(IntervalsPerInterval, TheSmallestCountThatTilesTheIntervalExactly) {
  EXPECT_EQ(intervals_per_interval(kNsPerS, 100 * kNsPerMs), 10);
  EXPECT_EQ(intervals_per_interval(250 * kNsPerMs, 100 * kNsPerMs), 4);  // 3 does not divide 250 ms
  EXPECT_EQ(intervals_per_interval(kNsPerS, 300 * kNsPerMs), 4);
  EXPECT_EQ(intervals_per_interval(100 * kNsPerMs, kNsPerS), 1);  // refresh slower than the interval
  EXPECT_EQ(intervals_per_interval(7, 2), 7);                     // a prime number of ns: 1 ns pieces
  for (TimeNs interval : {kNsPerS, 250 * kNsPerMs, 1500 * kNsPerMs, 3 * kNsPerS + 7 * kNsPerUs}) {
    const std::int64_t n = intervals_per_interval(interval, 100 * kNsPerMs);
    EXPECT_EQ(interval % n, 0) << interval;
    EXPECT_LE(interval / n, 100 * kNsPerMs) << interval;
  }
}

// The live view's 100 ms engine intervals summed into 500 ms rows. A worker whose
// controller fell behind publishes one 200 ms interval (0.4 s to 0.6 s): its row
// ends with it, and the next row ends on the grid again (1.0 s),
// where counting five intervals a row put every later row off the grid (0.6 s, 1.1 s).
TEST(IntervalGrid, RowsCloseOnTheGridEvenAfterALongerInterval) {
  IntervalGrid grid(500 * kNsPerMs);
  std::vector<TimeNs> closed;
  for (TimeNs end : {100, 200, 300, 400, 600, 700, 800, 900, 1000, 1100, 1200, 1300, 1400, 1500}) {
    if (grid.closes(end * kNsPerMs)) closed.push_back(end);
  }
  EXPECT_EQ(closed, (std::vector<TimeNs>{600, 1000, 1500}));
}

TEST(IntervalGrid, IntervalsOfTheRowsLengthCloseEveryRow) {
  IntervalGrid grid(kNsPerS);
  EXPECT_TRUE(grid.closes(kNsPerS));
  EXPECT_TRUE(grid.closes(3 * kNsPerS));  // two seconds in one (the controller behind)
  EXPECT_FALSE(grid.closes(3 * kNsPerS + 500 * kNsPerMs));  // the run's end cuts one short: the caller closes it
  EXPECT_TRUE(grid.closes(4 * kNsPerS));
}

TEST(IntervalSum, CountsAddHistogramsMergeAndGaugesAreTheLast) {
  stats::Histogram h1 = stats::Histogram::for_latency_ns();
  stats::Histogram h2 = stats::Histogram::for_latency_ns();
  h1.record_n(1'000, 3);
  h2.record_n(9'000'000, 1);
  IntervalReport a;
  a.start_ns = 2 * kNsPerS;
  a.duration_ns = 500 * kNsPerMs;
  a.sent = 4;
  a.completed = 3;
  a.scheduled = 5;
  a.errors.timeout = 1;
  a.latency = &h1;
  a.target_rate_per_s = 1000.0;
  a.open_connections = 9;
  a.backlog = 2;
  a.schedule_lag_ns = 7;
  IntervalReport b = a;
  b.start_ns = a.start_ns + a.duration_ns;
  b.duration_ns = 1500 * kNsPerMs;
  b.latency = &h2;
  b.target_rate_per_s = 2000.0;
  b.open_connections = 10;
  b.backlog = 0;
  b.schedule_lag_ns = 0;

  IntervalSum sum;
  EXPECT_TRUE(sum.empty());
  sum.add(a);
  sum.add(b);
  const IntervalReport out = sum.sum(4);
  EXPECT_EQ(out.index, 4u);
  EXPECT_EQ(out.start_ns, 2 * kNsPerS);
  EXPECT_EQ(out.duration_ns, 2 * kNsPerS);
  EXPECT_EQ(out.sent, 8u);
  EXPECT_EQ(out.completed, 6u);
  EXPECT_EQ(out.scheduled, 10u);
  EXPECT_EQ(out.errors.timeout, 2u);
  ASSERT_NE(out.latency, nullptr);
  EXPECT_EQ(out.latency->total_count(), 4);
  EXPECT_EQ(out.latency->max(), h2.max());
  ASSERT_TRUE(out.target_rate_per_s);
  EXPECT_DOUBLE_EQ(*out.target_rate_per_s, 1750.0);  // (500 + 3000 arrivals) / 2 s
  EXPECT_EQ(out.open_connections, 10u);
  EXPECT_EQ(out.backlog, 0u);
  EXPECT_EQ(out.schedule_lag_ns, 0);

  sum.clear();
  EXPECT_TRUE(sum.empty());
  sum.add(b);
  EXPECT_EQ(sum.sum(5).latency->total_count(), 1);
  EXPECT_EQ(sum.sum(5).start_ns, b.start_ns);
}

TEST(IntervalSum, ClosedLoopSumsHaveNoTargetRate) {
  stats::Histogram h = stats::Histogram::for_latency_ns();
  IntervalReport a;
  a.duration_ns = kNsPerS;
  a.latency = &h;
  IntervalSum sum;
  sum.add(a);
  EXPECT_FALSE(sum.sum(0).target_rate_per_s);
}

}  // namespace
}  // namespace pacer::report
