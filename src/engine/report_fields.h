// The report's "what was asked for" half, from the configuration alone.
#pragma once

#include "core/config.h"
#include "report/run_report.h"

namespace pacer::engine {

// The report's "what was asked for" fields, from the configuration alone (no
// thread count: run() sets it from the workers it starts). Also what a header
// printed before a run (--check-args, the live view) is made from.
report::RunReport make_report(const Config& config);

}  // namespace pacer::engine
