#include "capacity/objective.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/gate_options.h"
#include "report/gates.h"
#include "report/units.h"

namespace pacer::capacity {

namespace {

// A verdict one run cannot tell: a latency term's figure within this share of
// its limit, server_cpu's within this share (a sampled figure), or a count of
// requests past the limit that a Poisson count with the allowed mean would give
// more often than kTailShare of the time (the histogram's own confidence).
constexpr double kLatencyMargin = 0.05;
constexpr double kCpuMargin = 0.10;
constexpr double kTailShare = 0.05;

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// P(X <= k) for X ~ Poisson(mean): exact below a mean of 200, the normal
// approximation (with its continuity correction) above.
double poisson_cdf(double k, double mean) {
  if (k < 0) return 0;
  if (mean <= 0) return 1;
  if (mean > 200) return 0.5 * std::erfc(-((k + 0.5 - mean) / std::sqrt(mean)) / std::sqrt(2.0));
  double term = std::exp(-mean);
  double sum = term;
  for (int i = 1; i <= static_cast<int>(k); ++i) {
    term *= mean / i;
    sum += term;
  }
  return std::min(sum, 1.0);
}

// Counts past the limit (k) against the allowed mean: whether k sits where a
// rate exactly at the limit would put it often (neither tail is thin).
bool count_is_near(double k, double allowed_mean) {
  if (allowed_mean <= 0) return false;  // nothing allowed: one is a break, none a hold
  const double at_most_k = poisson_cdf(k, allowed_mean);
  const double at_least_k = 1 - poisson_cdf(k - 1, allowed_mean);
  return at_most_k >= kTailShare && at_least_k >= kTailShare;
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
    r.near = r.near || count_is_near(past, n * (100 - g.percentile) / 100);
  }
  r.phrase = fmt::format("{} {}{} {} {}", name, v.is_lower_bound ? ">=" : "", report::format_time_ns(r.value),
                         relation(r.holds, g.inclusive), limit);
  return r;
}

TermReading read_errors(const ObjectiveTerm& term, const StepFigures& f) {
  TermReading r;
  r.text = term.text;
  if (f.requests == 0) {
    r.measured = false;
    r.phrase = "errors: no request finished";
    return r;
  }
  r.value = f.error_rate;
  r.holds = within(r.value, term.limit, term.inclusive);
  r.near = count_is_near(static_cast<double>(f.errors), static_cast<double>(f.requests) * term.limit);
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
      case ObjectiveTerm::Figure::kErrors: out.push_back(read_errors(t, figures)); break;
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
