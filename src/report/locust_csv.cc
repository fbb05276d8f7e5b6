// RunReport -> Locust's CSV files; see the header. Locust 2.12's rules, from
// locust/stats.py: requests count every request that ended (failures too);
// failures count each failed request once, a status >= 400 and a failed check
// (CatchResponseError) included, a status a task accepted not; min, max and average are
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
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "report/csv_cell.h"
#include "report/endpoints.h"
#include "report/failures.h"
#include "report/gates.h"
#include "stats/name_table.h"

namespace pacer::report {
namespace {

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

// One row's figures in Locust's terms.
struct LocustEntry {
  std::string type, name;
  std::uint64_t requests = 0, failures = 0;
  stats::Histogram latency = stats::Histogram::for_latency_ns();  // min, max exact
  std::uint64_t body_bytes = 0;  // the responses' bodies (a request without one adds 0, as Locust's)
};

// Average Content Size: the body bytes per request that ended, a float as Python
// prints it, or 0 (an int) for a row without requests.
std::string content_size(const LocustEntry& e) {
  if (e.requests == 0) return "0";
  return python_float(static_cast<double>(e.body_bytes) / static_cast<double>(e.requests));
}

std::string median_text(const LocustEntry& e) {
  const std::int64_t count = e.latency.total_count();
  if (count == 0) return "0";
  const auto times = locust_response_times(e.latency);
  const double median = locust_median(times, count);
  const double max_ms = static_cast<double>(e.latency.max()) / 1e6;
  const double min_ms = static_cast<double>(e.latency.min()) / 1e6;
  if (median > max_ms) return python_float(max_ms);
  if (median < min_ms) return python_float(min_ms);
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

// Request Count .. Max Response Time as the stats file and the history's totals
// print them: min, max and average from the histogram (its extremes exact, its
// mean within them).
std::string totals_fields(const LocustEntry& e) {
  const bool has = e.latency.total_count() > 0;
  const auto ms = [](double ns) { return python_float(ns / 1e6); };
  return fmt::format("{},{},{},{},{},{}", e.requests, e.failures, median_text(e), has ? ms(e.latency.mean()) : "0.0",
                     has ? ms(static_cast<double>(e.latency.min())) : "0",
                     has ? ms(static_cast<double>(e.latency.max())) : "0");
}

// Requests that ended (a response, or an error class without one): Locust's Request Count.
std::uint64_t ended(std::uint64_t responses, const stats::ErrorCounts& errors) { return responses + errors.socket_total(); }

std::vector<LocustEntry> endpoint_entries(const RunReport& r) {
  std::vector<LocustEntry> out;
  for (const EndpointReport& e : r.endpoints) {
    auto [type, path] = type_and_name(stats::printable_name(e.name));
    LocustEntry entry{std::move(type), std::move(path), ended(e.counts.responses, e.counts.errors),
                      endpoint_failures(r, e), e.latency, e.counts.body_bytes};
    if (entry.requests == 0 && entry.failures == 0) continue;  // as Locust leaves out names never used
    out.push_back(std::move(entry));
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
  return fmt::format("{},{},{},{},{},{}{}\r\n", csv_cell(e.type), csv_cell(e.name), totals_fields(e), content_size(e),
                     python_float(per_s), python_float(fail_per_s), percentile_fields(e));
}

// Unix seconds at the end of an interval (its start, to the microsecond its line keeps, plus its duration).
std::int64_t interval_end_unix_s(const SeriesPoint& p) {
  return static_cast<std::int64_t>(static_cast<double>(p.start_unix_ns / 1000) / 1e6 +
                                   static_cast<double>(p.duration_ns) / 1e9);
}

// The users an interval ran: its own figure when the engine gives one, else the run's.
std::uint64_t user_count(const SeriesPoint& p, const RunReport& r) {
  if (p.users) return *p.users;
  return r.scenario.active ? r.scenario.user_limit : static_cast<std::uint64_t>(r.connections);
}

// An interval's failures, each request once: its error classes (a status >= 400
// included) and a scenario's failed checks on requests that had not failed.
std::uint64_t interval_failures(const SeriesPoint& p) {
  return stats::failed_requests(p.errors, p.scenario_errors ? &*p.scenario_errors : nullptr);
}

// One row of the history: the intervals that end in the same second, together
// (Locust writes a row a second; a short last interval, the drain's, would
// otherwise repeat its timestamp).
struct HistoryRow {
  std::int64_t timestamp_s = 0;
  std::uint64_t users = 0;
  double secs = 0;
  LocustEntry current{"", "Aggregated"};
  std::map<std::string, LocustEntry> names;  // by pacer's name: each name's own figures in the row's intervals
};

class HistoryWriter {
 public:
  HistoryWriter(const std::vector<LocustEntry>& names, bool full_history) : names_(names), full_history_(full_history) {}

  // Locust's first row, written as its run starts: no users, no requests.
  void start_row(std::int64_t timestamp_s) {
    out_ += fmt::format("{},0,,Aggregated,{:f},{:f}{},{},0\r\n", timestamp_s, 0.0, 0.0, percentile_fields(total_),
                        totals_fields(total_));
  }

  void add(const SeriesPoint& point, const RunReport& r) {
    if (point.stats_reset) {  // POST /stats/reset: Locust's totals start again too
      flush();
      total_ = LocustEntry{"", "Aggregated"};
      name_totals_.clear();
    }
    const std::int64_t timestamp_s = interval_end_unix_s(point);
    if (!row_ || row_->timestamp_s != timestamp_s) {
      flush();
      row_.emplace();
      row_->timestamp_s = timestamp_s;
    }
    HistoryRow& row = *row_;
    row.users = user_count(point, r);
    row.secs += static_cast<double>(point.duration_ns) / 1e9;
    row.current.requests += ended(point.completed, point.errors);
    row.current.failures += interval_failures(point);
    row.current.latency.merge(point.latency.unpack());
    if (!full_history_) return;
    for (const SeriesEndpoint& e : point.endpoints) {
      LocustEntry& n = row.names[stats::printable_name(e.name)];
      // Per name an interval has responses (any status), errors (every class, a status >= 400
      // included) and the requests that ended without a response (`failed`).
      n.requests += e.completed + e.failed;
      n.failures += e.errors;
      if (e.latency) n.latency.merge(e.latency->unpack());
    }
  }

  std::string finish() {
    flush();
    return std::move(out_);
  }

 private:
  void flush() {
    if (!row_) return;
    const HistoryRow& row = *row_;
    const std::string head = fmt::format("{},{}", row.timestamp_s, row.users);
    const auto per_s = [&row](std::uint64_t n) { return row.secs > 0 ? static_cast<double>(n) / row.secs : 0.0; };
    if (full_history_) {
      for (const LocustEntry& n : names_) {
        const std::string key = n.type.empty() ? n.name : n.type + " " + n.name;
        const auto it = row.names.find(key);
        const LocustEntry none;
        const LocustEntry& current = it != row.names.end() ? it->second : none;
        LocustEntry& so_far = name_totals_.try_emplace(key, LocustEntry{n.type, n.name}).first->second;
        so_far.requests += current.requests;
        so_far.failures += current.failures;
        so_far.latency.merge(current.latency);
        out_ += fmt::format("{},{},{},{:f},{:f}", head, csv_cell(n.type), csv_cell(n.name), per_s(current.requests),
                            per_s(current.failures));
        // The row's own percentiles (Locust's "current" ones), then the name's totals so far.
        out_ += percentile_fields(LocustEntry{n.type, n.name, current.requests, current.failures, current.latency});
        out_ += "," + totals_fields(so_far) + ",\r\n";
      }
    }
    total_.requests += row.current.requests;
    total_.failures += row.current.failures;
    total_.latency.merge(row.current.latency);
    // Without the full history Locust prints the run's percentiles so far; with it, the current ones (the row's).
    out_ += fmt::format("{},,Aggregated,{:f},{:f}{},{},\r\n", head, per_s(row.current.requests),
                        per_s(row.current.failures), percentile_fields(full_history_ ? row.current : total_),
                        totals_fields(total_));
    row_.reset();
  }

  const std::vector<LocustEntry>& names_;
  const bool full_history_;
  std::string out_;
  std::optional<HistoryRow> row_;
  LocustEntry total_{"", "Aggregated"};
  std::map<std::string, LocustEntry> name_totals_;  // each name's so far
};

std::string render_history(const RunReport& r, const std::vector<LocustEntry>& names, bool full_history) {
  std::string out = fmt::format(
      "Timestamp,User Count,Type,Name,Requests/s,Failures/s,{},Total Request Count,Total Failure Count,"
      "Total Median Response Time,Total Average Response Time,Total Min Response Time,Total Max Response Time,"
      "Total Average Content Size\r\n", kPercentileNames);
  if (!r.timeseries || r.timeseries->empty()) return out;
  HistoryWriter writer(names, full_history);
  writer.start_row(static_cast<std::int64_t>(r.timeseries->front().start_unix_ns / 1'000'000'000));
  for (const SeriesPoint& point : *r.timeseries) writer.add(point, r);
  return out + writer.finish();
}

// A str as Python's repr prints it: in single quotes, or double when it holds a
// single quote and no double one; backslashes and control bytes escaped.
std::string python_repr(std::string_view text) {
  const bool doubled = text.find('\'') != std::string_view::npos && text.find('"') == std::string_view::npos;
  const char quote = doubled ? '"' : '\'';
  std::string out(1, quote);
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '\\' || ch == quote) {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += ch;
    }
  }
  return out + quote;
}

const char* reason_phrase(int code) {
  switch (code) {
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

// Locust's Error for a failure: the exception's repr, as its failures file gives it
// (a check: CatchResponseError; a status: requests' HTTPError; another class: its reason).
std::string locust_error(const FailureRow& f, const std::string& path) {
  if (f.error_class == "check") {
    const std::string message = f.message.empty() ? "(a message past the first ones pacer keeps)"
                                                  : stats::printable_name(f.message);
    return "CatchResponseError(" + python_repr(message) + ")";
  }
  if (f.error_class == "status") {
    if (f.status == 0) return "HTTPError('a status >= 400 (past the codes pacer keeps per name)')";
    return "HTTPError(" + python_repr(fmt::format("{} {} Error: {} for url: {}", f.status,
                                                  f.status < 500 ? "Client" : "Server", reason_phrase(f.status), path)) +
           ")";
  }
  return f.message.empty() ? f.error_class : f.message;
}

// Method, Name, Error, Occurrences: each failed request once, under the error that
// failed it last, as Locust counts (a check on a request that had failed already
// is its error: the status or class row it replaces gives that one back, the
// status codes first). A name's rows add up to its Failure Count.
std::string render_failures(const RunReport& r) {
  std::string out = "Method,Name,Error,Occurrences\r\n";
  std::vector<std::tuple<std::string, std::string, std::string, std::uint64_t>> rows;
  const std::vector<FailureRow> failures = failure_rows(r);
  for (const EndpointReport& e : r.endpoints) {
    auto [type, path] = type_and_name(stats::printable_name(e.name));
    std::uint64_t all = 0;
    for (const FailureRow& f : failures) all += f.name == e.name && f.error_class != "script" ? f.count : 0;
    std::uint64_t taken_over = all - std::min(all, endpoint_failures(r, e));  // checks on failed requests
    std::map<std::string, std::uint64_t> by_error;
    for (int pass = 0; pass < 3; ++pass) {  // status rows give back first, then the other classes; checks never
      for (const FailureRow& f : failures) {
        if (f.name != e.name || f.error_class == "script") continue;
        const int kind = f.error_class == "status" ? 0 : (f.error_class == "check" ? 2 : 1);
        if (kind != pass) continue;
        std::uint64_t n = f.count;
        if (kind < 2) {
          const std::uint64_t back = std::min(n, taken_over);
          n -= back;
          taken_over -= back;
        }
        if (n > 0) by_error[locust_error(f, path)] += n;
      }
    }
    for (const auto& [error, n] : by_error) rows.emplace_back(path, type, error, n);
  }
  std::sort(rows.begin(), rows.end());
  for (const auto& [name, type, error, count] : rows) {
    out += fmt::format("{},{},{},{}\r\n", csv_cell(type), csv_cell(name), csv_cell(error), count);
  }
  return out;
}

// The scenario's Lua errors (the first distinct messages pacer keeps): Locust's user exceptions.
std::string render_exceptions(const RunReport& r) {
  std::string out = "Count,Message,Traceback,Nodes\r\n";
  for (const scenario::Message& m : r.scenario.messages) {
    if (m.error_class != "script") continue;
    out += fmt::format("{},{},{},local\r\n", m.count, csv_cell(stats::printable_name(m.text)),
                       csv_cell(stats::printable_name(m.where)));
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

LocustCsvFiles render_locust_csv(const RunReport& r, bool full_history) {
  const double seconds = static_cast<double>(r.measured_ns) / 1e9;
  const std::vector<LocustEntry> names = endpoint_entries(r);
  std::string stats = fmt::format("Type,Name,Request Count,Failure Count,Median Response Time,Average Response Time,"
                                  "Min Response Time,Max Response Time,Average Content Size,Requests/s,Failures/s,{}\r\n",
                                  kPercentileNames);
  for (const LocustEntry& e : names) stats += stats_row(e, seconds);
  std::uint64_t body_bytes = 0;
  for (const EndpointReport& e : r.endpoints) body_bytes += e.counts.body_bytes;
  stats += stats_row(LocustEntry{"", "Aggregated", ended(r.counters.responses, r.counters.errors), failed_requests(r),
                                 r.latency, body_bytes},
                     seconds);
  return LocustCsvFiles{std::move(stats), render_history(r, names, full_history), render_failures(r),
                        render_exceptions(r)};
}

Status write_locust_csv(const RunReport& r, const std::string& prefix, bool full_history) {
  const LocustCsvFiles files = render_locust_csv(r, full_history);
  const std::pair<std::string, const std::string*> outputs[] = {
      {prefix + "_stats.csv", &files.stats},
      {prefix + "_stats_history.csv", &files.history},
      {prefix + "_failures.csv", &files.failures},
      {prefix + "_exceptions.csv", &files.exceptions},
  };
  for (const auto& [path, body] : outputs) {
    if (Status written = write_file_atomically(path, *body); !written) return written;
  }
  return Ok{};
}

}  // namespace pacer::report
