// The run's report from its workers (main thread, after the join): the report's
// "what was asked for" fields from the configuration (report_fields.h), then every
// worker's counters and histograms merged, its endpoints by name id (the
// workers' per-name histograms are consumed), the earliest first errors, the
// measured window and the target rate over it.
#pragma once

#include <atomic>
#include <memory>
#include <span>

#include "core/config.h"
#include "engine/give_up.h"
#include "engine/run_plan.h"
#include "engine/worker.h"
#include "report/run_report.h"

namespace pacer::engine {

// Merges the joined workers' results into the run's report.
report::RunReport collect_report(const Config& config, const SharedRun& shared,
                                 std::span<const std::unique_ptr<Worker>> workers, const std::atomic<bool>& stop,
                                 const GiveUpWatch& give_up);

}  // namespace pacer::engine
