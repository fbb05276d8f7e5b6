#include "capacity/text.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/labelled.h"
#include "report/units.h"

namespace pacer::capacity {

namespace {

std::string latency(std::int64_t ns) { return report::format_time_ns(static_cast<double>(ns)); }

// Decided before the first step, so the head printed then fits every row.
bool any_cpu(const CapacityResult& r) { return r.setup.server_sampled; }

// "holds", "holds (near)", "breaks (run 2)": a row is printed as its step ends, before
// anyone knows whether its rate runs again, so it says which run it is, not of how many.
std::string verdict_cell(const CapacityResult& r, const Step& s) {
  if (s.probe) return "probe";
  std::vector<std::string> notes;
  if (s.near && s.verdict == Verdict::kHolds && !r.sweep) notes.emplace_back("near");
  if (s.repeat > 1) notes.push_back(fmt::format("run {}", s.repeat));
  std::string out = verdict_name(s.verdict);
  for (std::size_t i = 0; i < notes.size(); ++i) out += (i == 0 ? " (" : ", ") + notes[i];
  return notes.empty() ? out : out + ")";
}

std::string arrivals(const SearchSetup& s) { return s.poisson ? "Poisson" : "uniform"; }

}  // namespace

std::string render_intro(const CapacityResult& r) {
  const SearchSetup& s = r.setup;
  std::string out = fmt::format("{} {}\n", r.sweep ? "Capacity sweep of" : "Capacity search of", r.url);
  if (!r.objective_text.empty()) out += report::labelled("Objective:", r.objective_text);
  out += report::labelled("Steps:", fmt::format("{} each after a {} warm-up, {} arrivals, {} connections, {} threads",
                                                report::format_duration_short(s.step_duration_ns),
                                                report::format_duration_short(s.step_warmup_ns), arrivals(s),
                                                s.connections, s.threads));
  if (!r.sweep) {
    out += report::labelled(
        "Search:", fmt::format("from {}, doubling until a step breaks, then halving the bracket to {:g}%; a "
                               "rate near a limit runs up to {} times; budget {}",
                               s.start_from == "probe" ? std::string("half the closed-loop probe's rate")
                                                       : rate_text(s.start_rate_per_s) + " (-R)",
                               s.precision * 100, s.step_repeat, report::format_duration_short(s.budget_ns)));
  } else if (s.step_repeat > 1) {
    out += report::labelled("Sweep:", fmt::format("every rate {} times", s.step_repeat));
  }
  out += fmt::format("\n  {:>4} {:>8} {:>10} {:>8} {:>8} {:>8} {:>8} {:>7}{} {}\n", "step", "target/s", "achieved/s",
                     "p50", "p90", "p99", "max", "errors", any_cpu(r) ? fmt::format(" {:>6}", "cpu") : "", "verdict");
  return out;
}

std::string render_row(const CapacityResult& r, const Step& s) {
  const StepFigures& f = s.figures;
  std::string cpu;
  if (any_cpu(r)) cpu = fmt::format(" {:>6}", f.server_cpu ? fmt::format("{:.0f}%", *f.server_cpu * 100) : "-");
  std::string row = fmt::format("  {:>4} {:>8} {:>10} {:>8} {:>8} {:>8} {:>8} {:>6.2f}%{} {}", s.index,
                                s.probe ? "probe" : fmt::format("{:.0f}", f.target_rate_per_s),
                                fmt::format("{:.1f}", f.achieved_rate_per_s), latency(f.p50_ns), latency(f.p90_ns),
                                latency(f.p99_ns), latency(f.max_ns), f.error_rate * 100, cpu, verdict_cell(r, s));
  if (s.verdict == Verdict::kBreaks && !s.broken_by.empty()) row += "  " + s.broken_by;
  return row + "\n";
}

std::string render_answer(const CapacityResult& r) {
  const Answer& a = r.answer;
  std::string out = "\n" + report::labelled("Answer:", answer_sentence(a, !r.terms.empty()));
  if (!a.client_limit.empty()) out += report::labelled("Client:", a.client_limit);
  if (a.kind == AnswerKind::kFound || (a.kind == AnswerKind::kSweep && a.holds_at_per_s && a.breaks_at_per_s)) {
    out += report::labelled("Meaning:", "the capacity of this server, from this client, over this network, for these "
                                        "requests; another client machine, path or mix can differ.");
  }
  const std::string curve = render_curve(r);
  if (!curve.empty()) out += "\n" + curve;
  out += fmt::format("\n  {} steps in {}\n", r.steps.size(), report::format_time_ns(static_cast<double>(a.elapsed_ns)));
  return out;
}

std::string render_text(const CapacityResult& r) {
  std::string out = render_intro(r);
  for (const Step& s : r.steps) out += render_row(r, s);
  return out + render_answer(r);
}

std::string render_compare_text(const CapacityResult& base, const CapacityResult& cand, const std::string& base_name,
                                const std::string& cand_name) {
  const auto rate_or = [](const std::optional<double>& v) { return v ? rate_text(*v) : std::string("-"); };
  std::string out = fmt::format("Capacity: {} (baseline) vs {} (candidate)\n", base_name, cand_name);
  out += fmt::format("  {:<10} {:<20} {:<20} {}\n", "", "baseline", "candidate", "change");
  out += fmt::format("  {:<10} {:<20} {:<20}\n", "objective", base.objective_text.empty() ? "-" : base.objective_text,
                     cand.objective_text.empty() ? "-" : cand.objective_text);
  std::string change = "-";
  const Answer& a = base.answer;
  const Answer& b = cand.answer;
  if (a.holds_at_per_s && b.holds_at_per_s && *a.holds_at_per_s > 0) {
    change = fmt::format("{:+.1f}%", (*b.holds_at_per_s / *a.holds_at_per_s - 1) * 100);
  }
  out += fmt::format("  {:<10} {:<20} {:<20} {}\n", "holds at", rate_or(a.holds_at_per_s), rate_or(b.holds_at_per_s),
                     change);
  out += fmt::format("  {:<10} {:<20} {:<20}\n", "breaks at", rate_or(a.breaks_at_per_s), rate_or(b.breaks_at_per_s));
  out += fmt::format("  {:<10} {:<20} {:<20}\n", "steps", base.steps.size(), cand.steps.size());
  out += report::labelled("Baseline:", answer_sentence(a, !base.terms.empty()));
  out += report::labelled("Candidate:", answer_sentence(b, !cand.terms.empty()));
  std::string verdict;
  if (base.objective_text != cand.objective_text) {
    verdict = "the objectives differ: the answers are not comparable.";
  } else if (a.kind != AnswerKind::kFound || b.kind != AnswerKind::kFound) {
    verdict = "not both searches found a bracket: compare the tables, not the answers.";
  } else if (*b.holds_at_per_s >= *a.breaks_at_per_s) {
    verdict = "higher: the candidate held at a rate where the baseline broke (the brackets do not overlap).";
  } else if (*b.breaks_at_per_s <= *a.holds_at_per_s) {
    verdict = "lower: the candidate broke at a rate where the baseline held (the brackets do not overlap).";
  } else {
    verdict = "no change the searches can tell: the brackets overlap.";
  }
  return out + report::labelled("Change:", verdict);
}

std::string render_curve(const CapacityResult& r, int width, int height) {
  std::vector<const Step*> points;
  for (const Step& s : r.steps) {
    if (!s.probe && s.figures.p99_ns > 0) points.push_back(&s);
  }
  if (points.size() < 2) return "";
  double x_min = 1e300;
  double x_max = 0;
  double y_min = 1e300;
  double y_max = 0;
  for (const Step* s : points) {
    x_min = std::min(x_min, s->figures.achieved_rate_per_s);
    x_max = std::max(x_max, s->figures.achieved_rate_per_s);
    y_min = std::min(y_min, static_cast<double>(std::max<std::int64_t>(s->figures.p50_ns, 1)));
    y_max = std::max(y_max, static_cast<double>(s->figures.p99_ns));
  }
  std::vector<std::pair<double, std::string>> limits;
  for (const ObjectiveTerm& t : r.terms) {
    if (t.figure != ObjectiveTerm::Figure::kLatency) continue;
    const auto limit = static_cast<double>(t.latency.limit_ns);
    limits.emplace_back(limit, t.text);
    y_min = std::min(y_min, limit);
    y_max = std::max(y_max, limit);
  }
  if (x_max <= 0) return "";
  // From the lowest achieved rate (or 0 when that is under a third of the highest).
  if (x_min < x_max / 3 || x_min >= x_max) x_min = 0;
  if (y_max <= y_min) y_max = y_min * 10;
  const double log_min = std::log10(y_min);
  const double log_span = std::log10(y_max) - log_min;
  const auto row_of = [&](double ns) {
    const double share = (std::log10(std::max(ns, y_min)) - log_min) / log_span;
    return height - 1 - std::clamp(static_cast<int>(std::lround(share * (height - 1))), 0, height - 1);
  };
  const auto col_of = [&](double rate) {
    return std::clamp(static_cast<int>(std::lround((rate - x_min) / (x_max - x_min) * (width - 1))), 0, width - 1);
  };
  std::vector<std::string> grid(static_cast<std::size_t>(height), std::string(static_cast<std::size_t>(width), ' '));
  std::vector<std::string> right(static_cast<std::size_t>(height));
  for (const auto& [limit, text] : limits) {
    const auto row = static_cast<std::size_t>(row_of(limit));
    std::fill(grid[row].begin(), grid[row].end(), '-');
    right[row] = " " + text;
  }
  for (const Step* s : points) {
    const auto col = static_cast<std::size_t>(col_of(s->figures.achieved_rate_per_s));
    grid[static_cast<std::size_t>(row_of(static_cast<double>(s->figures.p50_ns)))][col] = 'o';
    grid[static_cast<std::size_t>(row_of(static_cast<double>(s->figures.p99_ns)))][col] =
        s->verdict == Verdict::kBreaks || s->verdict == Verdict::kClient ? 'X' : '*';
  }
  std::string out = "  latency (log) by achieved rate: * p99, o p50, X p99 where the step broke\n";
  for (int row = 0; row < height; ++row) {
    std::string label;
    if (row == 0) label = report::format_time_ns(y_max);
    if (row == height - 1) label = report::format_time_ns(y_min);
    out += fmt::format("  {:>9} |{}{}\n", label, grid[static_cast<std::size_t>(row)], right[static_cast<std::size_t>(row)]);
  }
  out += fmt::format("  {:>9} +{}\n", "", std::string(static_cast<std::size_t>(width), '-'));
  const std::string min_label = x_min > 0 ? rate_text(x_min) : "0";
  out += fmt::format("  {:>9}  {}{:>{}}\n", "", min_label, rate_text(x_max),
                     width - static_cast<int>(min_label.size()));
  return out;
}

}  // namespace pacer::capacity
