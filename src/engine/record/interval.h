// Per-interval figures, handed from each worker to the controller without a
// lock: the worker records the current interval straight into a slot of its ring,
// and at each interval boundary (aligned on the start of recording) fills in the
// counts and gauges and publishes it with a release store; the controller reads
// every worker's slot k once all have published it, resets its histogram, then
// marks it consumed. The worker never copies or clears a histogram (that work is
// the controller's), and nothing allocates after the ring is built.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "core/clock.h"
#include "evidence/worker_load.h"
#include "stats/counters.h"
#include "stats/histogram.h"
#include "stats/name_histograms.h"
#include "stats/name_stats.h"

namespace pacer::engine {

struct IntervalSnapshot {
  std::uint64_t sent = 0;
  std::uint64_t completed = 0;
  std::uint64_t scheduled = 0;
  stats::ErrorCounts errors;
  stats::ScenarioErrorCounts scenario_errors;  // --scenario: the interval's check and script errors
  // The interval's latencies by request name (the interval's latency is their
  // sum, made by the controller), and those of the arrivals given up unsent
  // (open model: no name yet).
  stats::NameHistograms latency_by_name;
  stats::Histogram unsent_latency = stats::Histogram::for_latency_ns();
  stats::NameHistograms ttfb_by_name;  // the interval's responses' time to first byte, by request name
  stats::Histogram connect = stats::Histogram::for_latency_ns();  // the interval's TCP connects (after the warm-up)
  TimeNs end_ns = 0;  // when the worker closed it (monotonic)
  bool drain = false; // published after the run's end cut the intervals: the drain's
  // Gauges, read when the worker closed the interval.
  std::uint64_t open_connections = 0;  // connected sockets (not connecting, not backing off)
  std::uint64_t backlog = 0;           // open model: arrivals waiting for a connection
  TimeNs schedule_lag_ns = 0;          // open model: how long the oldest of them has waited
  std::uint64_t in_flight = 0;         // requests written and not yet answered (warm-up's too)
  TimeNs oldest_in_flight_ns = 0;      // how long ago the oldest of them was written; 0: none
  std::uint64_t in_flight_over_interval = 0;  // ...of them written more than one --interval ago
  std::uint64_t users = 0;             // --scenario: users running
  std::uint64_t bytes_read = 0;        // bytes read from the server in the interval (after the warm-up)
  std::uint64_t bytes_written = 0;     // bytes written to it (request heads and bodies) alike
  std::uint64_t connects = 0;          // connections opened (the warm-up's in the first), as counters.connects
  std::array<std::uint64_t, stats::kMaxStatusCode + 1> status_counts{};  // the interval's responses by status
  // Open model: the service times (t_done - t_send) of the interval's responses,
  // summed, for the mean behind the Little's-law line (completed is their count).
  TimeNs service_ns_sum = 0;
  evidence::WorkerLoad load;  // the worker's busy share and CPU since its last interval (issue 28)
  // Per request name (indexed by NameId; sized before the run for the names known
  // then, grown by the worker when a script adds one): the interval's counts.
  std::vector<stats::NameIntervalCounts> names;
};

class IntervalRing {
 public:
  // Each slot's histograms keep the counts of the ranges they have seen (about 2 KiB
  // per octave of latency, per name), and a long run passes through every slot: three are
  // one to fill, one waiting for the controller and one of slack (with 8, a 10 s
  // run at -c50 took 0.6 MB more).
  static constexpr std::size_t kSlots = 3;

  // Worker: the slot the current interval records into (the one after the last
  // published), or nullptr if the controller has not yet consumed it.
  IntervalSnapshot* slot_to_fill() {
    const std::uint64_t published = published_.load(std::memory_order_relaxed);
    if (published - consumed_.load(std::memory_order_acquire) >= kSlots) return nullptr;
    return &slots_[published % kSlots];
  }
  // Worker: whether, once the filling slot is published, the next one is free to
  // record into. When it is not, the controller is behind and the worker keeps
  // accumulating into a longer interval instead of publishing.
  bool next_slot_free() const {
    const std::uint64_t published = published_.load(std::memory_order_relaxed);
    return published + 1 - consumed_.load(std::memory_order_acquire) < kSlots;
  }
  // Before the run: room for the counts and latencies of the name ids below `count`.
  void size_names(std::size_t count) {
    for (IntervalSnapshot& s : slots_) {
      s.names.assign(count, stats::NameIntervalCounts{});
      s.latency_by_name.prepare(count);
      s.ttfb_by_name.prepare(count);
    }
  }
  void publish() { published_.fetch_add(1, std::memory_order_release); }

  // Controller.
  std::uint64_t published() const { return published_.load(std::memory_order_acquire); }
  const IntervalSnapshot& slot(std::uint64_t index) const { return slots_[index % kSlots]; }
  // Clears the oldest published slot's histograms and hands the slot back to the worker.
  void consume(std::uint64_t index) {
    slots_[index % kSlots].latency_by_name.reset();
    slots_[index % kSlots].unsent_latency.reset();
    slots_[index % kSlots].ttfb_by_name.reset();
    slots_[index % kSlots].connect.reset();
    consumed_.fetch_add(1, std::memory_order_release);
  }

 private:
  std::array<IntervalSnapshot, kSlots> slots_;
  std::atomic<std::uint64_t> published_{0};
  std::atomic<std::uint64_t> consumed_{0};
};

}  // namespace pacer::engine
