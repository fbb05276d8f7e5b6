#include "ui/plain_progress.h"

#include <fmt/format.h>

#include "report/capacity.h"
#include "report/units.h"
#include "ui/dashboard_render.h"

namespace pacer::ui {

namespace {

constexpr std::string_view kIndent = "    ";

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

std::string head_text(const report::IntervalReport& in, const RunInfo& run, std::uint64_t completed_so_far) {
  const TimeNs end_ns = run.warmup_ns + in.start_ns + in.duration_ns;
  std::string out;
  if (run.duration_ns > 0) {
    out = fmt::format("[{:>6} / {}]", format_clock(end_ns), format_clock(run.warmup_ns + run.duration_ns));
  } else {
    out = fmt::format("[{:>6}, {}/{} responses]", format_clock(end_ns), completed_so_far,
                      run.request_count.value_or(0));
  }
  if (!run.shard_label.empty()) out += " " + run.shard_label + ":";  // every figure is the shard's
  return out;
}

std::string latency_text(const report::IntervalReport& in) {
  if (in.latency == nullptr || in.latency->total_count() == 0) return "latency -";
  const LatencyFigures f = latency_figures(*in.latency);
  return fmt::format("latency p50 {} p90 {} p99 {} max {}", time_text(f.p50_ns), time_text(f.p90_ns),
                     time_text(f.p99_ns), time_text(f.max_ns));
}

std::string connections_text(const report::IntervalReport& in, const RunInfo& run) {
  std::string out;
  if (in.users) out = fmt::format("{} users running, ", *in.users);
  out += fmt::format("{} connection{} open", in.open_connections, in.open_connections == 1 ? "" : "s");
  if (in.in_flight > 0) {
    out += fmt::format(", in flight {} (oldest {}", in.in_flight, age_text(in.oldest_in_flight_ns));
    if (in.in_flight_over_interval > 0) {
      out += fmt::format(", {} older than {}", in.in_flight_over_interval,
                         report::format_duration_short(run.interval_ns));
    }
    out += ")";
  }
  return out;
}

// Breaks `text` into the parts a line may end after: each ", " or "; " ends one
// (the separator's comma stays, its space goes).
std::vector<std::string> clauses(const std::string& text) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t at = from;
    while (at + 1 < text.size() && !((text[at] == ',' || text[at] == ';') && text[at + 1] == ' ')) ++at;
    if (at + 1 >= text.size()) {
      out.push_back(text.substr(from));
      break;
    }
    out.push_back(text.substr(from, at + 1 - from));
    from = at + 2;
  }
  return out;
}

// Appends `piece` to the line being built in `out` (`column` wide so far;
// `fresh` until it holds a word), starting a new indented line when it does not fit.
void place(std::string& out, std::size_t& column, bool& fresh, const std::string& piece, std::size_t columns) {
  if (!fresh && column + 1 + piece.size() > columns) {
    out += "\n";
    out += kIndent;
    column = kIndent.size();
  } else if (!fresh) {
    out += ' ';
    ++column;
  }
  out += piece;
  column += piece.size();
  fresh = false;
}

}  // namespace

std::string wrap_sections(const std::vector<std::string>& sections, std::size_t columns) {
  std::string out;
  for (std::size_t s = 0; s < sections.size(); ++s) {
    std::string line = s == 0 ? std::string() : std::string(kIndent);
    std::size_t column = line.size();
    bool fresh = true;
    for (const std::string& clause : clauses(sections[s])) {
      const bool fits_alone = kIndent.size() + clause.size() <= columns;
      if (fits_alone) {
        place(line, column, fresh, clause, columns);
        continue;
      }
      std::size_t from = 0;  // a clause longer than a line: word by word
      while (from < clause.size()) {
        std::size_t end = clause.find(' ', from);
        if (end == std::string::npos) end = clause.size();
        place(line, column, fresh, clause.substr(from, end - from), columns);
        from = end + 1;
      }
    }
    out += line + "\n";
  }
  return out;
}

std::string render_plain_line(const report::IntervalReport& in, const RunInfo& run, std::uint64_t completed_so_far) {
  const double seconds = static_cast<double>(in.duration_ns) / 1e9;
  const auto rate = [&](std::uint64_t n) { return seconds > 0 ? static_cast<double>(n) / seconds : 0.0; };
  std::vector<std::string> sections;
  if (report::is_drain(in)) {
    // After -d's end: no new arrival, so no target; counts rather than a rate
    // over a span that may be a fraction of a millisecond.
    sections.push_back(fmt::format("{} drain {} after the end: {} responses, {} sent, {}", head_text(in, run, completed_so_far),
                                   time_text(in.drain_ns), in.completed, in.sent, errors_text(in)));
  } else {
    sections.push_back(fmt::format("{} {:.1f} req/s, {}", head_text(in, run, completed_so_far), rate(in.completed),
                                   errors_text(in)));
    // Only when the engine could not cut the interval at the end (its controller behind).
    if (in.drain_ns > 0) sections.back() += fmt::format(" (includes the {} drain after the end)", time_text(in.drain_ns));
    if (in.target_rate_per_s) {
      sections.push_back(fmt::format("target {:.1f}/s, sent {:.1f}/s, lag {}, backlog {}", *in.target_rate_per_s,
                                     rate(in.sent), time_text(in.schedule_lag_ns), in.backlog));
    }
  }
  sections.push_back(latency_text(in));
  sections.push_back(connections_text(in, run));
  // Not against a saturated server: more connections would only queue more (issue 43).
  const bool saturated = in.evidence != nullptr && in.evidence->server_saturated;
  if (const auto c = report::interval_bottleneck(in, run.connections, run.requests_per_connection, run.http2);
      c && !saturated) {
    sections.push_back("bottleneck: " + report::capacity_phrase(*c, false));
  }
  if (in.evidence != nullptr) {
    for (const std::string& v : in.evidence->verdicts) sections.push_back("bottleneck: " + v);  // the client's own
  }
  return wrap_sections(sections);
}

}  // namespace pacer::ui
