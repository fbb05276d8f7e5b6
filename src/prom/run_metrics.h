// The run's figures as Prometheus metric families (names, units and labels:
// docs/prometheus.md). Fed on the main thread from what the controller already
// hands the live outputs: each --interval's figures while the run goes (running
// totals: counters only grow, but for a statistics reset, POST /stats/reset,
// after which they start again from zero as the report does), then the final
// report, whose figures replace them (equal where both have them).
// Every series carries the constant labels (run id, shard, --prometheus-label).
// Never touches a worker.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "prom/metrics.h"
#include "report/interval_report.h"
#include "report/run_report.h"
#include "stats/counters.h"
#include "stats/histogram.h"

namespace pacer::prom {

// run_id, then shard="i" with --shard, then config.prometheus.labels.
Labels constant_labels(const Config& config, const std::string& run_id);

class RunMetrics {
 public:
  RunMetrics(const Config& config, Labels constant);

  // The next --interval (in order).
  void add_interval(const report::IntervalReport& interval);
  // The run's final figures; later intervals are ignored.
  void finish(const report::RunReport& report);
  bool finished() const { return finished_; }

  // Every family, in a fixed order; a family whose figures are not known yet
  // has no samples.
  std::vector<Family> families() const;

 private:
  struct Endpoint {
    std::uint64_t responses = 0;
    std::uint64_t errors = 0;  // every class, `status` included
    std::unique_ptr<stats::Histogram> latency;  // summed from the intervals, then the final report's
    std::unique_ptr<stats::Histogram> ttfb;     // alike
  };
  Labels with(std::initializer_list<Label> extra) const;
  void add_counters(std::vector<Family>& out) const;
  void add_gauges(std::vector<Family>& out) const;
  void add_histograms(std::vector<Family>& out) const;
  void add_endpoints(std::vector<Family>& out) const;

  Labels constant_;
  bool open_model_;
  bool scenario_;
  bool finished_ = false;
  stats::Counters counters_;                      // live: sent, responses, scheduled, errors
  stats::ScenarioErrorCounts scenario_errors_;
  stats::Histogram latency_ = stats::Histogram::for_latency_ns();
  std::optional<stats::Histogram> ttfb_;          // summed from the intervals, then the final report's
  std::optional<stats::Histogram> connect_;
  std::map<std::string, Endpoint> endpoints_;     // by printable name
  std::vector<std::int64_t> bounds_ns_;
  // Gauges, as of the last interval.
  std::uint64_t open_connections_ = 0;
  std::uint64_t in_flight_ = 0;
  TimeNs oldest_in_flight_ns_ = 0;
  std::uint64_t backlog_ = 0;
  std::optional<std::uint64_t> users_;  // a scenario's, as of the last interval
  TimeNs schedule_lag_ns_ = 0;
  std::optional<double> target_rate_per_s_;
  std::optional<double> achieved_rate_per_s_;
};

}  // namespace pacer::prom
