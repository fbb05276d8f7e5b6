// The run's Prometheus exports (issue 29, docs/prometheus.md): the web view's
// /metrics pages and the --prometheus-remote-write pushes, both from one
// prom::RunMetrics fed on the main thread with each --interval's figures (the
// same the live view and --timeseries get) and then the final report. Rendering
// and encoding happen here on the main thread, sending on the push thread
// (prom/pusher.h): nothing runs on a worker's thread, and a slow receiver only
// fills the bounded queue.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/config.h"
#include "prom/pusher.h"
#include "prom/run_metrics.h"
#include "report/interval_report.h"
#include "report/run_report.h"
#include "web/live_view.h"

namespace pacer::app {

// The run id every series carries: --run-id, else a Slurm job's ("slurm-JOBID",
// the same in every shard of the job), else 12 random hex digits.
std::string choose_run_id(const Config& config);

class PrometheusOutput {
 public:
  // Null when there is nothing to export (no --web, no --prometheus-remote-write).
  // With a push, prints the run id on stderr (and, for a shard with a generated
  // one, that shards sum only under one --run-id). web_view may be null.
  static std::unique_ptr<PrometheusOutput> start(const Config& config, web::LiveView* web_view);
  PrometheusOutput(const Config& config, std::string run_id, web::LiveView* web_view);

  // Main thread, in order.
  void on_interval(const report::IntervalReport& interval);
  // The final figures: published and pushed, then the pushes get up to
  // --prometheus-timeout to drain, or until `interrupt` (may be null) becomes set
  // (a Ctrl-C during the flush). Returns what became of them (nullopt: no push).
  std::optional<report::RemoteWriteSummary> finish(const report::RunReport& report,
                                                   const std::atomic<bool>* interrupt = nullptr);

  const std::string& run_id() const { return run_id_; }

 private:
  void publish(std::int64_t timestamp_ms);

  const Config& config_;
  std::string run_id_;
  web::LiveView* web_view_;
  prom::RunMetrics metrics_;
  std::unique_ptr<prom::RemoteWriter> writer_;
  std::int64_t last_timestamp_ms_ = 0;
};

}  // namespace pacer::app
