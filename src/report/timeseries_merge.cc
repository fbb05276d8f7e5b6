// Shards' time series -> one; see the header. Works on the JSON objects themselves
// so fields other modules add to the interval lines survive a merge.
#include "report/timeseries_merge.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/interval_report.h"
#include "stats/hdr_codec.h"

namespace pacer::report {
namespace {

using json = nlohmann::ordered_json;

bool is_largest_field(const std::string& key) {
  return key == "schedule_lag_ns" || key == "oldest_in_flight_ns" || key == "duration_s" || key == "drain_s";
}
bool is_derived_field(const std::string& key) {
  return key == "interval" || key == "latency_ns" || key == "achieved_rate_per_s" || key == "histogram" ||
         key == "shard" || key == "start_s" || key == "start_time";
}

// into += from, field by field (see the header for the rule per field). False when
// a count would pass 2^64 - 1 (refused, never wrapped, as merge_reports does).
bool add_fields(json& into, const json& from) {
  for (auto it = from.begin(); it != from.end(); ++it) {
    const std::string& key = it.key();
    if (is_derived_field(key)) continue;
    json& slot = into[key];
    const json& value = it.value();
    if (value.is_object()) {
      if (!slot.is_object()) slot = json::object();
      if (!add_fields(slot, value)) return false;
    } else if (value.is_number()) {
      if (!slot.is_number()) {
        slot = value;
      } else if (is_largest_field(key)) {
        slot = std::max(slot.get<double>(), value.get<double>());
        if (value.is_number_unsigned() && slot.get<double>() == value.get<double>()) slot = value;
      } else if (slot.is_number_unsigned() && value.is_number_unsigned()) {
        std::uint64_t sum = 0;
        if (__builtin_add_overflow(slot.get<std::uint64_t>(), value.get<std::uint64_t>(), &sum)) return false;
        slot = sum;
      } else {
        slot = slot.get<double>() + value.get<double>();
      }
    } else if (slot.is_null()) {
      slot = value;  // null target rates of the closed loop, strings
    }
  }
  return true;
}

// The per-endpoint histograms of one shard's interval k, added into `into` (by
// name). An endpoint without one (a report from before they were kept) adds none.
Status merge_endpoint_latency(std::map<std::string, stats::Histogram>& into, const json& part, const std::string& file,
                              std::size_t k) {
  if (!part.contains("endpoints") || !part["endpoints"].is_object()) return Ok{};
  for (auto it = part["endpoints"].begin(); it != part["endpoints"].end(); ++it) {
    if (!it.value().is_object() || !it.value().contains("histogram")) continue;
    const auto hist = stats::decode_v2_base64(it.value().value("histogram", std::string()));
    const std::string where = fmt::format("{}: timeseries[{}].endpoints[\"{}\"].histogram", file, k, it.key());
    if (!hist) return bad_input(fmt::format("{}: {}", where, hist.error().message));
    const auto slot = into.try_emplace(it.key(), stats::Histogram::for_latency_ns()).first;
    if (!slot->second.merge(*hist)) return bad_input(where + ": not the latency layout");
  }
  return Ok{};
}

// Interval k of every shard that has one, merged.
Result<json> merge_interval(const std::vector<json>& parts, const std::vector<std::string>& names, std::size_t k) {
  json out = {{"interval", k}};
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  std::map<std::string, stats::Histogram> endpoint_latency;  // the endpoints' histograms, by name
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const json& p = parts[i];
    if (!p.is_object()) continue;
    const double start_s = p.value("start_s", 0.0);
    if (!out.contains("start_s") || start_s < out["start_s"].get<double>()) out["start_s"] = start_s;
    if (p.contains("start_time") && p["start_time"].is_string() &&
        (!out.contains("start_time") || p["start_time"].get<std::string>() < out["start_time"].get<std::string>())) {
      out["start_time"] = p["start_time"];
    }
    if (!add_fields(out, p)) {
      return bad_input(fmt::format("{}: timeseries[{}]: the merged count would pass 2^64 - 1", names[i], k));
    }
    const auto hist = stats::decode_v2_base64(p.value("histogram", std::string()));
    if (!hist) return bad_input(fmt::format("{}: timeseries[{}].histogram: {}", names[i], k, hist.error().message));
    if (!latency.merge(*hist)) {
      return bad_input(fmt::format("{}: timeseries[{}].histogram: not the latency layout", names[i], k));
    }
    if (auto merged = merge_endpoint_latency(endpoint_latency, p, names[i], k); !merged) return merged.error();
  }
  for (auto& [name, h] : endpoint_latency) {
    json& endpoint = out["endpoints"][name];
    endpoint["latency_ns"] = interval_latency_json(h);
    endpoint["histogram"] = stats::encode_v2_base64(h);
  }
  const double duration_s = out.value("duration_s", 0.0);
  const double completed = out.value("completed", 0.0);
  out["achieved_rate_per_s"] = duration_s > 0 ? completed / duration_s : 0.0;
  out["latency_ns"] = interval_latency_json(latency);
  out["histogram"] = stats::encode_v2_base64(latency);
  return out;
}

}  // namespace

std::string timeseries_entry(const std::string& ndjson_line_with_histogram) {
  std::string entry = ndjson_line_with_histogram;
  while (!entry.empty() && (entry.back() == '\n' || entry.back() == '\r')) entry.pop_back();
  return entry;
}

Result<std::optional<std::vector<std::string>>> merge_timeseries(const std::vector<RunReport>& shards,
                                                                 const std::vector<std::string>& names) {
  std::size_t longest = 0;
  for (const RunReport& r : shards) {
    if (!r.timeseries) return std::optional<std::vector<std::string>>{};
    longest = std::max(longest, r.timeseries->size());
  }
  std::vector<std::vector<json>> parsed(shards.size());
  for (std::size_t i = 0; i < shards.size(); ++i) {
    for (const std::string& text : *shards[i].timeseries) parsed[i].push_back(json::parse(text, nullptr, false));
  }
  std::vector<std::string> merged;
  merged.reserve(longest);
  for (std::size_t k = 0; k < longest; ++k) {
    std::vector<json> parts;
    for (const auto& series : parsed) parts.push_back(k < series.size() ? series[k] : json());
    auto interval = merge_interval(parts, names, k);
    if (!interval) return interval.error();
    merged.push_back(interval->dump());
  }
  return std::optional<std::vector<std::string>>(std::move(merged));
}

}  // namespace pacer::report
