// See series_point.h.
#include "report/series_point.h"

#include "report/interval_report.h"

namespace pacer::report {

SeriesPoint make_series_point(const IntervalReport& in, int shard_index, int shard_count) {
  SeriesPoint p;
  p.index = in.index;
  p.start_ns = in.start_ns;
  p.start_unix_ns = in.start_unix_ns;
  p.duration_ns = in.duration_ns;
  p.drain_ns = in.drain_ns;
  p.sent = in.sent;
  p.completed = in.completed;
  p.scheduled = in.scheduled;
  p.target_rate_per_s = in.target_rate_per_s;
  p.stats_reset = in.stats_reset;
  p.errors = in.errors;
  p.scenario_errors = in.scenario_errors;
  if (in.latency != nullptr) p.latency = stats::PackedHistogram(*in.latency);
  p.open_connections = in.open_connections;
  p.backlog = in.backlog;
  p.schedule_lag_ns = in.schedule_lag_ns;
  p.in_flight = in.in_flight;
  p.oldest_in_flight_ns = in.oldest_in_flight_ns;
  p.in_flight_over_interval = in.in_flight_over_interval;
  p.users = in.users;
  p.bytes_read = in.bytes_read;
  p.bytes_written = in.bytes_written;
  for (std::size_t code = 0; code < in.status_counts.size(); ++code) {
    if (in.status_counts[code] > 0) p.status_codes.push_back({static_cast<int>(code), in.status_counts[code]});
  }
  for (std::size_t id = 0; id < in.names.size() && in.name_table != nullptr; ++id) {
    const stats::NameIntervalCounts& n = in.names[id];
    if (n.completed == 0 && n.errors == 0) continue;
    const auto name_id = static_cast<stats::NameId>(id);
    SeriesEndpoint& e = p.endpoints.emplace_back();
    e.name = std::string(in.name_table->name(name_id));
    e.completed = n.completed;
    e.errors = n.errors;
    e.failed = n.failed;
    const stats::Histogram* latency = in.latency_by_name != nullptr ? in.latency_by_name->find(name_id) : nullptr;
    if (latency != nullptr) e.latency = stats::PackedHistogram(*latency);
  }
  p.workers = in.workers;
  if (in.evidence != nullptr) p.evidence = *in.evidence;
  p.shard_index = shard_index;
  p.shard_count = shard_count;
  return p;
}

}  // namespace pacer::report
