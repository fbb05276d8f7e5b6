// run(): Config -> RunReport. Resolves once, probes the addresses, builds the
// request bytes once, starts one Worker thread per share of the connections,
// waits for them, and merges their counters and histograms. Main thread.
#pragma once

#include <atomic>

#include "core/config.h"
#include "core/expected.h"
#include "report/run_report.h"

namespace pacer::engine {

// Errors are kRuntime (exit 1): unresolvable host, no address accepting
// connections, or a resource failure at set-up. `stop` may be set from a signal
// handler to end the run early; the report is then marked interrupted.
Result<report::RunReport> run(const Config& config, const std::atomic<bool>& stop);

}  // namespace pacer::engine
