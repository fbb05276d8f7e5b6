// See collect.h.
#include "engine/collect.h"

#include "engine/control/load_change_log.h"
#include "engine/report_fields.h"

#include <strings.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "core/shard_share.h"
#include "io/select.h"
#include "report/units.h"
#include "targets/target_file.h"

namespace pacer::engine {

namespace {

// The earliest TLS failure of any worker, for the report ("" when none).
std::string first_tls_error(std::span<const std::unique_ptr<Worker>> workers) {
  const WorkerResult* first = nullptr;
  for (const auto& w : workers) {
    const WorkerResult& r = w->result();
    if (r.tls_first_error_ns >= 0 && (first == nullptr || r.tls_first_error_ns < first->tls_first_error_ns)) first = &r;
  }
  return first == nullptr ? std::string() : std::string(first->tls_first_error.data());
}

// Adds a worker's histogram into the report's and frees it: the workers' are not
// read again, so the report's copies never sit beside them (with many names the
// per-name histograms are most of the run's memory).
void take_histogram(stats::Histogram& into, std::unique_ptr<stats::Histogram>& from) {
  if (!from) return;
  if (into.total_count() == 0) {
    into = std::move(*from);
  } else {
    into.merge(*from);
  }
  from.reset();
}

// The workers' per-name records, merged by name id into the report's endpoints
// (the workers' histograms are consumed).
void collect_endpoints(std::span<const std::unique_ptr<Worker>> workers, const stats::NameTable& names,
                       report::RunReport& report) {
  report.max_names = names.max_names();
  report.names_capped = names.overflowed();
  std::vector<stats::NameId> ids;
  for (std::size_t id = 0; id < names.size(); ++id) ids.push_back(static_cast<stats::NameId>(id));
  if (names.overflowed()) ids.push_back(names.other_id());
  for (const stats::NameId id : ids) {
    report::EndpointReport& e = report.endpoints.emplace_back();
    e.name = stats::printable_name(names.name(id));
    for (auto& w : workers) {
      stats::NameRecord* r = w->result().names.find(id);
      if (r == nullptr) continue;  // this worker never saw the name
      e.counts.merge(r->counts);
      take_histogram(e.latency, r->latency);
      take_histogram(e.ttfb, r->ttfb);
    }
  }
}

}  // namespace

report::RunReport collect_report(const Config& config, const SharedRun& shared,
                                 std::span<const std::unique_ptr<Worker>> workers, const std::atomic<bool>& stop,
                                 const GiveUpWatch& give_up) {
  report::RunReport report = make_report(config);
  report.threads = static_cast<int>(workers.size());
  // The recorded window starts at the warm-up's end, or at a statistics reset
  // the workers made (each worker's recorder says which it used).
  TimeNs record_from = shared.record_from_ns;
  for (auto& w : workers) record_from = std::max(record_from, w->result().recorded_from_ns);
  TimeNs finished = record_from;
  std::uint64_t drained = 0;
  FirstResponse first;  // ab's fields: the earliest worker's
  for (auto& w : workers) {
    WorkerResult& r = w->result();
    report.counters.merge(r.counters);
    report.latency.merge(r.unsent_latency);
    report.latency_censored.merge(r.latency_censored);
    report.connect.merge(r.connect);
    report.tls_handshake.merge(r.tls_handshake);
    report.tunnel.merge(r.tunnel);
    report.service.merge(r.service);
    report.queue_delay.merge(r.queue_delay);
    report.rate_samples.merge(r.rate_samples);
    report.scenario.merge(r.scenario);
    finished = std::max(finished, r.finished_ns);
    drained += r.sent_while_draining;
    report.evidence.workers.push_back(r.load);  // issue 28: the client's health
    if (report.first_error.empty()) report.first_error = r.first_error;
    first.merge(r.first_response);
  }
  if (first.response_ns >= 0) report.server = stats::printable_name(first.server);
  if (first.document_ns >= 0 && shared.documents != nullptr) {
    report.document_bytes = shared.documents->of(first.document_name);
    report.document_name = stats::printable_name(shared.names->name(first.document_name));
  }
  report.tls_first_error = first_tls_error(workers);
  collect_endpoints(workers, *shared.names, report);
  // Latency and TTFB are recorded under the request's name only: the run's are its
  // names' together (every name a worker recorded under is an endpoint).
  for (const report::EndpointReport& e : report.endpoints) {
    report.latency.merge(e.latency);
    report.ttfb.merge(e.ttfb);
  }
  report.measured_ns = finished - record_from;
  report.recorded_from_s = static_cast<double>(record_from - shared.start_ns) / 1e9;
  // Connections still being opened in the measured time (issue 31): when the last
  // worker had all of its open, if that was after the recording began; the whole
  // measured time when some never had (a scenario opens its users' on demand).
  if (!config.is_scenario()) {
    TimeNs up = 0;
    for (auto& w : workers) up = w->result().connections_up_ns > 0 ? std::max(up, w->result().connections_up_ns) : kNeverNs;
    if (up > record_from) report.connections_ramp_ns = std::min(up, finished) - record_from;
  }
  report.start_unix_ns = shared.start_unix_ns;
  if (shared.profile != nullptr) {
    // The rate asked for over the recorded window (the drain sends nothing new).
    // A time-bounded run lasts the whole profile (the worker waits for -d even
    // when the schedule's last arrival came earlier), so the window is -d unless
    // the run was stopped or ended by -n.
    const TimeNs window = std::min(report.measured_ns, shared.end_ns - record_from);
    const TimeNs from = record_from - shared.start_ns;
    const double test_rate = planned_rate_per_s(*shared.profile, shared.load_log, from, from + window);
    report.target_rate_per_s = shard_share(config).rate(test_rate);
    report.sent_while_draining = drained;  // the open model's: arrivals due before -d's end, sent after it
  }
  report.interrupted = stop.load();
  if (give_up.gave_up()) {
    report.gave_up = fmt::format("no connection was open for {} (--give-up)",
                                 report::format_duration_short(config.give_up_period_ns()));
  }
  return report;
}

}  // namespace pacer::engine
