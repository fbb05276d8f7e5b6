// The report so far, summed from the intervals; see the header.
#include "web/partial_report.h"

#include <nlohmann/json.hpp>

#include "engine/run.h"
#include "report/json.h"
#include "report/printable_json.h"

namespace pacer::web {

PartialReport::PartialReport(const Config& config) : report_(engine::make_report(config)) {
  report_.threads = static_cast<int>(connections_per_worker(config.threads, config.connections).size());
}

void PartialReport::add(const report::IntervalReport& interval) {
  if (interval.index == 0) report_.start_unix_ns = interval.start_unix_ns - interval.start_ns;
  if (interval.stats_reset) {  // POST /stats/reset: the figures start again here
    report_.counters = {};
    report_.latency.reset();
    scenario_errors_.reset();
    target_arrivals_ = 0;
    from_ns_ = interval.start_ns;
  }
  stats::Counters& c = report_.counters;
  // The interval's counts, error classes and status codes, by the table the
  // Prometheus counters add up too (bytes, connects: what /metrics has live).
  report::add_to_run(c, interval);
  c.peak_backlog = std::max(c.peak_backlog, interval.backlog);
  if (interval.scenario_errors) {
    if (!scenario_errors_) scenario_errors_.emplace();
    scenario_errors_->merge(*interval.scenario_errors);
  }
  if (interval.latency != nullptr) report_.latency.merge(*interval.latency);
  report_.measured_ns = interval.start_ns + interval.duration_ns - from_ns_;
  if (interval.target_rate_per_s) {
    target_arrivals_ += *interval.target_rate_per_s * static_cast<double>(interval.duration_ns) / 1e9;
    report_.target_rate_per_s = report_.measured_ns > 0 ? target_arrivals_ * 1e9 / static_cast<double>(report_.measured_ns) : 0;
  }
}

std::string PartialReport::render_json() const {
  nlohmann::ordered_json out = report::json_document(report_);  // the writer's document, not its text parsed back
  // Only the final report has these (the intervals do not carry them).
  for (const char* key : {"warmup_responses", "tls_handshakes", "tls_resumed", "redirects", "bytes_decoded",
                          "peak_backlog", "length_mismatches", "keepalive_closed", "resent"}) {
    if (out["counts"].contains(key)) out["counts"][key] = nullptr;
  }
  if (out["connection_path"]["tls"].is_object()) {  // its counts are the final report's (as counts.tls_*)
    out["connection_path"]["tls"]["handshakes"] = nullptr;
    out["connection_path"]["tls"]["resumed"] = nullptr;
  }
  for (const char* key : {"service_time", "queue_delay", "connect_time", "tls_handshake_time", "tunnel_time", "ttfb",
                          "req_per_s", "endpoints", "endpoint_names", "first_error", "tls_first_error",
                          "no_request_succeeded", "hint", "gates", "scenario", "first_response"}) {
    if (out.contains(key)) out[key] = nullptr;
  }
  if (scenario_errors_) {  // a failed check is an error here too; the failures count needs the final report
    for (const auto& f : stats::ScenarioErrorCounts::kFields) out["errors"][f.name] = *scenario_errors_.*f.member;
    out["counts"]["failed"] = nullptr;
    out["error_rate"] = nullptr;
  }
  return report::dump_printable(out, 2) + "\n";
}

}  // namespace pacer::web
