// JSON report -> CSV files; see the header. Quoting as RFC 4180 (a field with a
// comma, quote or line break is quoted, quotes doubled); a text cell that would
// start a formula is neutralised as OWASP recommends (see csv_cell()).
#include "report/csv.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/csv_cell.h"
#include "stats/hdr_codec.h"

namespace pacer::report {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kErrorClasses[] = {"connect", "tls",     "read",         "write",  "timeout", "parse",
                                         "deadline", "backlog", "unsent", "stream_reset", "goaway", "status",
                                         "check",    "script"};
constexpr double kStatsPercentiles[] = {50, 66, 75, 80, 90, 95, 98, 99, 99.9, 99.99, 100};

std::string ms(std::int64_t ns) { return fmt::format("{:.6f}", static_cast<double>(ns) / 1e6); }
std::string num(double v) { return fmt::format("{:.6f}", v); }

std::uint64_t errors_total(const json& errors) {
  std::uint64_t total = 0;
  if (errors.is_number_unsigned()) return errors.get<std::uint64_t>();
  if (!errors.is_object()) return 0;
  for (const auto& [key, value] : errors.items()) {
    if (value.is_number_unsigned()) total += value.get<std::uint64_t>();
  }
  return total;
}

// Requests that failed, each once: the report's "failed" (a scenario's check on a
// request that failed otherwise is not a second failure), else (older reports)
// every class but a scenario's `script` (a Lua error is not a request).
std::uint64_t failed_count(const json& failed, const json& errors) {
  if (failed.is_number_unsigned()) return failed.get<std::uint64_t>();
  const std::uint64_t script = errors.is_object() ? errors.value("script", std::uint64_t{0}) : 0;
  return errors_total(errors) - script;
}

// Failures without a response: what ended a request other than a response.
std::uint64_t without_response(const json& errors) {
  std::uint64_t n = errors_total(errors);
  for (const char* c : {"status", "check", "script"}) n -= errors.is_object() ? errors.value(c, std::uint64_t{0}) : 0;
  return n;
}

// requests (ended: a response or an error), failures (each failed request once,
// status >= 400 and checks included), the latency columns from the summary's
// histogram, req/s and failures/s.
Result<std::string> stats_row(const std::string& name, std::uint64_t responses, std::uint64_t failures,
                              const json& errors, const json& latency, double seconds) {
  const std::uint64_t requests = responses + without_response(errors);
  std::string row = fmt::format("{},{},{}", csv_cell(name), requests, failures);
  const std::string encoded = latency.is_object() ? latency.value("histogram", std::string()) : std::string();
  auto hist = stats::decode_v2_base64(encoded);
  if (!encoded.empty() && !hist) return bad_input(fmt::format("{}: latency histogram: {}", name, hist.error().message));
  const bool has = hist && hist->total_count() > 0;
  // V2 keeps buckets only: min and max come from the summary, exactly.
  const std::int64_t min_ns = has ? latency.value("min_ns", hist->min()) : 0;
  const std::int64_t max_ns = has ? latency.value("max_ns", hist->max()) : 0;
  const auto at = [&](double p) { return p >= 100 ? max_ns : std::min(hist->value_at_percentile(p), max_ns); };
  row += "," + (has ? ms(at(50)) : "");
  row += "," + (has ? num(latency.value("mean_ns", hist->mean()) / 1e6) : "");
  row += "," + (has ? ms(min_ns) : "") + "," + (has ? ms(max_ns) : "");
  for (double p : kStatsPercentiles) row += "," + (has ? ms(at(p)) : "");
  row += "," + num(seconds > 0 ? static_cast<double>(requests) / seconds : 0.0);
  row += "," + num(seconds > 0 ? static_cast<double>(failures) / seconds : 0.0);
  return row + "\n";
}

std::string stats_header() {
  std::string h = "name,requests,failures,median_ms,mean_ms,min_ms,max_ms";
  for (const char* p : {"p50", "p66", "p75", "p80", "p90", "p95", "p98", "p99", "p99.9", "p99.99", "p100"}) {
    h += fmt::format(",{}_ms", p);
  }
  return h + ",req_per_s,failures_per_s\n";
}

Result<std::string> render_stats(const json& r) {
  std::string out = stats_header();
  const double seconds = r.value("duration_s", 0.0);
  if (r.contains("endpoints") && r["endpoints"].is_array()) {
    for (const json& e : r["endpoints"]) {
      const json errors = e.value("errors", json());
      auto row = stats_row(e.value("name", std::string("?")), e.value("responses", std::uint64_t{0}),
                           failed_count(e.value("failed", json()), errors), errors, e.value("latency", json()),
                           seconds);
      if (!row) return row.error();
      out += *row;
    }
  }
  const json& counts = r.at("counts");
  auto total = stats_row("Aggregated", counts.value("responses", std::uint64_t{0}),
                         failed_count(counts.value("failed", json()), r.at("errors")), r.at("errors"), r.at("latency"),
                         seconds);
  if (!total) return total.error();
  return out + *total;
}

// The report's error classes: pacer's own in their usual order, then any other
// module's (redirect, decode, ...) in the report's order.
std::vector<std::string> error_classes(const json& errors) {
  std::vector<std::string> out;
  for (const char* c : kErrorClasses) {
    if (errors.is_object() && errors.contains(c)) out.emplace_back(c);
  }
  if (!errors.is_object()) return out;
  for (const auto& [key, value] : errors.items()) {
    if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
  }
  return out;
}

std::string render_history(const json& r) {
  std::string out = "interval,start_s,start_time,duration_s,drain,sent,completed,req_per_s,target_per_s,failures,"
                    "failures_per_s,p50_ms,p90_ms,p99_ms,max_ms,open_connections,in_flight,backlog";
  const std::vector<std::string> classes = error_classes(r.at("errors"));
  for (const std::string& c : classes) out += fmt::format(",errors_{}", c);
  out += "\n";
  if (!r.contains("timeseries") || !r["timeseries"].is_array()) return out;
  for (const json& p : r["timeseries"]) {
    const double secs = p.value("duration_s", 0.0);
    const json errors = p.value("errors", json::object());
    const std::uint64_t failures = failed_count(json(), errors);
    const json lat = p.value("latency_ns", json::object());
    const bool has = lat.value("count", std::uint64_t{0}) > 0;
    const auto lat_ms = [&](const char* k) { return has ? ms(lat.value(k, std::int64_t{0})) : std::string(); };
    const json target = p.value("target_rate_per_s", json());
    const auto gauge = [&](const char* k) { return p.contains(k) && !p[k].is_null() ? p[k].dump() : std::string(); };
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", p.value("interval", 0),
                       num(p.value("start_s", 0.0)), p.value("start_time", std::string()), num(secs),
                       p.value("drain", false) ? 1 : 0, p.value("sent", std::uint64_t{0}),
                       p.value("completed", std::uint64_t{0}), num(p.value("achieved_rate_per_s", 0.0)),
                       target.is_number() ? num(target.get<double>()) : "", failures,
                       num(secs > 0 ? static_cast<double>(failures) / secs : 0.0), lat_ms("p50"), lat_ms("p90"),
                       lat_ms("p99"), lat_ms("max"), gauge("open_connections"), gauge("in_flight"), gauge("backlog"));
    for (const std::string& c : classes) out += fmt::format(",{}", errors.value(c, std::uint64_t{0}));
    out += "\n";
  }
  return out;
}

