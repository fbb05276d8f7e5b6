// The report so far, summed from the intervals; see the header.
#include "web/partial_report.h"

#include "engine/run.h"

namespace pacer::web {

PartialReport::PartialReport(const Config& config) : report_(engine::make_report(config)) {
  report_.threads = static_cast<int>(connections_per_worker(config.threads, config.connections).size());
}

void PartialReport::add(const report::IntervalReport& interval) {
  if (interval.index == 0) report_.start_unix_ns = interval.start_unix_ns - interval.start_ns;
  stats::Counters& c = report_.counters;
  c.requests_sent += interval.sent;
  c.responses += interval.completed;
  c.scheduled += interval.scheduled;
  c.errors.merge(interval.errors);
  c.peak_backlog = std::max(c.peak_backlog, interval.backlog);
  if (interval.latency != nullptr) report_.latency.merge(*interval.latency);
  report_.measured_ns = interval.start_ns + interval.duration_ns;
  if (interval.target_rate_per_s) {
    target_arrivals_ += *interval.target_rate_per_s * static_cast<double>(interval.duration_ns) / 1e9;
    report_.target_rate_per_s = report_.measured_ns > 0 ? target_arrivals_ * 1e9 / static_cast<double>(report_.measured_ns) : 0;
  }
}

}  // namespace pacer::web
