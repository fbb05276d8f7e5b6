// Whether a compared figure changed beyond the noise (issue 28, docs/output.md
// "Is it significant?"). Each side is one run (a pacer report) or several (a
// `--repeat` report: its runs). With two or more runs a side the samples are the
// runs' figures; with one run a side, its intervals' figures from the time
// series. The test: a one-sided Mann-Whitney U test (report/rank_test.h), at 5 % over runs and 1 % over intervals (an
// interval resembles the next, so intervals are not as independent as runs),
// and the change of the headline figure must exceed the noise: the larger of
// the two sides' spreads (the range over runs; the interquartile range over
// intervals), relative to the baseline. The test runs in the direction the
// figure moved, so an improvement can be significant too. Pure; main thread.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/run_report.h"

namespace pacer::html {

inline constexpr double kRunsAlpha = 0.05;
inline constexpr double kIntervalsAlpha = 0.01;
inline constexpr std::size_t kMinIntervals = 5;  // a side's intervals needed for a per-interval test
inline constexpr std::size_t kMaxRunsToSettle = 100;  // --repeat's most

struct Significance {
  bool known = false;          // there were samples enough to judge
  bool significant = false;
  bool over_runs = false;      // runs (else intervals)
  std::size_t baseline_n = 0;
  std::size_t candidate_n = 0;
  double p = 1;                // one-sided, toward worse
  double spread = 0;           // the larger side's spread, relative to the baseline (0.15 for ± 15 %)
  bool every_worse = false;    // every candidate sample worse than every baseline sample
  // (significant: the change, worse or better, is beyond the noise; a regression
  // is a broken bound that is significant, compare.h)
  std::string words;           // "within the run-to-run spread of ± 15 %: not significant"
  // Judged and not significant, for a change other than 0: the runs a side at which a
  // test over runs would tell this change from the noise (runs_to_settle); none
  // when more than kMaxRunsToSettle would be needed.
  std::optional<std::size_t> runs_to_settle;
};

// The runs a side at which a comparison over runs has 80 % power, at kRunsAlpha,
// to tell a change of `change` (a fraction of the baseline) from noise whose
// standard deviation is `deviation` (the same fraction): 2 (z_0.95 + z_0.8)^2
// (deviation / change)^2, at least 3 (the fewest with which the rank test over
// runs can reach 5 %) and more than `have` (the runs a side already judged);
// nullopt past kMaxRunsToSettle, or for no change.
std::optional<std::size_t> runs_to_settle(double change, double deviation, std::size_t have);

// The samples of `figure` (compare.h's names) on one side: each run's figure
// (run_figure) when there are two or more runs, else the one run's intervals'
// from its kept time series (none without one).
std::vector<double> figure_samples(std::span<const report::RunReport> runs, std::string_view figure,
                                   double (*run_figure)(const report::RunReport&, std::string_view));

// The judgement on a change from `baseline` to `candidate` samples of a figure
// whose headline change is `change` (a fraction, nullopt: from 0).
Significance judge(const std::vector<double>& baseline, const std::vector<double>& candidate, bool over_runs,
                   std::optional<double> change, bool higher_is_worse, const char* worse_word = "worse");

}  // namespace pacer::html
