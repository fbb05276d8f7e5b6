// The recorder's slices of time: wrk's rate sample every 100 ms (Req/Sec, and
// the mean latency the loop sizes its coalescing pause by) and, when an output
// draws the run over time, the interval ring's snapshots (record/interval.h).
// The recorder fills the current snapshot's histograms per request (filling());
// each boundary publishes it with the counters' growth since the last one and
// the gauges the loop reads then. A snapshot never mixes the run and its drain:
// the run's end cuts the interval it falls in. One worker thread; the
// controller reads the published slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/clock.h"
#include "engine/loop/clock.h"
#include "engine/record/interval.h"
#include "engine/run_plan.h"
#include "evidence/worker_load.h"
#include "stats/counters.h"

namespace pacer::engine {

// The gauges an interval closes with, read by the loop from the parts that own them.
struct IntervalGauges {
  std::uint64_t open_connections = 0;
  std::uint64_t backlog = 0;
  TimeNs schedule_lag_ns = 0;
  std::uint64_t in_flight = 0;
  TimeNs oldest_in_flight_ns = 0;
  std::uint64_t in_flight_over_interval = 0;
  std::optional<stats::ScenarioErrorCounts> scenario_totals;  // --scenario: checks and script errors so far
  std::uint64_t users = 0;  // --scenario: users running (started, not stopped)
};

class IntervalWriter {
 public:
  // result, load: the recorder's, which each snapshot takes its growth from.
  IntervalWriter(const SharedRun& shared, WorkerResult& result, evidence::LoadMeter& load)
      : shared_(shared), result_(result), load_(load) {}

  // Before the run: the ring (only with SharedRun::interval_ns), sized for `names`.
  void prepare(std::size_t names);
  // The loop starts at now_ns; nothing before record_from_ns (the warm-up's end) is sampled.
  void start(TimeNs now_ns, TimeNs record_from_ns);
  // The statistics start again at now_ns (the recorder's result is fresh).
  void reset(TimeNs now_ns);

  // Per recorded request: the snapshot its histograms go to (null: no ring, or
  // the last one published), its latency (the rate sample's mean), its service time.
  IntervalSnapshot* filling() const { return filling_; }
  void latency(TimeNs ns) { window_latency_ns_ += ns; }
  void served(TimeNs ns) { service_ns_sum_ += ns; }
  // A status error taken back (u:success()) that an interval already published
  // keeps: the next interval's growth starts from the new count.
  void status_error_taken_back(std::uint64_t status_errors) {
    std::uint64_t& at_start = at_interval_start_.errors.status;
    if (at_start > status_errors) at_start = status_errors;
  }

  // Every 100 ms: the rate sample. Returns the window's mean latency (ns) when a
  // sample was taken, for the loop's coalescing pause; nullopt otherwise.
  std::optional<TimeNs> sample_rate(TimeNs now_ns);
  // Publishes every interval whose boundary now_ns passed (final: the partial
  // last one too), with the gauges gauges() reads then (only then: they walk lists).
  template <typename ReadGauges>
  void close(TimeNs now_ns, bool final, ReadGauges&& gauges) {
    if (final || now_ns >= next_interval_ns_) publish_due(now_ns, final, gauges());
  }
  // The run's end (at_ns) cuts the interval it falls in: the part before it is
  // published now (at_ns its end), the drain after it goes on in the next one.
  template <typename ReadGauges>
  void cut(TimeNs at_ns, TimeNs now_ns, ReadGauges&& gauges) {
    if (filling_ != nullptr) publish_cut(at_ns, now_ns, gauges());
  }
  // The next rate sample or interval boundary (no rate samples while draining).
  TimeNs next_due_ns(bool draining) const;
  IntervalRing* ring() { return ring_.get(); }

 private:
  void publish_due(TimeNs now_ns, bool final, const IntervalGauges& gauges);
  void publish_cut(TimeNs at_ns, TimeNs now_ns, const IntervalGauges& gauges);
  void publish(TimeNs end_ns, TimeNs now_ns, bool final, const IntervalGauges& gauges);

  const SharedRun& shared_;
  WorkerResult& result_;
  evidence::LoadMeter& load_;
  // The rate sample.
  TimeNs window_latency_ns_ = 0;  // latencies recorded since the last rate sample, summed
  TimeNs next_sample_ns_ = 0;
  std::uint64_t responses_at_sample_ = 0;
  // The intervals.
  std::unique_ptr<IntervalRing> ring_;    // null unless SharedRun::interval_ns > 0
  IntervalSnapshot* filling_ = nullptr;   // the ring slot the current interval records into
  stats::Counters at_interval_start_;
  stats::ScenarioErrorCounts scenario_errors_at_interval_start_;
  TimeNs service_ns_sum_ = 0;             // open model: every recorded service time, summed
  TimeNs service_ns_at_interval_start_ = 0;
  TimeNs next_interval_ns_ = kNeverNs;
  bool cut_ = false;  // the run's end cut the intervals: the next ones are the drain's
  TimeNs closed_at_ns_ = 0;  // the end of the last interval published
};

}  // namespace pacer::engine
