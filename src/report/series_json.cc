// See series_json.h. The field order is the lines' since they first existed:
// readers (jq, pandas, the HTML page) see the same bytes as before the points.
#include "report/series_json.h"

#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "evidence/evidence_json.h"
#include "report/error_json.h"
#include "report/printable_json.h"
#include "stats/hdr_codec.h"
#include "stats/name_table.h"

namespace pacer::report {

namespace {

using Json = nlohmann::ordered_json;


Json endpoints_json(const SeriesPoint& p, bool with_histogram) {
  Json out = Json::object();
  for (const SeriesEndpoint& e : p.endpoints) {
    Json endpoint = {{"completed", e.completed}, {"errors", e.errors}, {"failed", e.failed}};
    // Its latency (responses and timeouts, as the interval's): the interval's latency is its names' sum.
    if (e.latency) {
      endpoint["latency_ns"] = interval_latency_json(e.latency->unpack());
      if (with_histogram) endpoint["histogram"] = e.latency->base64();
    }
    out[stats::printable_name(e.name)] = std::move(endpoint);
  }
  return out;
}

}  // namespace

// RFC 3339, UTC, microseconds: "2026-12-01T14:20:01.123456Z".
std::string rfc3339_utc_us(std::int64_t unix_ns) {
  const std::int64_t floor_s = unix_ns >= 0 ? unix_ns / kNsPerS : (unix_ns - kNsPerS + 1) / kNsPerS;
  const std::time_t secs = static_cast<std::time_t>(floor_s);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, (unix_ns - floor_s * kNsPerS) / 1000);
}

Json interval_latency_json(const stats::Histogram& h) {
  Json latency = {{"count", h.total_count()}};
  if (h.total_count() > 0) {
    latency["p50"] = h.value_at_percentile(50);
    latency["p90"] = h.value_at_percentile(90);
    latency["p99"] = h.value_at_percentile(99);
    latency["max"] = h.max();
    latency["min"] = h.min();  // exact, as max: V2 keeps buckets, a report read back gets both again
  }
  return latency;
}

Json series_point_json(const SeriesPoint& p, bool with_histogram) {
  const double seconds = static_cast<double>(p.duration_ns) / 1e9;
  const stats::ErrorCounts& e = p.errors;
  const bool open_model = p.target_rate_per_s.has_value();
  Json out = {
      {"interval", p.index},
      {"start_s", static_cast<double>(p.start_ns) / 1e9},
      {"start_time", rfc3339_utc_us(p.start_unix_ns)},
      {"duration_s", seconds},
      {"drain_s", static_cast<double>(p.drain_ns) / 1e9},
      {"drain", is_drain(p)},
      {"sent", p.sent},
      {"completed", p.completed},
      {"target_rate_per_s", p.target_rate_per_s ? Json(*p.target_rate_per_s) : Json(nullptr)},
      {"achieved_rate_per_s", seconds > 0 ? static_cast<double>(p.completed) / seconds : 0.0},
      {"open_connections", p.open_connections},
      {"backlog", open_model ? Json(p.backlog) : Json(nullptr)},
      {"schedule_lag_ns", open_model ? Json(p.schedule_lag_ns) : Json(nullptr)},
      {"in_flight", p.in_flight},
      {"oldest_in_flight_ns", p.oldest_in_flight_ns},
      {"in_flight_over_interval", p.in_flight_over_interval},
      {"users", p.users ? Json(*p.users) : Json(nullptr)},
      {"bytes_read", p.bytes_read},
      {"bytes_written", p.bytes_written},
      {"errors", error_classes_json(e, e.redirect > 0, e.decode > 0)},
      {"latency_ns", interval_latency_json(p.latency.unpack())},
  };
  if (p.scenario_errors) {
    for (const auto& f : stats::ScenarioErrorCounts::kFields) out["errors"][f.name] = *p.scenario_errors.*f.member;
  }
  // The requests that failed, each once (a check on a request that had failed is not a second one).
  out["failed"] = stats::failed_requests(p.errors, p.scenario_errors ? &*p.scenario_errors : nullptr);
  if (p.stats_reset) out["stats_reset"] = true;  // only where it happened: the sums start again here
  out["status_codes"] = Json::object();
  for (const StatusCount& s : p.status_codes) out["status_codes"][std::to_string(s.code)] = s.count;
  out["endpoints"] = endpoints_json(p, with_histogram);
  // Issue 28: the workers' busy share and the process's health; the server's side.
  const evidence::IntervalEvidence* sample = p.evidence ? &*p.evidence : nullptr;
  if (!p.workers.empty() || sample != nullptr) out["client"] = evidence::interval_client_json(p.workers, sample);
  if (sample != nullptr) {
    if (Json server = evidence::interval_server_json(*sample); !server.is_null()) out["server"] = std::move(server);
  }
  if (p.shard_count > 1) out["shard"] = {{"index", p.shard_index}, {"count", p.shard_count}};
  if (with_histogram) out["histogram"] = p.latency.base64();
  return out;
}

std::string render_series_ndjson(const SeriesPoint& point, bool with_histogram) {
  Json out = series_point_json(point, with_histogram);
  return dump_printable(out, -1) + "\n";
}

}  // namespace pacer::report
