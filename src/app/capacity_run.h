// --capacity and --sweep (issue 41, docs/capacity.md): runs the search's (or the
// sweep's) steps, each a whole open-model run at the rate capacity::Search (or
// the sweep) chose, judges each by the objective and the client's own limits,
// prints a row per step as it ends, then the answer and the curve; -o and
// --format json write the pacer-capacity JSON, --html its page. Ctrl-C or the
// time budget end it with the best answer so far, said to be cut short.
// Main thread.
#pragma once

#include <functional>

#include "capacity/result.h"
#include "core/config.h"
#include "core/exit_code.h"
#include "report/run_report.h"

namespace pacer::app {

// Runs one step's configuration quietly; its report into keep whenever the run
// got as far as one (a signal's partial run too). The exit code is the run's.
using RunStep = std::function<ExitCode(const Config& step, report::RunReport* keep)>;

// Told of the search as it goes (the live web view, app/capacity_web.h): a step
// about to run (its index, its rate, 0 for the probe), the result so far after
// each step, and the whole result with its JSON at the end (always called, a
// search cut short too). Any member may be empty. Main thread.
struct SearchListener {
  std::function<void(int index, double rate_per_s, const capacity::CapacityResult& so_far)> step_started;
  std::function<void(const capacity::CapacityResult& so_far)> step_done;
  std::function<void(const capacity::CapacityResult& result, const std::string& capacity_json)> finished;
};

// received(): the signal that asked the search to stop (0: none).
ExitCode run_capacity(const Config& config, const RunStep& run_step, const std::function<int()>& received,
                      const SearchListener& listener = {});

// The search before its first step: what was asked (the objective, the
// settings), no step, no answer.
capacity::CapacityResult search_asked(const Config& config);

// The configuration of one step: the run's, at `rate` (0: the closed-loop
// probe), with the search's own outputs taken off it and its series kept.
Config step_config(const Config& config, double rate_per_s);

// The verdict on one step's run: the client's limits first (baseline: the lowest
// mean service time another step measured), then the objective's terms.
capacity::Step judge_step(const Config& config, report::RunReport run, std::optional<double> baseline_service_ns);

}  // namespace pacer::app
