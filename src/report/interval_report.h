// One --interval of a run, merged over the workers (plain data), and its NDJSON
// line for --timeseries. The formatter is a pure function.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <span>
#include <vector>

#include "core/clock.h"
#include "evidence/samples.h"
#include "evidence/worker_load.h"
#include "stats/counters.h"
#include "stats/histogram.h"
#include "stats/name_histograms.h"
#include "stats/name_stats.h"
#include "stats/name_table.h"

namespace pacer::report {

struct IntervalReport {
  std::uint64_t index = 0;
  TimeNs start_ns = 0;                      // since recording started
  TimeNs duration_ns = 0;                   // the last interval may differ (end of run, drain)
  TimeNs drain_ns = 0;                      // the part of duration_ns after -d's end (the drain); last line only
  std::int64_t start_unix_ns = 0;           // wall clock (CLOCK_REALTIME) at start_ns
  std::uint64_t sent = 0;
  std::uint64_t completed = 0;
  std::uint64_t scheduled = 0;              // open model: arrivals the schedule produced
  std::optional<double> target_rate_per_s;  // open model: the schedule's rate over the interval
  bool stats_reset = false;                 // the statistics started again at its start (POST /stats/reset)
  stats::ErrorCounts errors;
  std::optional<stats::ScenarioErrorCounts> scenario_errors;  // --scenario only
  const stats::Histogram* latency = nullptr;
  // The interval's time to first byte and TCP connect times (/metrics; null when not collected).
  const stats::Histogram* ttfb = nullptr;
  const stats::Histogram* connect = nullptr;
  // Gauges at the interval's end (summed over workers; the lag is the largest).
  std::uint64_t open_connections = 0;
  std::uint64_t backlog = 0;                // open model: arrivals waiting for a connection
  TimeNs schedule_lag_ns = 0;               // open model: how long the oldest of them has waited
  std::uint64_t in_flight = 0;              // requests written and not yet answered
  TimeNs oldest_in_flight_ns = 0;           // how long ago the oldest of them was written (the largest); 0: none
  std::uint64_t in_flight_over_interval = 0;  // ...of them written more than one --interval ago
  TimeNs service_ns_sum = 0;                // open model: the responses' service times, summed (a count)
  std::optional<std::uint64_t> users;       // --scenario: users running at the interval's end
  std::uint64_t bytes_read = 0;             // bytes read from the server in the interval
  std::uint64_t bytes_written = 0;          // bytes written to it (request heads and bodies)
  std::uint64_t connects = 0;               // connections opened (the first interval has the warm-up's)
  std::array<std::uint64_t, stats::kMaxStatusCode + 1> status_counts{};  // responses by status code
  // Issue 28: each worker's load over the interval (busy share, thread CPU), in
  // worker order, and what the main thread sampled at its end (the process, the
  // server, the verdicts); null until sampled (evidence/watch.h). Points into
  // the sampler's storage, like latency.
  std::vector<evidence::WorkerLoad> workers;
  const evidence::IntervalEvidence* evidence = nullptr;
  // Per request name, indexed by NameId (name_table gives the names): the
  // interval's completed responses and errors. Points into the producer's
  // storage (like latency); empty when not collected. The table is shared: an
  // interval held past the end of the run (app/live_output) still has its names.
  std::span<const stats::NameIntervalCounts> names;
  // The interval's latency by name (latency is their sum, and the unsent
  // arrivals'); null when not collected. Points into the producer's storage.
  const stats::NameHistograms* latency_by_name = nullptr;
  const stats::NameHistograms* ttfb_by_name = nullptr;  // alike, the time to first byte (/metrics)
  std::shared_ptr<const stats::NameTable> name_table;
};

// The record of the drain after -d's end (every nanosecond of it after the end):
// its own line, with no target (nothing new was due).
inline bool is_drain(const IntervalReport& in) { return in.drain_ns > 0 && in.drain_ns == in.duration_ns; }

// The interval's NDJSON line for --timeseries (with "\n"): its SeriesPoint
// (report/series_point.h) rendered by render_series_ndjson (report/series_json.h,
// which lists the fields). A shard's lines (shard_count > 1) carry "shard":
// {"index", "count"}: their figures, target_rate_per_s included, are that shard's.
// with_histogram: the interval's latency as HdrHistogram V2, each endpoint's too.
std::string render_interval_ndjson(const IntervalReport& interval, bool with_histogram, int shard_index = 0,
                                   int shard_count = 1);

// An interval's plain counts and the run total each adds up to: the one table the
// interval sums (report/interval_sum.h) and the live Prometheus counters
// (prom/run_metrics.h) walk, so a count added here reaches both.
struct IntervalCountField {
  const char* name;
  std::uint64_t IntervalReport::*interval;
  std::uint64_t stats::Counters::*run;
};
inline constexpr IntervalCountField kIntervalCounts[] = {
    {"sent", &IntervalReport::sent, &stats::Counters::requests_sent},
    {"completed", &IntervalReport::completed, &stats::Counters::responses},
    {"scheduled", &IntervalReport::scheduled, &stats::Counters::scheduled},
    {"bytes_read", &IntervalReport::bytes_read, &stats::Counters::bytes_read},
    {"bytes_written", &IntervalReport::bytes_written, &stats::Counters::bytes_written},
    {"connects", &IntervalReport::connects, &stats::Counters::connects},
};

// into += from: the counts above, the error classes, the status codes and a scenario's checks.
void add_interval_counts(IntervalReport& into, const IntervalReport& from);
// The run's counters gain the interval's (the same table, towards the run's names).
void add_to_run(stats::Counters& run, const IntervalReport& interval);

}  // namespace pacer::report
