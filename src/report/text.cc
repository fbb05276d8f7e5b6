#include "scenario/scenario_report.h"
#include "report/text.h"

#include "report/load_changes.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "report/ab_fields.h"
#include "report/labelled.h"
#include "report/text_connect.h"
#include "report/capacity.h"
#include "evidence/verdict.h"
#include "report/evidence_text.h"
#include "report/endpoints.h"
#include "report/units.h"
#include "stats/name_table.h"

namespace pacer::report {

namespace {

constexpr double kReportedPercentiles[] = {50, 75, 90, 99, 99.9, 99.99, 100};

std::string lower_bound_mark(bool is_lower_bound, const std::string& text) {
  return is_lower_bound ? ">=" + text : text;
}

// One row of the Thread Stats table: Avg, Stdev and Max as printed (empty for
// no sample), and +/- Stdev.
struct StatsRow {
  const char* name;
  std::array<std::string, 3> cells;
  double within_stdev_percent = 0;
};

StatsRow stats_row(const char* name, const stats::Histogram& h, std::string (*format)(double), bool avg_is_bound,
                   bool max_is_bound) {
  StatsRow row{name, {}, 0};
  if (h.total_count() == 0) return row;
  const double mean = h.mean();
  const double stdev = h.stdev();
  row.cells = {lower_bound_mark(avg_is_bound, format(mean)), format(stdev),
               lower_bound_mark(max_is_bound, format(static_cast<double>(h.max())))};
  // The buckets' share within one stdev of their own mean (the stdev's centre).
  row.within_stdev_percent = 100.0 * h.fraction_within(h.hdr_mean() - stdev, h.hdr_mean() + stdev);
  return row;
}

// wrk's table. A value wider than wrk's column (a lower bound such as
// ">=294.87ms") widens its column in every row and in the header, so the
// columns stay aligned whatever is marked; unmarked, the layout is wrk's.
void append_thread_stats(std::string& out, const std::array<StatsRow, 2>& rows) {
  std::array<int, 3> widths = {8, 10, 9};  // Avg, Stdev, Max
  for (const StatsRow& row : rows) {
    for (std::size_t i = 0; i < widths.size(); ++i) {
      if (row.cells[i].empty()) continue;
      const int needed = static_cast<int>(pad_units(row.cells[i], widths[i]).size());
      if (needed > widths[i]) widths[i] = needed;
    }
  }
  out += fmt::format("  Thread Stats{:>{}}{:>{}}{:>{}}{:>12}\n", "Avg", widths[0] - 2, "Stdev", widths[1] + 1, "Max",
                     widths[2] - 1, "+/- Stdev");
  for (const StatsRow& row : rows) {
    out += fmt::format("    {:<10}", row.name);
    if (row.cells[0].empty()) {
      out += fmt::format("{:>{}}{:>{}}{:>{}}{:>9}\n", "-", widths[0], "-", widths[1], "-", widths[2], "-");
      continue;
    }
    for (std::size_t i = 0; i < widths.size(); ++i) out += pad_units(row.cells[i], widths[i]);
    out += fmt::format("{:8.2f}%\n", row.within_stdev_percent);
  }
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

// "1 request", "2 requests".
std::string plural(std::uint64_t n, const char* noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }

// What the open model's rate counts: a scenario's tasks, else requests.
const char* rate_unit(const RunReport& r) { return r.scenario.active ? "tasks" : "requests"; }

// How the connections carry requests: with --streams or --pipeline each
// connection has several request slots, and the loop runs per slot.
std::string connections_text(const RunReport& r) {
  const int slots = r.requests_per_connection;
  if (slots <= 1) return fmt::format("{} connection{}", r.connections, r.connections == 1 ? "" : "s");
  const char* what = r.protocol == "h2" ? "HTTP/2 streams" : r.protocol == "h3" ? "HTTP/3 streams" : "pipelined requests";
  return fmt::format("{} connections with {} {} each ({} requests in flight at most)", r.connections, slots, what,
                     static_cast<std::int64_t>(r.connections) * slots);
}

std::string closed_loop_text(const RunReport& r) {
  if (r.scenario.active) {  // a user's next task waits for its think time, not just the response
    return fmt::format("closed loop, {} virtual user{}, each on its own connection, running its tasks one after "
                       "another with their think time. Latency excludes time the server made the client wait.",
                       r.scenario.user_limit, r.scenario.user_limit == 1 ? "" : "s");
  }
  std::string each = "each sending its next request when the previous response completes.";
  if (r.requests_per_connection > 1 && (r.protocol == "h2" || r.protocol == "h3")) {
    each = "each stream sending its next request when its own response completes, whatever the other streams do.";
  } else if (r.requests_per_connection > 1) {
    each = "each slot of the pipeline sending its next request when its response completes; responses come back "
           "in order, so a slow one holds up those behind it.";
  }
  return fmt::format("closed loop, {}, {} Latency excludes time the server made the client wait.",
                     connections_text(r), each);
}

// The rates are this report's part of the test's (a shard's, or the shards merged).
std::string load_model_lines(const RunReport& r) {
  const ShardShare share = shard_share(r);
  // A shard, or a merge lacking shards, says which part of the test it is.
  const std::string part = share.is_part() ? labelled("", share.describe() + ".") : "";
  const char* arrivals = r.poisson ? "Poisson arrivals" : "uniform arrivals";
  std::string what;
  switch (r.load_model) {
    case LoadModel::kClosed: return labelled("Load model:", closed_loop_text(r)) + part;
    case LoadModel::kConstant:
      what = fmt::format("constant {} {}/s", format_rate(share.rate(r.rate_per_s)), rate_unit(r));
      break;
    case LoadModel::kRamp:
      what = fmt::format("ramp from {} to {} {}/s", format_rate(share.rate(r.rate_per_s)),
                         format_rate(share.rate(r.rate_end_per_s)), rate_unit(r));
      break;
    case LoadModel::kStages: {
      std::string list;
      for (const RateStage& s : r.stages) {
        list += fmt::format("{}{}:{}", list.empty() ? "" : ",", format_duration_short(s.duration_ns),
                            format_rate(share.rate(s.target_rate_per_s)));
      }
      what = fmt::format("stages {} {}/s", list, rate_unit(r));
      break;
    }
  }
  if (r.load_shaped) {
    what = fmt::format("{} {}/s from the scenario's load shape", format_rate(share.rate(r.rate_per_s)), rate_unit(r));
  }
  const bool steered = std::any_of(r.load_changes.begin(), r.load_changes.end(),
                                   [](const LoadChangeReport& c) { return c.rate_to_per_s.has_value() && !c.ended; });
  if (steered) what += " at first, changed while it ran (Load: below)";
  // A scenario's tasks start on free virtual users (a connection each), not on -c connections.
  const std::string carriers =
      r.scenario.active ? fmt::format("each task on a free virtual user (at most {}, --max-users)", r.scenario.user_limit)
                        : connections_text(r);
  return labelled("Load model:", fmt::format("open, {} ({}{}), {}. Latency is measured from when each {} "
                                            "was due, so waiting counts.",
                                            what, arrivals, r.poisson ? fmt::format(", seed {}", r.seed) : "",
                                            carriers, r.scenario.active ? "step" : "request")) +
         part;
}

// pacer merge: shards missing (--allow-missing) and shards that did not start together.
void append_merge_lines(std::string& out, const RunReport& r) {
  if (!r.merge) return;
  const MergeInfo& m = *r.merge;
  if (!m.missing_shards.empty()) {
    std::string list;
    for (int i : m.missing_shards) list += fmt::format("{}{}", list.empty() ? "" : ", ", i);
    out += labelled("MISSING:", fmt::format("shard{} {} of {} (--allow-missing): these figures cover {} of {} "
                                            "shards, and the target is theirs, not the whole test's.",
                                            m.missing_shards.size() == 1 ? "" : "s", list, r.shard_count,
                                            r.shards_covered, r.shard_count));
  }
  if (m.starts_differ()) {
    out += labelled("Start times:", fmt::format("the shards started {} apart, more than the {} tolerance "
                                                "(--start-tolerance): their combined rate is not the test's. "
                                                "First {}, last {}.",
                                                format_time_ns(static_cast<double>(m.start_spread_ns)),
                                                format_time_ns(static_cast<double>(m.start_tolerance_ns)),
                                                m.earliest_start_file, m.latest_start_file));
  }
}

void append_open_model_lines(std::string& out, const RunReport& r) {
  const stats::Counters& c = r.counters;
  const double seconds = static_cast<double>(r.measured_ns) / 1e9;
  const double sent = sent_rate_per_s(r);
  const double done = seconds > 0 ? static_cast<double>(c.responses) / seconds : 0;
  const std::optional<double> ratio = sent_to_target(r);
  // Under one arrival in the whole window: no ratio to print (a task for a scenario).
  const std::string share = ratio ? fmt::format("{:.1f}% of target", 100.0 * *ratio)
                                  : std::string(r.scenario.active ? "target under one task" : "target under one request");
  if (r.scenario.active) {  // the target counts tasks; requests are another unit
    out += labelled("Rate:", fmt::format("target\x1f{:.2f}\x1ftasks/s, ended\x1f{:.2f}\x1ftasks/s ({}); "
                                         "requests sent\x1f{:.2f}/s, completed\x1f{:.2f}/s",
                                         r.target_rate_per_s, tasks_ended_rate_per_s(r), share, sent, done));
  } else {
    out += labelled("Rate:", fmt::format("target\x1f{:.2f}/s, sent\x1f{:.2f}/s ({}), completed\x1f{:.2f}/s{}",
                                         r.target_rate_per_s, sent, share, done,
                                         r.sent_while_draining && *r.sent_while_draining > 0
                                             ? fmt::format("; {} more sent while draining", *r.sent_while_draining)
                                             : std::string()));
  }
  if (r.queue_delay.total_count() > 0) {
    out += labelled("Schedule lag:", fmt::format("p99 {}, max {} (due time to send); peak backlog {}",
                                                 format_time_ns(static_cast<double>(r.queue_delay.value_at_percentile(99))),
                                                 format_time_ns(static_cast<double>(r.queue_delay.max())),
                                                 plural(c.peak_backlog, r.scenario.active ? "task" : "request")));
  }
}

std::string status_counts_line(const stats::Counters& c) {
  std::string out;
  for (std::size_t code = 0; code < c.status_counts.size(); ++code) {
    if (c.status_counts[code] == 0) continue;
    out += fmt::format("{}{}{}{}", out.empty() ? "" : ", ", code, kNoBreak, c.status_counts[code]);
  }
  return out;
}

std::string errors_text(const RunReport& r) {
  const stats::ErrorCounts& e = r.counters.errors;
  std::vector<std::pair<const char*, std::uint64_t>> classes = {{"connect", e.connect}};
  if (is_https(r)) classes.push_back({"tls", e.tls});
  classes.insert(classes.end(), {{"read", e.read}, {"write", e.write}, {"timeout", e.timeout}, {"parse", e.parse},
                                 {"status", e.status}});
  if (r.load_model != LoadModel::kClosed) {
    classes.insert(classes.end(), {{"deadline", e.deadline}, {"backlog", e.backlog}, {"unsent", e.unsent}});
  } else if (e.unsent > 0) {  // what the drain owed and could not send again (capacity.cc: unsent_paragraph)
    classes.push_back({"unsent", e.unsent});
  }
  if (r.protocol == "h2") classes.insert(classes.end(), {{"stream_reset", e.stream_reset}, {"goaway", e.goaway}});
  if (r.follow_redirects > 0) classes.push_back({"redirect", e.redirect});
  if (r.compressed) classes.push_back({"decode", e.decode});
  if (r.protocol == "h3") {  // HTTP/3
    classes.insert(classes.end(), {{"stream_reset", e.stream_reset}, {"goaway", e.goaway}, {"quic", e.quic}});
  }
  if (!r.proxy.empty() || e.proxy > 0) classes.push_back({"proxy", e.proxy});
  if (r.bind_addresses > 0 || e.ports > 0) classes.push_back({"ports", e.ports});
  if (r.scenario.active) classes.insert(classes.end(), {{"check", r.scenario.check}, {"script", r.scenario.script}});
  std::string out;
  for (const auto& [name, count] : classes) out += fmt::format("{}{}{}{}", out.empty() ? "" : ", ", name, kNoBreak, count);
  return out;
}

// Why no request succeeded, when one error class took them all: "; every request
// ended in the redirect error class (first: ...)"; "" otherwise.
// What "not one request succeeded" means for this run. With --follow-redirects a
// redirect is a response below 400 that is not the request's end: say so.
std::string failed_what(const RunReport& r) {
  const stats::Counters& c = r.counters;
  if (c.redirects == 0 && c.errors.redirect == 0) return "no response with a status below 400";
  if (c.responses == 0) return "every response was a redirect; none led to a final response below 400";
  return "no final response with a status below 400, after the redirects";
}

std::string failed_why(const RunReport& r) {
  const stats::ErrorCounts& e = r.counters.errors;
  const std::uint64_t failures = e.socket_total() + e.status;
  if (failures == 0) return "";
  for (const auto& f : stats::ErrorCounts::kFields) {
    if (e.*f.member != failures) continue;
    std::string why = fmt::format("; every request ended in the {} error class", f.name);
    if (f.member == &stats::ErrorCounts::redirect) {
      why += fmt::format(" (at most {} hops; {} redirects followed)", r.follow_redirects, r.counters.redirects);
    }
    if (!r.first_error.empty()) why += fmt::format(", first: {}", r.first_error);
    return why;
  }
  return "";
}

std::string timeouts_text(const RunReport& r) {
  return fmt::format("{} requests got no response within {} and were cancelled; {}", r.counters.errors.timeout,
                     format_time_ns(static_cast<double>(r.timeout_ns)),
                     r.record_timeouts ? "they are in the latency figures at the time they were cancelled, so "
                                         "values marked >= are lower bounds."
                                       : "they are left out of the latency figures (--no-record-timeouts).");
}

// Redirects followed and decoded bytes, when asked for.
void append_wire_lines(std::string& out, const RunReport& r) {
  const stats::Counters& c = r.counters;
  if (r.follow_redirects > 0) {
    out += labelled("Redirects:", fmt::format("{} followed (at most {} per request)", c.redirects, r.follow_redirects));
  }
  if (r.compressed) {
    out += labelled("Decoded:", fmt::format("{} of bodies from {} read", format_bytes(static_cast<double>(c.bytes_decoded)),
                                            format_bytes(static_cast<double>(c.bytes_read))));
  }
}

// pacer's own lines, after wrk's; every one within kReportColumns.
void append_pacer_lines(std::string& out, const RunReport& r) {
  const stats::Counters& c = r.counters;
  out += "\n";
  append_merge_lines(out, r);
  out += load_model_lines(r);
  if (r.load_model != LoadModel::kClosed) append_open_model_lines(out, r);
  append_connect_lines(out, r);
  append_path_lines(out, r);
  for (const auto& [label, text] : ab_fields_lines(r)) out += labelled(label, text);  // ab's fields (issue 33)
  if (r.ttfb.total_count() > 0) {  // time to first byte, beside the total
    out += labelled("TTFB:", fmt::format("{} (send to first byte)", avg_p99_max(r.ttfb)));
  }
  append_wire_lines(out, r);
  if (r.tls_handshake.total_count() > 0) {
    out += labelled("TLS setup:", fmt::format("{} ({} handshakes, {} resumed)", avg_p99_max(r.tls_handshake),
                                                  c.tls_handshakes, c.tls_resumed));
  }
  out += labelled("Errors:", errors_text(r));
  out += scenario::render_text(r.scenario);  // --scenario: Tasks, names, first messages
  const std::string statuses = status_counts_line(c);
  const bool only_redirects = statuses.empty() && c.redirects > 0;  // every answer was a redirect followed
  out += labelled("Status codes:", only_redirects ? fmt::format("none final ({} redirects followed, none ended in a "
                                                                "response)", c.redirects)
                                   : statuses.empty() ? "none (no response)"
                                                      : statuses);
  if (const std::string hint = body_hint(r); !hint.empty()) out += labelled("Status 415:", hint);
  if (c.errors.timeout > 0) out += labelled("Timeouts:", timeouts_text(r));
  if (c.errors.unsent > 0) out += unsent_paragraph(r);
  // Little's law advises connections only where they would raise the completion
  // rate: not against a saturated server (its verdict says so, issue 43).
  if (const std::optional<Capacity> capacity = run_shortfall(r); capacity && !evidence::server_saturated(r.evidence)) {
    out += capacity_paragraph(*capacity);
  }
  out += evidence_paragraphs(r);  // issue 28: the client's own bottleneck, the server's side
  if (r.warmup_ns > 0) {
    out += labelled("Warm-up:", fmt::format("{} responses during the first {} were not recorded.", c.warmup_responses,
                                            format_duration_short(r.warmup_ns)));
  }
  if (c.errors.tls > 0) {
    out += labelled("TLS errors:", fmt::format("{}{}", c.errors.tls, r.tls_first_error.empty()
                                                                          ? ""
                                                                          : fmt::format(" (first: {})", stats::printable_name(r.tls_first_error))));
  }
  if (!r.first_error.empty()) out += labelled("First error:", stats::printable_name(r.first_error));
  for (std::size_t i = 0; i < r.load_changes.size() && i < kLoadChangesInText; ++i) {
    out += labelled(i == 0 ? "Load:" : "", stats::printable_name(load_change_text(r.load_changes[i])));
  }
  if (r.load_changes.size() > kLoadChangesInText) {
    out += labelled("", fmt::format("{} more changes (the JSON report's load_changes)",
                                    r.load_changes.size() - kLoadChangesInText));
  }
  if (!r.gave_up.empty()) out += labelled("Gave up:", stats::printable_name(r.gave_up) + "; partial results.");
  if (!r.stuck_worker.empty()) {
    out += labelled("Stuck:", stats::printable_name(r.stuck_worker) + "; its figures are not in these partial results.");
  } else if (r.interrupted) {
    out += labelled("Interrupted:", "the run was stopped early; these are partial results.");
  }
  if (no_request_succeeded(r)) {
    out += labelled("Failed:", "not one request succeeded (" + failed_what(r) + ")" + failed_why(r) + ".");
  }
}

}  // namespace

std::string render_header(const RunReport& r) {
  std::string what = r.duration_ns > 0 ? format_duration_short(r.duration_ns) + " test"
                                       : fmt::format("{} request{}", r.request_count.value_or(0),
                                                     r.request_count.value_or(0) == 1 ? "" : "s");
  if (r.load_shaped) {
    what = r.duration_ns > 0 ? fmt::format("load-shaped test of at most {}", format_duration_short(r.duration_ns))
                             : "load-shaped test (its shape ends it)";
  }
  if (r.warmup_ns > 0) what = format_duration_short(r.warmup_ns) + " warm-up + " + what;  // the run lasts both
  std::string out = fmt::format("Running {} @ {}\n", what, stats::printable_name(r.url));
  if (!r.unix_socket.empty()) {  // the URL names the Host and path; the bytes go over the socket
    // Two lines: a socket's path is long enough to pass 80 columns with the note beside it.
    out += fmt::format("  over the Unix socket {}\n", stats::printable_name(r.unix_socket));
    out += "  (latency ends at the worker's wake-up: no kernel stamps)\n";
  }
  if (r.scenario.active && r.load_model != LoadModel::kClosed) {  // -c is --max-users there, not connections
    out += fmt::format("  {} thread{}, up to {} virtual users (--max-users), a connection each", r.threads,
                       r.threads == 1 ? "" : "s", r.scenario.user_limit);
  } else if (r.scenario.active && r.users_at_start > 0 && (r.users_at_start < r.connections || r.load_shaped)) {
    out += fmt::format("  {} thread{}, {} virtual user{} at first, up to {} (--max-users), a connection each", r.threads,
                       r.threads == 1 ? "" : "s", r.users_at_start, r.users_at_start == 1 ? "" : "s", r.connections);
  } else if (r.scenario.active) {
    out += fmt::format("  {} thread{} and {} virtual user{}, a connection each", r.threads, r.threads == 1 ? "" : "s",
                       r.connections, r.connections == 1 ? "" : "s");
  } else {
    out += fmt::format("  {} threads and {} connections", r.threads, r.connections);
  }
  const ShardShare share = shard_share(r);
  if (share.is_part() || !r.shard_source.empty()) {
    const std::string label =
        share.is_part() ? share.label() : fmt::format("shard {} of {}", r.shard_index, r.shard_count);
    out += fmt::format(" ({}{})", label, r.shard_source.empty() ? "" : " from " + r.shard_source);
  }
  if (r.protocol == "h2" || r.protocol == "h3") {
    out += fmt::format(", HTTP/{} with {} stream{} each", r.protocol == "h3" ? 3 : 2, r.requests_per_connection,
                       r.requests_per_connection == 1 ? "" : "s");
  } else if (r.requests_per_connection > 1) {
    out += fmt::format(", HTTP/1.1 pipelined {} deep", r.requests_per_connection);
  }
  out += "\n";
  // Targets (issue 15): what the run sends.
  if (r.targets_count > 0) {
    out += fmt::format("  {} target{} from --targets, {}\n", r.targets_count, r.targets_count == 1 ? "" : "s",
                       r.targets_order);
  }
  // --io auto that could not use io_uring says so.
  if (!r.io_fallback.empty()) out += fmt::format("  I/O on {} ({})\n", r.io_engine, r.io_fallback);
  return out;
}

std::string render_remote_write_line(const RemoteWriteSummary& w) {
  std::string line = fmt::format("  Prometheus remote write: {} pushes, {} sent", w.pushes, w.sent);
  if (w.retries > 0) line += fmt::format(", {} retries", w.retries);
  if (!w.incomplete()) return line + "\n";
  return line + fmt::format("; warning: {} dropped (queue full), {} failed{}: Prometheus missed some intervals\n",
                            w.dropped, w.failed, w.last_error.empty() ? "" : " (" + w.last_error + ")");
}

std::string render_text(const RunReport& r) {
  const stats::Counters& c = r.counters;
  const bool any_censored = r.latency_censored.total_count() > 0;
  const bool max_censored = any_censored && r.latency_censored.max() >= r.latency.max();
  std::string out;
  append_thread_stats(out, {stats_row("Latency", r.latency, &format_time, any_censored, max_censored),
                            stats_row("Req/Sec", r.rate_samples, &format_metric, false, false)});
  if (r.print_latency) {
    append_distribution(out, "Latency", r.latency, &r.latency_censored);
    if (r.load_model != LoadModel::kClosed && r.service.total_count() > 0) {
      append_distribution(out, "Service Time", r.service, nullptr);
      append_distribution(out, "Queue Delay", r.queue_delay, nullptr);
    }
  }

  const double seconds = static_cast<double>(r.measured_ns) / 1e9;
  out += fmt::format("  {} request{} in {}, {} read\n", c.responses, c.responses == 1 ? "" : "s",
                     format_time_ns(static_cast<double>(r.measured_ns)), format_bytes(static_cast<double>(c.bytes_read)));
  const stats::ErrorCounts& e = c.errors;
  // -n counts requests, and a run of failures has no response: the line above counts responses.
  if ((r.request_count || c.responses == 0) && e.socket_total() > 0) {
    out += fmt::format("  {} request{} ended: {} with a response, {} without one (errors below)\n",
                       c.responses + e.socket_total(), c.responses + e.socket_total() == 1 ? "" : "s", c.responses,
                       e.socket_total());
  }
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
  out += render_endpoints_text(r);  // targets: per-name figures (report/endpoints.h)
  if (r.remote_write) out += render_remote_write_line(*r.remote_write);
  return out;
}

}  // namespace pacer::report
