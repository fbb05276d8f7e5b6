// See interval_collector.h.
#include "engine/interval_collector.h"

#include "engine/control/load_change_log.h"
#include "engine/control/reset_schedule.h"

#include <algorithm>

namespace pacer::engine {

namespace {
// A worker's counts for an interval, added to the interval's (its gauges: the
// largest lag and oldest request in flight, the others summed).
void add_worker_counts(report::IntervalReport& out, const IntervalSnapshot& s) {
  out.sent += s.sent;
  out.completed += s.completed;
  out.scheduled += s.scheduled;
  out.errors.merge(s.errors);
  out.open_connections += s.open_connections;
  out.backlog += s.backlog;
  out.schedule_lag_ns = std::max(out.schedule_lag_ns, s.schedule_lag_ns);
  out.in_flight += s.in_flight;
  out.oldest_in_flight_ns = std::max(out.oldest_in_flight_ns, s.oldest_in_flight_ns);
  out.in_flight_over_interval += s.in_flight_over_interval;
  out.bytes_read += s.bytes_read;
  out.bytes_written += s.bytes_written;
  out.connects += s.connects;
  for (std::size_t code = 0; code < s.status_counts.size(); ++code) out.status_counts[code] += s.status_counts[code];
  out.service_ns_sum += s.service_ns_sum;
}
}  // namespace

IntervalCollector::IntervalCollector(std::span<const std::unique_ptr<Worker>> workers, const SharedRun& shared,
                                     std::shared_ptr<const stats::NameTable> names, const IntervalSink& sink,
                                     const TickSink& tick)
    : workers_(workers),
      shared_(shared),
      names_(std::move(names)),
      share_(shard_share(*shared.config)),
      sink_(sink),
      tick_(tick) {}

void IntervalCollector::emit_ready() {
  while (ready(next_)) emit();
  if (tick_) tick_(monotonic_now_ns() - shared_.start_ns);
}

bool IntervalCollector::ready(std::uint64_t k) const {
  bool any = false;
  for (const auto& w : workers_) {
    const std::uint64_t published = w->intervals()->published();
    if (published > k) {
      any = true;
    } else if (!w->is_done()) {
      return false;
    }
  }
  return any;
}

void IntervalCollector::emit() {
  merged_.reset();
  merged_by_name_.reset();
  merged_ttfb_.reset();
  merged_ttfb_by_name_.reset();
  merged_connect_.reset();
  std::fill(merged_names_.begin(), merged_names_.end(), stats::NameIntervalCounts{});
  report::IntervalReport out;
  out.index = next_;
  out.start_ns = next_start_ns_;
  out.start_unix_ns = shared_.start_unix_ns + (shared_.record_from_ns - shared_.start_ns) + out.start_ns;
  TimeNs end = shared_.record_from_ns + out.start_ns;
  stats::ScenarioErrorCounts scenario_errors;
  std::uint64_t users = 0;
  bool drain = true;  // every worker's part is its drain (after the run's end)
  bool any = false;
  // The per-worker loads go into the vector of the last interval, capacity kept:
  // no allocation per interval.
  out.workers = std::move(worker_loads_);
  out.workers.clear();
  for (auto& w : workers_) {
    IntervalRing& ring = *w->intervals();
    out.workers.emplace_back();  // per worker, in order (a finished one's stays empty)
    if (ring.published() <= next_) continue;
    const IntervalSnapshot& s = ring.slot(next_);
    drain = drain && s.drain;
    any = true;
    out.workers.back() = s.load;
    add_worker_counts(out, s);
    scenario_errors.merge(s.scenario_errors);
    users += s.users;
    merged_by_name_.merge(s.latency_by_name);
    merged_.merge(s.unsent_latency);
    merged_ttfb_by_name_.merge(s.ttfb_by_name);
    merged_connect_.merge(s.connect);
    if (merged_names_.size() < s.names.size()) merged_names_.resize(s.names.size());  // a script added names
    for (std::size_t id = 0; id < s.names.size(); ++id) merged_names_[id].merge(s.names[id]);
    end = std::max(end, s.end_ns);
    ring.consume(next_);
  }
  out.duration_ns = end - (shared_.record_from_ns + out.start_ns);
  // The drain, as the workers say (the run's end may not be known before: a load shape's).
  if (any && drain) out.drain_ns = out.duration_ns;
  next_start_ns_ = out.start_ns + out.duration_ns;
  if (shared_.profile != nullptr && out.duration_ns > 0) {
    const TimeNs from = shared_.record_from_ns - shared_.start_ns + out.start_ns;
    out.target_rate_per_s = share_.rate(planned_rate_per_s(*shared_.profile, shared_.load_log, from, from + out.duration_ns));
  }
  out.stats_reset = shared_.resets != nullptr && shared_.resets->reset_generation() > 0 &&
                    shared_.resets->reset_at_ns() == shared_.record_from_ns + out.start_ns;
  if (shared_.config->is_scenario()) {
    out.scenario_errors = scenario_errors;
    out.users = users;
  }
  merged_by_name_.merge_into(merged_);  // the interval's latency: its names' and the unsent arrivals'
  out.latency = &merged_;
  out.latency_by_name = &merged_by_name_;
  merged_ttfb_by_name_.merge_into(merged_ttfb_);
  out.ttfb = &merged_ttfb_;
  out.ttfb_by_name = &merged_ttfb_by_name_;
  out.connect = &merged_connect_;
  out.names = merged_names_;
  out.name_table = names_;
  sink_(out);
  worker_loads_ = std::move(out.workers);
  ++next_;
}

}  // namespace pacer::engine
