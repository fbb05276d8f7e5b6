#include "capacity/step_figures.h"

#include <string_view>

#include "report/gates.h"

namespace pacer::capacity {

std::optional<double> server_cpu(const report::RunReport& run) {
  if (!run.timeseries) return std::nullopt;
  double pid_cpu_s = 0;
  double pid_span_s = 0;
  double scraped_sum = 0;
  int scraped_points = 0;
  for (const report::SeriesPoint& p : *run.timeseries) {
    if (report::is_drain(p) || !p.evidence || p.duration_ns <= 0) continue;
    bool pid_read = false;
    double cpu_s = 0;
    for (const evidence::PidSample& s : p.evidence->pids) {
      if (!s.ok()) continue;
      pid_read = true;
      cpu_s += static_cast<double>(s.cpu_user_ns + s.cpu_system_ns) / 1e9;
    }
    if (pid_read) {
      pid_cpu_s += cpu_s;
      pid_span_s += static_cast<double>(p.duration_ns) / 1e9;
    }
    bool scraped = false;
    double rate = 0;
    for (const evidence::ScrapeSample& scrape : p.evidence->scrapes) {
      for (const evidence::MetricValue& v : scrape.values) {
        if (!v.is_rate || !v.value || !std::string_view(v.series).starts_with("process_cpu_seconds_total")) continue;
        scraped = true;
        rate += *v.value;
      }
    }
    if (scraped) {
      scraped_sum += rate;
      ++scraped_points;
    }
  }
  if (pid_span_s > 0) return pid_cpu_s / pid_span_s;
  if (scraped_points > 0) return scraped_sum / scraped_points;
  return std::nullopt;
}

StepFigures step_figures(const report::RunReport& run) {
  StepFigures f;
  // The rate the step asked for (its -R), not the schedule's arrivals over the window
  // (run.target_rate_per_s), which a float division can put a hair off it.
  f.target_rate_per_s = run.load_model == LoadModel::kClosed ? 0 : run.rate_per_s;
  f.achieved_rate_per_s =
      run.measured_ns > 0 ? static_cast<double>(run.counters.responses) * 1e9 / static_cast<double>(run.measured_ns) : 0;
  if (run.latency.total_count() > 0) {
    f.p50_ns = run.latency.value_at_percentile(50);
    f.p90_ns = run.latency.value_at_percentile(90);
    f.p99_ns = run.latency.value_at_percentile(99);
    f.max_ns = run.latency.max();
  }
  f.requests = run.counters.responses + run.counters.errors.socket_total();
  f.errors = report::failed_requests(run);
  f.error_rate = report::error_rate(run);
  f.mean_service_ns = run.service.total_count() > 0 ? run.service.mean() : 0;
  f.server_cpu = server_cpu(run);
  return f;
}

}  // namespace pacer::capacity
