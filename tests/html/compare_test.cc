// --compare's figures and --max-regression's bounds (src/html/compare.h), from
// typed reports as `pacer report` reads them.
#include "html/compare.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "report/json.h"

namespace pacer::html {
namespace {

// 10 s of `responses`, p50 500 ns and p99 (and max) p99_ns; `timeouts` errors.
report::RunReport run(std::uint64_t responses, std::int64_t p99_ns, std::uint64_t timeouts) {
  report::RunReport r;
  r.url = "http://127.0.0.1/";
  r.measured_ns = 10 * kNsPerS;
  r.counters.requests_sent = responses + timeouts;
  r.counters.responses = responses;
  r.counters.status_counts[200] = responses;
  r.counters.errors.timeout = timeouts;
  r.latency.record_n(500, 980);
  r.latency.record_n(p99_ns, 20);
  return r;
}

std::vector<report::RunReport> side(report::RunReport r) { return {std::move(r)}; }

const FigureChange& figure(const std::vector<FigureChange>& changes, const std::string& name) {
  for (const FigureChange& c : changes) {
    if (c.figure == name) return c;
  }
  throw std::runtime_error("no figure " + name);
}

TEST(Compare, ARunAgainstItselfChangesNothing) {
  const auto r = side(run(1000, 1000, 1));
  const std::vector<FigureChange> changes = compare_reports(r, r);
  for (const FigureChange& c : changes) {
    ASSERT_TRUE(c.change) << c.figure;
    EXPECT_EQ(*c.change, 0.0) << c.figure;
  }
  auto bounds = parse_regression_bounds("p99=0%,rps=0%,errors=0%", "--max-regression");
  ASSERT_TRUE(bounds);
  for (const BoundResult& b : check_bounds(changes, *bounds)) EXPECT_FALSE(b.broken) << b.bound.figure;
}

TEST(Compare, TheFiguresAreTheOnesTheJsonReportWrites) {
  const report::RunReport r = run(1000, 1000, 4);
  const auto doc = nlohmann::json::parse(report::render_json(r));
  const std::vector<FigureChange> changes = compare_reports(side(r), side(r));
  EXPECT_EQ(figure(changes, "requests").baseline, doc["counts"]["responses"].get<double>());
  EXPECT_EQ(figure(changes, "rps").baseline, doc["rates"]["completed_per_s"].get<double>());
  EXPECT_EQ(figure(changes, "errors").baseline, 4);
  EXPECT_EQ(figure(changes, "error_rate").baseline, doc["error_rate"].get<double>());
  EXPECT_EQ(figure(changes, "mean").baseline, doc["latency"]["mean_ns"].get<double>());
  for (const auto& [name, key] : {std::pair{"p50", "50"}, std::pair{"p90", "90"}, std::pair{"p99", "99"},
                                  std::pair{"p99.9", "99.9"}, std::pair{"max", "100"}}) {
    EXPECT_EQ(figure(changes, name).baseline, doc["latency"]["percentiles_ns"][key].get<double>()) << name;
  }
}

TEST(Compare, ChangesAreRelativeToTheBaselineAndBoundsJudgeTheWorseDirection) {
  const std::vector<FigureChange> changes = compare_reports(side(run(1000, 1000, 0)), side(run(900, 1150, 0)));
  EXPECT_NEAR(*figure(changes, "rps").change, -0.10, 1e-12);
  EXPECT_NEAR(*figure(changes, "p99").change, 0.15, 1e-12);
  auto bounds = parse_regression_bounds("p99=10%,rps=5%,p50=1%", "--max-regression");
  ASSERT_TRUE(bounds);
  const std::vector<BoundResult> results = check_bounds(changes, *bounds);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].broken);   // p99 +15% > 10%
  EXPECT_TRUE(results[1].broken);   // rps -10%, more than 5% lower
  EXPECT_FALSE(results[2].broken);  // p50 unchanged
  // Faster and higher throughput is no regression, however large.
  const std::vector<BoundResult> better =
      check_bounds(compare_reports(side(run(900, 1150, 0)), side(run(1000, 1000, 0))), *bounds);
  for (const BoundResult& b : better) EXPECT_FALSE(b.broken) << b.bound.figure;
}

