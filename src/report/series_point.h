// One interval of the kept time series (--timeseries, --html, --csv) as plain
// data that owns everything it holds: what the interval's NDJSON line carries
// (report/series_json.h renders it, report/json_reader.h reads it back), kept by
// app/live_output for RunReport::timeseries and merged by `pacer merge`
// (report/timeseries_merge.h). Unlike IntervalReport, whose histograms and
// per-name figures point into the producer's storage, a point outlives the run.
// Plain data; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "evidence/samples.h"
#include "evidence/worker_load.h"
#include "stats/counters.h"
#include "stats/histogram.h"
#include "stats/packed_histogram.h"

namespace pacer::report {

struct IntervalReport;

// The responses of one status code in the interval.
struct StatusCount {
  int code = 0;
  std::uint64_t count = 0;
  bool operator==(const StatusCount&) const = default;
};

// One request name's part of the interval (the line's endpoints object).
struct SeriesEndpoint {
  std::string name;  // the name as recorded; the line writes it printable (stats::printable_name)
  std::uint64_t completed = 0;
  std::uint64_t errors = 0;  // every class, `status` included
  std::uint64_t failed = 0;  // ended without a response
  // Its latency (responses and timeouts); nullopt when not collected (and in
  // reports from before the endpoints' histograms were kept).
  std::optional<stats::PackedHistogram> latency;
};

struct SeriesPoint {
  std::uint64_t index = 0;
  TimeNs start_ns = 0;                      // since recording started
  std::int64_t start_unix_ns = 0;           // wall clock at start_ns (the line keeps microseconds)
  TimeNs duration_ns = 0;
  TimeNs drain_ns = 0;                      // the part of duration_ns after -d's end
  std::uint64_t sent = 0;
  std::uint64_t completed = 0;
  std::uint64_t scheduled = 0;              // open model: arrivals the schedule produced (not in the line)
  std::optional<double> target_rate_per_s;  // open model; nullopt in the closed loop and the drain's record
  bool stats_reset = false;                 // the statistics started again at its start
  stats::ErrorCounts errors;
  std::optional<stats::ScenarioErrorCounts> scenario_errors;  // --scenario only
  // Packed (stats/packed_histogram.h): a kept hour of intervals stays megabytes.
  stats::PackedHistogram latency{stats::Histogram::for_latency_ns()};
  // Gauges at the interval's end (the line writes backlog and schedule_lag_ns
  // only with a target: null otherwise, and read back as 0).
  std::uint64_t open_connections = 0;
  std::uint64_t backlog = 0;
  TimeNs schedule_lag_ns = 0;
  std::uint64_t in_flight = 0;
  TimeNs oldest_in_flight_ns = 0;
  std::uint64_t in_flight_over_interval = 0;
  std::optional<std::uint64_t> users;       // --scenario: users running at the interval's end
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::vector<StatusCount> status_codes;    // ascending by code, counts > 0
  std::vector<SeriesEndpoint> endpoints;    // the names with any in the interval, in the order first seen
  // Issue 28: each worker's load over the interval, in worker order, and what the
  // main thread sampled at its end (nullopt: not sampled).
  std::vector<evidence::WorkerLoad> workers;
  std::optional<evidence::IntervalEvidence> evidence;
  // A shard's point (shard_count > 1): its figures are that shard's.
  int shard_index = 0;
  int shard_count = 1;
};

// The point of one interval, copying what it points to: the histograms (their
// recorded ranges only, not the chunks a reused histogram kept), the names of
// the endpoints with any completed or errored request, the evidence. Main thread,
// once per --interval.
SeriesPoint make_series_point(const IntervalReport& interval, int shard_index = 0, int shard_count = 1);

// The drain's own record (every nanosecond of it after -d's end), as is_drain(IntervalReport).
inline bool is_drain(const SeriesPoint& p) { return p.drain_ns > 0 && p.drain_ns == p.duration_ns; }

}  // namespace pacer::report
