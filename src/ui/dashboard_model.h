// The live view's model: what the dashboard shows, accumulated on the main thread
// from the interval reports the controller already collects (it never reads a
// worker). Two feeds: every engine interval (one per --refresh) moves the
// progress, the totals, the run-wide percentiles and the gauges; every
// --interval (the sum the time series gets) sets the "last interval" figures and
// adds a point to the sparklines. snapshot() copies out plain data for render().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "report/capacity.h"
#include "report/interval_report.h"
#include "stats/counters.h"
#include "stats/histogram.h"

namespace pacer::ui {

// What the view knows before the run starts.
struct RunInfo {
  std::string url;
  int threads = 0;
  int connections = 0;
  TimeNs warmup_ns = 0;
  TimeNs duration_ns = 0;                      // recorded duration; 0: no time limit (-n alone)
  std::optional<std::uint64_t> request_count;  // -n
  bool open_model = false;
  std::string load_model;                      // short: "closed loop", "open, constant 1000/s"
  int requests_per_connection = 1;             // --streams (HTTP/2) or --pipeline
  bool http2 = false;
  TimeNs interval_ns = kNsPerS;                // --interval: "older than the interval" is older than this
  // A shard (--shard i/N): "shard 0 of 3", and its part of the test
  // ("shard 0 of 3: 2000 of 6000 requests/s, 10 of 30 connections"); empty otherwise.
  std::string shard_label;
  std::string shard_summary;
};

// p50/p90/p99/max of a histogram, in ns; count 0 means no sample.
struct LatencyFigures {
  std::int64_t count = 0;
  std::int64_t p50_ns = 0;
  std::int64_t p90_ns = 0;
  std::int64_t p99_ns = 0;
  std::int64_t max_ns = 0;
};
LatencyFigures latency_figures(const stats::Histogram& h);

// The non-zero error classes, "timeout 2, status 5" (a scenario's "check 1,
// script 1" after them); empty when there is none.
std::string error_list(const stats::ErrorCounts& errors, const stats::ScenarioErrorCounts& scenario = {});

// One sparkline point: one --interval of the run.
struct HistoryPoint {
  TimeNs duration_ns = 0;
  std::uint64_t completed = 0;
  std::int64_t p99_ns = 0;  // 0 when the interval had no response
  TimeNs oldest_in_flight_ns = 0;  // at the interval's end: a stall shows here, not in p99
};

struct DashboardSnapshot {
  RunInfo run;
  TimeNs elapsed_ns = 0;      // since the load started, warm-up included
  TimeNs measured_ns = 0;     // recorded time the intervals so far cover
  std::uint64_t completed = 0;
  std::uint64_t sent = 0;
  double average_rate_per_s = 0;               // completed / measured
  // The last --interval (has_interval false until one has closed).
  bool has_interval = false;
  double current_rate_per_s = 0;
  std::optional<double> target_rate_per_s;     // open model
  std::optional<double> sent_rate_per_s;       // open model
  // Open model: the connections could not carry the last interval's target
  // (report/capacity.h); nullopt otherwise.
  std::optional<report::Capacity> bottleneck;
  // Issue 28: the last interval's verdicts on the client itself (evidence/verdict.h).
  std::vector<std::string> client_verdicts;
  LatencyFigures last;
  // Whole run so far.
  LatencyFigures run_latency;
  stats::ErrorCounts errors;
  stats::ScenarioErrorCounts scenario_errors;  // --scenario
  // Gauges at the last refresh.
  std::uint64_t open_connections = 0;
  std::uint64_t backlog = 0;
  TimeNs schedule_lag_ns = 0;
  std::uint64_t in_flight = 0;
  TimeNs oldest_in_flight_ns = 0;              // 0: nothing in flight
  std::uint64_t in_flight_over_interval = 0;   // in flight for longer than --interval
  std::vector<HistoryPoint> history;  // oldest first, at most DashboardModel::kMaxHistory
};

class DashboardModel {
 public:
  // Points kept for the sparklines; past it, neighbours are merged in pairs.
  static constexpr std::size_t kMaxHistory = 512;

  explicit DashboardModel(RunInfo run);

  void on_refresh(const report::IntervalReport& interval);  // every engine interval
  void on_interval(const report::IntervalReport& interval); // every --interval
  void on_tick(TimeNs since_start_ns);                      // time passing (warm-up)
  DashboardSnapshot snapshot() const;

 private:
  void compact_history();

  DashboardSnapshot state_;
  stats::Histogram run_latency_ = stats::Histogram::for_latency_ns();
};

}  // namespace pacer::ui
