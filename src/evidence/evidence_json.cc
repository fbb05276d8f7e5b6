// See evidence_json.h.
#include "evidence/evidence_json.h"

namespace pacer::evidence {

namespace {

using json = nlohmann::ordered_json;

double seconds(TimeNs ns) { return static_cast<double>(ns) / 1e9; }

json ports_json(const std::vector<PortUse>& ports) {
  json out = json::array();
  for (const PortUse& u : ports) out.push_back({{"local", u.local}, {"remote", u.remote}, {"in_use", u.in_use}});
  return out;
}

json nullable(const std::optional<std::uint64_t>& v) { return v ? json(*v) : json(nullptr); }

}  // namespace

json interval_client_json(const std::vector<WorkerLoad>& workers, const IntervalEvidence* sample) {
  json ws = json::array();
  for (const WorkerLoad& w : workers) {
    // A share over the drain's instant is no figure (kMinShareWindowNs): null.
    const std::optional<double> busy = w.measured_busy();
    ws.push_back({{"busy", busy ? json(*busy) : json(nullptr)}, {"cpu_s", seconds(w.cpu_ns)}, {"runnable_s", seconds(w.runnable_ns)},
                  {"involuntary_switches", w.involuntary_switches}, {"wall_s", seconds(w.wall_ns)},
                  {"waited_s", seconds(w.waited_ns)}});
  }
  json out = {{"workers", std::move(ws)}};
  if (sample != nullptr && sample->process) {
    const ProcessSample& p = *sample->process;
    out["cpu_s"] = seconds(p.cpu_ns);
    out["cpu_share"] = p.cpu_share ? json(*p.cpu_share) : json(nullptr);
    out["cpus_allowed"] = p.cpus_allowed;
    out["rss_bytes"] = p.rss_bytes;
    out["open_fds"] = p.open_fds;
    out["fd_limit"] = p.fd_limit > 0 ? json(p.fd_limit) : json(nullptr);
    out["port_range"] = p.port_range > 0 ? json(p.port_range) : json(nullptr);
    out["ports"] = p.ports_counted ? ports_json(p.ports) : json(nullptr);  // null: not counted this interval
  }
  if (sample != nullptr) out["verdicts"] = sample->verdicts;
  return out;
}

json interval_server_json(const IntervalEvidence& sample) {
  if (sample.pids.empty() && sample.scrapes.empty()) return nullptr;
  json pids = json::array();
  for (const PidSample& s : sample.pids) {
    if (!s.ok()) {
      pids.push_back({{"pid", s.pid}, {"error", s.error}});
      continue;
    }
    pids.push_back({{"pid", s.pid},
                    {"cpu_user_s", seconds(s.cpu_user_ns)},
                    {"cpu_system_s", seconds(s.cpu_system_ns)},
                    {"rss_bytes", s.rss_bytes},
                    {"threads", s.threads},
                    {"open_fds", nullable(s.open_fds)},
                    {"voluntary_switches", s.voluntary_switches},
                    {"involuntary_switches", s.involuntary_switches},
                    {"error", nullptr}});
  }
  json metrics = json::array();
  for (const ScrapeSample& s : sample.scrapes) {
    json series = json::array();
    for (const MetricValue& v : s.values) {
      series.push_back({{"series", v.series},
                        {"kind", v.is_rate ? "rate_per_s" : "gauge"},
                        {"value", v.value ? json(*v.value) : json(nullptr)}});
    }
    metrics.push_back({{"url", s.url},
                       {"error", s.ok() ? json(nullptr) : json(s.error)},
                       {"took_s", seconds(s.took_ns)},
                       {"series", std::move(series)}});
  }
  return {{"pids", std::move(pids)}, {"metrics", std::move(metrics)}};
}

json run_client_json(const RunEvidence& run) {
  json ws = json::array();
  for (const WorkerLoad& w : run.workers) {
    ws.push_back({{"busy", w.busy()},
                  {"cpu_s", seconds(w.cpu_ns)},
                  {"cpu_share", w.cpu_share()},
                  {"wall_s", seconds(w.wall_ns)},
                  {"waited_s", seconds(w.waited_ns)},
                  {"runnable_s", seconds(w.runnable_ns)},
                  {"involuntary_switches", w.involuntary_switches}});
  }
  json out = {{"busy_threshold", run.busy_threshold}, {"workers", std::move(ws)}};
  if (run.peak) {
    const ProcessSample& p = *run.peak;
    out["cpu_share"] = p.cpu_share ? json(*p.cpu_share) : json(nullptr);
    out["cpus_allowed"] = p.cpus_allowed;
    out["peak_rss_bytes"] = p.rss_bytes;
    out["peak_open_fds"] = p.open_fds;
    out["fd_limit"] = p.fd_limit > 0 ? json(p.fd_limit) : json(nullptr);
    out["port_range"] = p.port_range > 0 ? json(p.port_range) : json(nullptr);
    out["peak_ports"] = ports_json(p.ports);
  }
  out["lag_busy_intervals"] = run.lag_busy_intervals;
  out["saturated"] = run.client_bound;
  out["verdicts"] = run.verdicts;
  return out;
}

json run_server_json(const RunEvidence& run) {
  if (run.pids.empty() && run.scrapes == 0) return nullptr;
  json pids = json::array();
  for (const PidTotals& t : run.pids) {
    pids.push_back({{"pid", t.pid},
                    {"cpu_user_s", seconds(t.cpu_user_ns)},
                    {"cpu_system_s", seconds(t.cpu_system_ns)},
                    {"peak_rss_bytes", t.peak_rss_bytes},
                    {"peak_threads", t.peak_threads},
                    {"peak_open_fds", nullable(t.peak_open_fds)},
                    {"failed_samples", t.failed_samples},
                    {"last_error", t.last_error.empty() ? json(nullptr) : json(t.last_error)}});
  }
  return {{"pids", std::move(pids)}, {"scrapes", run.scrapes}, {"failed_scrapes", run.failed_scrapes}};
}

}  // namespace pacer::evidence
