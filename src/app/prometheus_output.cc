// The run's Prometheus exports; see the header.
#include "app/prometheus_output.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "prom/exposition.h"
#include "prom/remote_write.h"

namespace pacer::app {

namespace {

std::int64_t now_unix_ms() {
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);
  return static_cast<std::int64_t>(wall.tv_sec) * 1000 + wall.tv_nsec / 1'000'000;
}

}  // namespace

std::string choose_run_id(const Config& config) {
  if (!config.prometheus.run_id.empty()) return config.prometheus.run_id;
  if (const char* job = std::getenv("SLURM_JOB_ID"); job != nullptr && *job != '\0') {
    return std::string("slurm-") + job;
  }
  return web::generate_token().substr(0, 12);
}

std::unique_ptr<PrometheusOutput> PrometheusOutput::start(const Config& config, web::LiveView* web_view) {
  if (web_view == nullptr && config.prometheus.remote_write_url.empty()) return nullptr;
  const bool generated = config.prometheus.run_id.empty() && std::getenv("SLURM_JOB_ID") == nullptr;
  auto out = std::make_unique<PrometheusOutput>(config, choose_run_id(config), web_view);
  // Said where the series leave the machine (the web view's /metrics shows it anyway).
  if (!config.prometheus.remote_write_url.empty()) {
    std::fprintf(stderr, "pacer: Prometheus remote write: series carry run_id=\"%s\"%s\n", out->run_id().c_str(),
                 generated && config.shard_count > 1
                     ? " (generated: give every shard the same --run-id to sum them in PromQL)"
                     : "");
  }
  return out;
}

PrometheusOutput::PrometheusOutput(const Config& config, std::string run_id, web::LiveView* web_view)
    : config_(config),
      run_id_(std::move(run_id)),
      web_view_(web_view),
      metrics_(config, prom::constant_labels(config, run_id_)) {
  if (!config.prometheus.remote_write_url.empty()) {
    prom::PushTarget target;
    target.url = config.prometheus.remote_write_url;
    target.basic_auth = config.prometheus.basic_auth;
    target.bearer_token = config.prometheus.bearer_token;
    target.timeout_ns = config.prometheus.timeout_ns;
    writer_ = std::make_unique<prom::RemoteWriter>(std::move(target));
  }
  if (web_view_ != nullptr) publish(0);  // /metrics answers from the start
}

void PrometheusOutput::on_interval(const report::IntervalReport& interval) {
  metrics_.add_interval(interval);
  // Stamped with the interval's end on the wall clock, as the time series is.
  publish((interval.start_unix_ns + interval.duration_ns) / 1'000'000);
}

std::optional<report::RemoteWriteSummary> PrometheusOutput::finish(const report::RunReport& report,
                                                                   const std::atomic<bool>* interrupt) {
  metrics_.finish(report);
  publish(now_unix_ms());
  if (!writer_) return std::nullopt;
  return writer_->finish(config_.prometheus.timeout_ns, interrupt);
}

void PrometheusOutput::publish(std::int64_t timestamp_ms) {
  const std::vector<prom::Family> families = metrics_.families();
  if (web_view_ != nullptr) {
    web_view_->publish_metrics(prom::render_text(families), prom::render_openmetrics(families));
  }
  if (writer_ && timestamp_ms > 0) {
    // A series' samples must have increasing timestamps: the final push comes
    // right after the last interval's.
    timestamp_ms = std::max(timestamp_ms, last_timestamp_ms_ + 1);
    last_timestamp_ms_ = timestamp_ms;
    writer_->push(prom::write_request_body(families, timestamp_ms));
  }
}

}  // namespace pacer::app
