// The shards' time series (RunReport::timeseries, read back from their JSON
// reports) merged into one, interval by interval. Pure; main thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "report/run_report.h"
#include "report/series_point.h"

namespace pacer::report {

// Merges interval k of every shard that has one (each counting from its own start,
// which `pacer merge` checks agree within --start-tolerance) into the merge's
// interval k:
// - counts (sent, completed, scheduled, bytes), error classes (a scenario's check
//   and script too), status codes (per code), users, the gauges open_connections,
//   backlog, in_flight and in_flight_over_interval, and target rates add;
// - schedule_lag_ns, oldest_in_flight_ns, duration and drain take the largest;
//   start (start_ns and start_unix_ns) the earliest; stats_reset is any shard's;
// - the latency histograms merge exactly (latency_ns and achieved_rate_per_s are
//   derived from them when the point is rendered);
// - endpoints merge by name (counts add, histograms merge), in the order first seen;
// - workers: the shards' workers one after another (shard order);
// - evidence (the process, --server-pid, --server-metrics, the verdicts, sampled by
//   one shard's pacer on its own machine): the first shard's that has one, as it
//   was; the other shards' samples are not in the merge's series.
// The merge's points are no shard's (shard_count 1). nullopt when a shard has no
// series (the merge then has none). kBadInput naming the file and the interval
// ("b.json: timeseries[3]: ...") for a count that would pass 2^64 - 1 (refused,
// never wrapped, as merge_reports does) or a histogram that cannot merge.
Result<std::optional<std::vector<SeriesPoint>>> merge_timeseries(const std::vector<RunReport>& shards,
                                                                 const std::vector<std::string>& names);

}  // namespace pacer::report
