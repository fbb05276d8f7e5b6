// The run's figures as metric families; see the header.
#include "prom/run_metrics.h"

#include <fmt/format.h>

#include "prom/buckets.h"
#include "stats/name_table.h"

namespace pacer::prom {

namespace {

Family family(std::string name, MetricType type, std::string help, std::string unit = {}) {
  Family out;
  out.name = std::move(name);
  out.type = type;
  out.help = std::move(help);
  out.unit = std::move(unit);
  return out;
}

double seconds(TimeNs ns) { return static_cast<double>(ns) / 1e9; }

// An endpoint's histogram plus its name's in an interval (made when first needed).
void add_name_histogram(std::unique_ptr<stats::Histogram>& into, const stats::NameHistograms* by_name, std::size_t id) {
  const stats::Histogram* h = by_name != nullptr ? by_name->find(static_cast<stats::NameId>(id)) : nullptr;
  if (h == nullptr || h->total_count() == 0) return;
  stats::latency_histogram(into).merge(*h);
}

}  // namespace

Labels constant_labels(const Config& config, const std::string& run_id) {
  Labels out{{"run_id", run_id}};
  if (config.shard_count > 1) out.push_back({"shard", std::to_string(config.shard_index)});
  for (const auto& [name, value] : config.prometheus.labels) out.push_back({name, value});
  return out;
}

RunMetrics::RunMetrics(const Config& config, Labels constant)
    : constant_(std::move(constant)),
      open_model_(config.is_open_model()),
      scenario_(config.is_scenario()),
      bounds_ns_(exact_bounds_ns(latency_)) {}

Labels RunMetrics::with(std::initializer_list<Label> extra) const {
  Labels out = constant_;
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

void RunMetrics::add_interval(const report::IntervalReport& interval) {
  if (finished_) return;
  if (interval.stats_reset) {  // the report's figures start again here: so do the counters (a counter reset)
    counters_ = {};
    scenario_errors_ = {};
    latency_.reset();
    ttfb_.reset();
    connect_.reset();
    endpoints_.clear();
  }
  report::add_to_run(counters_, interval);
  if (interval.scenario_errors) scenario_errors_.merge(*interval.scenario_errors);
  if (interval.latency != nullptr) latency_.merge(*interval.latency);
  if (interval.ttfb != nullptr) {
    if (!ttfb_) ttfb_.emplace(stats::Histogram::for_latency_ns());
    ttfb_->merge(*interval.ttfb);
  }
  if (interval.connect != nullptr) {
    if (!connect_) connect_.emplace(stats::Histogram::for_latency_ns());
    connect_->merge(*interval.connect);
  }
  if (interval.name_table != nullptr) {
    for (std::size_t id = 0; id < interval.names.size(); ++id) {
      const stats::NameIntervalCounts& n = interval.names[id];
      if (n.completed == 0 && n.errors == 0) continue;
      Endpoint& e = endpoints_[stats::printable_name(interval.name_table->name(static_cast<stats::NameId>(id)))];
      e.responses += n.completed;
      e.errors += n.errors;
      add_name_histogram(e.latency, interval.latency_by_name, id);
      add_name_histogram(e.ttfb, interval.ttfb_by_name, id);
    }
  }
  open_connections_ = interval.open_connections;
  in_flight_ = interval.in_flight;
  oldest_in_flight_ns_ = interval.oldest_in_flight_ns;
  backlog_ = interval.backlog;
  if (interval.users) users_ = interval.users;
  schedule_lag_ns_ = interval.schedule_lag_ns;
  target_rate_per_s_ = interval.target_rate_per_s;
  if (interval.duration_ns > 0) {
    achieved_rate_per_s_ = static_cast<double>(interval.completed) / seconds(interval.duration_ns);
  }
}

void RunMetrics::finish(const report::RunReport& report) {
  finished_ = true;
  counters_ = report.counters;
  scenario_errors_.check = report.scenario.check;
  scenario_errors_.script = report.scenario.script;
  scenario_errors_.check_on_errors = report.scenario.check_on_errors;
  latency_ = report.latency;
  ttfb_ = report.ttfb;
  connect_ = report.connect;
  for (const report::EndpointReport& r : report.endpoints) {
    Endpoint& e = endpoints_[stats::printable_name(r.name)];
    e.responses = r.counts.responses;
    e.errors = r.counts.errors.socket_total() + r.counts.errors.status;
    e.latency = std::make_unique<stats::Histogram>(r.latency);
    e.ttfb = std::make_unique<stats::Histogram>(r.ttfb);
  }
  if (report.measured_ns > 0) {
    achieved_rate_per_s_ = static_cast<double>(report.counters.responses) / seconds(report.measured_ns);
  }
  if (open_model_) target_rate_per_s_ = report.target_rate_per_s;
  in_flight_ = 0;
  oldest_in_flight_ns_ = 0;
  backlog_ = 0;
}

std::vector<Family> RunMetrics::families() const {
  std::vector<Family> out;
  add_counters(out);
  add_gauges(out);
  add_histograms(out);
  add_endpoints(out);
  return out;
}

void RunMetrics::add_counters(std::vector<Family>& out) const {
  const auto counter = [&](std::string name, std::string help, std::uint64_t value, std::string unit = {}) {
    Family f = family(std::move(name), MetricType::kCounter, std::move(help), std::move(unit));
    f.samples.push_back({constant_, static_cast<double>(value)});
    out.push_back(std::move(f));
  };
  counter("pacer_requests_sent", "Requests written to the server (after the warm-up).", counters_.requests_sent);
  counter("pacer_responses", "Complete responses, any status.", counters_.responses);
  Family codes = family("pacer_responses_by_code", MetricType::kCounter,
                        "Complete responses by status code and class.");
  for (std::size_t code = 0; code < counters_.status_counts.size(); ++code) {
    const std::uint64_t n = counters_.status_counts[code];
    if (n == 0) continue;
    codes.samples.push_back({with({{"code", std::to_string(code)}, {"class", fmt::format("{}xx", code / 100)}}),
                             static_cast<double>(n)});
  }
  out.push_back(std::move(codes));
  Family errors = family("pacer_errors", MetricType::kCounter,
                         "Failed requests by class (status: responses >= 400; unsent and deadline: open-model "
                         "arrivals never sent; check and script: a scenario's).");
  for (const auto& field : stats::ErrorCounts::kFields) {
    errors.samples.push_back({with({{"class", field.name}}), static_cast<double>(counters_.errors.*field.member)});
  }
  if (scenario_) {
    for (const auto& field : stats::ScenarioErrorCounts::kFields) {
      errors.samples.push_back({with({{"class", field.name}}), static_cast<double>(scenario_errors_.*field.member)});
    }
  }
  out.push_back(std::move(errors));
  if (open_model_) {
    counter("pacer_arrivals_scheduled", "Open model: arrivals the schedule produced.", counters_.scheduled);
  }
  Family bytes = family("pacer_received_bytes", MetricType::kCounter,
                        "Bytes read from the server, headers included.", "bytes");
  bytes.samples.push_back({constant_, static_cast<double>(counters_.bytes_read)});
  out.push_back(std::move(bytes));
  Family sent = family("pacer_sent_bytes", MetricType::kCounter,
                       "Bytes written to the server: request heads and bodies.", "bytes");
  sent.samples.push_back({constant_, static_cast<double>(counters_.bytes_written)});
  out.push_back(std::move(sent));
}

void RunMetrics::add_gauges(std::vector<Family>& out) const {
  const auto gauge = [&](std::string name, std::string help, std::optional<double> value, std::string unit = {}) {
    Family f = family(std::move(name), MetricType::kGauge, std::move(help), std::move(unit));
    if (value) f.samples.push_back({constant_, *value});
    out.push_back(std::move(f));
  };
  gauge("pacer_connections_open", "Connections open at the end of the last interval.",
        static_cast<double>(open_connections_));
  gauge("pacer_requests_in_flight", "Requests written and not yet answered.", static_cast<double>(in_flight_));
  gauge("pacer_oldest_request_age_seconds", "How long ago the oldest request in flight was written (0: none).",
        seconds(oldest_in_flight_ns_), "seconds");
  gauge("pacer_achieved_rate_per_second", "Responses per second over the last interval (at the end: the run's).",
        achieved_rate_per_s_);
  if (open_model_) {
    gauge("pacer_target_rate_per_second", "Open model: the schedule's rate over the last interval (at the end: the run's).",
          target_rate_per_s_);
    gauge("pacer_backlog_arrivals", "Open model: arrivals waiting for a connection.", static_cast<double>(backlog_));
    gauge("pacer_schedule_lag_seconds", "Open model: how long the oldest waiting arrival has waited.",
          seconds(schedule_lag_ns_), "seconds");
  }
  if (scenario_) {
    gauge("pacer_users", "A scenario's users running at the end of the last interval.",
          users_ ? std::optional<double>(static_cast<double>(*users_)) : std::nullopt);
  }
  gauge("pacer_run_finished", "1 once the run has ended and these are its final figures.", finished_ ? 1.0 : 0.0);
}

void RunMetrics::add_histograms(std::vector<Family>& out) const {
  const auto histogram = [&](std::string name, std::string help, const stats::Histogram* h) {
    Family f = family(std::move(name), MetricType::kHistogram, std::move(help), "seconds");
    f.bounds_s = bounds_seconds(bounds_ns_);
    if (h != nullptr) f.histograms.push_back(fill_histogram(*h, bounds_ns_, constant_));
    out.push_back(std::move(f));
  };
  histogram("pacer_latency_seconds",
            "Latency: response done minus scheduled send (timeouts at their cancel time).", &latency_);
  histogram("pacer_ttfb_seconds", "Time to first byte: first response byte minus send.",
            ttfb_ ? &*ttfb_ : nullptr);
  histogram("pacer_connect_seconds", "TCP connect time.", connect_ ? &*connect_ : nullptr);
}

void RunMetrics::add_endpoints(std::vector<Family>& out) const {
  Family responses = family("pacer_endpoint_responses", MetricType::kCounter,
                            "Complete responses per request name (--max-names bounds the names).");
  Family errors = family("pacer_endpoint_errors", MetricType::kCounter,
                         "Failed requests per request name, every class (status included).");
  Family latency = family("pacer_endpoint_latency_seconds", MetricType::kHistogram,
                          "Latency per request name (the final report's).", "seconds");
  Family ttfb = family("pacer_endpoint_ttfb_seconds", MetricType::kHistogram,
                       "Time to first byte per request name (the final report's).", "seconds");
  latency.bounds_s = bounds_seconds(bounds_ns_);
  ttfb.bounds_s = latency.bounds_s;
  for (const auto& [name, e] : endpoints_) {
    responses.samples.push_back({with({{"endpoint", name}}), static_cast<double>(e.responses)});
    errors.samples.push_back({with({{"endpoint", name}}), static_cast<double>(e.errors)});
    if (e.latency) latency.histograms.push_back(fill_histogram(*e.latency, bounds_ns_, with({{"endpoint", name}})));
    if (e.ttfb) ttfb.histograms.push_back(fill_histogram(*e.ttfb, bounds_ns_, with({{"endpoint", name}})));
  }
  out.push_back(std::move(responses));
  out.push_back(std::move(errors));
  out.push_back(std::move(latency));
  out.push_back(std::move(ttfb));
}

}  // namespace pacer::prom
