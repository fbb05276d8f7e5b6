// The JSON report's time series ("timeseries": one object per
// interval, the fields of the --timeseries NDJSON lines plus each interval's V2
// histogram) read back and merged across shards. Pure; main thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "report/run_report.h"

namespace pacer::report {

// Merges the shards' series interval by interval (interval k of every shard, each
// counting from its own start, which `pacer merge` checks agree within
// --start-tolerance): counts, error classes, gauges (connections, backlog, in
// flight) and target rates add; schedule_lag_ns, oldest_in_flight_ns, duration_s and
// drain_s take the largest; start_s and start_time the earliest; histograms merge
// exactly and latency_ns {count, p50, p90, p99, max} and achieved_rate_per_s are
// derived again from the sums. Other numeric fields (added by other modules) add.
// nullopt when a shard has no series (the merge then has none); kBadInput naming
// the file and interval for a histogram that does not decode.
Result<std::optional<std::vector<std::string>>> merge_timeseries(const std::vector<RunReport>& shards,
                                                                 const std::vector<std::string>& names);

// One interval object as the JSON report stores it: the NDJSON line's object and
// its histogram (the line written with the histogram), compact, no newline.
std::string timeseries_entry(const std::string& ndjson_line_with_histogram);

}  // namespace pacer::report