TEST(Compare, ErrorsFromNoneAreARegressionWithNoPercentage) {
  const std::vector<FigureChange> changes = compare_reports(side(run(1000, 1000, 0)), side(run(1000, 1000, 5)));
  EXPECT_FALSE(figure(changes, "errors").change.has_value());
  const auto results = check_bounds(changes, *parse_regression_bounds("errors=50%", "--max-regression"));
  EXPECT_TRUE(results[0].broken);
  EXPECT_NE(render_compare_text(changes, results, "a.json", "b.json").find("errors=50%: new (higher): REGRESSION"),
            std::string::npos);
}

TEST(Compare, SeveralRunsASideCompareTheirMediansOverTheRuns) {
  const std::vector<report::RunReport> base = {run(1000, 1000, 0), run(1000, 1010, 0), run(1000, 990, 0)};
  const std::vector<report::RunReport> cand = {run(1000, 1500, 0), run(1000, 1490, 0), run(1000, 1510, 0)};
  const std::vector<FigureChange> changes = compare_reports(base, cand);
  const FigureChange& p99 = figure(changes, "p99");
  EXPECT_EQ(p99.baseline, 1000);
  EXPECT_EQ(p99.candidate, 1500);
  EXPECT_TRUE(p99.significance.over_runs);
  EXPECT_TRUE(p99.significance.significant) << p99.significance.words;
  // The page draws each side's run with the median p99, as its JSON report.
  const auto page = nlohmann::json::parse(render_compare_json(base, cand, changes, {}, "a", "b"));
  EXPECT_EQ(page["schema"], "pacer-compare");
  EXPECT_EQ(page["baseline"], nlohmann::json::parse(report::render_json(base[0])));
  EXPECT_EQ(page["candidate"], nlohmann::json::parse(report::render_json(cand[0])));
}

// One run a side: its intervals are the samples, but for the first, the drain and
// the interval before the drain.
report::RunReport run_with_intervals(std::int64_t latency_ns, std::int64_t odd_latency_ns) {
  report::RunReport r = run(1000, latency_ns, 0);
  r.timeseries.emplace();
  for (int i = 0; i < 10; ++i) {
    report::SeriesPoint p;
    p.index = static_cast<std::uint64_t>(i);
    p.duration_ns = kNsPerS;
    p.completed = 100;
    const bool odd = i == 0 || i >= 8;  // the first, the last before the drain, the drain
    if (i == 9) p.drain_ns = p.duration_ns;
    stats::Histogram latency = stats::Histogram::for_latency_ns();
    latency.record_n(odd ? odd_latency_ns : latency_ns + i, 100);
    p.latency = stats::PackedHistogram(latency);
    r.timeseries->push_back(std::move(p));
  }
  return r;
}

TEST(Compare, OneRunASideIsJudgedOverItsIntervals) {
  const std::vector<FigureChange> changes =
      compare_reports(side(run_with_intervals(1000, 1)), side(run_with_intervals(1500, 1)));
  const FigureChange& p99 = figure(changes, "p99");  // 1000 ns to 1500 ns, in the run and each interval
  EXPECT_FALSE(p99.significance.over_runs);
  EXPECT_EQ(p99.significance.baseline_n, 7u);  // 10 less the first, the drain and the one before it
  EXPECT_EQ(p99.significance.candidate_n, 7u);
  EXPECT_TRUE(p99.significance.significant) << p99.significance.words;
  // Without a time series: unknown.
  const std::vector<FigureChange> plain = compare_reports(side(run(1000, 1000, 0)), side(run(1000, 1500, 0)));
  EXPECT_FALSE(figure(plain, "p99").significance.known);
}

TEST(Compare, BadBoundsNameTheFlagAndThePart) {
  for (const char* text : {"p99", "p99=10", "p98=10%", "p99=x%", "p99=-1%", "p99=1%,p99=2%", ""}) {
    auto bounds = parse_regression_bounds(text, "--max-regression");
    ASSERT_FALSE(bounds) << text;
    EXPECT_NE(bounds.error().message.find("--max-regression"), std::string::npos) << text;
    EXPECT_EQ(bounds.error().kind, ErrorKind::kBadArgument);
  }
}

}  // namespace
}  // namespace pacer::html
