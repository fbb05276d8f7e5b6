// Locust's rounding and number forms, as locust/stats.py (2.12) has them: response
// times kept to 2 significant digits (whole ms below 100), percentiles counted
// from the slowest down, the median from the fastest up, and floats printed as
// Python's repr prints them.
#include "report/locust_csv.h"

#include <gtest/gtest.h>

namespace pacer::report {
namespace {

constexpr std::int64_t kMs = 1'000'000;

TEST(LocustCsv, FloatsReadAsPythonsRepr) {
  EXPECT_EQ(python_float(150.0), "150.0");
  EXPECT_EQ(python_float(0.0), "0.0");
  EXPECT_EQ(python_float(0.734), "0.734");
  EXPECT_EQ(python_float(5.803711280897118), "5.803711280897118");
  EXPECT_EQ(python_float(1e-05), "1e-05");
  EXPECT_EQ(python_float(88.74168604732708), "88.74168604732708");
}

TEST(LocustCsv, ResponseTimesAreKeptAsLocustRoundsThem) {
  auto h = stats::Histogram::for_latency_ns();
  h.record(400'000);         // 0.4 ms -> 0
  h.record(600'000);         // 0.6 ms -> 1
  h.record(147 * kMs);       // -> 150
  h.record(3432 * kMs);      // -> 3400
  h.record(58760 * kMs);     // -> 59000
  const auto times = locust_response_times(h);
  const std::map<double, std::int64_t> expected{{0, 1}, {1, 1}, {150, 1}, {3400, 1}, {59000, 1}};
  EXPECT_EQ(times, expected);
}

TEST(LocustCsv, PercentilesCountFromTheSlowestAndTheMedianFromTheFastest) {
  const std::map<double, std::int64_t> times{{1, 50}, {2, 40}, {30, 9}, {400, 1}};
  // Locust 2.12's calculate_response_time_percentile gives 2, 30, 30, 400, 400 for these.
  EXPECT_EQ(locust_percentile(times, 100, 0.5), 2);
  EXPECT_EQ(locust_percentile(times, 100, 0.9), 30);
  EXPECT_EQ(locust_percentile(times, 100, 0.95), 30);
  EXPECT_EQ(locust_percentile(times, 100, 0.99), 400);
  EXPECT_EQ(locust_percentile(times, 100, 1.0), 400);
  EXPECT_EQ(locust_median(times, 100), 1);
  EXPECT_EQ(locust_median({{1, 1}, {2, 1}}, 2), 1) << "position (n - 1) / 2 = 0.5: still in the first";
  EXPECT_EQ(locust_median({{1, 1}, {2, 2}}, 3), 2);
}

}  // namespace
}  // namespace pacer::report