// The first reason pacer kept for a class: first_error names its class before the
// colon ("connect: Connection refused"); tls_first_error is the TLS one.
std::string first_reason(const json& r, const std::string& cls) {
  if (cls == "tls" && r.contains("tls_first_error") && r["tls_first_error"].is_string()) {
    return r["tls_first_error"].get<std::string>();
  }
  if (r.contains("first_error") && r["first_error"].is_string()) {
    const std::string first = r["first_error"].get<std::string>();
    if (first.rfind(cls + ":", 0) == 0) return first;
  }
  // A scenario's check and script errors: the first message of the class.
  const json none = json::array();
  const json& messages = r.contains("scenario") && r["scenario"].is_object()
                             ? r["scenario"].value("first_messages", none) : none;
  for (const json& m : messages.is_array() ? messages : none) {
    if (m.value("class", std::string()) == cls) {
      return fmt::format("{}: {}", m.value("where", std::string()), m.value("text", std::string()));
    }
  }
  return "";
}

std::string render_failures(const json& r) {
  std::string out = "class,name,first_reason,count\n";
  const auto add = [&](const json& errors, const std::string& name, bool with_reason) {
    if (!errors.is_object()) return;
    for (const std::string& c : error_classes(errors)) {
      const std::uint64_t n = errors[c].is_number_unsigned() ? errors[c].get<std::uint64_t>() : 0;
      if (n == 0) continue;
      std::string reason = with_reason ? first_reason(r, c) : "";
      if (c == "status" && with_reason && r.contains("status_codes")) {
        for (const auto& [code, count] : r["status_codes"].items()) {
          if (std::stoi(code) >= 400) reason += fmt::format("{}{} x{}", reason.empty() ? "HTTP " : ", ", code, count.dump());
        }
      }
      out += fmt::format("{},{},{},{}\n", c, csv_cell(name), csv_cell(reason), n);
    }
  };
  if (r.contains("endpoints") && r["endpoints"].is_array()) {
    for (const json& e : r["endpoints"]) add(e.value("errors", json()), e.value("name", std::string("?")), false);
  }
  add(r.at("errors"), "Aggregated", true);
  return out;
}

}  // namespace

Result<CsvFiles> render_csv(std::string_view report_json) {
  try {
    const json r = json::parse(report_json);
    if (!r.is_object() || r.value("schema", std::string()) != "pacer-report") return bad_input("not a pacer report");
    auto stats = render_stats(r);
    if (!stats) return stats.error();
    return CsvFiles{std::move(*stats), render_history(r), render_failures(r)};
  } catch (const std::exception& e) {
    return bad_input(fmt::format("cannot make CSV from the report: {}", e.what()));
  }
}

std::string csv_stats_path(const std::string& prefix) { return prefix + "_stats.csv"; }
std::string csv_history_path(const std::string& prefix) { return prefix + "_history.csv"; }
std::string csv_failures_path(const std::string& prefix) { return prefix + "_failures.csv"; }

}  // namespace pacer::report
