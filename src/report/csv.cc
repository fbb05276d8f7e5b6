// RunReport -> CSV files; see the header. Quoting as RFC 4180 (a field with a
// comma, quote or line break is quoted, quotes doubled); a text cell that would
// start a formula is neutralised as OWASP recommends (see csv_cell()).
#include "report/csv.h"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "report/csv_cell.h"
#include "report/endpoints.h"
#include "report/failures.h"
#include "report/gates.h"
#include "report/series_json.h"
#include "stats/name_table.h"

namespace pacer::report {
namespace {

// The classes pacer's CSV lists first, in this order; the report's others follow.
constexpr const char* kErrorClasses[] = {"connect", "tls",     "read",         "write",  "timeout", "parse",
                                         "deadline", "backlog", "unsent", "stream_reset", "goaway", "status",
                                         "check",    "script"};
constexpr double kStatsPercentiles[] = {50, 66, 75, 80, 90, 95, 98, 99, 99.9, 99.99, 100};

std::string ms(std::int64_t ns) { return fmt::format("{:.6f}", static_cast<double>(ns) / 1e6); }
std::string num(double v) { return fmt::format("{:.6f}", v); }

// The report's error classes (its JSON "errors"): every class but redirect and
// decode when their option was off, a scenario's check and script; pacer's own
// first in kErrorClasses' order, then the others in the report's.
std::vector<std::string> error_classes(const RunReport& r) {
  std::vector<std::string> present;
  for (const auto& f : stats::ErrorCounts::kFields) {
    if (f.member == &stats::ErrorCounts::redirect && r.follow_redirects == 0) continue;
    if (f.member == &stats::ErrorCounts::decode && !r.compressed) continue;
    present.emplace_back(f.name);
  }
  if (r.scenario.active) {
    present.emplace_back("check");
    present.emplace_back("script");
  }
  std::vector<std::string> out;
  for (const char* c : kErrorClasses) {
    if (std::find(present.begin(), present.end(), c) != present.end()) out.emplace_back(c);
  }
  for (const std::string& c : present) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

// One class's count in an ErrorCounts and a scenario's (check, script) figures.
std::uint64_t class_count(const std::string& c, const stats::ErrorCounts& errors, std::uint64_t check,
                          std::uint64_t script) {
  if (c == "check") return check;
  if (c == "script") return script;
  for (const auto& f : stats::ErrorCounts::kFields) {
    if (c == f.name) return errors.*f.member;
  }
  return 0;
}

// requests (ended: a response or an error), failures (each failed request once,
// status >= 400 and checks included), the latency columns (min and max exact),
// req/s and failures/s.
std::string stats_row(const std::string& name, std::uint64_t requests, std::uint64_t failures,
                      const stats::Histogram& h, double seconds) {
  std::string row = fmt::format("{},{},{}", csv_cell(name), requests, failures);
  const bool has = h.total_count() > 0;
  const auto at = [&](double p) { return p >= 100 ? h.max() : std::min(h.value_at_percentile(p), h.max()); };
  row += "," + (has ? ms(at(50)) : "");
  row += "," + (has ? num(h.mean() / 1e6) : "");
  row += "," + (has ? ms(h.min()) : "") + "," + (has ? ms(h.max()) : "");
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

std::string stats_file(const RunReport& r) {
  std::string out = stats_header();
  const double seconds = static_cast<double>(r.measured_ns) / 1e9;
  for (const EndpointReport& e : r.endpoints) {
    out += stats_row(stats::printable_name(e.name), e.counts.responses + e.counts.failures(), endpoint_failures(r, e), e.latency, seconds);
  }
  return out + stats_row("Aggregated", r.counters.responses + r.counters.errors.socket_total(), failed_requests(r),
                         r.latency, seconds);
}

std::string history_file(const RunReport& r) {
  std::string out = "interval,start_s,start_time,duration_s,drain,sent,completed,req_per_s,target_per_s,failures,"
                    "failures_per_s,p50_ms,p90_ms,p99_ms,max_ms,open_connections,in_flight,backlog";
  const std::vector<std::string> classes = error_classes(r);
  for (const std::string& c : classes) out += fmt::format(",errors_{}", c);
  out += "\n";
  if (!r.timeseries) return out;
  for (const SeriesPoint& p : *r.timeseries) {
    const double secs = static_cast<double>(p.duration_ns) / 1e9;
    const std::uint64_t check = p.scenario_errors ? p.scenario_errors->check : 0;
    const std::uint64_t script = p.scenario_errors ? p.scenario_errors->script : 0;
    // The requests that failed, each once (a Lua error is not a request).
    const std::uint64_t failures = stats::failed_requests(p.errors, p.scenario_errors ? &*p.scenario_errors : nullptr);
    const stats::Histogram h = p.latency.unpack();
    const bool has = h.total_count() > 0;
    const auto lat_ms = [&](double pct) { return has ? ms(pct >= 100 ? h.max() : h.value_at_percentile(pct)) : ""; };
    const bool open_model = p.target_rate_per_s.has_value();
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", p.index,
                       num(static_cast<double>(p.start_ns) / 1e9), rfc3339_utc_us(p.start_unix_ns), num(secs),
                       is_drain(p) ? 1 : 0, p.sent, p.completed,
                       num(secs > 0 ? static_cast<double>(p.completed) / secs : 0.0),
                       open_model ? num(*p.target_rate_per_s) : "", failures,
                       num(secs > 0 ? static_cast<double>(failures) / secs : 0.0), lat_ms(50), lat_ms(90), lat_ms(99),
                       lat_ms(100), p.open_connections, p.in_flight,
                       open_model ? std::to_string(p.backlog) : std::string());
    for (const std::string& c : classes) out += fmt::format(",{}", class_count(c, p.errors, check, script));
    out += "\n";
  }
  return out;
}

// A row's reason: the status codes ("HTTP 503 x10, 500 x3"; "other" for codes
// past those kept), a check's or another class's message.
struct ClassRow {
  std::uint64_t count = 0;
  std::string reason;
  std::map<int, std::uint64_t> codes;  // status
};

std::string status_reason(const std::map<int, std::uint64_t>& codes) {
  std::string reason;
  for (const auto& [code, n] : codes) {
    const std::string what = code > 0 ? std::to_string(code) : std::string("other");
    reason += fmt::format("{}{} x{}", reason.empty() ? "HTTP " : ", ", what, n);
  }
  return reason;
}

std::string failures_file(const RunReport& r) {
  std::string out = "class,name,first_reason,count\n";
  const std::vector<std::string> classes = error_classes(r);
  const std::vector<FailureRow> rows = failure_rows(r);
  const auto add = [&](const std::string& name, const std::map<std::string, ClassRow>& by_class) {
    for (const std::string& c : classes) {
      const auto it = by_class.find(c);
      if (it == by_class.end() || it->second.count == 0) continue;
      const std::string reason = c == "status" ? status_reason(it->second.codes) : it->second.reason;
      out += fmt::format("{},{},{},{}\n", c, csv_cell(name), csv_cell(reason), it->second.count);
    }
  };
  for (const EndpointReport& e : r.endpoints) {
    std::map<std::string, ClassRow> by_class;
    for (const FailureRow& f : rows) {
      if (f.name != e.name || f.error_class == "script") continue;
      ClassRow& row = by_class[f.error_class];
      row.count += f.count;
      if (f.error_class == "status") row.codes[f.status] += f.count;
      if (row.reason.empty() && !f.message.empty()) {
        row.reason = stats::printable_name(f.error_class == "check" ? e.name + ": " + f.message : f.message);
      }
    }
    add(stats::printable_name(e.name), by_class);
  }
  // The run's: every class's count, its first reason; the status codes of every name.
  std::map<std::string, ClassRow> all;
  for (const std::string& c : classes) {
    all[c] = ClassRow{class_count(c, r.counters.errors, r.scenario.check, r.scenario.script),
                      stats::printable_name(first_reason(r, c)), {}};
  }
  for (const FailureRow& f : rows) {
    if (f.error_class == "status") all["status"].codes[f.status] += f.count;
  }
  if (all["status"].codes.contains(0)) {  // a report older than the codes per name: the run's codes >= 400
    all["status"].codes.clear();
    for (int code = 400; code <= stats::kMaxStatusCode; ++code) {
      const std::uint64_t n = r.counters.status_counts[static_cast<std::size_t>(code)];
      if (n > 0) all["status"].codes[code] = n;
    }
  }
  add("Aggregated", all);
  return out;
}

}  // namespace

CsvFiles render_csv(const RunReport& r) { return CsvFiles{stats_file(r), history_file(r), failures_file(r)}; }

Status write_csv(const RunReport& r, const std::string& prefix) {
  const CsvFiles files = render_csv(r);
  const std::pair<std::string, const std::string*> outputs[] = {
      {csv_stats_path(prefix), &files.stats},
      {csv_history_path(prefix), &files.history},
      {csv_failures_path(prefix), &files.failures},
  };
  for (const auto& [path, body] : outputs) {
    if (Status written = write_output_file("--csv", path, *body); !written) return written;
  }
  return Ok{};
}

std::string csv_stats_path(const std::string& prefix) { return prefix + "_stats.csv"; }
std::string csv_history_path(const std::string& prefix) { return prefix + "_history.csv"; }
std::string csv_failures_path(const std::string& prefix) { return prefix + "_failures.csv"; }

}  // namespace pacer::report
