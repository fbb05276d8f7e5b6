// Unit tests for stats::Histogram: layout compatibility with HdrHistogram_c
// (checked against an independent, naive re-derivation of its formulas), accuracy
// against a sort-based oracle, and the censored-percentile reading. Single-threaded;
// random inputs use fixed seeds so every run sees the same values.
#include "stats/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace pacer::stats {
namespace {

constexpr std::int64_t kHourNs = 3'600'000'000'000;

// ---- Independent reference for HdrHistogram's layout ---------------------------

struct RefLayout {
  int unit_magnitude;
  int sub_bucket_count_magnitude;  // log2(sub_bucket_count)
  std::int64_t sub_bucket_count;
  std::int64_t half;
  int bucket_count;
  int counts_len;
};

// hdr_calculate_bucket_config, written the way HdrHistogram_c does it (floating log).
RefLayout ref_layout(std::int64_t lowest, std::int64_t highest, int sig) {
  RefLayout l{};
  const double single_unit = 2.0 * std::pow(10.0, sig);
  l.sub_bucket_count_magnitude = static_cast<int>(std::ceil(std::log(single_unit) / std::log(2.0)));
  l.unit_magnitude = static_cast<int>(std::log(static_cast<double>(lowest)) / std::log(2.0));
  l.sub_bucket_count = std::int64_t{1} << l.sub_bucket_count_magnitude;
  l.half = l.sub_bucket_count / 2;
  std::int64_t smallest_untrackable = l.sub_bucket_count << l.unit_magnitude;
  l.bucket_count = 1;
  while (smallest_untrackable <= highest) {
    if (smallest_untrackable > INT64_MAX / 2) {
      ++l.bucket_count;
      break;
    }
    smallest_untrackable <<= 1;
    ++l.bucket_count;
  }
  l.counts_len = static_cast<int>((l.bucket_count + 1) * l.half);
  return l;
}

// Where a value lands, derived from the layout description rather than the mask
// trick: the first sub_bucket_count units sit in bucket 0 one unit apart; after
// that, bucket b covers [half << b, count << b) units in steps of 2^b units.
std::int64_t ref_index(const RefLayout& l, std::int64_t value) {
  const std::int64_t units = value >> l.unit_magnitude;
  if (units < l.sub_bucket_count) return units;
  const int top_bit = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(units))) - 1;
  const int bucket = top_bit - l.sub_bucket_count_magnitude + 1;
  const std::int64_t sub = units >> bucket;  // in [half, sub_bucket_count)
  return (bucket + 1) * l.half + (sub - l.half);
}

std::int64_t ref_lowest_equivalent(const RefLayout& l, std::int64_t value) {
  const std::int64_t units = value >> l.unit_magnitude;
  if (units < l.sub_bucket_count) return units << l.unit_magnitude;
  const int top_bit = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(units))) - 1;
  const int bucket = top_bit - l.sub_bucket_count_magnitude + 1;
  return (units >> bucket) << (bucket + l.unit_magnitude);
}

