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

std::string_view trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// Appends one row of spans clipped to the width (a single span wider than the
// terminal is the only thing ever cut) and ends it.
void append_row(std::string& out, const Line& row, const RenderOptions& o) {
  // Neighbours of one colour are one span, so a colour is switched on once per run of them.
  Line merged;
  for (const Span& span : row) {
    if (!merged.empty() && merged.back().colour == span.colour) {
      merged.back().text += span.text;
    } else {
      merged.push_back(span);
    }
  }
  int left = std::max(o.width, 1);
  for (const Span& span : merged) left -= append_clipped(out, span, left, o.colour);
  // Trailing blanks carry nothing and would fill the clipped column.
  while (!out.empty() && out.back() == ' ') out.pop_back();
  out += '\n';
}

// Columns between two spans laid out again: the blanks the spans had between
// them, at least 1 and at most 2 (so "12, status" stays one apart and padded
// columns close up to two).
int gap_between(const std::string& before, const std::string& after) {
  const std::size_t trailing = before.size() - 1 - std::min(before.size() - 1, before.find_last_not_of(' '));
  const std::size_t leading = std::min(after.size(), after.find_first_not_of(' '));
  return static_cast<int>(std::clamp<std::size_t>(trailing + leading, 1, 2));
}

// A line too wide for the terminal is laid out again rather than cut: its
// spans (after a label, the first span when it is kLabelColumns wide) lose
// their padding and are set one or two columns apart (gap_between), and when
// they still do not fit, the spans that do not go on continuation rows under
// the label's column. Every figure stays whole and on screen; the columns line
// up again as soon as the terminal is wide enough.
void append_line(std::string& out, const Line& line, const RenderOptions& o) {
  int total = 0;
  for (const Span& span : line) total += display_width(span.text);
  if (total <= o.width || line.size() < 2) return append_row(out, line, o);
  const bool labelled = display_width(line.front().text) == kLabelColumns && line.front().text.back() == ' ';
  const std::string indent(labelled ? kLabelColumns : 0, ' ');
  Line row;
  int used = 0;
  if (labelled) {
    row.push_back(line.front());
    used = kLabelColumns;
  }
  for (std::size_t i = labelled ? 1 : 0; i < line.size(); ++i) {
    Span field{std::string(trimmed(line[i].text)), line[i].colour};
    if (field.text.empty()) continue;
    const bool first_on_row = used <= static_cast<int>(indent.size());
    const int gap = first_on_row ? 0 : gap_between(line[i - 1].text, line[i].text);
    const int width = display_width(field.text);
    if (!first_on_row && used + gap + width > o.width) {
      append_row(out, row, o);
      row = {{indent}};
      used = static_cast<int>(indent.size());
    } else if (gap > 0) {
      row.push_back({std::string(static_cast<std::size_t>(gap), ' ')});
      used += gap;
    }
    row.push_back(std::move(field));
    used += width;
  }
  append_row(out, row, o);
}

std::string join(const std::vector<Line>& lines, const RenderOptions& o) {
  std::string out;
  for (const Line& line : lines) append_line(out, line, o);
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
  return {{label("Requests/s")},
          {fmt::format("now {:<10}", now)},
          {fmt::format("average {:<10}", report::format_metric(s.average_rate_per_s))},
          {fmt::format("{} responses", report::format_metric(static_cast<double>(s.completed)))}};
}

Line schedule_line(const DashboardSnapshot& s) {
  Line line{{label("Schedule")}};
  if (!s.has_interval || !s.target_rate_per_s) return {{label("Schedule")}, {"target -"}};
  const double target = *s.target_rate_per_s;
  const double sent = s.sent_rate_per_s.value_or(0);
  const double ratio = target > 0 ? sent / target : 1.0;
  line.push_back({fmt::format("target {}/s   ", report::format_metric(target))});
  line.push_back({fmt::format("sent {}/s ({:.1f}%)", report::format_metric(sent), 100.0 * ratio),
                  ratio < kBehindTarget ? Colour::kYellow : Colour::kNone});
  const Colour waiting = s.backlog > 0 ? Colour::kYellow : Colour::kNone;
  line.push_back({fmt::format("   lag {},", time_text(s.schedule_lag_ns)), waiting});
  line.push_back({fmt::format(" backlog {}", s.backlog), waiting});
  return line;
}

// The connections, and the requests in flight: the age of the oldest shows a
// stall while it happens (the few responses that complete in a stall are fast).
Line connections_line(const DashboardSnapshot& s, const RenderOptions& o) {
  Line line{{label("Connections")}, {fmt::format("{} open (of {})", s.open_connections, s.run.connections)}};
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
  // Split before " < target" and after ": ", so a narrow view wraps there.
  Line line{{label("Bottleneck")}};
  const std::string phrase = report::capacity_phrase(c, o.unicode);
  std::size_t from = 0;
  for (const std::string_view cut : {std::string_view(" < "), std::string_view(": ")}) {
    const std::size_t at = phrase.find(cut, from);
    if (at == std::string::npos) continue;
    const std::size_t end = cut.front() == ' ' ? at : at + 1;  // "< target" starts a span; ":" ends one
    line.push_back({phrase.substr(from, end - from), Colour::kYellow});
    from = end;
  }
  line.push_back({phrase.substr(from), Colour::kYellow});
  return line;
}

Line errors_line(const DashboardSnapshot& s) {
  const std::string list = error_list(s.errors, s.scenario_errors);
  if (list.empty()) return {{label("Errors")}, {"none"}};
  // One span per class ("timeout 12," then " status 3"), so a narrow view wraps between them.
  Line line{{label("Errors")}};
  std::size_t from = 0;
  while (from < list.size()) {
    const std::size_t comma = list.find(", ", from);
    const std::size_t end = comma == std::string::npos ? list.size() : comma + 1;  // keeps the comma
    line.push_back({(from == 0 ? "" : " ") + list.substr(from, end - from), Colour::kRed});
    from = comma == std::string::npos ? list.size() : comma + 2;
  }
  return line;
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

Line footer(const DashboardSnapshot& s) {
  if (s.elapsed_ns < s.run.warmup_ns) {
    return {{fmt::format("Warming up: nothing is recorded before {}.", format_clock(s.run.warmup_ns))},
            {" Ctrl-C stops the run."}};
  }
  if (s.run.duration_ns > 0 && s.elapsed_ns >= s.run.warmup_ns + s.run.duration_ns) {
    return {{"Waiting for the responses still in flight."}, {" Ctrl-C stops the run."}};
  }
  return {{"Ctrl-C stops the run and prints the report so far."}};
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
  if (!s.run.shard_summary.empty()) lines.push_back({{s.run.shard_summary}});
  lines.push_back(progress_line(s, o));
  lines.push_back({});
  lines.push_back(rate_line(s));
  if (s.run.open_model) lines.push_back(schedule_line(s));
  if (s.bottleneck) lines.push_back(bottleneck_line(*s.bottleneck, o));
  for (const std::string& v : s.client_verdicts) lines.push_back(Line{Span{label("Bottleneck")}, Span{v, Colour::kYellow}});
  lines.push_back(connections_line(s, o));
  lines.push_back(errors_line(s));
  for (Line& l : latency_lines(s, o)) lines.push_back(std::move(l));
  for (Line& l : sparkline_lines(s, o)) lines.push_back(std::move(l));
  lines.push_back({});
  lines.push_back(footer(s));
  return join(lines, o);
}

}  // namespace pacer::ui
