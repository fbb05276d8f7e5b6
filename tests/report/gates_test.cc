#include "report/gates.h"

#include <gtest/gtest.h>

#include "report/json.h"
#include "report/json_reader.h"
#include "report/merge.h"

namespace pacer::report {
namespace {

LatencyGate gate(LatencyGate::Statistic statistic, double percentile, TimeNs limit_ns, const char* text) {
  LatencyGate g;
  g.statistic = statistic;
  g.percentile = percentile;
  g.limit_ns = limit_ns;
  g.text = text;
  return g;
}

// 990 responses at ~1 ms and 10 at ~300 ms.
RunReport run_with_tail() {
  RunReport r;
  r.counters.responses = 1000;
  r.counters.status_counts[200] = 1000;
  r.latency.record_n(1 * kNsPerMs, 990);
  r.latency.record_n(300 * kNsPerMs, 10);
  return r;
}

TEST(Gates, PassingGatesReportNothing) {
  RunReport r = run_with_tail();
  r.slo = {gate(LatencyGate::Statistic::kPercentile, 50, 2 * kNsPerMs, "p50<2ms"),
           gate(LatencyGate::Statistic::kMax, 0, kNsPerS, "max<1s")};
  r.max_error_rate = 0.0;
  EXPECT_TRUE(failed_gates(r).empty());
}

TEST(Gates, AFailedPercentileNamesTheGateAndTheMeasuredValue) {
  RunReport r = run_with_tail();
  r.slo = {gate(LatencyGate::Statistic::kPercentile, 99.5, 250 * kNsPerMs, "p99.5<250ms"),
           gate(LatencyGate::Statistic::kMean, 0, kNsPerMs, "mean<1ms")};
  const std::vector<std::string> failures = failed_gates(r);
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0], "gate failed: p99.5<250ms (measured 300.00ms)");
  EXPECT_EQ(failures[1].rfind("gate failed: mean<1ms (measured 3.99ms)", 0), 0u) << failures[1];
}

TEST(Gates, InclusiveLimitAcceptsTheBoundItself) {
  RunReport r;
  r.counters.responses = 1;
  r.latency.record(1000);
  LatencyGate g = gate(LatencyGate::Statistic::kMax, 0, 1000, "max<=1us");
  g.inclusive = true;
  r.slo = {g};
  EXPECT_TRUE(failed_gates(r).empty());
  r.slo[0].inclusive = false;
  EXPECT_EQ(failed_gates(r).size(), 1u);
}

TEST(Gates, ALowerBoundDoesNotProveAGate) {
  RunReport r;
  r.counters.errors.timeout = 10;
  r.counters.responses = 1;
  r.counters.status_counts[200] = 1;
  r.latency.record(kNsPerMs);
  r.latency.record_n(2 * kNsPerS, 10);
  r.latency_censored.record_n(2 * kNsPerS, 10);
  r.slo = {gate(LatencyGate::Statistic::kPercentile, 99, 3 * kNsPerS, "p99<3s")};
  const std::vector<std::string> failures = failed_gates(r);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("lower bound"), std::string::npos) << failures[0];
}

TEST(Gates, ErrorRateCountsEveryClassOverEveryFinishedRequest) {
  RunReport r;
  r.counters.responses = 95;         // 5 of them 500s
  r.counters.errors.status = 5;
  r.counters.errors.timeout = 5;     // no response
  EXPECT_DOUBLE_EQ(error_rate(r), 10.0 / 100.0);
  r.max_error_rate = 0.1;
  EXPECT_TRUE(failed_gates(r).empty());
  r.max_error_rate = 0.05;
  const std::vector<std::string> failures = failed_gates(r);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0], "gate failed: max-error-rate 5% (measured 10.00%: 10 errors in 100 requests)");
}

TEST(Gates, NoLatencyMeansALatencyGateCannotPass) {
  RunReport r;
  r.slo = {gate(LatencyGate::Statistic::kPercentile, 99, kNsPerS, "p99<1s")};
  EXPECT_EQ(failed_gates(r), std::vector<std::string>{"gate failed: p99<1s (no latency was recorded)"});
}

TEST(Gates, AReportReadBackKeepsTheVerdictsItGaveAndAMergeEvaluatesAgain) {
  RunReport r = run_with_tail();
  r.url = "http://127.0.0.1/";
  r.threads = 1;
  r.connections = 1;
  r.measured_ns = kNsPerS;
  r.counters.requests_sent = 1000;
  r.slo = {gate(LatencyGate::Statistic::kPercentile, 99.5, 250 * kNsPerMs, "p99.5<250ms")};
  const std::string text = render_json(r);
  auto read = read_json_report(text, "r.json");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->slo.empty());  // not in the JSON
  EXPECT_EQ(failed_gates(*read), failed_gates(r));
  ASSERT_EQ(failed_gates(*read).size(), 1u);
  EXPECT_EQ(render_json(*read), text);
  auto merged = merge_reports({*read}, {"r.json"}, MergeRules{});
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_TRUE(failed_gates(*merged).empty());  // its gates are not known
}

}  // namespace
}  // namespace pacer::report
