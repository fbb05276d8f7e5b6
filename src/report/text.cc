#include "report/text.h"

#include <fmt/format.h>

#include "report/capacity.h"
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

// One "<title> Distribution" block in wrk's format; `censored` may be null.
void append_distribution(std::string& out, const char* title, const stats::Histogram& all,
                         const stats::Histogram* censored) {
  out += fmt::format("  {} Distribution\n", title);
  const stats::Histogram empty(all.lowest_discernible(), all.highest_trackable(), all.significant_figures());
  for (double p : kReportedPercentiles) {
    const stats::Percentile v = stats::percentile_with_censoring(all, censored != nullptr ? *censored : empty, p);
    const std::string label = p == 100 ? "100%" : fmt::format("{:g}%", p);
    out += fmt::format("{:>8}", label);
    // wrk's 10-column value, written as a space plus 9 so that a wide lower
    // bound (">=500.70ms") still leaves a space after the label.
    out += " " + pad_units(lower_bound_mark(v.is_lower_bound, format_time_ns(static_cast<double>(v.value))), 9);
    out += "\n";
  }
}

std::string format_rate(double rate_per_s) { return fmt::format("{:g}", rate_per_s); }

std::string load_model_lines(const RunReport& r) {
  const char* arrivals = r.poisson ? "Poisson arrivals" : "uniform arrivals";
  std::string what;
  switch (r.load_model) {
    case LoadModel::kClosed:
      return fmt::format("Load model:   closed loop, {} connections, each sending its next request when the previous\n"
                         "              response completes. Latency excludes time the server made the client wait.\n",
                         r.connections);
    case LoadModel::kConstant: what = fmt::format("constant {} requests/s", format_rate(r.rate_per_s)); break;
    case LoadModel::kRamp:
      what = fmt::format("ramp from {} to {} requests/s", format_rate(r.rate_per_s), format_rate(r.rate_end_per_s));
      break;
    case LoadModel::kStages: {
      std::string list;
      for (const RateStage& s : r.stages) {
        list += fmt::format("{}{}:{}", list.empty() ? "" : ",", format_duration_short(s.duration_ns),
                            format_rate(s.target_rate_per_s));
      }
      what = "stages " + list;
      break;
    }
  }
  return fmt::format("Load model:   open, {} ({}{}), {} connections.\n"
                     "              Latency is measured from when each request was due, so waiting counts.\n",
                     what, arrivals, r.poisson ? fmt::format(", seed {}", r.seed) : "", r.connections);
}

void append_open_model_lines(std::string& out, const RunReport& r) {
  const stats::Counters& c = r.counters;
  const double seconds = static_cast<double>(r.measured_ns) / 1e9;
  const double sent = seconds > 0 ? static_cast<double>(c.requests_sent) / seconds : 0;
  const double done = seconds > 0 ? static_cast<double>(c.responses) / seconds : 0;
  const double ratio = r.target_rate_per_s > 0 ? 100.0 * sent / r.target_rate_per_s : 0;
  out += fmt::format("Rate:         target {:.2f}/s, sent {:.2f}/s ({:.1f}% of target), completed {:.2f}/s\n",
                     r.target_rate_per_s, sent, ratio, done);
  if (r.queue_delay.total_count() > 0) {
    out += fmt::format("Schedule lag: p99 {}, max {} (due time to send); peak backlog {} requests\n",
                       format_time_ns(static_cast<double>(r.queue_delay.value_at_percentile(99))),
                       format_time_ns(static_cast<double>(r.queue_delay.max())), c.peak_backlog);
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
  out += load_model_lines(r);
  if (r.load_model != LoadModel::kClosed) append_open_model_lines(out, r);
  if (r.connect.total_count() > 0) {
    out += fmt::format("Connect:      avg {}, p99 {}, max {} ({} connections opened)\n",
                       format_time_ns(r.connect.mean()),
                       format_time_ns(static_cast<double>(r.connect.value_at_percentile(99))),
                       format_time_ns(static_cast<double>(r.connect.max())), c.connects);
  }
  if (r.tls_handshake.total_count() > 0) {
    out += fmt::format("TLS handshake: avg {}, p99 {}, max {} ({} handshakes, {} resumed)\n",
                       format_time_ns(r.tls_handshake.mean()),
                       format_time_ns(static_cast<double>(r.tls_handshake.value_at_percentile(99))),
                       format_time_ns(static_cast<double>(r.tls_handshake.max())), c.tls_handshakes, c.tls_resumed);
  }
  const stats::ErrorCounts& e = c.errors;
  out += fmt::format("Errors:       connect {}, {}read {}, write {}, timeout {}, parse {}, status {}", e.connect,
                     is_https(r) ? fmt::format("tls {}, ", e.tls) : "", e.read, e.write, e.timeout, e.parse, e.status);
  if (r.load_model != LoadModel::kClosed) {
    out += fmt::format(", deadline {}, backlog {}, unsent {}", e.deadline, e.backlog, e.unsent);
  }
  if (r.protocol == "h2") out += fmt::format(", stream_reset {}, goaway {}", e.stream_reset, e.goaway);
  out += "\n";
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
  if (e.unsent > 0) out += unsent_paragraph(r);
  if (const std::optional<Capacity> capacity = run_shortfall(r)) out += capacity_paragraph(*capacity);
  if (r.warmup_ns > 0) {
    out += fmt::format("Warm-up:      {} responses during the first {} were not recorded.\n", c.warmup_responses,
                       format_duration_short(r.warmup_ns));
  }
  if (e.tls > 0) {
    out += fmt::format("TLS errors:   {}{}\n", e.tls,
                       r.tls_first_error.empty() ? "" : fmt::format(" (first: {})", r.tls_first_error));
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
  out += fmt::format("  {} threads and {} connections", r.threads, r.connections);
  if (r.shard_count > 1 || !r.shard_source.empty()) {
    out += fmt::format(" (shard {}/{}{})", r.shard_index, r.shard_count,
                       r.shard_source.empty() ? "" : " from " + r.shard_source);
  }
  if (r.protocol == "h2") {
    out += fmt::format(", HTTP/2 with {} stream{} each", r.requests_per_connection,
                       r.requests_per_connection == 1 ? "" : "s");
  } else if (r.requests_per_connection > 1) {
    out += fmt::format(", HTTP/1.1 pipelined {} deep", r.requests_per_connection);
  }
  out += "\n";
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
  if (r.print_latency) {
    append_distribution(out, "Latency", r.latency, &r.latency_censored);
    if (r.load_model != LoadModel::kClosed && r.service.total_count() > 0) {
      append_distribution(out, "Service Time", r.service, nullptr);
      append_distribution(out, "Queue Delay", r.queue_delay, nullptr);
    }
  }

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
