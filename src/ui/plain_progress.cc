#include "ui/plain_progress.h"

#include <fmt/format.h>

#include "report/capacity.h"
#include "report/units.h"
#include "ui/dashboard_render.h"

namespace pacer::ui {

namespace {

std::string time_text(std::int64_t ns) { return report::format_time_ns(static_cast<double>(ns)); }

// The requests that failed, by class (the classes add up to the total); a
// scenario's failed checks and script errors after them, on their own: a check may
// fail a request already counted (a 4xx: one request, two reasons).
std::string errors_text(const report::IntervalReport& in) {
  const stats::ErrorCounts& e = in.errors;
  const std::uint64_t total = e.socket_total() + e.status;
  const std::string list = error_list(e);
  std::string out = list.empty() ? "errors 0" : fmt::format("errors {} ({})", total, list);
  if (in.scenario_errors) {
    out += fmt::format(", checks failed {}, script errors {}", in.scenario_errors->check, in.scenario_errors->script);
  }
  return out;
}

// A request sent in this very wake-up has waited less than the clock's step.
std::string age_text(std::int64_t ns) { return ns < 1000 ? std::string("<1us") : time_text(ns); }

}  // namespace

std::string render_plain_line(const report::IntervalReport& in, const RunInfo& run, std::uint64_t completed_so_far) {
  const TimeNs end_ns = run.warmup_ns + in.start_ns + in.duration_ns;
  std::string out;
  if (run.duration_ns > 0) {
    out = fmt::format("[{:>6} / {}]", format_clock(end_ns), format_clock(run.warmup_ns + run.duration_ns));
  } else {
    out = fmt::format("[{:>6}, {}/{} responses]", format_clock(end_ns), completed_so_far,
                      run.request_count.value_or(0));
  }
  const double seconds = static_cast<double>(in.duration_ns) / 1e9;
  const auto rate = [&](std::uint64_t n) { return seconds > 0 ? static_cast<double>(n) / seconds : 0.0; };
  if (!run.shard_label.empty()) out += " " + run.shard_label + ":";  // every figure is the shard's
  out += fmt::format(" {:.1f} req/s", rate(in.completed));
  if (in.target_rate_per_s) {
    out += fmt::format(" (target {:.1f}/s, sent {:.1f}/s, lag {}, backlog {})", *in.target_rate_per_s, rate(in.sent),
                       time_text(in.schedule_lag_ns), in.backlog);
  }
  if (in.latency != nullptr && in.latency->total_count() > 0) {
    const LatencyFigures f = latency_figures(*in.latency);
    out += fmt::format(", latency p50 {} p90 {} p99 {} max {}", time_text(f.p50_ns), time_text(f.p90_ns),
                       time_text(f.p99_ns), time_text(f.max_ns));
  } else {
    out += ", latency -";
  }
  if (in.in_flight > 0) {
    out += fmt::format(", in flight {} (oldest {}", in.in_flight, age_text(in.oldest_in_flight_ns));
    if (in.in_flight_over_interval > 0) {
      out += fmt::format(", {} older than {}", in.in_flight_over_interval,
                         report::format_duration_short(run.interval_ns));
    }
    out += ")";
  }
  out += fmt::format(", {}, {} connections open", errors_text(in), in.open_connections);
  // The last line holds the drain (responses still in flight after -d's end);
  // its rates are over the whole span, drain included, and it says so.
  if (in.drain_ns > 0) out += fmt::format(" (includes the {} drain after the end)", time_text(in.drain_ns));
  if (const auto c = report::interval_bottleneck(in, run.connections, run.requests_per_connection, run.http2)) {
    out += "; bottleneck: " + report::capacity_phrase(*c, false);
  }
  if (in.evidence != nullptr) {
    for (const std::string& v : in.evidence->verdicts) out += "; bottleneck: " + v;  // issue 28: the client's own
  }
  out += "\n";
  return out;
}

}  // namespace pacer::ui
