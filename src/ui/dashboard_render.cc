#include "ui/dashboard_render.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "report/units.h"
#include "ui/sparkline.h"

namespace pacer::ui {

namespace {

enum class Colour { kNone, kRed, kYellow };

struct Span {
  std::string text;
  Colour colour = Colour::kNone;
};
using Line = std::vector<Span>;

constexpr int kLabelColumns = 13;  // "Connections  "
constexpr double kBehindTarget = 0.95;  // sent below 95% of the target: the client is not keeping up

std::string label(const char* text) { return fmt::format("{:<{}}", text, kLabelColumns); }

std::string time_text(std::int64_t ns) { return report::format_time_ns(static_cast<double>(ns)); }

// Appends `span` clipped to the columns left; returns the columns used.
int append_clipped(std::string& out, const Span& span, int left, bool colour) {
  int used = 0;
  std::size_t end = 0;
  while (end < span.text.size() && used < left) {
    ++end;
    while (end < span.text.size() && (static_cast<unsigned char>(span.text[end]) & 0xC0) == 0x80) ++end;
    ++used;
  }
  if (end == 0) return 0;
  const bool coloured = colour && span.colour != Colour::kNone;
  if (coloured) out += span.colour == Colour::kRed ? "\x1b[31m" : "\x1b[33m";
  out.append(span.text, 0, end);
  if (coloured) out += "\x1b[0m";
  return used;
}

std::string join(const std::vector<Line>& lines, const RenderOptions& o) {
  std::string out;
  for (const Line& line : lines) {
    int left = std::max(o.width, 1);
    for (const Span& span : line) left -= append_clipped(out, span, left, o.colour);
    // Trailing blanks carry nothing and would fill the clipped column.
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  return out;
}

double progress_fraction(const DashboardSnapshot& s) {
  double fraction = 0;
  const TimeNs total_ns = s.run.warmup_ns + s.run.duration_ns;
  if (s.run.duration_ns > 0) fraction = static_cast<double>(s.elapsed_ns) / static_cast<double>(total_ns);
  if (s.run.request_count && *s.run.request_count > 0) {
    fraction = std::max(fraction, static_cast<double>(s.completed) / static_cast<double>(*s.run.request_count));
  }
  return std::clamp(fraction, 0.0, 1.0);
}

Line progress_line(const DashboardSnapshot& s, const RenderOptions& o) {
  std::string text;
  if (s.run.duration_ns > 0) {
    text = fmt::format("{} / {}", format_clock(s.elapsed_ns), format_clock(s.run.warmup_ns + s.run.duration_ns));
  } else {
    text = fmt::format("{} / {} responses, {}", report::format_metric(static_cast<double>(s.completed)),
                       report::format_metric(static_cast<double>(s.run.request_count.value_or(0))),
                       format_clock(s.elapsed_ns));
  }
  const double fraction = progress_fraction(s);
  // Rounded down, so 100% means done; the epsilon keeps 0.42 from printing 41%.
  text += fmt::format("  {:>3}%", static_cast<int>(std::floor(100.0 * fraction + 1e-9)));
  const int bar = o.width - display_width(text) - 4;
  if (bar < 10) return {{text}};  // a narrow terminal: the figures matter more than the bar
  const int filled = static_cast<int>(fraction * bar);
  std::string drawn = "[";
  for (int i = 0; i < bar; ++i) {
    if (o.unicode) {
      drawn += i < filled ? "\u2588" : "\u2591";
    } else {
      drawn += i < filled ? '#' : '-';
    }
  }
  return {{drawn + "]  " + text}};
}

Line rate_line(const DashboardSnapshot& s) {
  const std::string now = s.has_interval ? report::format_metric(s.current_rate_per_s) : "-";
  return {{label("Requests/s") + fmt::format("now {:<10}average {:<10}{} responses", now,
                                             report::format_metric(s.average_rate_per_s),
                                             report::format_metric(static_cast<double>(s.completed)))}};
}

Line schedule_line(const DashboardSnapshot& s) {
  Line line{{label("Schedule")}};
  if (!s.has_interval || !s.target_rate_per_s) return {{label("Schedule") + "target -"}};
  const double target = *s.target_rate_per_s;
  const double sent = s.sent_rate_per_s.value_or(0);
  const double ratio = target > 0 ? sent / target : 1.0;
  line.push_back({fmt::format("target {}/s   ", report::format_metric(target))});
  line.push_back({fmt::format("sent {}/s ({:.1f}%)", report::format_metric(sent), 100.0 * ratio),
                  ratio < kBehindTarget ? Colour::kYellow : Colour::kNone});
  line.push_back({fmt::format("   lag {}, backlog {}", time_text(s.schedule_lag_ns), s.backlog),
                  s.backlog > 0 ? Colour::kYellow : Colour::kNone});
  return line;
}

// The connections, and the requests in flight: the age of the oldest shows a
// stall while it happens (the few responses that complete in a stall are fast).
Line connections_line(const DashboardSnapshot& s, const RenderOptions& o) {
  Line line{{label("Connections") + fmt::format("{} open (of {})", s.open_connections, s.run.connections)}};
  if (s.in_flight == 0) return line;
  std::string in_flight = fmt::format("   in flight {}, oldest {}", s.in_flight, time_text(s.oldest_in_flight_ns));
  if (s.in_flight_over_interval > 0) {
    in_flight += fmt::format(" ({} older than {})", s.in_flight_over_interval, report::format_duration_short(o.interval_ns));
  }
  line.push_back({in_flight, s.in_flight_over_interval > 0 ? Colour::kYellow : Colour::kNone});
  return line;
}

// Open model: the connections capped the last interval's rate (Little's law).
Line bottleneck_line(const report::Capacity& c, const RenderOptions& o) {
  return {{label("Bottleneck")}, {report::capacity_phrase(c, o.unicode), Colour::kYellow}};
}

Line errors_line(const DashboardSnapshot& s) {
  const std::string list = error_list(s.errors);
  if (list.empty()) return {{label("Errors") + "none"}};
  return {{label("Errors")}, {list, Colour::kRed}};
}

std::vector<Line> latency_lines(const DashboardSnapshot& s, const RenderOptions& o) {
  const int column = std::clamp((o.width - kLabelColumns) / 4, 9, 12);
  const auto row = [&](std::string name, const LatencyFigures& f) {
    std::string text = fmt::format("{:<{}}", name, kLabelColumns);
    for (std::int64_t v : {f.p50_ns, f.p90_ns, f.p99_ns, f.max_ns}) {
      text += fmt::format("{:>{}}", f.count > 0 ? time_text(v) : "-", column);
    }
    return Line{{text}};
  };
  std::string head = label("Latency");
  for (const char* p : {"p50", "p90", "p99", "max"}) head += fmt::format("{:>{}}", p, column);
  return {{{head}},
          row("  last " + report::format_duration_short(o.interval_ns), s.last),
          row("  whole run", s.run_latency)};
}

std::vector<Line> sparkline_lines(const DashboardSnapshot& s, const RenderOptions& o) {
  if (s.history.empty()) return {{{label("Throughput") + "-"}}, {{label("p99") + "-"}}};
  const std::vector<double> every_rate = throughput_series(s.history, s.history.size());
  const double peak_rate = *std::max_element(every_rate.begin(), every_rate.end());
  std::int64_t peak_p99 = 0;
  for (const HistoryPoint& p : s.history) peak_p99 = std::max({peak_p99, p.p99_ns, p.oldest_in_flight_ns});
  const std::string rate_note = fmt::format("  max {}/s", report::format_metric(peak_rate));
  const std::string p99_note = "  max " + time_text(peak_p99);
  const int notes = std::max(display_width(rate_note), display_width(p99_note));
  const auto columns = static_cast<std::size_t>(std::max(8, o.width - kLabelColumns - notes));
  // Both sparklines are padded to the same width so their notes line up.
  const auto row = [&](const char* name, const std::vector<double>& series, const std::string& note) {
    const std::string spark = sparkline(series, o.unicode);
    const auto blank = columns - std::min(columns, static_cast<std::size_t>(display_width(spark)));
    return Line{{label(name) + spark + std::string(blank, ' ') + note}};
  };
  return {row("Throughput", throughput_series(s.history, columns), rate_note),
          row("p99", p99_series(s.history, columns), p99_note)};
}

std::string footer(const DashboardSnapshot& s) {
  if (s.elapsed_ns < s.run.warmup_ns) {
    return fmt::format("Warming up: nothing is recorded before {}. Ctrl-C stops the run.",
                       format_clock(s.run.warmup_ns));
  }
  if (s.run.duration_ns > 0 && s.elapsed_ns >= s.run.warmup_ns + s.run.duration_ns) {
    return "Waiting for the responses still in flight. Ctrl-C stops the run.";
  }
  return "Ctrl-C stops the run and prints the report so far.";
}

}  // namespace

std::string format_clock(TimeNs ns) {
  const std::int64_t tenths = std::max<TimeNs>(ns, 0) / (kNsPerS / 10);
  const std::int64_t seconds = tenths / 10;
  if (seconds < 60) return fmt::format("{}.{}s", seconds, tenths % 10);
  if (seconds < 3600) return fmt::format("{}m{:02}s", seconds / 60, seconds % 60);
  return fmt::format("{}h{:02}m", seconds / 3600, seconds % 3600 / 60);
}

int display_width(const std::string& text) {
  int width = 0;
  for (const char c : text) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return width;
}

std::string render(const DashboardSnapshot& s, const RenderOptions& o) {
  std::vector<Line> lines;
  lines.push_back({{"pacer  " + s.run.url}});
  lines.push_back({{fmt::format("{}, {} connections on {} thread{}", s.run.load_model, s.run.connections,
                                s.run.threads, s.run.threads == 1 ? "" : "s")}});
  lines.push_back(progress_line(s, o));
  lines.push_back({});
  lines.push_back(rate_line(s));
  if (s.run.open_model) lines.push_back(schedule_line(s));
  if (s.bottleneck) lines.push_back(bottleneck_line(*s.bottleneck, o));
  lines.push_back(connections_line(s, o));
  lines.push_back(errors_line(s));
  for (Line& l : latency_lines(s, o)) lines.push_back(std::move(l));
  for (Line& l : sparkline_lines(s, o)) lines.push_back(std::move(l));
  lines.push_back({});
  lines.push_back({{footer(s)}});
  return join(lines, o);
}

}  // namespace pacer::ui
