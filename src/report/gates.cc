#include "report/gates.h"

#include <fmt/format.h>

#include "report/units.h"

namespace pacer::report {

std::uint64_t failed_requests(const RunReport& r) {
  // Scenarios: a response u:fail marked is a failure too (unless it already was one).
  const stats::ScenarioErrorCounts scenario{r.scenario.check, r.scenario.script, r.scenario.check_on_errors};
  return stats::failed_requests(r.counters.errors, &scenario);
}

double error_rate(const RunReport& r) {
  const stats::ErrorCounts& e = r.counters.errors;
  const auto failed = static_cast<double>(failed_requests(r));
  const double finished = static_cast<double>(r.counters.responses + e.socket_total());
  return finished > 0 ? failed / finished : 0;
}

stats::Percentile measure_gate(const RunReport& r, const LatencyGate& gate) {
  const bool any_censored = r.latency_censored.total_count() > 0;
  switch (gate.statistic) {
    case LatencyGate::Statistic::kMean:
      return {static_cast<std::int64_t>(r.latency.mean()), any_censored};
    case LatencyGate::Statistic::kMax:
      return {r.latency.max(), any_censored && r.latency_censored.max() >= r.latency.max()};
    case LatencyGate::Statistic::kPercentile:
      return stats::percentile_with_censoring(r.latency, r.latency_censored, gate.percentile);
  }
  return {};
}

bool gate_holds(const LatencyGate& gate, std::int64_t value_ns) {
  return gate.inclusive ? value_ns <= gate.limit_ns : value_ns < gate.limit_ns;
}

std::vector<std::string> failed_gates(const RunReport& r) {
  if (r.gate_failures_read) return *r.gate_failures_read;
  std::vector<std::string> failures;
  for (const LatencyGate& gate : r.slo) {
    if (r.latency.total_count() == 0) {
      failures.push_back(fmt::format("gate failed: {} (no latency was recorded)", gate.text));
      continue;
    }
    const stats::Percentile v = measure_gate(r, gate);
    const bool within = gate_holds(gate, v.value);
    const std::string measured = format_time_ns(static_cast<double>(v.value));
    if (!within) {
      failures.push_back(fmt::format("gate failed: {} (measured {}{})", gate.text, v.is_lower_bound ? ">=" : "",
                                     measured));
    } else if (v.is_lower_bound) {
      failures.push_back(fmt::format(
          "gate failed: {} (measured >={}: a lower bound from timed-out requests, so the gate is not proven)",
          gate.text, measured));
    }
  }
  if (r.max_error_rate) {
    const double rate = error_rate(r);
    if (rate > *r.max_error_rate) {
      const stats::ErrorCounts& e = r.counters.errors;
      failures.push_back(fmt::format("gate failed: max-error-rate {:g}% (measured {:.2f}%: {} errors in {} requests)",
                                     *r.max_error_rate * 100, rate * 100,
                                     failed_requests(r),
                                     r.counters.responses + e.socket_total()));
    }
  }
  return failures;
}

}  // namespace pacer::report
