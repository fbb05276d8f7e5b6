#include "report/text.h"

#include <fmt/format.h>

#include "report/units.h"

namespace pacer::report {

namespace {

constexpr double kReportedPercentiles[] = {50, 75, 90, 99, 99.9, 99.99, 100};

std::string lower_bound_mark(bool is_lower_bound, const std::string& text) {
  return is_lower_bound ? ">=" + text : text;
}

// One row of the Thread Stats table: Avg, Stdev, Max, +/- Stdev.
void append_stats_row(std::string& out, const char* name, const stats::Histogram& h,
                      std::string (*format)(double), bool avg_is_bound, bool max_is_bound) {
  out += fmt::format("    {:<10}", name);
  if (h.total_count() == 0) {
    out += fmt::format("{:>8}{:>10}{:>9}{:>9}\n", "-", "-", "-", "-");
    return;
  }
  const double mean = h.mean();
  const double stdev = h.stdev();
  out += pad_units(lower_bound_mark(avg_is_bound, format(mean)), 8);
  out += pad_units(format(stdev), 10);
  out += pad_units(lower_bound_mark(max_is_bound, format(static_cast<double>(h.max()))), 9);
  out += fmt::format("{:8.2f}%\n", 100.0 * h.fraction_within(mean - stdev, mean + stdev));
}

std::string format_time(double ns) { return format_time_ns(ns); }

void append_latency_distribution(std::string& out, const RunReport& r) {
  out += "  Latency Distribution\n";
  for (double p : kReportedPercentiles) {
    const stats::Percentile v = stats::percentile_with_censoring(r.latency, r.latency_censored, p);
    const std::string label = p == 100 ? "100%" : fmt::format("{:g}%", p);
    out += fmt::format("{:>8}", label);
    // wrk's 10-column value, written as a space plus 9 so that a wide lower
    // bound (">=500.70ms") still leaves a space after the label.
    out += " " + pad_units(lower_bound_mark(v.is_lower_bound, format_time_ns(static_cast<double>(v.value))), 9);
    out += "\n";
  }
}

std::string status_counts_line(const stats::Counters& c) {
  std::string out;
  for (std::size_t code = 0; code < c.status_counts.size(); ++code) {
    if (c.status_counts[code] == 0) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", code, c.status_counts[code]);
  }
  return out;
}

void append_pacer_lines(std::string& out, const RunReport& r) {
  const stats::Counters& c = r.counters;
  out += "\n";
  out += fmt::format("Load model:   closed loop, {} connections, each sending its next request when the previous\n"
                     "              response completes. Latency excludes time the server made the client wait.\n",
                     r.connections);
  if (r.connect.total_count() > 0) {
    out += fmt::format("Connect:      avg {}, p99 {}, max {} ({} connections opened)\n",
                       format_time_ns(r.connect.mean()),
                       format_time_ns(static_cast<double>(r.connect.value_at_percentile(99))),
                       format_time_ns(static_cast<double>(r.connect.max())), c.connects);
  }
  const stats::ErrorCounts& e = c.errors;
  out += fmt::format("Errors:       connect {}, read {}, write {}, timeout {}, parse {}, status {}\n",
                     e.connect, e.read, e.write, e.timeout, e.parse, e.status);
  const std::string statuses = status_counts_line(c);
  out += fmt::format("Status codes: {}\n", statuses.empty() ? "none (no response)" : statuses);
  if (e.timeout > 0) {
    out += fmt::format("Timeouts:     {} requests got no response within {} and were cancelled;{}\n", e.timeout,
                       format_time_ns(static_cast<double>(r.timeout_ns)),
                       r.record_timeouts ? " they are in the latency\n              figures at the time they were "
                                           "cancelled, so values marked >= are lower bounds."
                                         : " they are left out of the\n              latency figures "
                                           "(--no-record-timeouts).");
  }
  if (r.warmup_ns > 0) {
    out += fmt::format("Warm-up:      {} responses during the first {} were not recorded.\n", c.warmup_responses,
                       format_duration_short(r.warmup_ns));
  }
  if (!r.first_error.empty()) out += fmt::format("First error:  {}\n", r.first_error);
  if (r.interrupted) out += "Interrupted:  the run was stopped early; these are partial results.\n";
  if (no_request_succeeded(r)) out += "Failed:       not one request succeeded (no response with a status below 400).\n";
}

}  // namespace

std::string render_header(const RunReport& r) {
  const std::string what = r.duration_ns > 0 ? format_duration_short(r.duration_ns) + " test"
                                             : fmt::format("{} requests", r.request_count.value_or(0));
  std::string out = fmt::format("Running {} @ {}\n", what, r.url);
  out += fmt::format("  {} threads and {} connections\n", r.threads, r.connections);
  return out;
}

std::string render_text(const RunReport& r) {
  const stats::Counters& c = r.counters;
  const bool any_censored = r.latency_censored.total_count() > 0;
  const bool max_censored = any_censored && r.latency_censored.max() >= r.latency.max();
  std::string out;
  out += fmt::format("  Thread Stats{:>6}{:>11}{:>8}{:>12}\n", "Avg", "Stdev", "Max", "+/- Stdev");
  append_stats_row(out, "Latency", r.latency, &format_time, any_censored, max_censored);
  append_stats_row(out, "Req/Sec", r.rate_samples, &format_metric, false, false);
  if (r.print_latency) append_latency_distribution(out, r);

  const double seconds = static_cast<double>(r.measured_ns) / 1e9;
  out += fmt::format("  {} requests in {}, {} read\n", c.responses, format_time_ns(static_cast<double>(r.measured_ns)),
                     format_bytes(static_cast<double>(c.bytes_read)));
  const stats::ErrorCounts& e = c.errors;
  if (e.connect + e.read + e.write + e.timeout > 0) {
    out += fmt::format("  Socket errors: connect {}, read {}, write {}, timeout {}\n", e.connect, e.read, e.write,
                       e.timeout);
  }
  if (e.status > 0) out += fmt::format("  Non-2xx or 3xx responses: {}\n", e.status);
  const double rps = seconds > 0 ? static_cast<double>(c.responses) / seconds : 0;
  const double bps = seconds > 0 ? static_cast<double>(c.bytes_read) / seconds : 0;
  out += fmt::format("Requests/sec: {:9.2f}\n", rps);
  out += fmt::format("Transfer/sec: {:>10}\n", format_bytes(bps));
  append_pacer_lines(out, r);
  return out;
}

}  // namespace pacer::report
