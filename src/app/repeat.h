// --repeat N (issue 28, docs/output.md "pacer-repeat"): the same test N times in
// one invocation, --repeat-pause T apart; each run's own report as usual, then
// the runs' headline figures (rate, p50, p99, p99.9, errors) with their median,
// minimum, maximum and spread, in the text report, the JSON report (an array of
// the runs' reports plus the summary: schema "pacer-repeat") and the HTML report.
// Main thread.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/exit_code.h"
#include "report/run_report.h"

namespace pacer::app {

// One headline figure over the runs.
struct RepeatFigure {
  std::string figure;   // rps, p50, p99, p99.9, errors (as --max-regression names them)
  std::string label;
  std::vector<double> values;  // per run, in order
  double median = 0;
  double min = 0;
  double max = 0;
  double spread = 0;    // (max - min) / median; 0 when the median is 0
};

std::vector<RepeatFigure> repeat_figures(const std::vector<report::RunReport>& runs);
// The summary table ("Repeat:  3 runs ..."), ending in "\n".
std::string render_repeat_text(const std::vector<RepeatFigure>& figures, std::size_t runs, TimeNs pause_ns);
// {"schema": "pacer-repeat", "runs": [each run's JSON report], "summary": {...}}
// (report/report_runs.h reads it back).
std::string render_repeat_json(const std::vector<report::RunReport>& runs, const std::vector<RepeatFigure>& figures,
                               TimeNs pause_ns);

// Runs config N times: run_one(config_for_run, keep) runs and reports one run
// (its report into keep); returns the exit code (the first failure's, or a
// signal's, which also ends the series).
using RunOne = std::function<ExitCode(const Config&, report::RunReport* keep)>;
ExitCode run_repeated(const Config& config, const RunOne& run_one, const std::function<bool()>& stopped);

}  // namespace pacer::app
