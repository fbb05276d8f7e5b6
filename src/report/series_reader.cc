// JSON report "timeseries" entry -> SeriesPoint; see series_reader.h.
#include "report/series_reader.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <limits>

#include <fmt/format.h>

namespace pacer::report {
namespace {

// The error classes present (those newer than the report are absent: none), and a
// scenario's check and script after them.
void read_errors(const Field& errors, SeriesPoint& p) {
  if (!errors.value().is_object()) errors.fail("expected an object");
  for (const auto& f : stats::ErrorCounts::kFields) {
    if (errors.has(f.name)) p.errors.*f.member = errors.at(f.name).count();
  }
  for (const auto& f : stats::ScenarioErrorCounts::kFields) {
    if (!errors.has(f.name)) continue;
    if (!p.scenario_errors) p.scenario_errors.emplace();
    *p.scenario_errors.*f.member = errors.at(f.name).count();
  }
}

// "failed" (absent from older reports): the checks on failed requests are what the
// classes count twice.
void read_failed(const Field& entry, SeriesPoint& p) {
  if (!entry.has("failed") || !p.scenario_errors) return;
  const Field failed = entry.at("failed");
  const std::uint64_t once = failed.count();
  const std::uint64_t counted = p.errors.socket_total() + p.errors.status + p.scenario_errors->check;
  if (once > counted || counted - once > p.scenario_errors->check) {
    failed.fail(fmt::format("{} does not fit the interval's errors ({} with its checks)", once, counted));
  }
  p.scenario_errors->check_on_errors = counted - once;
}

void read_status_codes(const Field& codes, SeriesPoint& p) {
  if (!codes.value().is_object()) codes.fail("expected an object");
  for (const auto& [key, value] : codes.value().items()) {
    const Field code(value, codes.path() + "." + key);
    const bool is_code = !key.empty() && key.size() <= 3 && key.find_first_not_of("0123456789") == std::string::npos;
    if (!is_code) code.fail("not a status code");
    if (const std::uint64_t n = code.count(); n > 0) p.status_codes.push_back({std::stoi(key), n});
  }
  std::ranges::sort(p.status_codes, {}, &StatusCount::code);
}

// A histogram (decoded, so a bad one is refused here) with the exact extremes its
// latency_ns gives back (V2 keeps buckets; min is absent from older reports),
// packed as the point keeps it.
stats::PackedHistogram read_packed(const Field& histogram, const Field& holder) {
  stats::Histogram h = stats::Histogram::for_latency_ns();
  read_histogram(histogram, h);
  if (h.total_count() > 0 && holder.has("latency_ns") && holder.at("latency_ns").has("max")) {
    const Field summary = holder.at("latency_ns");
    const auto extreme = [&](const char* key, std::int64_t fallback) {
      if (!summary.has(key)) return fallback;
      const std::uint64_t v = summary.at(key).count();
      return v > static_cast<std::uint64_t>(h.highest_trackable()) ? std::int64_t{-1} : static_cast<std::int64_t>(v);
    };
    const std::int64_t min = extreme("min", h.min());
    const std::int64_t max = extreme("max", h.max());
    if (min < 0 || max < 0 || !h.restore_extremes(min, max)) {
      summary.fail("min and max do not fall in the histogram's lowest and highest buckets");
    }
  }
  return stats::PackedHistogram(h);
}

void read_endpoints(const Field& list, SeriesPoint& p) {
  if (!list.value().is_object()) list.fail("expected an object");
  for (const auto& [name, value] : list.value().items()) {
    const Field item(value, fmt::format("{}[\"{}\"]", list.path(), name));
    SeriesEndpoint& e = p.endpoints.emplace_back();
    e.name = name;
    e.completed = item.at("completed").count();
    e.errors = item.at("errors").count();
    if (item.has("failed")) e.failed = item.at("failed").count();  // absent from older reports
    if (item.has("histogram")) {  // absent from reports older than the endpoints' histograms
      e.latency = read_packed(item.at("histogram"), item);
    }
  }
}

// The gauges and the other optional figures: absent from reports older than them.
void read_optional_figures(const Field& entry, SeriesPoint& p) {
  if (entry.has("drain_s")) p.drain_ns = entry.at("drain_s").seconds_ns();
  if (entry.has("target_rate_per_s") && !entry.at("target_rate_per_s").is_null()) {
    p.target_rate_per_s = entry.at("target_rate_per_s").number();
  }
  if (entry.has("open_connections")) p.open_connections = entry.at("open_connections").count();
  if (entry.has("backlog") && !entry.at("backlog").is_null()) p.backlog = entry.at("backlog").count();
  if (entry.has("schedule_lag_ns") && !entry.at("schedule_lag_ns").is_null()) {
    p.schedule_lag_ns = static_cast<TimeNs>(entry.at("schedule_lag_ns").count());
  }
  if (entry.has("in_flight")) p.in_flight = entry.at("in_flight").count();
  if (entry.has("oldest_in_flight_ns")) {
    p.oldest_in_flight_ns = static_cast<TimeNs>(entry.at("oldest_in_flight_ns").count());
  }
  if (entry.has("in_flight_over_interval")) p.in_flight_over_interval = entry.at("in_flight_over_interval").count();
  if (entry.has("users") && !entry.at("users").is_null()) p.users = entry.at("users").count();
  if (entry.has("bytes_read")) p.bytes_read = entry.at("bytes_read").count();
  if (entry.has("bytes_written")) p.bytes_written = entry.at("bytes_written").count();
  if (entry.has("stats_reset")) p.stats_reset = entry.at("stats_reset").boolean();
  if (entry.has("status_codes")) read_status_codes(entry.at("status_codes"), p);
  if (entry.has("endpoints")) read_endpoints(entry.at("endpoints"), p);
  if (entry.has("shard")) {
    const Field shard = entry.at("shard");
    p.shard_count = shard.at("count").positive_int();
    p.shard_index = read_int(shard.at("index"));
    if (p.shard_index >= p.shard_count) shard.at("index").fail("not below the shard count");
  }
}

}  // namespace

SeriesPoint read_series_point(const Field& entry) {
  if (!entry.value().is_object()) entry.fail(fmt::format("expected an object, got {}", entry.value().type_name()));
  SeriesPoint p;
  p.index = entry.at("interval").count();
  p.start_ns = entry.at("start_s").seconds_ns();
  p.start_unix_ns = read_utc_time(entry.at("start_time"), 6);
  p.duration_ns = entry.at("duration_s").seconds_ns();
  p.sent = entry.at("sent").count();
  p.completed = entry.at("completed").count();
  read_errors(entry.at("errors"), p);
  read_failed(entry, p);
  // Decoded here, by the reader every other histogram goes through, so a bad one
  // (a zlib bomb, another layout) is refused by `pacer report` as by `pacer merge`.
  p.latency = read_packed(entry.at("histogram"), entry);
  read_optional_figures(entry, p);
  if (entry.has("client")) read_interval_client(entry.at("client"), p);
  if (entry.has("server")) {
    if (!p.evidence) p.evidence.emplace();
    read_interval_server(entry.at("server"), *p.evidence);
  }
  if (p.drain_ns > p.duration_ns) entry.at("drain_s").fail("longer than duration_s");
  return p;
}

}  // namespace pacer::report
