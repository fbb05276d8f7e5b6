// Two reports' headline figures and their changes; see compare.h.
#include "html/compare.h"

#include <cmath>
#include <cstdlib>
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/gates.h"
#include "report/json.h"
#include "report/rank_test.h"
#include "report/units.h"
#include "stats/histogram.h"

namespace pacer::html {
namespace {

using json = nlohmann::ordered_json;

struct FigureSpec {
  const char* figure;
  const char* label;
  const char* unit;
  bool higher_is_worse;
};

constexpr FigureSpec kFigures[] = {
    {"requests", "responses", "", false},
    {"rps", "requests/s", "/s", false},
    {"errors", "errors", "", true},
    {"error_rate", "error rate", "fraction", true},
    {"p50", "latency p50", "ns", true},
    {"p90", "latency p90", "ns", true},
    {"p99", "latency p99", "ns", true},
    {"p99.9", "latency p99.9", "ns", true},
    {"max", "latency max", "ns", true},
    {"mean", "latency mean", "ns", true},
};

// A run's headline figure, as its JSON report writes it (report/json.cc): the
// rates over the measured time, errors of every class shown, latency percentiles
// with the timeouts' censoring; 0 where the report has none (no response).
double figure_of(const report::RunReport& r, std::string_view figure) {
  const stats::Counters& c = r.counters;
  if (figure == "requests") return static_cast<double>(c.responses);
  if (figure == "rps") {
    const double seconds = static_cast<double>(r.measured_ns) / 1e9;
    return seconds > 0 ? static_cast<double>(c.responses) / seconds : 0;
  }
  if (figure == "error_rate") return report::error_rate(r);
  if (figure == "errors") {
    double total = 0;
    for (const auto& f : stats::ErrorCounts::kFields) {
      if (f.member == &stats::ErrorCounts::redirect && r.follow_redirects <= 0) continue;
      if (f.member == &stats::ErrorCounts::decode && !r.compressed) continue;
      total += static_cast<double>(c.errors.*f.member);
    }
    if (r.scenario.active) total += static_cast<double>(r.scenario.check) + static_cast<double>(r.scenario.script);
    return total;
  }
  if (r.latency.total_count() == 0) return 0;
  if (figure == "mean") return r.latency.mean();
  const double percentile = figure == "p50" ? 50 : figure == "p90" ? 90 : figure == "p99" ? 99 : figure == "p99.9" ? 99.9 : 100;
  return static_cast<double>(stats::percentile_with_censoring(r.latency, r.latency_censored, percentile).value);
}

// A side's headline figure: the run's, or the median of a --repeat report's runs.
double side_figure(const std::vector<report::RunReport>& runs, std::string_view figure) {
  std::vector<double> values;
  for (const report::RunReport& run : runs) values.push_back(figure_of(run, figure));
  return values.empty() ? 0 : report::median(std::move(values));
}

std::string format_value(const FigureChange& c, double v) {
  if (c.unit == "ns") return report::format_time_ns(v);  // as the text report prints times
  if (c.unit == "/s") return fmt::format("{:.2f}", v);
  if (c.unit == "fraction") return fmt::format("{:.4f}%", v * 100);
  return fmt::format("{:.0f}", v);
}

json significance_json(const Significance& s) {
  if (!s.known) return {{"known", false}, {"words", s.words}};
  return {{"known", true},          {"significant", s.significant}, {"over", s.over_runs ? "runs" : "intervals"},
          {"baseline_n", s.baseline_n}, {"candidate_n", s.candidate_n}, {"p", s.p},
          {"spread", s.spread},     {"every_worse", s.every_worse}, {"words", s.words}};
}

std::string format_change(const std::optional<double>& change) {
  if (!change) return "new";
  return fmt::format("{:+.2f}%", *change * 100);
}

// The run the page draws for a side: the report, or a --repeat report's run
// with the median p99 (its summary and significance are in the changes).
json drawn_run(const std::vector<report::RunReport>& runs) {
  std::vector<const report::RunReport*> order;
  for (const report::RunReport& run : runs) order.push_back(&run);
  std::sort(order.begin(), order.end(), [](const report::RunReport* a, const report::RunReport* b) {
    return figure_of(*a, "p99") < figure_of(*b, "p99");
  });
  return report::json_document(*order[order.size() / 2]);
}

}  // namespace

Result<std::vector<RegressionBound>> parse_regression_bounds(std::string_view text, std::string_view flag) {
  std::vector<RegressionBound> bounds;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view part = text.substr(start, comma - start);
    const std::size_t eq = part.find('=');
    const auto bad = [&](std::string_view why) {
      return bad_argument(fmt::format("{}: '{}': {} (expected FIGURE=N%, e.g. p99=10%,rps=5%)", flag, part, why));
    };
    if (eq == std::string_view::npos) return bad("no '='");
    const std::string figure(part.substr(0, eq));
    bool known = false;
    for (const FigureSpec& f : kFigures) known = known || figure == f.figure;
    if (!known) {
      std::string names;
      for (const FigureSpec& f : kFigures) names += (names.empty() ? "" : ", ") + std::string(f.figure);
      return bad(fmt::format("unknown figure '{}' (one of {})", figure, names));
    }
    std::string value(part.substr(eq + 1));
    if (value.empty() || value.back() != '%') return bad("the limit must be a percentage ending in '%'");
    value.pop_back();
    char* end = nullptr;
    const double percent = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(percent) || percent < 0) {
      return bad("the limit must be a non-negative number of percent");
    }
    for (const RegressionBound& b : bounds) {
      if (b.figure == figure) return bad(fmt::format("'{}' is bounded twice", figure));
    }
    bounds.push_back({figure, percent / 100});
    start = comma + 1;
  }
  return bounds;
}

