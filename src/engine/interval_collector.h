// The controller's side of the workers' interval rings (record/interval.h): on
// the main thread, it emits interval k once every worker has published it (or
// finished), merged over the workers, to the run's IntervalSink, and ticks the
// TickSink; the controller (engine/controller.h) calls it while the workers run.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "engine/interval_sink.h"
#include "engine/run_plan.h"
#include "engine/worker.h"
#include "core/shard_share.h"

namespace pacer::engine {

class IntervalCollector {
 public:
  IntervalCollector(std::span<const std::unique_ptr<Worker>> workers, const SharedRun& shared,
                    std::shared_ptr<const stats::NameTable> names, const IntervalSink& sink, const TickSink& tick);

  // Emits every interval all workers have published (or finished), then ticks.
  void emit_ready();

 private:
  bool ready(std::uint64_t k) const;
  void emit();

  std::span<const std::unique_ptr<Worker>> workers_;
  const SharedRun& shared_;
  std::shared_ptr<const stats::NameTable> names_;  // outlives the run while an interval holds it
  const ShardShare share_;  // the profile is the whole test's; this shard runs its share
  const IntervalSink& sink_;
  const TickSink& tick_;
  std::uint64_t next_ = 0;
  TimeNs next_start_ns_ = 0;  // since recording started: where the last interval ended (the run's end cuts one)
  stats::Histogram merged_ = stats::Histogram::for_latency_ns();
  stats::NameHistograms merged_by_name_;  // per name id, zeroed per interval
  stats::NameHistograms merged_ttfb_by_name_;
  stats::Histogram merged_ttfb_ = stats::Histogram::for_latency_ns();
  stats::Histogram merged_connect_ = stats::Histogram::for_latency_ns();
  std::vector<stats::NameIntervalCounts> merged_names_;  // per name id, zeroed per interval, grown as workers' are
  std::vector<evidence::WorkerLoad> worker_loads_;  // the last interval's, its capacity reused
};

}  // namespace pacer::engine
