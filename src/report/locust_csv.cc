// JSON report -> Locust's CSV files; see the header. Locust 2.12's rules, from
// locust/stats.py: requests count every request that ended (failures too);
// failures count every error, a status >= 400 included; min, max and average are
// exact (ms as floats); the median and percentiles come from response times
// rounded to 2 significant digits (whole ms below 100 ms), percentiles printed
// as whole ms; rates per second of the run; "N/A" percentiles when a row has no
// requests. Quoting as Python's csv module, a name that would start a formula
// neutralised as pacer's own --csv does (report/csv_cell.h).
#include "report/locust_csv.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <iterator>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "report/csv_cell.h"
#include "stats/hdr_codec.h"

namespace pacer::report {
namespace {

using json = nlohmann::ordered_json;

constexpr double kPercentiles[] = {0.50, 0.66, 0.75, 0.80, 0.90, 0.95, 0.98, 0.99, 0.999, 0.9999, 1.0};
constexpr const char* kPercentileNames = "50%,66%,75%,80%,90%,95%,98%,99%,99.9%,99.99%,100%";

// Locust's Type and Name: pacer's "METHOD /path" names split at the space.
std::pair<std::string, std::string> type_and_name(const std::string& name) {
  const std::size_t space = name.find(' ');
  const bool has_method = space != std::string::npos && space > 0 && space + 1 < name.size() &&
                          std::all_of(name.begin(), name.begin() + static_cast<std::ptrdiff_t>(space),
                                      [](char c) { return c >= 'A' && c <= 'Z'; });
  if (!has_method) return {"", name};
  return {name.substr(0, space), name.substr(space + 1)};
}

std::uint64_t errors_total(const json& errors, bool with_status) {
  std::uint64_t total = 0;
  if (!errors.is_object()) return 0;
  for (const auto& [key, value] : errors.items()) {
    if (key == "check" || key == "script" || (!with_status && key == "status")) continue;  // not requests
    if (value.is_number_unsigned()) total += value.get<std::uint64_t>();
  }
  return total;
}

Result<stats::Histogram> histogram_of(const json& holder, const char* key, const std::string& what) {
  const std::string encoded = holder.is_object() ? holder.value(key, std::string()) : std::string();
  if (encoded.empty()) return stats::Histogram::for_latency_ns();
  auto h = stats::decode_v2_base64(encoded);
  if (!h) return bad_input(fmt::format("{}: latency histogram: {}", what, h.error().message));
  return h;
}

// One row's figures in Locust's terms.
struct LocustEntry {
  std::string type, name;
  std::uint64_t requests = 0, failures = 0;
  stats::Histogram latency = stats::Histogram::for_latency_ns();
  double min_ms = 0, max_ms = 0, mean_ms = 0;  // exact when the summary has them
  std::uint64_t status_errors = 0;             // among failures: responses with a status >= 400
  bool requests_known = true;                  // a history's total: false once an interval could not tell
};

std::string median_text(const LocustEntry& e) {
  const std::int64_t count = e.latency.total_count();
  if (count == 0) return "0";
  const auto times = locust_response_times(e.latency);
  const double median = locust_median(times, count);
  if (median > e.max_ms) return python_float(e.max_ms);
  if (median < e.min_ms) return python_float(e.min_ms);
  return median < 100 ? fmt::format("{}", static_cast<std::int64_t>(median)) : python_float(median);
}

std::string percentile_fields(const LocustEntry& e) {
  const std::int64_t count = e.latency.total_count();
  std::string out;
  const auto times = locust_response_times(e.latency);
  for (double p : kPercentiles) {
    out += ',';
    out += count == 0 || e.requests == 0 ? std::string("N/A")
                                         : fmt::format("{}", static_cast<std::int64_t>(locust_percentile(times, count, p)));
  }
  return out;
}

// Request Count .. Max Response Time as the stats file and the history's totals print them.
std::string totals_fields(const LocustEntry& e) {
  const bool has = e.latency.total_count() > 0;
  return fmt::format("{},{},{},{},{},{}", e.requests, e.failures, median_text(e), python_float(has ? e.mean_ms : 0.0),
                     has ? python_float(e.min_ms) : "0", has ? python_float(e.max_ms) : "0");
}

// A history row's totals: the intervals' histograms added up (min, max and
// average from the sum, as the histograms keep them).
void add_latency(LocustEntry& e, const stats::Histogram& h) {
  e.latency.merge(h);
  if (e.latency.total_count() == 0) return;
  e.min_ms = static_cast<double>(e.latency.min()) / 1e6;
  e.max_ms = static_cast<double>(e.latency.max()) / 1e6;
  e.mean_ms = e.latency.mean() / 1e6;
}

LocustEntry entry_from_summary(std::string type, std::string name, std::uint64_t requests, std::uint64_t failures,
                               stats::Histogram h, const json& summary) {
  LocustEntry e{std::move(type), std::move(name), requests, failures, std::move(h)};
  if (e.latency.total_count() > 0) {
    e.min_ms = static_cast<double>(summary.value("min_ns", e.latency.min())) / 1e6;
    e.max_ms = static_cast<double>(summary.value("max_ns", e.latency.max())) / 1e6;
    e.mean_ms = summary.value("mean_ns", e.latency.mean()) / 1e6;
  }
  return e;
}

Result<std::vector<LocustEntry>> endpoint_entries(const json& r) {
  std::vector<LocustEntry> out;
  if (!r.contains("endpoints") || !r["endpoints"].is_array()) return out;
  for (const json& ep : r["endpoints"]) {
    const std::string name = ep.value("name", std::string("?"));
    const json errors = ep.value("errors", json::object());
    auto h = histogram_of(ep.value("latency", json()), "histogram", name);
    if (!h) return h.error();
    auto [type, path] = type_and_name(name);
    out.push_back(entry_from_summary(std::move(type), std::move(path),
                                     ep.value("responses", std::uint64_t{0}) + errors_total(errors, false),
                                     errors_total(errors, true), std::move(*h), ep.value("latency", json())));
    out.back().status_errors = errors.value("status", std::uint64_t{0});
    if (out.back().requests == 0 && out.back().failures == 0) out.pop_back();  // as Locust leaves out names never used
  }
  // Locust sorts its entries by (name, method).
  std::sort(out.begin(), out.end(), [](const LocustEntry& a, const LocustEntry& b) {
    return std::tie(a.name, a.type) < std::tie(b.name, b.type);
  });
  return out;
}

std::string stats_row(const LocustEntry& e, double seconds) {
  const double per_s = seconds > 0 ? static_cast<double>(e.requests) / seconds : 0.0;
  const double fail_per_s = seconds > 0 ? static_cast<double>(e.failures) / seconds : 0.0;
  // Average Content Size: pacer keeps no body sizes per name; left empty, not 0 (a figure it does not know).
  return fmt::format("{},{},{},,{},{}{}\r\n", csv_cell(e.type), csv_cell(e.name), totals_fields(e), python_float(per_s),
                     python_float(fail_per_s), percentile_fields(e));
}

// Unix seconds at the end of an interval: its RFC 3339 start plus its duration.
std::int64_t interval_end_unix_s(const json& point) {
  const std::string start = point.value("start_time", std::string());
  std::tm tm{};
  if (start.size() < 19 || strptime(start.substr(0, 19).c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) return 0;
  const double fraction = start.size() > 20 && start[19] == '.' ? std::atof(("0" + start.substr(19)).c_str()) : 0.0;
  return static_cast<std::int64_t>(static_cast<double>(timegm(&tm)) + fraction + point.value("duration_s", 0.0));
}

// The users an interval ran: its own figure when the engine gives one, else the run's.
std::string user_count(const json& point, const json& r) {
  if (point.contains("users") && point["users"].is_number_unsigned()) return point["users"].dump();
  const json scenario = r.value("scenario", json());
  if (scenario.is_object()) return std::to_string(scenario.value("user_limit", std::uint64_t{0}));
  return std::to_string(r.value("config", json::object()).value("connections", 0));
}

Result<std::string> render_history(const json& r, const std::vector<LocustEntry>& names, bool full_history) {
  std::string out = fmt::format(
      "Timestamp,User Count,Type,Name,Requests/s,Failures/s,{},Total Request Count,Total Failure Count,"
      "Total Median Response Time,Total Average Response Time,Total Min Response Time,Total Max Response Time,"
      "Total Average Content Size\r\n", kPercentileNames);
  if (!r.contains("timeseries") || !r["timeseries"].is_array()) return out;
  LocustEntry total{"", "Aggregated"};
  std::map<std::string, LocustEntry> name_totals;  // each name's so far
  for (const json& point : r["timeseries"]) {
    if (point.value("stats_reset", false)) {  // POST /stats/reset: Locust's totals start again too
      total = LocustEntry{"", "Aggregated"};
      name_totals.clear();
    }
    const double secs = point.value("duration_s", 0.0);
    const json errors = point.value("errors", json::object());
    const std::uint64_t requests = point.value("completed", std::uint64_t{0}) + errors_total(errors, false);
    const std::uint64_t failures = errors_total(errors, true);
    auto h = histogram_of(point, "histogram", fmt::format("interval {}", point.value("interval", 0)));
    if (!h) return h.error();
    const std::string head = fmt::format("{},{}", interval_end_unix_s(point), user_count(point, r));
    if (full_history) {
      const json endpoints = point.value("endpoints", json::object());
      for (const LocustEntry& n : names) {
        const std::string key = n.type.empty() ? n.name : n.type + " " + n.name;
        const json counts = endpoints.value(key, json::object());
        // Per name an interval has responses (any status), errors (a status >= 400 among them) and
        // the requests that ended without a response (`failed`). Reports older than `failed`: the
        // requests that ended are exact when the name's errors were all of one kind.
        const std::uint64_t errs = counts.value("errors", std::uint64_t{0});
        const std::uint64_t completed = counts.value("completed", std::uint64_t{0});
        const bool has_failed = counts.contains("failed") || counts.empty();
        const std::uint64_t ended =
            has_failed ? completed + counts.value("failed", std::uint64_t{0})
                       : (n.status_errors == 0 ? completed + errs : completed);
        const bool exact = has_failed || n.status_errors == 0 || n.status_errors == n.failures;
        auto latency = histogram_of(counts, "histogram",
                                    fmt::format("interval {} endpoint {}", point.value("interval", 0), key));
        if (!latency) return latency.error();
        LocustEntry& so_far = name_totals.try_emplace(key, LocustEntry{n.type, n.name}).first->second;
        so_far.requests += ended;
        so_far.failures += errs;
        add_latency(so_far, *latency);
        const std::string rate = exact ? fmt::format("{:f}", secs > 0 ? static_cast<double>(ended) / secs : 0.0) : "N/A";
        out += fmt::format("{},{},{},{},{:f}", head, csv_cell(n.type), csv_cell(n.name), rate,
                           secs > 0 ? static_cast<double>(errs) / secs : 0.0);
        // The interval's own percentiles (Locust's "current" ones), then the name's totals so far.
        out += percentile_fields(LocustEntry{n.type, n.name, ended, errs, std::move(*latency)});
        so_far.requests_known = so_far.requests_known && exact;
        std::string totals = totals_fields(so_far);
        if (!so_far.requests_known) totals = "N/A" + totals.substr(totals.find(','));
        out += "," + totals + ",\r\n";
      }
    }
    total.requests += requests;
    total.failures += failures;
    add_latency(total, *h);
    // Without the full history Locust prints the run's percentiles so far; with it, the current ones (the interval's).
    LocustEntry current{"", "Aggregated", requests, failures, std::move(*h)};
    out += fmt::format("{},,Aggregated,{:f},{:f}{},{},\r\n", head, secs > 0 ? static_cast<double>(requests) / secs : 0.0,
                       secs > 0 ? static_cast<double>(failures) / secs : 0.0,
                       percentile_fields(full_history ? current : total), totals_fields(total));
  }
  return out;
}

std::string error_text(const std::string& error_class) {
  if (error_class == "status") return "HTTP status >= 400";
  return error_class;
}

std::string render_failures(const json& r) {
  std::string out = "Method,Name,Error,Occurrences\r\n";
  if (!r.contains("endpoints") || !r["endpoints"].is_array()) return out;
  std::vector<std::tuple<std::string, std::string, std::string, std::uint64_t>> rows;
  for (const json& ep : r["endpoints"]) {
    auto [type, name] = type_and_name(ep.value("name", std::string("?")));
    const json errors = ep.value("errors", json::object());
    for (const auto& [cls, count] : errors.items()) {
      if (!count.is_number_unsigned() || count.get<std::uint64_t>() == 0) continue;
      rows.emplace_back(name, type, error_text(cls), count.get<std::uint64_t>());
    }
  }
  std::sort(rows.begin(), rows.end());
  for (const auto& [name, type, error, count] : rows) {
    out += fmt::format("{},{},{},{}\r\n", csv_cell(type), csv_cell(name), csv_cell(error), count);
  }
  return out;
}

// The scenario's Lua errors (the first distinct messages pacer keeps): Locust's user exceptions.
std::string render_exceptions(const json& r) {
  std::string out = "Count,Message,Traceback,Nodes\r\n";
  const json scenario = r.value("scenario", json());
  if (!scenario.is_object() || !scenario.contains("first_messages")) return out;
  for (const json& m : scenario["first_messages"]) {
    if (m.value("class", std::string()) != "script") continue;
    out += fmt::format("{},{},{},local\r\n", m.value("count", std::uint64_t{0}), csv_cell(m.value("text", std::string())),
                       csv_cell(m.value("where", std::string())));
  }
  return out;
}

}  // namespace

std::string python_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string text = fmt::format("{}", v);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::map<double, std::int64_t> locust_response_times(const stats::Histogram& h) {
  std::map<double, std::int64_t> out;
  h.for_each_recorded([&](std::int64_t lo, std::int64_t, std::int64_t count) {
    const double ms = static_cast<double>(h.median_equivalent(lo)) / 1e6;
    // Python's round() rounds half to even, as nearbyint does in the default rounding mode.
    double key = 0;
    if (ms < 100) {
      key = std::nearbyint(ms);
    } else if (ms < 1000) {
      key = std::nearbyint(ms / 10) * 10;
    } else if (ms < 10000) {
      key = std::nearbyint(ms / 100) * 100;
    } else {
      key = std::nearbyint(ms / 1000) * 1000;
    }
    out[key] += count;
  });
  return out;
}

double locust_percentile(const std::map<double, std::int64_t>& times, std::int64_t count, double percent) {
  const auto wanted = static_cast<std::int64_t>(static_cast<double>(count) * percent);
  std::int64_t processed = 0;
  for (auto it = times.rbegin(); it != times.rend(); ++it) {
    processed += it->second;
    if (count - processed <= wanted) return it->first;
  }
  return 0;
}

double locust_median(const std::map<double, std::int64_t>& times, std::int64_t count) {
  double position = static_cast<double>(count - 1) / 2;
  double last = 0;
  for (const auto& [ms, n] : times) {
    if (position < static_cast<double>(n)) return ms;
    position -= static_cast<double>(n);
    last = ms;
  }
  return last;
}

Result<LocustCsvFiles> render_locust_csv(std::string_view report_json, bool full_history) {
  try {
    const json r = json::parse(report_json);
    if (!r.is_object() || r.value("schema", std::string()) != "pacer-report") return bad_input("not a pacer report");
    const double seconds = r.value("duration_s", 0.0);
    auto names = endpoint_entries(r);
    if (!names) return names.error();
    std::string stats = fmt::format("Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,"
                                    "Min Response Time,Max Response Time,Average Content Size,Requests/s,Failures/s,{}\r\n",
                                    kPercentileNames);
    for (const LocustEntry& e : *names) stats += stats_row(e, seconds);
    const json errors = r.at("errors");
    auto h = histogram_of(r.at("latency"), "histogram", "Aggregated");
    if (!h) return h.error();
    const LocustEntry total = entry_from_summary("", "Aggregated",
                                                 r.at("counts").value("responses", std::uint64_t{0}) + errors_total(errors, false),
                                                 errors_total(errors, true), std::move(*h), r.at("latency"));
    stats += stats_row(total, seconds);
    auto history = render_history(r, *names, full_history);
    if (!history) return history.error();
    return LocustCsvFiles{std::move(stats), std::move(*history), render_failures(r), render_exceptions(r)};
  } catch (const std::exception& e) {
    return bad_input(fmt::format("cannot make Locust's CSV from the report: {}", e.what()));
  }
}

Status write_locust_csv(std::string_view report_json, const std::string& prefix, bool full_history) {
  auto files = render_locust_csv(report_json, full_history);
  if (!files) return files.error();
  const std::pair<std::string, const std::string*> outputs[] = {
      {prefix + "_stats.csv", &files->stats},
      {prefix + "_stats_history.csv", &files->history},
      {prefix + "_failures.csv", &files->failures},
      {prefix + "_exceptions.csv", &files->exceptions},
  };
  for (const auto& [path, body] : outputs) {
    if (Status written = write_file_atomically(path, *body); !written) return written;
  }
  return Ok{};
}

}  // namespace pacer::report
