// --web with --capacity or --sweep (issue 41): one live page for the whole search.
// The page is bound before the first step (an address in use is exit 2 before
// anything is sent); each step's run streams its intervals to it as a run does;
// a SearchListener publishes the search's progress (capacity/progress_json.h: the
// steps so far, the step running now) at each step's start and end, and at the
// end the search's JSON, which the page draws as the capacity page. The search
// itself (app/capacity_run.h) knows nothing of the page. Main thread.
#pragma once

#include <functional>

#include "app/signals.h"
#include "core/config.h"
#include "core/exit_code.h"
#include "report/run_report.h"
#include "web/live_view.h"

namespace pacer::app {

// One step's run, told of the web view (app.cc's run_and_report_to, quietly).
using RunStepOnView = std::function<ExitCode(const Config& step, report::RunReport* keep, web::LiveView* view)>;

// The search (or sweep) with its live page, kept for --web-linger after it. The
// exit code is the search's (2 when the page cannot be bound).
ExitCode run_capacity_on_web(const Config& config, StopSignals& signals, const RunStepOnView& run_step);

}  // namespace pacer::app
