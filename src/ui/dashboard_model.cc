#include "ui/dashboard_model.h"

#include <algorithm>
#include <utility>

namespace pacer::ui {

namespace {

double per_second(std::uint64_t count, TimeNs ns) {
  return ns > 0 ? static_cast<double>(count) * 1e9 / static_cast<double>(ns) : 0.0;
}

}  // namespace

LatencyFigures latency_figures(const stats::Histogram& h) {
  LatencyFigures out;
  out.count = h.total_count();
  if (out.count == 0) return out;
  out.p50_ns = h.value_at_percentile(50);
  out.p90_ns = h.value_at_percentile(90);
  out.p99_ns = h.value_at_percentile(99);
  out.max_ns = h.max();
  return out;
}

namespace {

template <typename Counts>
void append_classes(std::string& list, const Counts& counts) {
  for (const auto& f : Counts::kFields) {
    const std::uint64_t count = counts.*f.member;
    if (count > 0) list += (list.empty() ? "" : ", ") + std::string(f.name) + " " + std::to_string(count);
  }
}

}  // namespace

std::string error_list(const stats::ErrorCounts& e, const stats::ScenarioErrorCounts& scenario) {
  std::string list;
  append_classes(list, e);
  append_classes(list, scenario);
  return list;
}

DashboardModel::DashboardModel(RunInfo run) { state_.run = std::move(run); }

void DashboardModel::on_refresh(const report::IntervalReport& in) {
  state_.completed += in.completed;
  state_.sent += in.sent;
  state_.errors.merge(in.errors);
  if (in.scenario_errors) state_.scenario_errors.merge(*in.scenario_errors);
  state_.measured_ns = in.start_ns + in.duration_ns;
  state_.elapsed_ns = std::max(state_.elapsed_ns, state_.run.warmup_ns + state_.measured_ns);
  state_.average_rate_per_s = per_second(state_.completed, state_.measured_ns);
  if (in.latency != nullptr) run_latency_.merge(*in.latency);
  state_.open_connections = in.open_connections;
  state_.backlog = in.backlog;
  state_.schedule_lag_ns = in.schedule_lag_ns;
  state_.in_flight = in.in_flight;
  state_.oldest_in_flight_ns = in.oldest_in_flight_ns;
  state_.in_flight_over_interval = in.in_flight_over_interval;
}

void DashboardModel::on_interval(const report::IntervalReport& in) {
  state_.has_interval = true;
  state_.current_rate_per_s = per_second(in.completed, in.duration_ns);
  state_.target_rate_per_s = in.target_rate_per_s;
  if (in.target_rate_per_s) state_.sent_rate_per_s = per_second(in.sent, in.duration_ns);
  state_.last = in.latency != nullptr ? latency_figures(*in.latency) : LatencyFigures{};
  state_.bottleneck = report::interval_bottleneck(in, state_.run.connections, state_.run.requests_per_connection,
                                                  state_.run.http2);
  if (in.evidence != nullptr && in.evidence->server_saturated) state_.bottleneck.reset();  // the server's queue (issue 43)
  state_.client_verdicts = in.evidence != nullptr ? in.evidence->verdicts : std::vector<std::string>{};
  state_.history.push_back(HistoryPoint{in.duration_ns, in.completed, state_.last.p99_ns, in.oldest_in_flight_ns});
  if (state_.history.size() > kMaxHistory) compact_history();
}

void DashboardModel::on_tick(TimeNs since_start_ns) { state_.elapsed_ns = std::max(state_.elapsed_ns, since_start_ns); }

DashboardSnapshot DashboardModel::snapshot() const {
  DashboardSnapshot out = state_;
  out.run_latency = latency_figures(run_latency_);
  return out;
}

void DashboardModel::compact_history() {
  // Pairs of neighbours become one point: counts and time add, p99 keeps the
  // worse of the two (percentiles of parts cannot be combined exactly).
  std::vector<HistoryPoint>& h = state_.history;
  std::size_t out = 0;
  for (std::size_t i = 0; i < h.size(); i += 2, ++out) {
    HistoryPoint p = h[i];
    if (i + 1 < h.size()) {
      p.duration_ns += h[i + 1].duration_ns;
      p.completed += h[i + 1].completed;
      p.p99_ns = std::max(p.p99_ns, h[i + 1].p99_ns);
      p.oldest_in_flight_ns = std::max(p.oldest_in_flight_ns, h[i + 1].oldest_in_flight_ns);
    }
    h[out] = p;
  }
  h.resize(out);
}

}  // namespace pacer::ui