std::vector<FigureChange> compare_reports(const std::vector<report::RunReport>& baseline,
                                          const std::vector<report::RunReport>& candidate) {
  const bool over_runs = baseline.size() >= 2 && candidate.size() >= 2;
  const auto per_run = [](const report::RunReport& run, std::string_view figure) { return figure_of(run, figure); };
  std::vector<FigureChange> out;
  for (const FigureSpec& f : kFigures) {
    FigureChange c{f.figure, f.label, f.unit, side_figure(baseline, f.figure), side_figure(candidate, f.figure), {},
                   f.higher_is_worse, {}};
    if (c.baseline != 0) {
      c.change = (c.candidate - c.baseline) / c.baseline;
    } else if (c.candidate == 0) {
      c.change = 0.0;
    }
    // Over runs only when both sides have several; else over each side's intervals.
    const auto samples = [&](const std::vector<report::RunReport>& runs) {
      const std::span<const report::RunReport> all(runs);
      return figure_samples(over_runs ? all : all.first(std::min<std::size_t>(runs.size(), 1)), f.figure, per_run);
    };
    c.significance = judge(samples(baseline), samples(candidate), over_runs, c.change, f.higher_is_worse,
                           f.unit == std::string_view("ns") ? "slower" : "worse");
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<BoundResult> check_bounds(const std::vector<FigureChange>& changes,
                                      const std::vector<RegressionBound>& bounds) {
  std::vector<BoundResult> out;
  for (const RegressionBound& b : bounds) {
    for (const FigureChange& c : changes) {
      if (c.figure != b.figure) continue;
      BoundResult r{b, c.change, false, c.significance};
      if (!c.change) {
        r.broken = c.higher_is_worse;  // from 0 to more: errors appeared
      } else {
        const double worse_by = c.higher_is_worse ? *c.change : -*c.change;
        r.broken = worse_by > b.limit + 1e-12;
      }
      out.push_back(r);
    }
  }
  return out;
}

std::string settle_words(const Significance& s) {
  if (s.runs_to_settle) {
    return fmt::format("about {} runs a side (--repeat {}) would settle it", *s.runs_to_settle, *s.runs_to_settle);
  }
  return fmt::format("more than {} runs a side would be needed to settle it: quieten the machine", kMaxRunsToSettle);
}

std::string render_compare_text(const std::vector<FigureChange>& changes, const std::vector<BoundResult>& bounds,
                                const std::string& baseline_name, const std::string& candidate_name) {
  std::string out = fmt::format("Baseline:  {}\nCandidate: {}\n\n", baseline_name, candidate_name);
  out += fmt::format("  {:<15} {:>14} {:>14} {:>10}\n", "figure", "baseline", "candidate", "change");
  for (const FigureChange& c : changes) {
    out += fmt::format("  {:<15} {:>14} {:>14} {:>10}\n", c.label, format_value(c, c.baseline),
                       format_value(c, c.candidate), format_change(c.change));
  }
  // Issue 28: whether each change is beyond the noise (compare_noise.h).
  out += "\nBeyond the noise?\n";
  for (const FigureChange& c : changes) {
    out += fmt::format("  {:<15} {:>10}  {}\n", c.label, format_change(c.change), c.significance.words);
  }
  if (!bounds.empty()) out += "\n";
  for (const BoundResult& b : bounds) {
    const char* direction = [&] {
      for (const FigureChange& c : changes) {
        if (c.figure == b.bound.figure) return c.higher_is_worse ? "higher" : "lower";
      }
      return "worse";
    }();
    const std::string verdict = !b.broken ? "ok"
                                : b.counts(false) ? "REGRESSION"
                                                  : "UNDECIDED: beyond the bound, within the noise; " +
                                                        settle_words(b.significance);
    out += fmt::format("  --max-regression {}={:g}%: {} ({}): {} ({})\n", b.bound.figure, b.bound.limit * 100,
                       format_change(b.change), direction, verdict, b.significance.words);
  }
  return out;
}

std::string render_compare_json(const std::vector<report::RunReport>& baseline,
                                const std::vector<report::RunReport>& candidate,
                                const std::vector<FigureChange>& changes, const std::vector<BoundResult>& bounds,
                                const std::string& baseline_name, const std::string& candidate_name) {
  json cs = json::array();
  for (const FigureChange& c : changes) {
    cs.push_back({{"figure", c.figure}, {"label", c.label}, {"unit", c.unit}, {"baseline", c.baseline},
                  {"candidate", c.candidate}, {"change", c.change ? json(*c.change) : json(nullptr)},
                  {"higher_is_worse", c.higher_is_worse}, {"significance", significance_json(c.significance)}});
  }
  json bs = json::array();
  for (const BoundResult& b : bounds) {
    bs.push_back({{"figure", b.bound.figure}, {"limit", b.bound.limit},
                  {"change", b.change ? json(*b.change) : json(nullptr)}, {"broken", b.broken},
                  {"significant", b.significance.significant}, {"regression", b.counts(false)},
                  {"undecided", b.undecided(false)},
                  {"runs_to_settle", b.significance.runs_to_settle ? json(*b.significance.runs_to_settle)
                                                                   : json(nullptr)}});
  }
  json out = {{"schema", "pacer-compare"},
              {"baseline_name", baseline_name},
              {"candidate_name", candidate_name},
              {"baseline", drawn_run(baseline)},
              {"candidate", drawn_run(candidate)},
              {"changes", std::move(cs)},
              {"bounds", std::move(bs)}};
  return out.dump();
}

}  // namespace pacer::html
