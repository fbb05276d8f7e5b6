// Prometheus buckets filled from pacer's HdrHistograms (src/prom/buckets.h).
#include "prom/buckets.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace pacer::prom {
namespace {

TEST(Buckets, BoundsRunFrom1MicrosecondTo60SecondsWithinATenthOfAPercent) {
  const stats::Histogram layout = stats::Histogram::for_latency_ns();
  const std::vector<std::int64_t> bounds = exact_bounds_ns(layout);
  const auto nominal = nominal_bounds_ns();
  ASSERT_EQ(bounds.size(), nominal.size());
  EXPECT_EQ(bounds.front(), 1000);  // exact where HdrHistogram counts every nanosecond (below 2048)
  EXPECT_EQ(bounds[1], 2501);       // 2500 shares a 2 ns bucket with 2501
  EXPECT_EQ(nominal.back(), 60'000'000'000);
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    EXPECT_GE(bounds[i], nominal[i]);
    EXPECT_LE(static_cast<double>(bounds[i] - nominal[i]), static_cast<double>(nominal[i]) * 0.001) << i;
    // Each bound is the last value of its HdrHistogram bucket.
    EXPECT_EQ(layout.highest_equivalent(bounds[i]), bounds[i]);
    EXPECT_NE(layout.lowest_equivalent(bounds[i] + 1), layout.lowest_equivalent(bounds[i]));
    if (i > 0) {
      EXPECT_GT(bounds[i], bounds[i - 1]);
    }
  }
}

// What a Prometheus client library would count: value <= le, per bound.
std::vector<std::uint64_t> client_library_counts(const std::vector<std::int64_t>& values,
                                                 const std::vector<std::int64_t>& bounds) {
  std::vector<std::uint64_t> out;
  for (const std::int64_t bound : bounds) {
    out.push_back(static_cast<std::uint64_t>(std::count_if(values.begin(), values.end(),
                                                           [bound](std::int64_t v) { return v <= bound; })));
  }
  return out;
}

TEST(Buckets, EverySampleLandsWhereAClientLibraryWouldPutIt) {
  stats::Histogram histogram = stats::Histogram::for_latency_ns();
  const std::vector<std::int64_t> bounds = exact_bounds_ns(histogram);
  std::vector<std::int64_t> values;
  std::mt19937_64 random(29);
  std::uniform_real_distribution<double> log_ns(0.0, 12.5);  // 1 ns to ~3e12 ns (50 min)
  for (int i = 0; i < 20000; ++i) values.push_back(static_cast<std::int64_t>(std::pow(10.0, log_ns(random))));
  // The edges: each bound, one past it, and the nominal value itself.
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    values.push_back(bounds[i]);
    values.push_back(bounds[i] + 1);
    values.push_back(nominal_bounds_ns()[i]);
  }
  values.push_back(90'000'000'000);  // past 60 s: only +Inf
  for (const std::int64_t v : values) histogram.record(v);
  const HistogramSample filled = fill_histogram(histogram, bounds, {{"run_id", "x"}});
  EXPECT_EQ(filled.cumulative, client_library_counts(values, bounds));
  EXPECT_EQ(filled.count, values.size());
  ASSERT_EQ(filled.labels.size(), 1u);
  double true_sum_s = 0;
  for (const std::int64_t v : values) true_sum_s += static_cast<double>(v) / 1e9;
  EXPECT_NEAR(filled.sum, true_sum_s, true_sum_s * 0.001);  // midpoints: within the histogram's precision
}

TEST(Buckets, AnEmptyHistogramHasZeroBucketsAndNoSum) {
  const stats::Histogram histogram = stats::Histogram::for_latency_ns();
  const HistogramSample filled = fill_histogram(histogram, exact_bounds_ns(histogram), {});
  EXPECT_EQ(filled.count, 0u);
  EXPECT_EQ(filled.sum, 0.0);
  EXPECT_EQ(filled.cumulative, std::vector<std::uint64_t>(nominal_bounds_ns().size(), 0));
}

}  // namespace
}  // namespace pacer::prom
