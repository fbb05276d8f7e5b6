#include "capacity/objective.h"

#include <cmath>
#include <cstdlib>
#include <vector>

#include <fmt/format.h>

#include "cli/gate_options.h"
#include "report/gates.h"
#include "stats/counters.h"
#include "report/units.h"

namespace pacer::capacity {

namespace {

// A verdict one run cannot tell: a latency term's figure within this share of
// its limit, server_cpu's within this share (a sampled figure), or a count of
// requests past the limit within kCountSpread of its standard deviations of the
// count the objective allows (the histogram's own confidence).
constexpr double kLatencyMargin = 0.05;
constexpr double kCpuMargin = 0.10;
constexpr double kCountSpread = 2.0;
constexpr std::size_t kMinBatches = 4;

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// The counts one step's intervals gave (requests past a latency limit, or failed
// requests): batches of the step. Requests in a queue are not independent (a
// burst puts many past the limit at once), so the spread of a count is judged
// from how it varied from batch to batch (the batch-means method), not from a
// Poisson count's alone.
struct Batches {
  std::vector<double> counts;
  double total() const {
    double t = 0;
    for (double c : counts) t += c;
    return t;
  }
  // The standard deviation of the total: sqrt(B x the batches' variance), at least
  // a Poisson count's (sqrt of the total); a Poisson count's alone with fewer than
  // kMinBatches batches.
  double total_spread() const {
    const double k = total();
    double spread = std::sqrt(k);
    const auto b = static_cast<double>(counts.size());
    if (counts.size() >= kMinBatches) {
      const double mean = k / b;
      double sum_sq = 0;
      for (double c : counts) sum_sq += (c - mean) * (c - mean);
      spread = std::max(spread, std::sqrt(b * sum_sq / (b - 1)));
    }
    return spread;
  }
};

Batches latency_batches(const report::RunReport& run, TimeNs limit_ns) {
  Batches out;
  if (!run.timeseries) return out;
  for (const report::SeriesPoint& p : *run.timeseries) {
    if (report::is_drain(p) || p.latency.total_count() == 0) continue;
    const stats::Histogram h = p.latency.unpack();
    out.counts.push_back(static_cast<double>(h.total_count() - h.count_at_or_below(limit_ns)));
  }
  return out;
}

Batches error_batches(const report::RunReport& run) {
  Batches out;
  if (!run.timeseries) return out;
  for (const report::SeriesPoint& p : *run.timeseries) {
    if (report::is_drain(p)) continue;
    out.counts.push_back(static_cast<double>(
        stats::failed_requests(p.errors, p.scenario_errors ? &*p.scenario_errors : nullptr)));
  }
  return out;
}

// Counts past the limit (k, or failed requests) against the allowed mean: whether
// k lies within two of its standard deviations (spread) of the allowance, so that
// another run at the same rate could land on the other side. None past the limit
// is a clear hold: nothing suggests the limit is near.
bool count_is_near(double k, double allowed_mean, double spread) {
  if (k <= 0) return false;
  return std::abs(k - allowed_mean) < kCountSpread * std::max(spread, std::sqrt(k));
}

Result<ObjectiveTerm> parse_term(std::string_view term, std::string_view flag) {
  ObjectiveTerm t;
  t.text = std::string(term);
  const std::size_t op = term.find('<');
  if (op == std::string_view::npos) {
    return bad_argument(fmt::format(
        "{}: '{}' is not FIGURE<=LIMIT (e.g. p99<=50ms, errors<=0.1%, server_cpu<=80%)", flag, term));
  }
  const std::string_view name = trim(term.substr(0, op));
  std::string_view limit = term.substr(op + 1);
  t.inclusive = !limit.empty() && limit.front() == '=';
  if (t.inclusive) limit.remove_prefix(1);
  limit = trim(limit);
  if (name == "errors" || name == "error_rate") {
    t.figure = ObjectiveTerm::Figure::kErrors;
    auto rate = cli::parse_error_rate(limit, flag);
    if (!rate) return rate.error();
    if (*rate == 0 && !t.inclusive) return bad_argument(fmt::format("{}: '{}' can never hold (use errors<=0)", flag, term));
    t.limit = *rate;
    return t;
  }
  if (name == "server_cpu") {
    t.figure = ObjectiveTerm::Figure::kServerCpu;
    std::string digits(limit);
    const bool percent = !digits.empty() && digits.back() == '%';
    if (percent) digits.pop_back();
    char* end = nullptr;
    const double v = std::strtod(digits.c_str(), &end);
    if (digits.empty() || end != digits.c_str() + digits.size() || !std::isfinite(v) || v <= 0) {
      return bad_argument(fmt::format("{}: '{}': server_cpu's limit is a share of one CPU above 0, as 80% or 250% "
                                      "(two and a half CPUs)",
                                      flag, term));
    }
    t.limit = percent ? v / 100 : v;
    return t;
  }
  auto gates = cli::parse_slo(term, flag);
  if (!gates) {
    return bad_argument(fmt::format("{} (or errors, server_cpu)", gates.error().message));
  }
  t.figure = ObjectiveTerm::Figure::kLatency;
  t.latency = gates->front();
  t.inclusive = t.latency.inclusive;
  return t;
}

std::string cpu_text(double cpus) { return fmt::format("{:.0f}%", cpus * 100); }
std::string share_text(double share) { return fmt::format("{:.2f}%", share * 100); }
std::string limit_share_text(double share) { return fmt::format("{:g}%", share * 100); }

bool within(double value, double limit, bool inclusive) { return inclusive ? value <= limit : value < limit; }

const char* relation(bool holds, bool inclusive) {
  if (holds) return inclusive ? "<=" : "<";
  return inclusive ? ">" : ">=";
}

std::string statistic_name(const LatencyGate& g) {
  switch (g.statistic) {
    case LatencyGate::Statistic::kMean: return "mean";
    case LatencyGate::Statistic::kMax: return "max";
    case LatencyGate::Statistic::kPercentile: return fmt::format("p{:g}", g.percentile);
  }
  return "";
}

TermReading read_latency(const ObjectiveTerm& term, const report::RunReport& run) {
  TermReading r;
  r.text = term.text;
  const LatencyGate& g = term.latency;
  const std::string name = statistic_name(g);
  const std::string limit = report::format_time_ns(static_cast<double>(g.limit_ns));
  if (run.latency.total_count() == 0) {
    r.measured = false;
    r.phrase = fmt::format("{}: no latency was recorded", name);
    return r;
  }
  const stats::Percentile v = report::measure_gate(run, g);
  r.value = static_cast<double>(v.value);
  // A bound from timed-out requests proves nothing below the limit.
  r.holds = report::gate_holds(g, v.value) && !v.is_lower_bound;
  const double limit_ns = static_cast<double>(g.limit_ns);
  r.near = std::abs(r.value - limit_ns) <= kLatencyMargin * limit_ns;
  if (g.statistic == LatencyGate::Statistic::kPercentile) {
    const auto n = static_cast<double>(run.latency.total_count());
    const double past = n - static_cast<double>(run.latency.count_at_or_below(g.limit_ns));
    r.near = r.near || count_is_near(past, n * (100 - g.percentile) / 100,
                                     latency_batches(run, g.limit_ns).total_spread());
  }
  r.phrase = fmt::format("{} {}{} {} {}", name, v.is_lower_bound ? ">=" : "", report::format_time_ns(r.value),
                         relation(r.holds, g.inclusive), limit);
  return r;
}

TermReading read_errors(const ObjectiveTerm& term, const report::RunReport& run, const StepFigures& f) {
  TermReading r;
  r.text = term.text;
  if (f.requests == 0) {
    r.measured = false;
    r.phrase = "errors: no request finished";
    return r;
  }
  r.value = f.error_rate;
  r.holds = within(r.value, term.limit, term.inclusive);
  r.near = count_is_near(static_cast<double>(f.errors), static_cast<double>(f.requests) * term.limit,
                         error_batches(run).total_spread());
  r.phrase = fmt::format("errors {} {} {}", share_text(r.value), relation(r.holds, term.inclusive),
                         limit_share_text(term.limit));
  return r;
}

TermReading read_cpu(const ObjectiveTerm& term, const StepFigures& f) {
  TermReading r;
  r.text = term.text;
  if (!f.server_cpu) {
    r.measured = false;
    r.phrase = "server_cpu: not sampled (no --server-pid or --server-metrics reading)";
    return r;
  }
  r.value = *f.server_cpu;
  r.holds = within(r.value, term.limit, term.inclusive);
  r.near = std::abs(r.value - term.limit) <= kCpuMargin * term.limit;
  r.phrase = fmt::format("server_cpu {} {} {}", cpu_text(r.value), relation(r.holds, term.inclusive),
                         cpu_text(term.limit));
  return r;
}

}  // namespace

Result<std::vector<ObjectiveTerm>> parse_objective(std::string_view text, std::string_view flag) {
  std::vector<ObjectiveTerm> terms;
  if (trim(text).empty()) {
    return bad_argument(fmt::format("{}: an empty objective (e.g. 'p99<=50ms,errors<=0.1%')", flag));
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view term = trim(text.substr(start, comma - start));
    if (term.empty()) return bad_argument(fmt::format("{}: an empty term in '{}'", flag, text));
    auto parsed = parse_term(term, flag);
    if (!parsed) return parsed.error();
    terms.push_back(std::move(*parsed));
    start = comma + 1;
  }
  return terms;
}

std::vector<TermReading> read_terms(const std::vector<ObjectiveTerm>& terms, const report::RunReport& run,
                                    const StepFigures& figures) {
  std::vector<TermReading> out;
  out.reserve(terms.size());
  for (const ObjectiveTerm& t : terms) {
    switch (t.figure) {
      case ObjectiveTerm::Figure::kLatency: out.push_back(read_latency(t, run)); break;
      case ObjectiveTerm::Figure::kErrors: out.push_back(read_errors(t, run, figures)); break;
      case ObjectiveTerm::Figure::kServerCpu: out.push_back(read_cpu(t, figures)); break;
    }
  }
  return out;
}

bool all_hold(const std::vector<TermReading>& readings) {
  for (const TermReading& r : readings) {
    if (!r.holds) return false;
  }
  return true;
}

bool any_near(const std::vector<TermReading>& readings) {
  for (const TermReading& r : readings) {
    if (r.near) return true;
  }
  return false;
}

std::string broken_phrase(const std::vector<TermReading>& readings) {
  std::string out;
  for (const TermReading& r : readings) {
    if (!r.holds) out += (out.empty() ? "" : "; ") + r.phrase;
  }
  return out;
}

bool needs_server_samples(const std::vector<ObjectiveTerm>& terms) {
  for (const ObjectiveTerm& t : terms) {
    if (t.figure == ObjectiveTerm::Figure::kServerCpu) return true;
  }
  return false;
}

}  // namespace pacer::capacity
