// `pacer report BASE.json CAND.json --compare`: each headline
// figure's change from the baseline to the candidate, the --max-regression bounds
// checked against them, the text table for stdout and the "pacer-compare" JSON the
// HTML page draws (web/report.js). A side is its runs as typed reports: one run's,
// or a --repeat report's (report/report_runs.h). Pure; main thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "html/compare_noise.h"
#include "report/run_report.h"

namespace pacer::html {

// One headline figure of both runs. change = (candidate - baseline) / baseline;
// nullopt when the baseline is 0 and the candidate is not.
struct FigureChange {
  std::string figure;      // its name in --max-regression: requests, rps, errors, error_rate, p50 ... max, mean
  std::string label;       // for people
  std::string unit;        // "ns", "/s", "" (a count) or "fraction"
  double baseline = 0;
  double candidate = 0;
  std::optional<double> change;
  bool higher_is_worse = true;  // latency and errors; false for throughput
  // Issue 28: whether the change is beyond the noise (html/compare_noise.h).
  Significance significance;
};

// --max-regression p99=10%,rps=5%: how much worse a figure may get, as a fraction.
struct RegressionBound {
  std::string figure;
  double limit = 0;  // 0.10 for 10%
};

struct BoundResult {
  RegressionBound bound;
  std::optional<double> change;  // nullopt: from 0 to more than 0
  bool broken = false;           // worse by more than the limit
  Significance significance;     // the figure's (compare_noise.h)
  // A regression that counts for the exit code: broken and significant, or broken
  // with significance unknown, or broken under --strict.
  bool counts(bool strict) const { return broken && (strict || significance.significant || !significance.known); }
  // Broken, but within noise too large to judge (issue 43): neither a pass nor a
  // regression; `pacer report` exits 4 (ExitCode::kUndecided) when no bound counts.
  bool undecided(bool strict) const { return broken && !counts(strict); }
};

// Parses "p99=10%,rps=5%" (percentages; a figure named at most once). kBadArgument
// naming the flag and the part at fault.
Result<std::vector<RegressionBound>> parse_regression_bounds(std::string_view text, std::string_view flag);

// The figures of two sides (a side of several runs, a --repeat report's, has the
// medians of its runs' figures; a side without runs has 0s), each with its significance.
std::vector<FigureChange> compare_reports(const std::vector<report::RunReport>& baseline,
                                          const std::vector<report::RunReport>& candidate);

std::vector<BoundResult> check_bounds(const std::vector<FigureChange>& changes,
                                      const std::vector<RegressionBound>& bounds);

// What would settle an undecided bound: "about 12 runs a side (--repeat 12) would
// settle it", or that more than kMaxRunsToSettle would be needed.
std::string settle_words(const Significance& s);

// The table printed on stdout: figure, baseline, candidate, change; then one line
// per bound ("p99: +12.00% > 10.00%: regression").
std::string render_compare_text(const std::vector<FigureChange>& changes, const std::vector<BoundResult>& bounds,
                                const std::string& baseline_name, const std::string& candidate_name);

// {"schema": "pacer-compare", baseline_name, candidate_name, baseline, candidate,
// changes, bounds}: what the HTML page draws; a side is the JSON report of its run
// (of several, the run with the median p99). Neither side may be empty.
std::string render_compare_json(const std::vector<report::RunReport>& baseline,
                                const std::vector<report::RunReport>& candidate,
                                const std::vector<FigureChange>& changes, const std::vector<BoundResult>& bounds,
                                const std::string& baseline_name, const std::string& candidate_name);

}  // namespace pacer::html
