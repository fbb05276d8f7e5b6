// Unit tests for load/schedule: rate profiles (constant, ramp, stages, warm-up),
// the inverse N^-1 that turns an arrival index into a time, and per-worker
// uniform and Poisson schedules. Pure functions: no clock, no threads.
// Statistical checks use fixed seeds and bounds of five sigma or wider.
#include "load/schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace pacer::load {
namespace {

constexpr TimeNs kSecond = kNsPerS;

// Every value next() returns until nullopt; a schedule that never ends fails
// the test instead of hanging it.
std::vector<TimeNs> drain(ArrivalSchedule& schedule, std::size_t limit = 5'000'000) {
  std::vector<TimeNs> times;
  while (const std::optional<TimeNs> t = schedule.next()) {
    times.push_back(*t);
    if (times.size() > limit) {
      ADD_FAILURE() << "schedule did not end after " << limit << " arrivals";
      break;
    }
  }
  return times;
}

std::vector<TimeNs> drain_worker(const RateProfile& profile, Arrival arrival, int worker, int workers,
                                 std::uint64_t seed = 1) {
  ArrivalSchedule schedule(profile, arrival, worker, workers, seed);
  return drain(schedule);
}

// All workers' arrivals, merged and sorted.
std::vector<TimeNs> drain_union(const RateProfile& profile, Arrival arrival, int workers, std::uint64_t seed = 1) {
  std::vector<TimeNs> all;
  for (int w = 0; w < workers; ++w) {
    const std::vector<TimeNs> mine = drain_worker(profile, arrival, w, workers, seed);
    all.insert(all.end(), mine.begin(), mine.end());
  }
  std::sort(all.begin(), all.end());
  return all;
}

double count_in(const std::vector<TimeNs>& times, TimeNs from_ns, TimeNs to_ns) {
  return static_cast<double>(std::count_if(times.begin(), times.end(),
                                           [&](TimeNs t) { return t >= from_ns && t < to_ns; }));
}

std::vector<double> window_counts(const std::vector<TimeNs>& times, TimeNs window_ns, TimeNs total_ns) {
  std::vector<double> counts(static_cast<std::size_t>(total_ns / window_ns), 0.0);
  for (const TimeNs t : times) ++counts.at(static_cast<std::size_t>(t / window_ns));
  return counts;
}

double mean_of(const std::vector<double>& xs) {
  double sum = 0;
  for (const double x : xs) sum += x;
  return sum / static_cast<double>(xs.size());
}

double variance_of(const std::vector<double>& xs) {
  const double mean = mean_of(xs);
  double sum = 0;
  for (const double x : xs) sum += (x - mean) * (x - mean);
  return sum / static_cast<double>(xs.size() - 1);
}

// Variance over mean of the counts per window: 1 for a Poisson process,
// near 0 for an evenly paced one.
double dispersion_index(const std::vector<TimeNs>& times, TimeNs window_ns, TimeNs total_ns) {
  const std::vector<double> counts = window_counts(times, window_ns, total_ns);
  return variance_of(counts) / mean_of(counts);
}

std::vector<double> gaps_s(const std::vector<TimeNs>& times) {
  std::vector<double> gaps;
  TimeNs previous = 0;
  for (const TimeNs t : times) {
    gaps.push_back(static_cast<double>(t - previous) / 1e9);
    previous = t;
  }
  return gaps;
}

bool strictly_increasing(const std::vector<TimeNs>& times) {
  return std::adjacent_find(times.begin(), times.end(), [](TimeNs a, TimeNs b) { return b <= a; }) == times.end();
}

// N(t) of a single linear segment, written out by hand (not via the code under test).
long double ramp_integral(long double from_rate, long double to_rate, long double duration_s, long double t_s) {
  return from_rate * t_s + (to_rate - from_rate) * t_s * t_s / (2 * duration_s);
}

// The root of ramp_integral(t) = x by bisection: independent of any quadratic formula.
long double ramp_root_s(long double from_rate, long double to_rate, long double duration_s, long double x) {
  long double lo = 0;
  long double hi = duration_s;
  for (int i = 0; i < 200; ++i) {
    const long double mid = (lo + hi) / 2;
    (ramp_integral(from_rate, to_rate, duration_s, mid) < x ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// ---------------------------------------------------------------- constant

TEST(RateProfile, ConstantGivesExactlyRateTimesDurationArrivals) {
  const RateProfile profile = RateProfile::constant(1000, 10 * kSecond);
  EXPECT_DOUBLE_EQ(profile.total_arrivals(), 10000);
  EXPECT_EQ(profile.total_ns(), 10 * kSecond);

  const std::vector<TimeNs> one = drain_worker(profile, Arrival::kUniform, 0, 1);
  EXPECT_EQ(one.size(), 10000u);
  EXPECT_TRUE(strictly_increasing(one));
  EXPECT_EQ(one.front(), 0);
  EXPECT_LT(one.back(), 10 * kSecond);

  std::size_t combined = 0;
  for (int w = 0; w < 3; ++w) {
    const std::vector<TimeNs> mine = drain_worker(profile, Arrival::kUniform, w, 3);
    EXPECT_EQ(mine.size(), w == 0 ? 3334u : 3333u) << "worker " << w;
    EXPECT_TRUE(strictly_increasing(mine)) << "worker " << w;
    EXPECT_GE(mine.front(), 0);
    EXPECT_LT(mine.back(), 10 * kSecond);
    combined += mine.size();
  }
  EXPECT_EQ(combined, 10000u);
}

TEST(RateProfile, ConstantWithFractionalRateStillEndsOnTheIntegral) {
  const RateProfile profile = RateProfile::constant(7.5, 2 * kSecond);
  EXPECT_EQ(drain_worker(profile, Arrival::kUniform, 0, 1).size(), 15u);
  EXPECT_EQ(drain_union(profile, Arrival::kUniform, 4).size(), 15u);
}

TEST(ArrivalSchedule, UniformWorkersInterleaveOneOverRateApart) {
  // 3000/s: 1/R = 333333.3 ns, so this also checks the rounding to nanoseconds.
  const double rate_per_s = 3000;
  const RateProfile profile = RateProfile::constant(rate_per_s, kSecond);
  for (const int workers : {1, 2, 3, 7}) {
    const std::vector<TimeNs> all = drain_union(profile, Arrival::kUniform, workers);
    ASSERT_EQ(all.size(), 3000u) << workers << " workers";
    for (std::size_t i = 0; i < all.size(); ++i) {
      const double exact_ns = static_cast<double>(i) * 1e9 / rate_per_s;
      ASSERT_NEAR(static_cast<double>(all[i]), exact_ns, 0.5 + 1e-6) << workers << " workers, arrival " << i;
    }
    for (std::size_t i = 1; i < all.size(); ++i) {
      ASSERT_NEAR(static_cast<double>(all[i] - all[i - 1]), 1e9 / rate_per_s, 1.0) << workers << " workers, gap " << i;
    }
  }
}

TEST(ArrivalSchedule, UniformWorkerTakesEveryWthArrivalStartingAtItsIndex) {
  const RateProfile profile = RateProfile::constant(1000, kSecond);
  for (int w = 0; w < 4; ++w) {
    const std::vector<TimeNs> mine = drain_worker(profile, Arrival::kUniform, w, 4);
    ASSERT_EQ(mine.size(), 250u);
    for (std::size_t k = 0; k < mine.size(); ++k) {
      ASSERT_EQ(mine[k], static_cast<TimeNs>(4 * k + static_cast<std::size_t>(w)) * kNsPerMs) << w << "/" << k;
    }
  }
}

TEST(ArrivalSchedule, EveryHundredMillisecondWindowHoldsOneHundredArrivals) {
  const RateProfile profile = RateProfile::constant(1000, 10 * kSecond);
  for (const int workers : {1, 4}) {
    const std::vector<double> counts =
        window_counts(drain_union(profile, Arrival::kUniform, workers), 100 * kNsPerMs, 10 * kSecond);
    ASSERT_EQ(counts.size(), 100u);
    for (std::size_t i = 0; i < counts.size(); ++i) {
      EXPECT_NEAR(counts[i], 100, 1) << workers << " workers, window " << i;
    }
  }
}

// ---------------------------------------------------------------- ramp

TEST(RateProfile, RampReachesEndRateAtEndOfRun) {
  const RateProfile profile = RateProfile::ramp(100, 1000, 10 * kSecond);
  EXPECT_DOUBLE_EQ(profile.rate_at(0), 100);
  EXPECT_NEAR(profile.rate_at(5 * kSecond), 550, 1e-9);
  EXPECT_NEAR(profile.rate_at(10 * kSecond - 1), 1000, 1e-6);
  EXPECT_EQ(profile.rate_at(10 * kSecond), 0);
  EXPECT_EQ(profile.rate_at(-1), 0);
  EXPECT_DOUBLE_EQ(profile.peak_rate(), 1000);
  EXPECT_NEAR(profile.total_arrivals(), (100 + 1000) / 2.0 * 10, 1e-9);
  EXPECT_NEAR(profile.arrivals_before(kSecond), 145, 1e-9);  // 100*1 + 900*1²/(2*10)
}

TEST(RateProfile, RampArrivalsInFirstAndLastTenthMatchTheIntegral) {
  struct Case {
    double from, to;
  };
  for (const Case c : {Case{100, 1000}, Case{1000, 100}, Case{0, 2000}, Case{1500, 0}}) {
    const RateProfile profile = RateProfile::ramp(c.from, c.to, 10 * kSecond);
    const auto integral = [&](double t_s) { return static_cast<double>(ramp_integral(c.from, c.to, 10, t_s)); };
    EXPECT_NEAR(profile.total_arrivals(), (c.from + c.to) / 2 * 10, 1e-9);
    for (const int workers : {1, 3}) {
      const std::vector<TimeNs> all = drain_union(profile, Arrival::kUniform, workers);
      EXPECT_NEAR(static_cast<double>(all.size()), integral(10), 1) << c.from << "->" << c.to;
      EXPECT_NEAR(count_in(all, 0, kSecond), integral(1), 1) << c.from << "->" << c.to;
      EXPECT_NEAR(count_in(all, 9 * kSecond, 10 * kSecond), integral(10) - integral(9), 1) << c.from << "->" << c.to;
      EXPECT_NEAR(count_in(all, 4 * kSecond, 5 * kSecond), integral(5) - integral(4), 1) << c.from << "->" << c.to;
      EXPECT_LT(all.back(), 10 * kSecond);
    }
  }
}

TEST(RateProfile, RampTimeOfSolvesTheQuadratic) {
  struct Case {
    double from, to;
  };
  for (const Case c : {Case{100, 1000}, Case{1000, 100}, Case{0, 1000}, Case{1000, 0}, Case{500, 500.001}}) {
    const RateProfile profile = RateProfile::ramp(c.from, c.to, 10 * kSecond);
    const double total = profile.total_arrivals();
    for (const double x : {0.0, 0.5, 1.0, 17.0, total / 3, total / 2, total - 1, total - 1e-6}) {
      const long double expected_ns = ramp_root_s(c.from, c.to, 10, x) * 1e9L;
      const std::optional<TimeNs> t = profile.time_of(x);
      ASSERT_TRUE(t) << c.from << "->" << c.to << " x=" << x;
      EXPECT_NEAR(static_cast<double>(*t), static_cast<double>(expected_ns), 1.0)
          << c.from << "->" << c.to << " x=" << x;
    }
  }
}

TEST(RateProfile, RampFromZeroStartsAtZeroAndGrowsAsSquareRoot) {
  // N(t) = 1000 t² / 20, so t(x) = sqrt(x / 50) s.
  const RateProfile profile = RateProfile::ramp(0, 1000, 10 * kSecond);
  EXPECT_EQ(profile.time_of(0), 0);
  EXPECT_EQ(profile.time_of(-3), 0);
  EXPECT_NEAR(static_cast<double>(*profile.time_of(2)), 200'000'000, 1);
  EXPECT_NEAR(static_cast<double>(*profile.time_of(50)), 1'000'000'000, 1);
  EXPECT_NEAR(static_cast<double>(*profile.time_of(1250)), 5'000'000'000, 1);
}

TEST(RateProfile, TimeOfInvertsArrivalsBefore) {
  const std::vector<RateProfile> profiles = {
      RateProfile::constant(1234.5, 7 * kSecond),
      RateProfile::ramp(100, 1000, 10 * kSecond),
      RateProfile::ramp(1000, 100, 10 * kSecond),
      RateProfile::ramp(0, 5000, 3 * kSecond),
      RateProfile::ramp(800, 0, 4 * kSecond),
      RateProfile::stages({{30 * kSecond, 100}, {60 * kSecond, 1000}, {30 * kSecond, 0}}).with_warmup(5 * kSecond),
  };
  for (std::size_t p = 0; p < profiles.size(); ++p) {
    const RateProfile& profile = profiles[p];
    const double total = profile.total_arrivals();
    // One nanosecond of rounding moves N(t) by at most peak_rate * 0.5 ns.
    const double tolerance = profile.peak_rate() * 0.5e-9 + 1e-9;
    for (int i = 0; i < 1000; ++i) {
      const double x = total * i / 1000.0 + 0.37;
      if (x >= total) continue;
      const std::optional<TimeNs> t = profile.time_of(x);
      ASSERT_TRUE(t) << "profile " << p << " x=" << x;
      ASSERT_NEAR(profile.arrivals_before(*t), x, tolerance * (1 + x * 1e-9)) << "profile " << p << " x=" << x;
    }
  }
}

TEST(RateProfile, TimeOfEndsExactlyAtTotalArrivals) {
  const RateProfile profile = RateProfile::ramp(100, 1000, 10 * kSecond);
  const double total = profile.total_arrivals();
  EXPECT_EQ(profile.time_of(total), std::nullopt);
  EXPECT_EQ(profile.time_of(total + 1), std::nullopt);
  const std::optional<TimeNs> last = profile.time_of(total - 1e-9);
  ASSERT_TRUE(last);
  EXPECT_LE(*last, 10 * kSecond);
  EXPECT_GT(*last, 10 * kSecond - 10);
}

// ---------------------------------------------------------------- stages

TEST(RateProfile, StagesRampFromThePreviousTarget) {
  const RateProfile profile =
      RateProfile::stages({{30 * kSecond, 100}, {60 * kSecond, 1000}, {30 * kSecond, 0}});
  ASSERT_EQ(profile.segments().size(), 3u);
  EXPECT_EQ(profile.segments()[0].start_rate_per_s, 0);
  EXPECT_EQ(profile.segments()[1].start_rate_per_s, 100);
  EXPECT_EQ(profile.segments()[2].start_rate_per_s, 1000);
  EXPECT_EQ(profile.segments()[2].end_rate_per_s, 0);
  EXPECT_EQ(profile.total_ns(), 120 * kSecond);

  EXPECT_NEAR(profile.total_arrivals(), 0.5 * 100 * 30 + (100 + 1000) / 2.0 * 60 + 0.5 * 1000 * 30, 1e-6);
  EXPECT_NEAR(profile.arrivals_before(30 * kSecond), 1500, 1e-9);
  EXPECT_NEAR(profile.arrivals_before(90 * kSecond), 1500 + 33000, 1e-6);

  EXPECT_NEAR(profile.rate_at(30 * kSecond - 1), 100, 1e-6);
  EXPECT_DOUBLE_EQ(profile.rate_at(30 * kSecond), 100);
  EXPECT_NEAR(profile.rate_at(45 * kSecond), 325, 1e-9);
  EXPECT_NEAR(profile.rate_at(90 * kSecond - 1), 1000, 1e-6);
  EXPECT_DOUBLE_EQ(profile.rate_at(90 * kSecond), 1000);
  EXPECT_NEAR(profile.rate_at(105 * kSecond), 500, 1e-9);
  EXPECT_NEAR(profile.rate_at(120 * kSecond - 1), 0, 1e-6);
  EXPECT_EQ(profile.rate_at(120 * kSecond), 0);

  // Arrival 1500 is the first of the second stage, at its start.
  EXPECT_EQ(profile.time_of(1500), 30 * kSecond);
  const std::vector<TimeNs> all = drain_union(profile, Arrival::kUniform, 3);
  EXPECT_EQ(all.size(), 49500u);
  EXPECT_EQ(count_in(all, 0, 30 * kSecond), 1500);
}

TEST(RateProfile, StageHoldingItsRateIsConstant) {
  const RateProfile profile = RateProfile::stages({{10 * kSecond, 100}, {20 * kSecond, 100}});
  EXPECT_DOUBLE_EQ(profile.rate_at(12 * kSecond), 100);
  EXPECT_DOUBLE_EQ(profile.rate_at(29 * kSecond), 100);
  EXPECT_NEAR(profile.arrivals_before(10 * kSecond), 500, 1e-9);
  for (int i = 0; i < 2000; ++i) {
    ASSERT_EQ(profile.time_of(500 + i), 10 * kSecond + i * 10 * kNsPerMs) << i;
  }
  EXPECT_EQ(profile.time_of(2500), std::nullopt);
}

TEST(RateProfile, StageDownToZeroLeavesAGapBeforeTheNextRamp) {
  // 0->100 over 10 s (500), 100->0 over 5 s (250), nothing for 10 s, 0->200 over 10 s (1000).
  const RateProfile profile =
      RateProfile::stages({{10 * kSecond, 100}, {5 * kSecond, 0}, {10 * kSecond, 0}, {10 * kSecond, 200}});
  EXPECT_NEAR(profile.total_arrivals(), 1750, 1e-9);
  EXPECT_EQ(profile.rate_at(20 * kSecond), 0);
  EXPECT_LT(*profile.time_of(749.999), 15 * kSecond);
  EXPECT_EQ(profile.time_of(750), 25 * kSecond);
  // After the gap, N(t) = 750 + 200 t² / 20, so arrival 750 + y is at sqrt(y / 10) s past 25 s.
  EXPECT_NEAR(static_cast<double>(*profile.time_of(750 + 10)), 26e9, 1);
  EXPECT_NEAR(static_cast<double>(*profile.time_of(750 + 250)), 30e9, 1);

  const std::vector<TimeNs> all = drain_union(profile, Arrival::kUniform, 2);
  EXPECT_EQ(all.size(), 1750u);
  EXPECT_EQ(count_in(all, 15 * kSecond, 25 * kSecond), 0);
  EXPECT_EQ(count_in(all, 0, 15 * kSecond), 750);
}

TEST(RateProfile, StageListMeanOverItsLengthIsItsIntegral) {
  // 1s:100,1s:0 (issue 13): 0->100 over 1 s (50 arrivals), 100->0 over 1 s (50).
  const RateProfile profile = RateProfile::stages({{kSecond, 100}, {kSecond, 0}});
  EXPECT_EQ(profile.total_ns(), 2 * kSecond);
  EXPECT_NEAR(profile.total_arrivals(), 100, 1e-9);
  EXPECT_NEAR(profile.mean_rate_per_s(0, 2 * kSecond), 50, 1e-9);
  EXPECT_NEAR(profile.mean_rate_per_s(0, kSecond), 50, 1e-9);
  EXPECT_NEAR(profile.mean_rate_per_s(kSecond / 2, 3 * kSecond / 2), 75, 1e-9);
  EXPECT_EQ(profile.mean_rate_per_s(kSecond, kSecond), 0);
  // The workers' arrivals together are the integral, all inside the profile...
  for (int workers : {1, 2, 3}) {
    const std::vector<TimeNs> all = drain_union(profile, Arrival::kUniform, workers);
    ASSERT_EQ(all.size(), 100u) << workers;
    EXPECT_EQ(count_in(all, 0, kSecond), 50) << workers;
    EXPECT_LT(all.back(), 2 * kSecond) << workers;
  }
  // ...but the last comes about 0.1 s before the end (the tail of a ramp to 0 is
  // sparse): a window that ends with the last arrival is short of the profile and
  // its mean is not the profile's (100 arrivals over ~1.9 s is ~53/s, not 50/s).
  const std::vector<TimeNs> all = drain_union(profile, Arrival::kUniform, 1);
  EXPECT_GT(all.back(), 18 * kSecond / 10);
  EXPECT_GT(profile.mean_rate_per_s(0, all.back()), 52);
}

// ---------------------------------------------------------------- warm-up

TEST(RateProfile, WarmupShiftsTheProfileAndHoldsTheStartRate) {
  const RateProfile base = RateProfile::ramp(100, 1000, 10 * kSecond);
  const RateProfile warm = base.with_warmup(5 * kSecond);
  ASSERT_EQ(warm.segments().size(), 2u);
  EXPECT_EQ(warm.total_ns(), 15 * kSecond);
  EXPECT_DOUBLE_EQ(warm.rate_at(0), 100);
  EXPECT_DOUBLE_EQ(warm.rate_at(5 * kSecond - 1), 100);
  EXPECT_DOUBLE_EQ(warm.rate_at(5 * kSecond), 100);
  EXPECT_NEAR(warm.rate_at(10 * kSecond), 550, 1e-9);
  EXPECT_NEAR(warm.arrivals_before(5 * kSecond), 500, 1e-9);
  EXPECT_NEAR(warm.total_arrivals(), 500 + base.total_arrivals(), 1e-9);
  for (const double x : {0.0, 1.0, 144.0, 2000.5, 5499.0}) {
    EXPECT_EQ(warm.time_of(500 + x), 5 * kSecond + *base.time_of(x)) << x;
  }
  EXPECT_EQ(warm.time_of(250), 2500 * kNsPerMs);

  EXPECT_EQ(base.with_warmup(0).segments().size(), 1u);
  // Stages start from 0, so their warm-up sends nothing.
  const RateProfile staged = RateProfile::stages({{10 * kSecond, 100}}).with_warmup(3 * kSecond);
  EXPECT_EQ(staged.arrivals_before(3 * kSecond), 0);
  EXPECT_EQ(staged.time_of(0), 3 * kSecond);
}

// ---------------------------------------------------------------- drift

TEST(RateProfile, ConstantRateHasNoDriftAfterAnHour) {
  const double rate_per_s = 20000;
  const RateProfile profile = RateProfile::constant(rate_per_s, 3600 * kSecond);
  EXPECT_DOUBLE_EQ(profile.total_arrivals(), 72'000'000);
  for (const std::int64_t k : {std::int64_t{1}, std::int64_t{12'345'677}, std::int64_t{50'000'001},
                               std::int64_t{71'999'998}, std::int64_t{71'999'999}}) {
    EXPECT_EQ(profile.time_of(static_cast<double>(k)), k * 50'000) << k;  // k / R exactly, in ns
  }
  EXPECT_EQ(profile.time_of(72'000'000), std::nullopt);
}

TEST(ArrivalSchedule, LastUniformArrivalOfAnHourLandsExactlyOnTime) {
  // Worker 63 of 64 steps through 1,125,000 arrivals; the last is global index
  // 71,999,999 and must still sit exactly on k / R.
  const RateProfile profile = RateProfile::constant(20000, 3600 * kSecond);
  ArrivalSchedule schedule(profile, Arrival::kUniform, 63, 64, 1);
  const std::vector<TimeNs> times = drain(schedule);
  EXPECT_EQ(times.size(), 1'125'000u);
  EXPECT_EQ(schedule.arrivals_taken(), 1'125'000u);
  ASSERT_FALSE(times.empty());
  EXPECT_EQ(times.back(), TimeNs{71'999'999} * 50'000);
}

TEST(RateProfile, LongRampHasNoDrift) {
  const RateProfile profile = RateProfile::ramp(0, 20000, 3600 * kSecond);
  for (const double x : {1.0, 1e6, 17'999'999.0, 35'999'999.0}) {
    const long double expected_ns = ramp_root_s(0, 20000, 3600, x) * 1e9L;
    EXPECT_NEAR(static_cast<double>(*profile.time_of(x)), static_cast<double>(expected_ns), 1.0) << x;
  }
}

// ---------------------------------------------------------------- Poisson

TEST(ArrivalSchedule, PoissonCountAndGapsMatchTheRate) {
  const RateProfile profile = RateProfile::constant(1000, 100 * kSecond);
  const std::vector<TimeNs> times = drain_worker(profile, Arrival::kPoisson, 0, 1, 42);
  // Count ~ Poisson(100000): five sigma is 5 * sqrt(100000) ~ 1581.
  EXPECT_NEAR(static_cast<double>(times.size()), 100000, 5 * std::sqrt(100000.0));
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
  EXPECT_GE(times.front(), 0);
  EXPECT_LT(times.back(), 100 * kSecond);

  const std::vector<double> gaps = gaps_s(times);
  const double mean = mean_of(gaps);
  // The mean gap's standard error is 1 ms / sqrt(1e5) ~ 0.3%: 2% is over six sigma.
  EXPECT_NEAR(mean, 1e-3, 0.02 * 1e-3);
  // Exponential gaps: variance = mean². Relative standard error sqrt(8 / n) ~ 0.9%: 5% is over five sigma.
  EXPECT_NEAR(variance_of(gaps) / (mean * mean), 1, 0.05);
}

TEST(ArrivalSchedule, PoissonCountsPerWindowHaveUnitDispersion) {
  // 10,000 windows of 100 ms at 1000/s (mean 100 each): the dispersion index has a
  // standard error of about sqrt(2 / 10000) ~ 1.4%, so 10% is about seven sigma.
  // Its coefficient of variation is then 1 / sqrt(100) within 5%.
  const RateProfile profile = RateProfile::constant(1000, 1000 * kSecond);
  const std::vector<TimeNs> times = drain_worker(profile, Arrival::kPoisson, 0, 1, 7);
  const std::vector<double> counts = window_counts(times, 100 * kNsPerMs, 1000 * kSecond);
  const double mean = mean_of(counts);
  EXPECT_NEAR(mean, 100, 5 * std::sqrt(100.0 / 10000));
  EXPECT_NEAR(variance_of(counts) / mean, 1, 0.1);
  EXPECT_NEAR(std::sqrt(variance_of(counts)) / mean, 1 / std::sqrt(100.0), 0.05 / std::sqrt(100.0));
  // A paced schedule at the same rate is not Poisson: this check can tell them apart.
  EXPECT_LT(dispersion_index(drain_worker(profile, Arrival::kUniform, 0, 1), 100 * kNsPerMs, 1000 * kSecond), 0.1);
}

TEST(ArrivalSchedule, TwoPoissonWorkersTogetherArePoissonAtTheFullRate) {
  const RateProfile profile = RateProfile::constant(1000, 1000 * kSecond);
  const std::vector<TimeNs> first = drain_worker(profile, Arrival::kPoisson, 0, 2, 99);
  const std::vector<TimeNs> second = drain_worker(profile, Arrival::kPoisson, 1, 2, 99);
  // Each worker ~ Poisson(500000), the union ~ Poisson(1e6); five sigma each.
  EXPECT_NEAR(static_cast<double>(first.size()), 500000, 5 * std::sqrt(500000.0));
  EXPECT_NEAR(static_cast<double>(second.size()), 500000, 5 * std::sqrt(500000.0));
  std::vector<TimeNs> all = first;
  all.insert(all.end(), second.begin(), second.end());
  std::sort(all.begin(), all.end());
  EXPECT_NEAR(static_cast<double>(all.size()), 1e6, 5 * std::sqrt(1e6));
  EXPECT_NEAR(dispersion_index(all, 100 * kNsPerMs, 1000 * kSecond), 1, 0.1);  // ~7 sigma, as above
  EXPECT_NE(std::vector<TimeNs>(first.begin(), first.begin() + 100),
            std::vector<TimeNs>(second.begin(), second.begin() + 100));

  // Over the 100 s run of the brief, the union's total is still within five sigma.
  const RateProfile short_profile = RateProfile::constant(1000, 100 * kSecond);
  EXPECT_NEAR(static_cast<double>(drain_union(short_profile, Arrival::kPoisson, 2, 99).size()), 100000,
              5 * std::sqrt(100000.0));
}

TEST(ArrivalSchedule, PoissonFollowsARamp) {
  // Counts over a window of a Poisson process with varying rate are Poisson with
  // mean = the integral; five sigma on each.
  const RateProfile profile = RateProfile::ramp(100, 1900, 100 * kSecond);
  const std::vector<TimeNs> all = drain_union(profile, Arrival::kPoisson, 3, 5);
  const auto integral = [](double t_s) { return static_cast<double>(ramp_integral(100, 1900, 100, t_s)); };
  const auto expect_count = [&](TimeNs from, TimeNs to) {
    const double expected = integral(static_cast<double>(to) / 1e9) - integral(static_cast<double>(from) / 1e9);
    EXPECT_NEAR(count_in(all, from, to), expected, 5 * std::sqrt(expected)) << from << ".." << to;
  };
  expect_count(0, 100 * kSecond);
  expect_count(0, 10 * kSecond);
  expect_count(90 * kSecond, 100 * kSecond);
}

TEST(ArrivalSchedule, SameSeedGivesTheSameTimes) {
  const RateProfile profile = RateProfile::ramp(100, 1000, 20 * kSecond);
  for (int w = 0; w < 3; ++w) {
    EXPECT_EQ(drain_worker(profile, Arrival::kPoisson, w, 3, 1234),
              drain_worker(profile, Arrival::kPoisson, w, 3, 1234));
  }
  const std::vector<TimeNs> a = drain_worker(profile, Arrival::kPoisson, 0, 1, 1234);
  const std::vector<TimeNs> b = drain_worker(profile, Arrival::kPoisson, 0, 1, 1235);
  ASSERT_GE(std::min(a.size(), b.size()), 100u);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < 100; ++i) differing += a[i] != b[i] ? 1 : 0;
  EXPECT_GE(differing, 95u);
}

TEST(ArrivalSchedule, PoissonTimesForAFixedSeedNeverChange) {
  // Pinned from this implementation (splitmix64-seeded mt19937_64, inversion
  // sampling). Both are fully specified, so any standard library gives these;
  // a change here means recorded runs can no longer be replayed with --seed.
  const RateProfile profile = RateProfile::constant(1000, kSecond);
  ArrivalSchedule schedule(profile, Arrival::kPoisson, 1, 2, 42);
  std::vector<TimeNs> first;
  for (int i = 0; i < 4; ++i) first.push_back(*schedule.next());
  EXPECT_EQ(first, (std::vector<TimeNs>{1879197, 3841866, 6020551, 6213879}));
}

// ---------------------------------------------------------------- end of run

TEST(ArrivalSchedule, NextReturnsNulloptAfterTheEndAndKeepsDoingSo) {
  const RateProfile profile = RateProfile::constant(10, kSecond);
  for (const Arrival arrival : {Arrival::kUniform, Arrival::kPoisson}) {
    ArrivalSchedule schedule(profile, arrival, 0, 1, 3);
    const std::uint64_t returned = drain(schedule).size();
    EXPECT_EQ(schedule.arrivals_taken(), returned);
    if (arrival == Arrival::kUniform) {
      EXPECT_EQ(returned, 10u);
    }
    for (int i = 0; i < 5; ++i) EXPECT_EQ(schedule.next(), std::nullopt);
    EXPECT_EQ(schedule.arrivals_taken(), returned);
  }
}

TEST(ArrivalSchedule, EmptyOrSilentProfileHasNoArrivals) {
  const RateProfile empty;
  EXPECT_EQ(empty.total_ns(), 0);
  EXPECT_EQ(empty.rate_at(0), 0);
  EXPECT_EQ(empty.time_of(0), std::nullopt);
  const RateProfile silent = RateProfile::constant(0, 10 * kSecond);
  for (const RateProfile* profile : {&empty, &silent}) {
    for (const Arrival arrival : {Arrival::kUniform, Arrival::kPoisson}) {
      ArrivalSchedule schedule(*profile, arrival, 0, 1, 3);
      EXPECT_EQ(schedule.next(), std::nullopt);
      EXPECT_EQ(schedule.arrivals_taken(), 0u);
    }
  }
}

TEST(ArrivalSchedule, MoreWorkersThanArrivalsLeavesSomeIdle) {
  const RateProfile profile = RateProfile::constant(3, kSecond);
  EXPECT_EQ(drain_worker(profile, Arrival::kUniform, 2, 5).size(), 1u);
  EXPECT_EQ(drain_worker(profile, Arrival::kUniform, 3, 5).size(), 0u);
  EXPECT_EQ(drain_union(profile, Arrival::kUniform, 5).size(), 3u);
}

TEST(ArrivalSchedule, SkipPassesOverExactlyTheUniformArrivalsDueBeforeATime) {
  // A worker whose backlog is full counts the arrivals due at once: the same ones
  // next() would have returned, and next() then goes on from the first one kept.
  const RateProfile profile = RateProfile::ramp(1000, 3000, kSecond);
  for (const int workers : {1, 3}) {
    for (int w = 0; w < workers; ++w) {
      const std::vector<TimeNs> all = drain_worker(profile, Arrival::kUniform, w, workers);
      ArrivalSchedule schedule(profile, Arrival::kUniform, w, workers, 1);
      ASSERT_TRUE(schedule.next().has_value());  // the first is taken one by one
      const TimeNs cut = 400 * kNsPerMs;
      const std::uint64_t skipped = schedule.skip_before(cut);
      const auto due = static_cast<std::uint64_t>(count_in(all, 0, cut));
      EXPECT_NEAR(static_cast<double>(skipped + 1), static_cast<double>(due), 1.0) << w << "/" << workers;
      const std::vector<TimeNs> rest = drain(schedule);
      EXPECT_EQ(skipped + 1 + rest.size(), all.size()) << w << "/" << workers;
      ASSERT_FALSE(rest.empty());
      EXPECT_GE(rest.front(), cut - 1);
      EXPECT_EQ(schedule.skip_before(cut), 0u);  // nothing left before it
    }
  }
}

TEST(ArrivalSchedule, SkipCountsTheExpectedPoissonArrivalsAndGoesOn) {
  const RateProfile profile = RateProfile::constant(1e6, kSecond);
  ArrivalSchedule schedule(profile, Arrival::kPoisson, 0, 2, 7);
  ASSERT_TRUE(schedule.next().has_value());
  const std::uint64_t skipped = schedule.skip_before(kSecond / 2);
  EXPECT_NEAR(static_cast<double>(skipped), 250'000.0, 5.0);  // half the run, half the workers
  const std::vector<TimeNs> rest = drain(schedule);
  EXPECT_NEAR(static_cast<double>(rest.size()), 250'000.0, 5 * std::sqrt(250'000.0));
  EXPECT_GE(rest.front(), kSecond / 2);
}

TEST(ArrivalSchedule, SkipPastTheEndTakesTheRest) {
  const RateProfile profile = RateProfile::constant(100, kSecond);
  ArrivalSchedule schedule(profile, Arrival::kUniform, 0, 1, 1);
  ASSERT_TRUE(schedule.next().has_value());
  EXPECT_EQ(schedule.skip_before(5 * kSecond), 99u);
  EXPECT_FALSE(schedule.next().has_value());
}

}  // namespace
}  // namespace pacer::load
