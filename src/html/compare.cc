// Two reports' headline figures and their changes; see compare.h.
#include "html/compare.h"

#include <cmath>
#include <cstdlib>
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/rank_test.h"
#include "report/units.h"

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

double number_at(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return 0;
    at = &(*at)[key];
  }
  return at->is_number() ? at->get<double>() : 0;
}

double figure_of(const json& r, std::string_view figure) {
  if (figure == "requests") return number_at(r, {"counts", "responses"});
  if (figure == "rps") return number_at(r, {"rates", "completed_per_s"});
  if (figure == "error_rate") return number_at(r, {"error_rate"});
  if (figure == "mean") return number_at(r, {"latency", "mean_ns"});
  if (figure == "errors") {
    double total = 0;
    if (r.contains("errors") && r["errors"].is_object()) {
      for (const auto& [key, value] : r["errors"].items()) total += value.is_number() ? value.get<double>() : 0;
    }
    return total;
  }
  const std::string key = figure == "max" ? "100" : std::string(figure.substr(1));
  return number_at(r, {"latency", "percentiles_ns", key.c_str()});
}

Result<json> parse_report(std::string_view text, const char* which) {
  json r = json::parse(text, nullptr, false);
  const std::string schema = r.is_object() ? r.value("schema", std::string()) : std::string();
  if (r.is_discarded() || !r.is_object() || (schema != "pacer-report" && schema != "pacer-repeat")) {
    return bad_input(fmt::format("the {} is not a pacer report", which));
  }
  if (schema == "pacer-repeat" && (!r.contains("runs") || !r["runs"].is_array() || r["runs"].empty())) {
    return bad_input(fmt::format("the {} is a --repeat report without runs", which));
  }
  return r;
}

// A side's headline figure: the run's, or the median of a --repeat report's runs.
double side_figure(const std::vector<const json*>& runs, std::string_view figure) {
  std::vector<double> values;
  for (const json* run : runs) values.push_back(figure_of(*run, figure));
  return report::median(std::move(values));
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
json drawn_run(json side) {
  const std::vector<const json*> runs = runs_of(side);
  if (runs.size() == 1) return *runs[0];
  std::vector<const json*> order = runs;
  std::sort(order.begin(), order.end(),
            [](const json* a, const json* b) { return figure_of(*a, "p99") < figure_of(*b, "p99"); });
  return *order[order.size() / 2];
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

Result<std::vector<FigureChange>> compare_reports(std::string_view baseline_json, std::string_view candidate_json) {
  auto base = parse_report(baseline_json, "baseline");
  if (!base) return base.error();
  auto cand = parse_report(candidate_json, "candidate");
  if (!cand) return cand.error();
  const std::vector<const json*> base_runs = runs_of(*base);
  const std::vector<const json*> cand_runs = runs_of(*cand);
  const bool over_runs = base_runs.size() >= 2 && cand_runs.size() >= 2;
  const auto per_run = [](const json& run, std::string_view figure) { return figure_of(run, figure); };
  std::vector<FigureChange> out;
  for (const FigureSpec& f : kFigures) {
    FigureChange c{f.figure, f.label, f.unit, side_figure(base_runs, f.figure), side_figure(cand_runs, f.figure), {},
                   f.higher_is_worse, {}};
    if (c.baseline != 0) {
      c.change = (c.candidate - c.baseline) / c.baseline;
    } else if (c.candidate == 0) {
      c.change = 0.0;
    }
    // Over runs only when both sides have several; else over each side's intervals.
    const auto samples = [&](const std::vector<const json*>& runs) {
      return over_runs ? figure_samples(runs, f.figure, per_run)
                       : figure_samples({runs.begin(), runs.begin() + 1}, f.figure, per_run);
    };
    c.significance = judge(samples(base_runs), samples(cand_runs), over_runs, c.change, f.higher_is_worse,
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
    out += fmt::format("  --max-regression {}={:g}%: {} ({}): {} ({})\n", b.bound.figure, b.bound.limit * 100,
                       format_change(b.change), direction,
                       !b.broken ? "ok" : (b.counts(false) ? "REGRESSION" : "beyond the bound, within the noise"),
                       b.significance.words);
  }
  return out;
}

std::string render_compare_json(std::string_view baseline_json, std::string_view candidate_json,
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
                  {"significant", b.significance.significant}, {"regression", b.counts(false)}});
  }
  json out = {{"schema", "pacer-compare"},
              {"baseline_name", baseline_name},
              {"candidate_name", candidate_name},
              {"baseline", drawn_run(json::parse(baseline_json))},
              {"candidate", drawn_run(json::parse(candidate_json))},
              {"changes", std::move(cs)},
              {"bounds", std::move(bs)}};
  return out.dump();
}

}  // namespace pacer::html
