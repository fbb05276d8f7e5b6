// `pacer report`: JSON reports -> the HTML page (and CSV), or the
// comparison of two runs. Main thread.
#pragma once

#include "cli/cli.h"
#include "core/exit_code.h"

namespace pacer::app {

// 0 drawn; 2 a file missing, unreadable or not a pacer report (the message names
// it), or shards that do not merge; 3 a --max-regression bound broken (named on
// stderr); 1 an output file that cannot be written.
ExitCode run_report_command(const cli::ReportOptions& options);

}  // namespace pacer::app
