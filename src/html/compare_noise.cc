// See compare_noise.h.
#include "html/compare_noise.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/rank_test.h"

namespace pacer::html {

namespace {

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

double standard_deviation(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double sum = 0;
  for (double x : v) sum += (x - mean) * (x - mean);
  return std::sqrt(sum / static_cast<double>(v.size() - 1));
}

// One interval's figure; NaN when it has none (no response in it, or a figure
// intervals do not carry). As the NDJSON line writes them: errors of every
// class (a scenario's included), latency of responses and timeouts.
double interval_figure(const report::SeriesPoint& in, std::string_view figure) {
  const double seconds = static_cast<double>(in.duration_ns) / 1e9;
  double errors = 0;
  for (const auto& f : stats::ErrorCounts::kFields) errors += static_cast<double>(in.errors.*f.member);
  if (in.scenario_errors) {
    for (const auto& f : stats::ScenarioErrorCounts::kFields) errors += static_cast<double>(*in.scenario_errors.*f.member);
  }
  const auto completed = static_cast<double>(in.completed);
  if (figure == "rps") return seconds > 0 ? completed / seconds : std::nan("");
  if (figure == "requests") return completed;
  if (figure == "errors") return errors;
  if (figure == "error_rate") return completed + errors > 0 ? errors / (completed + errors) : std::nan("");
  if (in.latency.total_count() == 0) return std::nan("");
  if (figure == "max") return static_cast<double>(in.latency.max());  // exact, kept beside the counts
  const stats::Histogram latency = in.latency.unpack();
  if (figure == "p50") return static_cast<double>(latency.value_at_percentile(50));
  if (figure == "p90") return static_cast<double>(latency.value_at_percentile(90));
  if (figure == "p99") return static_cast<double>(latency.value_at_percentile(99));
  if (figure == "p99.9") return static_cast<double>(latency.value_at_percentile(99.9));
  if (figure == "mean") return latency.mean();
  return std::nan("");
}

}  // namespace

std::vector<double> figure_samples(std::span<const report::RunReport> runs, std::string_view figure,
                                   double (*run_figure)(const report::RunReport&, std::string_view)) {
  std::vector<double> out;
  if (runs.size() >= 2) {
    for (const report::RunReport& run : runs) out.push_back(run_figure(run, figure));
    return out;
  }
  if (runs.empty() || !runs[0].timeseries) return out;
  const std::vector<report::SeriesPoint>& series = *runs[0].timeseries;
  // The first interval (connections opening, caches warming), the drain (a
  // sliver) and the run's last before it (cut at -d's end; it used to hold the
  // drain, and the sample stays what it was) are not like the others.
  for (std::size_t i = 1; i < series.size(); ++i) {
    if (series[i].drain_ns > 0) continue;
    if (i + 1 < series.size() && series[i + 1].drain_ns > 0) continue;
    const double v = interval_figure(series[i], figure);
    if (!std::isnan(v)) out.push_back(v);
  }
  return out;
}

std::optional<std::size_t> runs_to_settle(double change, double deviation, std::size_t have) {
  if (!(std::abs(change) > 0) || !std::isfinite(change) || !std::isfinite(deviation)) return std::nullopt;
  constexpr double kZ = 1.6449 + 0.8416;  // one-sided 5 %, 80 % power
  const double needed = std::ceil(2 * kZ * kZ * (deviation / change) * (deviation / change));
  if (!(needed <= static_cast<double>(kMaxRunsToSettle))) return std::nullopt;
  const std::size_t n = std::max({static_cast<std::size_t>(needed), std::size_t{3}, have + 1});
  return n <= kMaxRunsToSettle ? std::optional<std::size_t>(n) : std::nullopt;
}

Significance judge(const std::vector<double>& baseline, const std::vector<double>& candidate, bool over_runs,
                   std::optional<double> change, bool higher_is_worse, const char* worse_word) {
  Significance s;
  s.over_runs = over_runs;
  s.baseline_n = baseline.size();
  s.candidate_n = candidate.size();
  const std::size_t needed = over_runs ? 2 : kMinIntervals;
  if (baseline.size() < needed || candidate.size() < needed) {
    s.words = over_runs ? "significance unknown: too few runs"
                        : "significance unknown: one run a side needs a time series of at least 6 intervals "
                          "(--timeseries or --html), or use --repeat";
    return s;
  }
  s.known = true;
  // The test runs in the direction the figure moved: worse (a regression) or better.
  const bool moved_worse = !change || (higher_is_worse ? *change > 0 : *change < 0);
  const bool tests_greater = moved_worse == higher_is_worse;
  const report::RankTest t = report::mann_whitney(baseline, candidate);
  s.p = tests_greater ? t.p_greater : t.p_less;
  s.every_worse = moved_worse && (higher_is_worse ? t.all_greater : t.all_less);
  const bool every_moved = tests_greater ? t.all_greater : t.all_less;
  // The noise: each side's own spread (its range over runs, its interquartile
  // range over intervals), the larger, relative to the baseline: two medians of
  // samples that each span that much can differ by as much by chance. Over runs
  // the change must pass twice it: the range of 3 runs is on average 1.7 standard
  // deviations of one run, and often much less (two runs that happened to land
  // close), while the difference of two medians of 3 varies by about one standard
  // deviation; a change of one range is an ordinary difference between two batches
  // of the same build. (What no test over one batch a side can tell from a change
  // is a machine whose speed drifted between the batches: interleaved single runs,
  // a side given as A1.json,A2.json,..., move both sides alike.) Intervals are
  // many: their quartiles are steady and their medians vary far less than the IQR.
  const auto spread_of = [&](const std::vector<double>& v) {
    return over_runs ? *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end())
                     : quantile(v, 0.75) - quantile(v, 0.25);
  };
  const double centre = report::median(baseline);
  const double width = std::max(spread_of(baseline), spread_of(candidate));
  s.spread = centre != 0 ? std::abs(width / centre) : 0;
  const double moved_by = change ? std::abs(*change) : INFINITY;
  const double alpha = over_runs ? kRunsAlpha : kIntervalsAlpha;
  const double noise = over_runs ? 2 * s.spread : s.spread;
  const bool beyond_spread = moved_by > noise;
  s.significant = s.p <= alpha + 1e-12 && beyond_spread;
  const std::string spread_text = fmt::format("± {:.0f} %", s.spread * 100);
  const std::string what = over_runs ? fmt::format("{} runs each", baseline.size())
                                     : fmt::format("{} and {} intervals", baseline.size(), candidate.size());
  const char* direction = moved_worse ? worse_word : "better";
  if (s.significant) {
    const std::string order = every_moved ? fmt::format("every new {} {} than every old one",
                                                        over_runs ? "run" : "interval", direction)
                                          : fmt::format("p = {:.3f}", s.p);
    s.words = fmt::format("{}, {}: significant", what, order);
  } else if (!beyond_spread) {
    s.words = over_runs ? fmt::format("within twice the run-to-run spread of {}: not significant", spread_text)
                        : fmt::format("within the interval-to-interval spread of {}: not significant", spread_text);
  } else {
    s.words = fmt::format("{}, p = {:.3f} > {:.2f}: not significant", what, s.p, alpha);
  }
  if (!s.significant && change) {
    // The deviation the runs would show: over runs, theirs; over one run's intervals,
    // the intervals' (a run's figure spans many of them, so this errs on more runs).
    const double deviation = std::max(standard_deviation(baseline), standard_deviation(candidate));
    s.runs_to_settle = runs_to_settle(*change, centre != 0 ? deviation / std::abs(centre) : INFINITY,
                                      over_runs ? std::max(baseline.size(), candidate.size()) : 1);
  }
  return s;
}

}  // namespace pacer::html