// The adversarial values: bucket 0 edges, powers of two and their neighbours up to
// 2^41 (the last power of two under 1 h in ns), the top of the range and beyond.
std::vector<std::int64_t> adversarial_values() {
  std::vector<std::int64_t> v = {0, 1, 2, 1023, 1024, 1025, 2047, 2048, 2049, 2050, 4095, 4096, 4097};
  for (int k = 2; k <= 41; ++k) {
    const std::int64_t p = std::int64_t{1} << k;
    v.insert(v.end(), {p - 1, p, p + 1});
  }
  v.insert(v.end(), {kHourNs - 1, kHourNs});
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// ---- Sort-based oracle ----------------------------------------------------------

// Percentiles in hundredths of a percent so that oracle ranks are exact integers.
const std::vector<std::int64_t> kPercentileHundredths = {0, 100, 1000, 2500, 5000, 7500, 9000, 9900, 9990, 9999, 10000};

std::int64_t oracle_at(const std::vector<std::int64_t>& sorted, std::int64_t hundredths) {
  const auto n = static_cast<std::int64_t>(sorted.size());
  const std::int64_t rank = std::max<std::int64_t>(1, (hundredths * n + 9999) / 10000);
  return sorted[static_cast<std::size_t>(rank - 1)];
}

double oracle_mean(const std::vector<std::int64_t>& values) {
  long double sum = 0;
  for (const std::int64_t v : values) sum += static_cast<long double>(v);
  return static_cast<double>(sum / static_cast<long double>(values.size()));
}

double oracle_stdev(const std::vector<std::int64_t>& values) {
  const long double mu = oracle_mean(values);
  long double sum = 0;
  for (const std::int64_t v : values) sum += (static_cast<long double>(v) - mu) * (static_cast<long double>(v) - mu);
  return static_cast<double>(std::sqrt(sum / static_cast<long double>(values.size())));
}

struct Distribution {
  std::string name;
  std::function<std::int64_t(std::mt19937_64&)> draw;
};

std::vector<Distribution> distributions() {
  return {
      {"uniform 0..1h",
       [](std::mt19937_64& rng) { return std::uniform_int_distribution<std::int64_t>(0, kHourNs)(rng); }},
      {"uniform 0..1e6",
       [](std::mt19937_64& rng) { return std::uniform_int_distribution<std::int64_t>(0, 1'000'000)(rng); }},
      {"log-uniform 1ns..1h",
       [](std::mt19937_64& rng) {
         const double e = std::uniform_real_distribution<double>(0.0, std::log(static_cast<double>(kHourNs)))(rng);
         return std::clamp<std::int64_t>(std::llround(std::exp(e)), 1, kHourNs);
       }},
      {"exponential mean 1ms",
       [](std::mt19937_64& rng) {
         return std::min<std::int64_t>(std::llround(std::exponential_distribution<double>(1e-6)(rng)), kHourNs);
       }},
      {"few distinct",
       [](std::mt19937_64& rng) {
         static constexpr std::int64_t kValues[] = {3, 1500, 2049, 1'000'007, 3'000'000'001};
         return kValues[std::uniform_int_distribution<int>(0, 4)(rng)];
       }},
      {"all equal", [](std::mt19937_64&) { return std::int64_t{4'242'424}; }},
  };
}

// ---- Layout ---------------------------------------------------------------------

TEST(Histogram, LatencyLayoutHasHdrHistogramCountsLen) {
  // sub_bucket_count = 2^ceil(log2(2000)) = 2048, unit 1 ns. The smallest power of
  // two above 3.6e12 is 2^42, so buckets cover 2^11 .. 2^42: 42 - 11 + 1 = 32
  // buckets, and counts_len = (32 + 1) * 1024 = 33792.
  const Histogram h = Histogram::for_latency_ns();
  EXPECT_EQ(h.lowest_discernible(), 1);
  EXPECT_EQ(h.highest_trackable(), kHourNs);
  EXPECT_EQ(h.significant_figures(), 3);
  EXPECT_EQ(ref_layout(1, kHourNs, 3).bucket_count, 32);
  EXPECT_EQ(h.counts_len(), 33792);
}

TEST(Histogram, CountsLenMatchesHdrHistogramForOtherLayouts) {
  struct Params {
    std::int64_t lowest, highest;
    int sig;
  };
  const Params cases[] = {{1, 2, 1},         {1, 1000, 1},     {1, 3600, 2},          {1000, 1'000'000'000, 2},
                          {7, 1 << 20, 4},   {1, INT64_MAX, 3}, {1, INT64_MAX, 5},     {1024, INT64_MAX / 3, 3},
                          {1, 2047, 3},      {1, 2048, 3},     {3, 1'000'000, 5},     {1'000'000, 2'000'000, 1}};
  for (const Params& p : cases) {
    const Histogram h(p.lowest, p.highest, p.sig);
    EXPECT_EQ(h.counts_len(), ref_layout(p.lowest, p.highest, p.sig).counts_len)
        << p.lowest << ".." << p.highest << " sig " << p.sig;
  }
}

TEST(Histogram, IndexOfMatchesHdrHistogramLayoutForAdversarialValues) {
  const Histogram h = Histogram::for_latency_ns();
  const RefLayout l = ref_layout(1, kHourNs, 3);
  for (const std::int64_t v : adversarial_values()) {
    EXPECT_EQ(h.index_of(v), ref_index(l, v)) << v;
    EXPECT_EQ(h.lowest_equivalent(v), ref_lowest_equivalent(l, v)) << v;
    EXPECT_EQ(h.value_at_index(h.index_of(v)), h.lowest_equivalent(v)) << v;
  }
  // A few spelled out: bucket 0 is one value per index, bucket b starts at index
  // (b + 1) * 1024 and holds values 2^b apart.
  EXPECT_EQ(h.index_of(2047), 2047);
  EXPECT_EQ(h.index_of(2048), 2048);
  EXPECT_EQ(h.index_of(2049), 2048);
  EXPECT_EQ(h.index_of(4096), 3072);
  EXPECT_EQ(h.index_of(std::int64_t{1} << 41), 32 * 1024);
  EXPECT_EQ(h.index_of(kHourNs), 32 * 1024 + static_cast<int>((kHourNs >> 31) - 1024));
  EXPECT_LT(h.index_of(kHourNs), h.counts_len());
  EXPECT_EQ(h.size_of_equivalent_range((std::int64_t{1} << 41) + 1), std::int64_t{1} << 31);
}

TEST(Histogram, IndexOfMatchesHdrHistogramLayoutForRandomValuesInOtherLayouts) {
  std::mt19937_64 rng(0x5eed'1234);
  const std::int64_t highest_values[] = {1'000'000'000, INT64_MAX / 5};
  for (const std::int64_t lowest : {1, 2, 1000, 4096}) {
    for (const std::int64_t highest : highest_values) {
      for (int sig = 1; sig <= 5; ++sig) {
        const Histogram h(lowest, highest, sig);
        const RefLayout l = ref_layout(lowest, highest, sig);
        for (int i = 0; i < 2000; ++i) {
          const double e = std::uniform_real_distribution<double>(0.0, std::log(static_cast<double>(highest)))(rng);
          const std::int64_t v = std::min(static_cast<std::int64_t>(std::exp(e)), highest);
          ASSERT_EQ(h.index_of(v), ref_index(l, v)) << v << " in " << lowest << ".." << highest << " sig " << sig;
          ASSERT_EQ(h.lowest_equivalent(v), ref_lowest_equivalent(l, v)) << v;
        }
      }
    }
  }
}

TEST(Histogram, EveryIndexRoundTripsAndBucketsTileTheRangeWithinThreeDigits) {
  const Histogram h = Histogram::for_latency_ns();
  std::int64_t expected_lo = 0;
  for (int i = 0; i < h.counts_len(); ++i) {
    const std::int64_t lo = h.value_at_index(i);
    ASSERT_EQ(lo, expected_lo) << "index " << i;
    if (lo <= h.highest_trackable()) {
      ASSERT_EQ(h.index_of(lo), i);
    }
    const std::int64_t hi = h.highest_equivalent(lo);
    ASSERT_EQ(h.index_of(std::min(hi, h.highest_trackable())), std::min(i, h.index_of(h.highest_trackable())));
    ASSERT_EQ(h.size_of_equivalent_range(lo), hi - lo + 1);
    ASSERT_EQ(h.median_equivalent(lo), lo + (hi - lo + 1) / 2);
    // Three significant digits: a bucket is at most 1/1024 of its lowest value wide.
    ASSERT_LE(h.size_of_equivalent_range(lo), std::max<std::int64_t>(1, lo / 1024)) << "index " << i;
    expected_lo = hi + 1;
  }
  EXPECT_GT(expected_lo, h.highest_trackable());
}

TEST(Histogram, EquivalenceHelpersDoNotOverflowAtInt64Max) {
  const Histogram h(1, INT64_MAX, 3);
  EXPECT_EQ(h.highest_equivalent(INT64_MAX), INT64_MAX);
  EXPECT_EQ(h.lowest_equivalent(INT64_MAX), std::int64_t{2047} << 52);
  EXPECT_LT(h.index_of(INT64_MAX), h.counts_len());
}

// ---- Recording ------------------------------------------------------------------

TEST(Histogram, AdversarialValuesAreRecordedExactlyWhereTheyBelong) {
  Histogram h = Histogram::for_latency_ns();
  const std::vector<std::int64_t> values = adversarial_values();
  for (const std::int64_t v : values) h.record(v);
  h.record(-5);                       // recorded as 0
  h.record(kHourNs + 1);              // clamped
  h.record(INT64_MAX);                // clamped
  h.record_n(INT64_MIN, 2);           // recorded as 0, twice
  EXPECT_EQ(h.total_count(), static_cast<std::int64_t>(values.size()) + 5);
  EXPECT_EQ(h.clamped_count(), 2);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), kHourNs);
  EXPECT_EQ(h.count_at_index(h.index_of(0)), 4);
  EXPECT_EQ(h.count_at_index(h.index_of(kHourNs)), 4);  // kHourNs - 1 shares its bucket
  EXPECT_EQ(h.count_at_index(h.index_of(2049)), 2);     // 2048 and 2049
  EXPECT_EQ(h.value_at_percentile(100), kHourNs);

  for (const std::int64_t v : values) {
    Histogram one = Histogram::for_latency_ns();
    one.record(v);
    EXPECT_EQ(one.min(), v);
    EXPECT_EQ(one.max(), v);
    EXPECT_EQ(one.value_at_percentile(50), v);  // capped at max(), so exact
    EXPECT_EQ(one.count_at_index(static_cast<int>(ref_index(ref_layout(1, kHourNs, 3), v))), 1) << v;
  }
}

TEST(Histogram, RecordNAddsCountCopiesAndIgnoresNonPositiveCounts) {
  Histogram h = Histogram::for_latency_ns();
  h.record_n(5000, 7);
  h.record_n(9, 0);
  h.record_n(9, -3);
  h.record_n(kHourNs * 2, 3);
  EXPECT_EQ(h.total_count(), 10);
  EXPECT_EQ(h.clamped_count(), 3);
  EXPECT_EQ(h.count_at_index(h.index_of(5000)), 7);
  EXPECT_EQ(h.count_at_index(h.index_of(9)), 0);
  EXPECT_EQ(h.min(), 5000);
  EXPECT_EQ(h.max(), kHourNs);
}

TEST(Histogram, MinAndMaxAreExactRecordedValuesNotBucketBounds) {
  Histogram h = Histogram::for_latency_ns();
  h.record(1'000'003);
  h.record(2'000'001);
  h.record(1'500'000);
  EXPECT_NE(h.lowest_equivalent(1'000'003), 1'000'003);  // a bound would differ
  EXPECT_NE(h.highest_equivalent(2'000'001), 2'000'001);
  EXPECT_EQ(h.min(), 1'000'003);
  EXPECT_EQ(h.max(), 2'000'001);
  EXPECT_EQ(h.value_at_percentile(0), 1'000'003);
  EXPECT_EQ(h.value_at_percentile(100), 2'000'001);
}

TEST(Histogram, EmptyHistogramReportsZeros) {
  const Histogram h = Histogram::for_latency_ns();
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.stdev(), 0.0);
  EXPECT_EQ(h.value_at_percentile(0), 0);
  EXPECT_EQ(h.value_at_percentile(50), 0);
  EXPECT_EQ(h.value_at_percentile(100), 0);
  EXPECT_EQ(h.fraction_within(0, 1e18), 0.0);
  EXPECT_EQ(h.count_at_or_below(kHourNs), 0);
}

TEST(Histogram, ResetEmptiesTheHistogram) {
  Histogram h = Histogram::for_latency_ns();
  for (const std::int64_t v : adversarial_values()) h.record(v);
  h.record(kHourNs + 1);
  h.reset();
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.clamped_count(), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  for (int i = 0; i < h.counts_len(); ++i) ASSERT_EQ(h.count_at_index(i), 0) << i;
  h.record(777);
  EXPECT_EQ(h.min(), 777);
  EXPECT_EQ(h.max(), 777);
}

// ---- Percentiles ----------------------------------------------------------------

TEST(Histogram, PercentilesMatchSortedOracleWithinEquivalentRange) {
  for (const Distribution& d : distributions()) {
    for (const std::size_t n : {std::size_t{100'000}, std::size_t{100'003}, std::size_t{7}}) {
      std::mt19937_64 rng(0xC0FFEE + n);
      Histogram h = Histogram::for_latency_ns();
      std::vector<std::int64_t> values(n);
      for (std::int64_t& v : values) {
        v = d.draw(rng);
        h.record(v);
      }
      std::sort(values.begin(), values.end());
      for (const std::int64_t hundredths : kPercentileHundredths) {
        const double p = static_cast<double>(hundredths) / 100.0;
        const std::int64_t want = oracle_at(values, hundredths);
        const std::int64_t got = h.value_at_percentile(p);
        SCOPED_TRACE(d.name + " n=" + std::to_string(n) + " p=" + std::to_string(p));
        // HdrHistogram reports the top of the oracle's bucket, capped at max().
        EXPECT_GE(got, want);
        EXPECT_LE(got, h.highest_equivalent(want));
        EXPECT_LE(got - want, h.size_of_equivalent_range(want));
        EXPECT_LE(static_cast<double>(got - want), 1e-3 * static_cast<double>(want));
      }
      EXPECT_EQ(h.min(), values.front());
      EXPECT_EQ(h.max(), values.back());
    }
  }
}

TEST(Histogram, PercentileRankIsCeilingOfShareOfTotalWithoutFloatingDrift) {
  Histogram h = Histogram::for_latency_ns();
  for (std::int64_t v = 1; v <= 1000; ++v) h.record(v);  // exact buckets below 2048
  for (int k = 1; k <= 1000; ++k) {
    ASSERT_EQ(h.value_at_percentile(k / 10.0), k) << "p=" << k / 10.0;
  }
  EXPECT_EQ(h.value_at_percentile(0.05), 1);  // ceil(0.5) = 1
  EXPECT_EQ(h.value_at_percentile(99.95), 1000);
  EXPECT_EQ(h.value_at_percentile(99.85), 999);  // ceil(998.5): rounding would say 998 or 999

  Histogram three = Histogram::for_latency_ns();
  for (const std::int64_t v : {10, 20, 30}) three.record(v);
  EXPECT_EQ(three.value_at_percentile(34), 20);  // ceil(1.02) = 2; rounding to nearest would give 10
  EXPECT_EQ(three.value_at_percentile(66), 20);
  EXPECT_EQ(three.value_at_percentile(67), 30);
}

TEST(Histogram, PercentileOutsideZeroToHundredIsClamped) {
  Histogram h = Histogram::for_latency_ns();
  for (const std::int64_t v : {5, 6, 7, 8}) h.record(v);
  EXPECT_EQ(h.value_at_percentile(-10), 5);
  EXPECT_EQ(h.value_at_percentile(250), 8);
  EXPECT_EQ(h.value_at_percentile(std::nan("")), 5);
  EXPECT_EQ(h.value_at_percentile(1e300), 8);
  EXPECT_EQ(h.value_at_percentile(-1e300), 5);
}

// ---- Mean, stdev ----------------------------------------------------------------

TEST(Histogram, MeanAndStdevMatchOracleWithinOnePerMille) {
  for (const Distribution& d : distributions()) {
    std::mt19937_64 rng(0xBADC0DE);
    Histogram h = Histogram::for_latency_ns();
    std::vector<std::int64_t> values(50'000);
    for (std::int64_t& v : values) {
      v = d.draw(rng);
      h.record(v);
    }
    const double mean = oracle_mean(values);
    const double stdev = oracle_stdev(values);
    EXPECT_NEAR(h.mean(), mean, 1e-3 * mean + 1e-9) << d.name;
    EXPECT_NEAR(h.stdev(), stdev, 1e-3 * stdev + 1e-9 * mean + 1e-9) << d.name;
  }
}

TEST(Histogram, MeanAndStdevUseBucketMidpointsLikeHdrHistogramWithinTheExactExtremes) {
  Histogram h = Histogram::for_latency_ns();
  h.record(5000);  // bucket [5000, 5003], midpoint 5002: above the one sample, its max
  EXPECT_EQ(h.mean(), 5000.0);
  EXPECT_LE(h.mean(), static_cast<double>(h.max()));
  EXPECT_EQ(h.stdev(), 0.0);

  Histogram two = Histogram::for_latency_ns();
  two.record(1000);  // exact bucket
  two.record(3000);  // bucket [3000, 3001], midpoint 3001
  EXPECT_DOUBLE_EQ(two.mean(), 2000.5);
  EXPECT_DOUBLE_EQ(two.stdev(), 1000.5);
}

// ---- Queries --------------------------------------------------------------------

TEST(Histogram, CountAtOrBelowIncludesTheWholeBucketOfTheValue) {
  Histogram h = Histogram::for_latency_ns();
  for (const std::int64_t v : {0, 1, 2, 3, 2048, 2049, 4096}) h.record(v);
  EXPECT_EQ(h.count_at_or_below(-1), 1);  // negative reads as 0, like record()
  EXPECT_EQ(h.count_at_or_below(0), 1);
  EXPECT_EQ(h.count_at_or_below(2), 3);
  EXPECT_EQ(h.count_at_or_below(2047), 4);
  EXPECT_EQ(h.count_at_or_below(2048), 6);  // 2049 shares 2048's bucket
  EXPECT_EQ(h.count_at_or_below(4095), 6);
  EXPECT_EQ(h.count_at_or_below(4096), 7);
  EXPECT_EQ(h.count_at_or_below(INT64_MAX), 7);
}

TEST(Histogram, CountAtOrBelowMatchesOracleForRandomValues) {
  std::mt19937_64 rng(42);
  Histogram h = Histogram::for_latency_ns();
  std::vector<std::int64_t> values(20'000);
  for (std::int64_t& v : values) {
    v = distributions()[2].draw(rng);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  for (int i = 0; i < 200; ++i) {
    const std::int64_t probe = distributions()[2].draw(rng);
    const auto want = std::upper_bound(values.begin(), values.end(), h.highest_equivalent(probe)) - values.begin();
    ASSERT_EQ(h.count_at_or_below(probe), want) << probe;
  }
}

TEST(Histogram, FractionWithinCountsBucketsByTheirMidpoint) {
  Histogram h = Histogram::for_latency_ns();
  h.record_n(10, 3);
  h.record(100);
  h.record(5000);  // bucket [5000, 5003], midpoint 5002
  EXPECT_DOUBLE_EQ(h.fraction_within(0, 100), 0.8);
  EXPECT_DOUBLE_EQ(h.fraction_within(10, 10), 0.6);
  EXPECT_DOUBLE_EQ(h.fraction_within(5001.5, 5002), 0.2);
  EXPECT_DOUBLE_EQ(h.fraction_within(5000, 5001), 0.0);
  EXPECT_DOUBLE_EQ(h.fraction_within(-1e9, 1e18), 1.0);
  EXPECT_DOUBLE_EQ(h.fraction_within(11, 99), 0.0);
}

TEST(Histogram, ForEachRecordedVisitsNonEmptyBucketsInIncreasingOrder) {
  std::mt19937_64 rng(7);
  Histogram h = Histogram::for_latency_ns();
  for (int i = 0; i < 10'000; ++i) h.record(distributions()[2].draw(rng));
  h.record_n(2049, 5);
  std::int64_t sum = 0;
  std::int64_t previous_hi = -1;
  int visits = 0;
  h.for_each_recorded([&](std::int64_t lo, std::int64_t hi, std::int64_t n) {
    EXPECT_GT(lo, previous_hi);
    EXPECT_EQ(lo, h.lowest_equivalent(lo));
    EXPECT_EQ(hi, h.highest_equivalent(lo));
    EXPECT_GT(n, 0);
    EXPECT_EQ(n, h.count_at_index(h.index_of(lo)));
    if (lo == 2048) {
      EXPECT_GE(n, 5);
    }
    previous_hi = hi;
    sum += n;
    ++visits;
  });
  EXPECT_EQ(sum, h.total_count());
  int non_empty = 0;
  for (int i = 0; i < h.counts_len(); ++i) non_empty += h.count_at_index(i) != 0 ? 1 : 0;
  EXPECT_EQ(visits, non_empty);
}

// ---- Merge ----------------------------------------------------------------------

TEST(Histogram, MergeEqualsRecordingEverythingIntoOne) {
  std::mt19937_64 rng(99);
  Histogram one = Histogram::for_latency_ns();
  Histogram a = Histogram::for_latency_ns();
  Histogram b = Histogram::for_latency_ns();
  for (int i = 0; i < 30'000; ++i) {
    std::int64_t v = distributions()[static_cast<std::size_t>(i % 4)].draw(rng);
    if (i % 1000 == 0) v = kHourNs + i;  // some clamped
    if (i % 1001 == 0) v = -i;           // some negative
    one.record(v);
    (i % 3 == 0 ? a : b).record(v);
  }
  ASSERT_TRUE(a.merge(b));
  EXPECT_EQ(a.total_count(), one.total_count());
  EXPECT_EQ(a.clamped_count(), one.clamped_count());
  EXPECT_GT(a.clamped_count(), 0);
  EXPECT_EQ(a.min(), one.min());
  EXPECT_EQ(a.max(), one.max());
  EXPECT_EQ(a.mean(), one.mean());
  for (int i = 0; i < a.counts_len(); ++i) ASSERT_EQ(a.count_at_index(i), one.count_at_index(i)) << i;
}

TEST(Histogram, MergeTakesMinAndMaxFromEitherSide) {
  Histogram low = Histogram::for_latency_ns();
  Histogram high = Histogram::for_latency_ns();
  Histogram empty = Histogram::for_latency_ns();
  low.record(5);
  high.record(900);
  ASSERT_TRUE(high.merge(low));
  EXPECT_EQ(high.min(), 5);
  EXPECT_EQ(high.max(), 900);
  ASSERT_TRUE(high.merge(empty));
  EXPECT_EQ(high.min(), 5);
  ASSERT_TRUE(empty.merge(high));
  EXPECT_EQ(empty.min(), 5);
  EXPECT_EQ(empty.max(), 900);
  EXPECT_EQ(empty.total_count(), 2);
}

TEST(Histogram, MergeOfMismatchedLayoutReturnsFalseAndChangesNothing) {
  Histogram h = Histogram::for_latency_ns();
  h.record(1234);
  h.record(kHourNs + 1);
  const Histogram other_sig(1, kHourNs, 2);
  Histogram other_highest(1, kHourNs - 1, 3);  // same counts_len, different contract
  other_highest.record(1);
  Histogram other_lowest(2, kHourNs, 3);
  other_lowest.record(1);
  ASSERT_EQ(other_highest.counts_len(), h.counts_len());
  for (const Histogram* other : {&other_sig, &std::as_const(other_highest), &std::as_const(other_lowest)}) {
    EXPECT_FALSE(h.merge(*other));
    EXPECT_EQ(h.total_count(), 2);
    EXPECT_EQ(h.clamped_count(), 1);
    EXPECT_EQ(h.min(), 1234);
    EXPECT_EQ(h.max(), kHourNs);
    EXPECT_EQ(h.count_at_index(h.index_of(1)), 0);
    EXPECT_EQ(h.count_at_index(h.index_of(1234)), 1);
  }
  // 2 and 3 share unit magnitude 1 and so every internal size, but are different
  // constructor parameters.
  Histogram two(2, kHourNs, 3);
  Histogram three(3, kHourNs, 3);
  three.record(10);
  EXPECT_FALSE(two.merge(three));
  EXPECT_EQ(two.total_count(), 0);
  EXPECT_EQ(two.count_at_index(two.index_of(10)), 0);
}

TEST(Histogram, MergeWhoseCountsWouldPassInt64RefusesAndChangesNothing) {
  const std::int64_t half = INT64_MAX / 2 + 1;  // twice this is 2^63: one past INT64_MAX
  Histogram a = Histogram::for_latency_ns();
  Histogram b = Histogram::for_latency_ns();
  a.record_n(1'000, half);
  b.record_n(9'000'000, half);  // another bucket: only the total overflows
  EXPECT_EQ(a.merge_checked(b), Histogram::MergeOutcome::kCountOverflows);
  EXPECT_FALSE(a.merge(b));
  EXPECT_EQ(a.total_count(), half);
  EXPECT_EQ(a.max(), 1'000);
  EXPECT_EQ(a.count_at_index(a.index_of(9'000'000)), 0);
  EXPECT_GT(a.mean(), 0);
  // Exactly INT64_MAX still fits.
  Histogram c = Histogram::for_latency_ns();
  c.record_n(1'000, half - 1);
  EXPECT_EQ(a.merge_checked(c), Histogram::MergeOutcome::kMerged);
  EXPECT_EQ(a.total_count(), INT64_MAX);
  EXPECT_EQ(a.merge_checked(Histogram(1, 100, 3)), Histogram::MergeOutcome::kLayoutDiffers);
}

TEST(HistogramDeathTest, InvalidParametersAbort) {
  EXPECT_DEATH(Histogram(0, 100, 3), "lowest_discernible");
  EXPECT_DEATH(Histogram(1, 100, 0), "significant_figures");
  EXPECT_DEATH(Histogram(1, 100, 6), "significant_figures");
  EXPECT_DEATH(Histogram(10, 19, 3), "highest_trackable");
  EXPECT_DEATH(Histogram(std::int64_t{1} << 60, INT64_MAX, 3), "lowest_discernible");
}

// ---- Censored percentiles -------------------------------------------------------

TEST(PercentileWithCensoring, AllUncensoredIsNeverALowerBound) {
  std::mt19937_64 rng(1);
  Histogram all = Histogram::for_latency_ns();
  const Histogram censored = Histogram::for_latency_ns();
  for (int i = 0; i < 10'000; ++i) all.record(distributions()[2].draw(rng));
  for (const std::int64_t hundredths : kPercentileHundredths) {
    const double p = static_cast<double>(hundredths) / 100.0;
    const Percentile got = percentile_with_censoring(all, censored, p);
    EXPECT_FALSE(got.is_lower_bound) << p;
    EXPECT_EQ(got.value, all.value_at_percentile(p)) << p;
  }
}

TEST(PercentileWithCensoring, RankAmongCensoredTopSamplesIsALowerBound) {
  constexpr std::int64_t kTimeoutNs = 2'000'000'000;
  Histogram all = Histogram::for_latency_ns();
  Histogram censored = Histogram::for_latency_ns();
  for (std::int64_t ms = 1; ms <= 50; ++ms) all.record(ms * 1'000'000);
  all.record_n(kTimeoutNs, 50);
  censored.record_n(kTimeoutNs, 50);

  const Percentile p50 = percentile_with_censoring(all, censored, 50);  // rank 50: 50 ms
  EXPECT_FALSE(p50.is_lower_bound);
  EXPECT_EQ(p50.value, all.value_at_percentile(50));
  EXPECT_EQ(all.lowest_equivalent(p50.value), all.lowest_equivalent(50'000'000));

  const Percentile p51 = percentile_with_censoring(all, censored, 51);  // rank 51: first censored
  EXPECT_TRUE(p51.is_lower_bound);
  EXPECT_EQ(p51.value, kTimeoutNs);

  const Percentile p99 = percentile_with_censoring(all, censored, 99);
  EXPECT_TRUE(p99.is_lower_bound);
  EXPECT_EQ(p99.value, kTimeoutNs);
  EXPECT_TRUE(percentile_with_censoring(all, censored, 100).is_lower_bound);
  EXPECT_FALSE(percentile_with_censoring(all, censored, 0).is_lower_bound);
}

TEST(PercentileWithCensoring, CensoredSamplesRankAfterUncensoredInTheSameBucket) {
  Histogram all = Histogram::for_latency_ns();
  Histogram censored = Histogram::for_latency_ns();
  all.record(100);
  all.record_n(2048, 2);  // uncensored, bucket [2048, 2049]
  all.record_n(2049, 2);  // censored, same bucket
  censored.record_n(2049, 2);
  all.record(10'000);
  ASSERT_EQ(all.index_of(2048), all.index_of(2049));
  // Ranks: 1 = 100, 2-3 = uncensored 2048, 4-5 = censored 2049, 6 = 10000.
  EXPECT_FALSE(percentile_with_censoring(all, censored, 10).is_lower_bound);  // rank 1
  EXPECT_FALSE(percentile_with_censoring(all, censored, 50).is_lower_bound);  // rank 3
  const Percentile rank4 = percentile_with_censoring(all, censored, 51);    // ceil(3.06) = 4
  EXPECT_TRUE(rank4.is_lower_bound);
  EXPECT_EQ(rank4.value, 2049);
  EXPECT_TRUE(percentile_with_censoring(all, censored, 5.0 / 6 * 100 - 0.01).is_lower_bound);  // rank 5
  EXPECT_FALSE(percentile_with_censoring(all, censored, 100).is_lower_bound);                  // rank 6
}

TEST(PercentileWithCensoring, FullyCensoredLowestBucketMakesTheMinimumALowerBound) {
  Histogram all = Histogram::for_latency_ns();
  Histogram censored = Histogram::for_latency_ns();
  all.record(10);
  censored.record(10);
  all.record(20);
  const Percentile p0 = percentile_with_censoring(all, censored, 0);
  EXPECT_TRUE(p0.is_lower_bound);
  EXPECT_EQ(p0.value, 10);
  EXPECT_FALSE(percentile_with_censoring(all, censored, 100).is_lower_bound);
}

TEST(PercentileWithCensoring, EmptyHistogramsGiveZeroAndNoBound) {
  const Histogram all = Histogram::for_latency_ns();
  Histogram censored = Histogram::for_latency_ns();
  for (const double p : {0.0, 50.0, 100.0}) {
    const Percentile got = percentile_with_censoring(all, censored, p);
    EXPECT_EQ(got.value, 0);
    EXPECT_FALSE(got.is_lower_bound);
  }
  Histogram some = Histogram::for_latency_ns();
  some.record(5);
  const Percentile got = percentile_with_censoring(some, censored, 50);
  EXPECT_EQ(got.value, 5);
  EXPECT_FALSE(got.is_lower_bound);
}

TEST(PercentileWithCensoring, MismatchedCensoredLayoutIsTreatedAsEmpty) {
  Histogram all = Histogram::for_latency_ns();
  Histogram censored(1, kHourNs - 1, 3);  // same counts_len, different layout
  ASSERT_EQ(censored.counts_len(), all.counts_len());
  all.record_n(1000, 4);
  censored.record_n(1000, 4);
  const Percentile got = percentile_with_censoring(all, censored, 100);
  EXPECT_FALSE(got.is_lower_bound);
  EXPECT_EQ(got.value, 1000);
  Histogram small(1, 1000, 1);
  small.record_n(1000, 4);
  EXPECT_FALSE(percentile_with_censoring(all, small, 100).is_lower_bound);
}

}  // namespace
}  // namespace pacer::stats
