#include "capacity/objective.h"

#include <gtest/gtest.h>

namespace pacer::capacity {
namespace {

std::vector<ObjectiveTerm> parse(const char* text) {
  auto t = parse_objective(text, "--capacity");
  EXPECT_TRUE(t) << (t ? "" : t.error().message);
  return t ? *t : std::vector<ObjectiveTerm>{};
}

std::string error_of(const char* text) {
  auto t = parse_objective(text, "--capacity");
  return t ? "" : t.error().message;
}

TEST(Objective, ParsesLatencyErrorsAndServerCpu) {
  const std::vector<ObjectiveTerm> t = parse("p99<=50ms, errors<=0.1%,server_cpu<80%,mean<20ms");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].figure, ObjectiveTerm::Figure::kLatency);
  EXPECT_EQ(t[0].latency.percentile, 99);
  EXPECT_EQ(t[0].latency.limit_ns, 50 * kNsPerMs);
  EXPECT_TRUE(t[0].inclusive);
  EXPECT_EQ(t[1].figure, ObjectiveTerm::Figure::kErrors);
  EXPECT_DOUBLE_EQ(t[1].limit, 0.001);
  EXPECT_EQ(t[2].figure, ObjectiveTerm::Figure::kServerCpu);
  EXPECT_DOUBLE_EQ(t[2].limit, 0.8);
  EXPECT_FALSE(t[2].inclusive);
  EXPECT_EQ(t[3].latency.statistic, LatencyGate::Statistic::kMean);
  EXPECT_EQ(parse("server_cpu<=250%")[0].limit, 2.5);
}

TEST(Objective, RefusesWhatCannotBeAnObjective) {
  EXPECT_NE(error_of("").find("an empty objective"), std::string::npos);
  EXPECT_NE(error_of("p99=50ms").find("is not FIGURE<=LIMIT"), std::string::npos);
  EXPECT_NE(error_of("p99<=50ms,").find("an empty term"), std::string::npos);
  EXPECT_NE(error_of("latency<=5ms").find("unknown statistic"), std::string::npos);
  EXPECT_NE(error_of("errors<=200%").find("above 100%"), std::string::npos);
  EXPECT_NE(error_of("errors<0").find("can never hold"), std::string::npos);
  EXPECT_NE(error_of("server_cpu<=lots").find("server_cpu's limit"), std::string::npos);
  EXPECT_NE(error_of("p99<=0ms").find("greater than 0"), std::string::npos);
}

report::RunReport run_of(std::int64_t fast_ns, std::uint64_t fast, std::int64_t slow_ns, std::uint64_t slow) {
  report::RunReport r;
  r.counters.responses = fast + slow;
  r.latency.record_n(fast_ns, static_cast<std::int64_t>(fast));
  if (slow > 0) r.latency.record_n(slow_ns, static_cast<std::int64_t>(slow));
  r.measured_ns = kNsPerS;
  return r;
}

