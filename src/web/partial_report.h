// The run's JSON report so far, for the web view's /report.json while the run
// goes: the report's asked-for fields (engine::make_report) plus what the
// intervals carry (requests, responses, errors by class, status codes, bytes read
// and written, connects, latency). Connect/TLS times and the open model's
// service/queue split come only with the final report. Main thread.
#pragma once

#include <optional>
#include <string>

#include "core/config.h"
#include "report/interval_report.h"
#include "report/run_report.h"

namespace pacer::web {

class PartialReport {
 public:
  explicit PartialReport(const Config& config);
  // Adds the next --interval (as the time series has it).
  void add(const report::IntervalReport& interval);
  const report::RunReport& report() const { return report_; }
  // The JSON report so far: the intervals' figures, and null for every figure they
  // do not carry (TLS counts, connect/TLS/TTFB/service/queue times, endpoints,
  // gates): not yet known is null, never 0 (DESIGN.md 5b).
  std::string render_json() const;

 private:
  report::RunReport report_;
  double target_arrivals_ = 0;  // open model: target rate x duration, summed
  TimeNs from_ns_ = 0;          // where the summed intervals begin: 0, or a statistics reset
  std::optional<stats::ScenarioErrorCounts> scenario_errors_;  // --scenario: the intervals' check and script
};

}  // namespace pacer::web
