// Shards' time series -> one; see the header for the rule per figure.
#include "report/timeseries_merge.h"

#include <algorithm>

#include <fmt/format.h>

namespace pacer::report {
namespace {

// a += b, refused (false, a unspecified) when the sum would pass 2^64 - 1.
bool add(std::uint64_t& a, std::uint64_t b) { return !__builtin_add_overflow(a, b, &a); }

bool add_status_codes(std::vector<StatusCount>& into, const std::vector<StatusCount>& from) {
  for (const StatusCount& s : from) {
    const auto at = std::ranges::lower_bound(into, s.code, {}, &StatusCount::code);
    if (at != into.end() && at->code == s.code) {
      if (!add(at->count, s.count)) return false;
    } else {
      into.insert(at, s);
    }
  }
  return true;
}

// The counts and gauges that add; false when one would pass 2^64 - 1.
bool add_counts(SeriesPoint& into, const SeriesPoint& from) {
  bool fits = add(into.sent, from.sent) && add(into.completed, from.completed) && add(into.scheduled, from.scheduled) &&
              add(into.open_connections, from.open_connections) && add(into.backlog, from.backlog) &&
              add(into.in_flight, from.in_flight) && add(into.in_flight_over_interval, from.in_flight_over_interval) &&
              add(into.bytes_read, from.bytes_read) && add(into.bytes_written, from.bytes_written);
  for (const auto& f : stats::ErrorCounts::kFields) fits = fits && add(into.errors.*f.member, from.errors.*f.member);
  if (from.scenario_errors) {
    if (!into.scenario_errors) into.scenario_errors.emplace();
    for (const auto& f : stats::ScenarioErrorCounts::kFields) {
      fits = fits && add(*into.scenario_errors.*f.member, *from.scenario_errors.*f.member);
    }
    fits = fits && add(into.scenario_errors->check_on_errors, from.scenario_errors->check_on_errors);
  }
  if (from.users) {
    std::uint64_t users = into.users.value_or(0);
    fits = fits && add(users, *from.users);
    into.users = users;
  }
  return fits && add_status_codes(into.status_codes, from.status_codes);
}

// The figures that take the largest, the earliest, or either shard's.
void merge_times(SeriesPoint& into, const SeriesPoint& from) {
  into.start_ns = std::min(into.start_ns, from.start_ns);
  into.start_unix_ns = std::min(into.start_unix_ns, from.start_unix_ns);
  into.duration_ns = std::max(into.duration_ns, from.duration_ns);
  into.drain_ns = std::max(into.drain_ns, from.drain_ns);
  into.schedule_lag_ns = std::max(into.schedule_lag_ns, from.schedule_lag_ns);
  into.oldest_in_flight_ns = std::max(into.oldest_in_flight_ns, from.oldest_in_flight_ns);
  if (from.target_rate_per_s) into.target_rate_per_s = into.target_rate_per_s.value_or(0) + *from.target_rate_per_s;
  into.stats_reset = into.stats_reset || from.stats_reset;
}

Status merge_histogram(stats::Histogram& into, const stats::Histogram& from, const std::string& where) {
  switch (into.merge_checked(from)) {
    case stats::Histogram::MergeOutcome::kMerged: return Ok{};
    case stats::Histogram::MergeOutcome::kLayoutDiffers: return bad_input(where + ": not the latency layout");
    case stats::Histogram::MergeOutcome::kCountOverflows:
      return bad_input(where + ": the merged count would pass 2^63 - 1");
  }
  return Ok{};
}

Status merge_endpoints(SeriesPoint& into, const SeriesPoint& from, const std::string& where) {
  for (const SeriesEndpoint& e : from.endpoints) {
    const auto same = std::ranges::find(into.endpoints, e.name, &SeriesEndpoint::name);
    if (same == into.endpoints.end()) {
      into.endpoints.push_back(e);
      continue;
    }
    if (!add(same->completed, e.completed) || !add(same->errors, e.errors) || !add(same->failed, e.failed)) {
      return bad_input(where + ": the merged count would pass 2^64 - 1");
    }
    if (!e.latency) continue;  // a report from before the endpoints' histograms adds none
    if (!same->latency) {
      same->latency = e.latency;
      continue;
    }
    stats::Histogram sum = same->latency->unpack();
    if (auto merged = merge_histogram(sum, e.latency->unpack(),
                                      fmt::format("{}.endpoints[\"{}\"].histogram", where, e.name));
        !merged) {
      return merged.error();
    }
    same->latency = stats::PackedHistogram(sum);
  }
  return Ok{};
}

// Shard i's interval k into the merge's (`into` holds the earlier shards').
Status merge_point(SeriesPoint& into, const SeriesPoint& from, const std::string& name, std::size_t k) {
  const std::string where = fmt::format("{}: timeseries[{}]", name, k);
  if (!add_counts(into, from)) return bad_input(where + ": the merged count would pass 2^64 - 1");
  merge_times(into, from);
  stats::Histogram latency = into.latency.unpack();
  if (auto merged = merge_histogram(latency, from.latency.unpack(), where + ".histogram"); !merged) return merged.error();
  into.latency = stats::PackedHistogram(latency);
  if (auto merged = merge_endpoints(into, from, where); !merged) return merged.error();
  into.workers.insert(into.workers.end(), from.workers.begin(), from.workers.end());
  if (!into.evidence && from.evidence) into.evidence = from.evidence;
  return Ok{};
}

}  // namespace

Result<std::optional<std::vector<SeriesPoint>>> merge_timeseries(const std::vector<RunReport>& shards,
                                                                 const std::vector<std::string>& names) {
  std::size_t longest = 0;
  for (const RunReport& r : shards) {
    if (!r.timeseries) return std::optional<std::vector<SeriesPoint>>{};
    longest = std::max(longest, r.timeseries->size());
  }
  std::vector<SeriesPoint> merged;
  merged.reserve(longest);
  for (std::size_t k = 0; k < longest; ++k) {
    std::optional<SeriesPoint> point;
    for (std::size_t i = 0; i < shards.size(); ++i) {
      if (k >= shards[i].timeseries->size()) continue;
      const SeriesPoint& part = (*shards[i].timeseries)[k];
      if (!point) {
        // The first shard's interval, as no shard's: the merge's.
        point = part;
        point->index = k;
        point->shard_index = 0;
        point->shard_count = 1;
        continue;
      }
      if (auto added = merge_point(*point, part, names[i], k); !added) return added.error();
    }
    merged.push_back(std::move(*point));
  }
  return std::optional<std::vector<SeriesPoint>>(std::move(merged));
}

}  // namespace pacer::report