TEST(Objective, AClearP99HoldsAndIsNotNear) {
  const auto terms = parse("p99<=50ms");
  const report::RunReport r = run_of(5 * kNsPerMs, 10'000, 0, 0);
  const auto read = read_terms(terms, r, step_figures(r));
  ASSERT_EQ(read.size(), 1u);
  EXPECT_TRUE(read[0].holds);
  EXPECT_FALSE(read[0].near);
  EXPECT_TRUE(all_hold(read));
}

TEST(Objective, AP99BrokenByFarMoreThanOnePercentIsAClearBreak) {
  const auto terms = parse("p99<=50ms");
  const report::RunReport r = run_of(5 * kNsPerMs, 9'000, 200 * kNsPerMs, 1'000);
  const auto read = read_terms(terms, r, step_figures(r));
  EXPECT_FALSE(read[0].holds);
  EXPECT_FALSE(read[0].near);
  EXPECT_EQ(broken_phrase(read).rfind("p99 ", 0), 0u) << broken_phrase(read);
  EXPECT_NE(broken_phrase(read).find("> 50.00ms"), std::string::npos) << broken_phrase(read);
}

TEST(Objective, ACountPastTheLimitNearTheAllowedOneIsNear) {
  const auto terms = parse("p99<=50ms");
  // 1,000 requests: 1 % allowed is 10; 9 past the limit cannot be told from 10.
  const report::RunReport r = run_of(5 * kNsPerMs, 991, 200 * kNsPerMs, 9);
  const auto read = read_terms(terms, r, step_figures(r));
  EXPECT_TRUE(read[0].holds);
  EXPECT_TRUE(read[0].near);
  // 12 past it is a break, as near; 100,000 requests with 0.5 % past it: a clear hold.
  const report::RunReport over = run_of(5 * kNsPerMs, 988, 200 * kNsPerMs, 12);
  EXPECT_FALSE(read_terms(terms, over, step_figures(over))[0].holds);
  EXPECT_TRUE(read_terms(terms, over, step_figures(over))[0].near);
  const report::RunReport big = run_of(5 * kNsPerMs, 99'500, 200 * kNsPerMs, 500);
  EXPECT_FALSE(read_terms(terms, big, step_figures(big))[0].near);
}

TEST(Objective, ErrorsAreJudgedByTheirCount) {
  const auto terms = parse("errors<=1%");
  report::RunReport r = run_of(5 * kNsPerMs, 10'000, 0, 0);
  r.counters.errors.status = 50;  // 0.5 %, far below 1 % of 10,000 (100)
  auto read = read_terms(terms, r, step_figures(r));
  EXPECT_TRUE(read[0].holds);
  EXPECT_FALSE(read[0].near);
  r.counters.errors.status = 0;  // none: a clear hold, however small the allowance
  EXPECT_FALSE(read_terms(parse("errors<=0.1%"), r, step_figures(r))[0].near);
  r.counters.errors.status = 98;
  read = read_terms(terms, r, step_figures(r));
  EXPECT_TRUE(read[0].holds);
  EXPECT_TRUE(read[0].near);
  r.counters.errors.status = 300;
  read = read_terms(terms, r, step_figures(r));
  EXPECT_FALSE(read[0].holds);
  EXPECT_EQ(read[0].phrase, "errors 3.00% > 1%");
}

TEST(Objective, NothingRecordedIsNotAHold) {
  const auto terms = parse("p99<=50ms,errors<=1%,server_cpu<=80%");
  const report::RunReport r;
  const auto read = read_terms(terms, r, step_figures(r));
  ASSERT_EQ(read.size(), 3u);
  for (const TermReading& t : read) {
    EXPECT_FALSE(t.holds) << t.text;
    EXPECT_FALSE(t.measured) << t.text;
  }
}

TEST(Objective, ATimedOutPercentileProvesNothingBelowTheLimit) {
  const auto terms = parse("p99<=2s");
  report::RunReport r = run_of(5 * kNsPerMs, 980, kNsPerS, 20);
  r.latency_censored.record_n(kNsPerS, 20);  // the 20 slow ones timed out at 1 s
  const auto read = read_terms(terms, r, step_figures(r));
  EXPECT_FALSE(read[0].holds);
  EXPECT_NE(read[0].phrase.find(">="), std::string::npos) << read[0].phrase;
}

}  // namespace
}  // namespace pacer::capacity

namespace pacer::capacity {
namespace {

// A run of 10 intervals of 100 requests at 5 ms, where `past[i]` of interval i's
// took 200 ms instead.
report::RunReport batched(const std::vector<int>& past) {
  report::RunReport r;
  r.timeseries.emplace();
  r.measured_ns = kNsPerS;
  for (int slow : past) {
    stats::Histogram h = stats::Histogram::for_latency_ns();
    h.record_n(5 * kNsPerMs, 100 - slow);
    if (slow > 0) h.record_n(200 * kNsPerMs, slow);
    r.latency.merge(h);
    report::SeriesPoint p;
    p.duration_ns = 100 * kNsPerMs;
    p.latency = stats::PackedHistogram(h);
    r.timeseries->push_back(std::move(p));
  }
  r.counters.responses = static_cast<std::uint64_t>(r.latency.total_count());
  return r;
}

TEST(Objective, ABurstPastTheLimitIsJudgedByTheBatchesSpread) {
  const auto terms = parse("p99.5<=50ms");  // 1,000 requests: 5 may be past it
  // 1 past the limit in each of two intervals: spread evenly, a clear hold.
  const report::RunReport even = batched({0, 1, 0, 0, 0, 1, 0, 0, 0, 0});
  EXPECT_FALSE(read_terms(terms, even, step_figures(even))[0].near);
  // The same 2 in one burst: the batches say a count this bursty could as well be 5.
  const report::RunReport burst = batched({0, 0, 0, 0, 2, 0, 0, 0, 0, 0});
  const auto read = read_terms(terms, burst, step_figures(burst));
  EXPECT_TRUE(read[0].holds);
  EXPECT_TRUE(read[0].near);
}

}  // namespace
}  // namespace pacer::capacity
