// The run's output options: what the report shows and where it goes (--latency,
// --format, -o, --hdr, --html, --csv, --csv-format, --csv-full-history), the time
// series and live view (--interval, --timeseries, --timeseries-histogram,
// --refresh, --plain). Their own option table and apply function, scanned with
// the run's (cli/run_options.h). Pure; any thread.
#pragma once

#include <span>

#include "cli/option_scan.h"
#include "cli/run_option_ids.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::output {

// Their rows (spec and apply function); the ids are cli/run_option_ids.h's.
std::span<const RunOptionRow> option_rows();

}  // namespace pacer::cli::output
