// --compare's figures and --max-regression's bounds (src/html/compare.h).
#include "html/compare.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace pacer::html {
namespace {

std::string report_json(double rps, double p99_ns, unsigned timeouts) {
  nlohmann::ordered_json r = {
      {"schema", "pacer-report"},
      {"counts", {{"responses", 1000}}},
      {"rates", {{"completed_per_s", rps}}},
      {"errors", {{"connect", 0}, {"timeout", timeouts}, {"status", 0}}},
      {"error_rate", timeouts / 1000.0},
      {"latency", {{"mean_ns", 1000.0}, {"percentiles_ns", {{"50", 500}, {"90", 900}, {"99", p99_ns}, {"99.9", 2000}, {"100", 3000}}}}},
  };
  return r.dump();
}

const FigureChange& figure(const std::vector<FigureChange>& changes, const std::string& name) {
  for (const FigureChange& c : changes) {
    if (c.figure == name) return c;
  }
  throw std::runtime_error("no figure " + name);
}

TEST(Compare, ARunAgainstItselfChangesNothing) {
  const std::string r = report_json(100, 1000, 1);
  auto changes = compare_reports(r, r);
  ASSERT_TRUE(changes);
  for (const FigureChange& c : *changes) {
    ASSERT_TRUE(c.change) << c.figure;
    EXPECT_EQ(*c.change, 0.0) << c.figure;
  }
  auto bounds = parse_regression_bounds("p99=0%,rps=0%,errors=0%", "--max-regression");
  ASSERT_TRUE(bounds);
  for (const BoundResult& b : check_bounds(*changes, *bounds)) EXPECT_FALSE(b.broken) << b.bound.figure;
}

TEST(Compare, ChangesAreRelativeToTheBaselineAndBoundsJudgeTheWorseDirection) {
  auto changes = compare_reports(report_json(100, 1000, 0), report_json(90, 1150, 0));
  ASSERT_TRUE(changes);
  EXPECT_NEAR(*figure(*changes, "rps").change, -0.10, 1e-12);
  EXPECT_NEAR(*figure(*changes, "p99").change, 0.15, 1e-12);
  auto bounds = parse_regression_bounds("p99=10%,rps=5%,p50=1%", "--max-regression");
  ASSERT_TRUE(bounds);
  const std::vector<BoundResult> results = check_bounds(*changes, *bounds);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].broken);   // p99 +15% > 10%
  EXPECT_TRUE(results[1].broken);   // rps -10%, more than 5% lower
  EXPECT_FALSE(results[2].broken);  // p50 unchanged
  // Faster and higher throughput is no regression, however large.
  const std::vector<BoundResult> better =
      check_bounds(*compare_reports(report_json(90, 1150, 0), report_json(100, 1000, 0)), *bounds);
  for (const BoundResult& b : better) EXPECT_FALSE(b.broken) << b.bound.figure;
}

TEST(Compare, ErrorsFromNoneAreARegressionWithNoPercentage) {
  auto changes = compare_reports(report_json(100, 1000, 0), report_json(100, 1000, 5));
  ASSERT_TRUE(changes);
  EXPECT_FALSE(figure(*changes, "errors").change.has_value());
  const auto results = check_bounds(*changes, *parse_regression_bounds("errors=50%", "--max-regression"));
  EXPECT_TRUE(results[0].broken);
  EXPECT_NE(render_compare_text(*changes, results, "a.json", "b.json").find("errors=50%: new (higher): REGRESSION"),
            std::string::npos);
}

TEST(Compare, BadBoundsNameTheFlagAndThePart) {
  for (const char* text : {"p99", "p99=10", "p98=10%", "p99=x%", "p99=-1%", "p99=1%,p99=2%", ""}) {
    auto bounds = parse_regression_bounds(text, "--max-regression");
    ASSERT_FALSE(bounds) << text;
    EXPECT_NE(bounds.error().message.find("--max-regression"), std::string::npos) << text;
    EXPECT_EQ(bounds.error().kind, ErrorKind::kBadArgument);
  }
}

TEST(Compare, ANonReportIsRefused) {
  EXPECT_FALSE(compare_reports(R"({"schema":"other"})", report_json(1, 1, 0)));
  EXPECT_FALSE(compare_reports(report_json(1, 1, 0), "not json"));
}

}  // namespace
}  // namespace pacer::html
