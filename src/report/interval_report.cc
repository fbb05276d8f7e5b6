#include "report/interval_report.h"

#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "evidence/evidence_json.h"
#include "report/error_json.h"
#include "report/printable_json.h"
#include "stats/hdr_codec.h"

namespace pacer::report {

namespace {

// RFC 3339, UTC, microseconds: "2026-12-01T14:20:01.123456Z".
std::string rfc3339_utc_us(std::int64_t unix_ns) {
  const std::int64_t floor_s = unix_ns >= 0 ? unix_ns / kNsPerS : (unix_ns - kNsPerS + 1) / kNsPerS;
  const std::time_t secs = static_cast<std::time_t>(floor_s);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, (unix_ns - floor_s * kNsPerS) / 1000);
}

}  // namespace

nlohmann::ordered_json interval_latency_json(const stats::Histogram& h) {
  nlohmann::ordered_json latency = {{"count", h.total_count()}};
  if (h.total_count() > 0) {
    latency["p50"] = h.value_at_percentile(50);
    latency["p90"] = h.value_at_percentile(90);
    latency["p99"] = h.value_at_percentile(99);
    latency["max"] = h.max();
  }
  return latency;
}

std::string render_interval_ndjson(const IntervalReport& in, bool with_histogram, int shard_index, int shard_count) {
  using Json = nlohmann::ordered_json;
  const double seconds = static_cast<double>(in.duration_ns) / 1e9;
  const stats::ErrorCounts& e = in.errors;
  const stats::Histogram& h = *in.latency;
  const bool open_model = in.target_rate_per_s.has_value();
  Json out = {
      {"interval", in.index},
      {"start_s", static_cast<double>(in.start_ns) / 1e9},
      {"start_time", rfc3339_utc_us(in.start_unix_ns)},
      {"duration_s", seconds},
      {"drain_s", static_cast<double>(in.drain_ns) / 1e9},
      {"drain", is_drain(in)},
      {"sent", in.sent},
      {"completed", in.completed},
      {"target_rate_per_s", in.target_rate_per_s ? Json(*in.target_rate_per_s) : Json(nullptr)},
      {"achieved_rate_per_s", seconds > 0 ? static_cast<double>(in.completed) / seconds : 0.0},
      {"open_connections", in.open_connections},
      {"backlog", open_model ? Json(in.backlog) : Json(nullptr)},
      {"schedule_lag_ns", open_model ? Json(in.schedule_lag_ns) : Json(nullptr)},
      {"in_flight", in.in_flight},
      {"oldest_in_flight_ns", in.oldest_in_flight_ns},
      {"in_flight_over_interval", in.in_flight_over_interval},
      {"users", in.users ? Json(*in.users) : Json(nullptr)},
      {"bytes_read", in.bytes_read},
      {"bytes_written", in.bytes_written},
      {"errors", error_classes_json(e, e.redirect > 0, e.decode > 0)},
      {"latency_ns", interval_latency_json(h)},
  };
  if (in.scenario_errors) {
    for (const auto& f : stats::ScenarioErrorCounts::kFields) out["errors"][f.name] = *in.scenario_errors.*f.member;
  }
  if (in.stats_reset) out["stats_reset"] = true;  // only where it happened: the sums start again here
  out["status_codes"] = Json::object();
  for (std::size_t code = 0; code < in.status_counts.size(); ++code) {
    if (in.status_counts[code] > 0) out["status_codes"][std::to_string(code)] = in.status_counts[code];
  }
  out["endpoints"] = Json::object();
  for (std::size_t id = 0; id < in.names.size() && in.name_table != nullptr; ++id) {
    const stats::NameIntervalCounts& n = in.names[id];
    if (n.completed == 0 && n.errors == 0) continue;
    Json endpoint = {{"completed", n.completed}, {"errors", n.errors}, {"failed", n.failed}};
    // Its latency (responses and timeouts, as the interval's): the interval's latency is its names' sum.
    const stats::Histogram* latency =
        in.latency_by_name != nullptr ? in.latency_by_name->find(static_cast<stats::NameId>(id)) : nullptr;
    if (latency != nullptr) {
      endpoint["latency_ns"] = interval_latency_json(*latency);
      if (with_histogram) endpoint["histogram"] = stats::encode_v2_base64(*latency);
    }
    out["endpoints"][stats::printable_name(in.name_table->name(static_cast<stats::NameId>(id)))] = std::move(endpoint);
  }
  // Issue 28: the workers' busy share and the process's health; the server's side.
  if (!in.workers.empty() || in.evidence != nullptr) out["client"] = evidence::interval_client_json(in.workers, in.evidence);
  if (in.evidence != nullptr) {
    if (Json server = evidence::interval_server_json(*in.evidence); !server.is_null()) out["server"] = std::move(server);
  }
  if (shard_count > 1) out["shard"] = {{"index", shard_index}, {"count", shard_count}};
  if (with_histogram) out["histogram"] = stats::encode_v2_base64(h);
  return dump_printable(out, -1) + "\n";
}

}  // namespace pacer::report
