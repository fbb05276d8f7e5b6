// An interval's "client" and "server" objects (evidence/evidence_json.h) read back;
// see series_reader.h.
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "report/series_reader.h"

namespace pacer::report {
namespace {

// The elements of an array field, each with its path ("client.workers[2]").
template <typename Fn>
void for_each_item(const Field& list, Fn&& fn) {
  if (!list.value().is_array()) list.fail(fmt::format("expected an array, got {}", list.value().type_name()));
  for (std::size_t i = 0; i < list.value().size(); ++i) fn(Field(list.value()[i], fmt::format("{}[{}]", list.path(), i)));
}

std::uint64_t count_or_zero(const Field& f) { return f.is_null() ? 0 : f.count(); }

// A worker's wall and waited time as written (exact: busy() gives the written share
// again), or, in reports from before they were, none: false.
bool read_wall_and_wait(const Field& w, evidence::WorkerLoad& load) {
  if (!w.has("wall_s") || !w.has("waited_s")) return false;
  load.wall_ns = w.at("wall_s").seconds_ns();
  // A wait that straddles the interval's end can pass its wall time: busy() clamps.
  load.waited_ns = w.at("waited_s").seconds_ns();
  return true;
}

// A worker's load from its busy share, CPU, run-queue time and switches. An older
// line has no wall or waited time: the wall is taken as the interval's (longer when
// the CPU alone would pass the share) and the waited time as the rest of the share,
// so that busy() gives the written share again (to a nanosecond of the wall).
evidence::WorkerLoad read_worker(const Field& w, TimeNs interval_ns) {
  evidence::WorkerLoad load;
  load.cpu_ns = w.at("cpu_s").seconds_ns();
  if (w.has("runnable_s")) load.runnable_ns = w.at("runnable_s").seconds_ns();  // absent from older reports
  load.involuntary_switches = w.at("involuntary_switches").count();
  if (w.at("busy").is_null()) {  // a window too short to measure (the drain's): its wall and wait say it
    if (!read_wall_and_wait(w, load)) w.at("busy").fail("null without wall_s and waited_s");
    return load;
  }
  const double busy = w.at("busy").number();
  if (busy > 1) w.at("busy").fail(fmt::format("{} is above 1", busy));
  if (read_wall_and_wait(w, load)) return load;
  if (busy == 0 && load.cpu_ns > 0) return load;  // no wall time: busy() is 0
  double wall_ns = static_cast<double>(std::max<TimeNs>(interval_ns, 1));
  if (busy > 0) wall_ns = std::max(wall_ns, std::ceil(static_cast<double>(load.cpu_ns) / busy));
  if (wall_ns > 9.2e18) w.at("busy").fail("cannot be the share of a wall time pacer measures");
  load.wall_ns = static_cast<TimeNs>(wall_ns);
  load.waited_ns = static_cast<TimeNs>(std::llround((1.0 - busy) * wall_ns));
  return load;
}

// The process's sample: an interval's ("rss_bytes", ..., with its CPU time), or with
// peak = "peak_" the run's peaks ("peak_rss_bytes", ...; no CPU time is written).
evidence::ProcessSample read_process(const Field& c, const std::string& peak = "") {
  evidence::ProcessSample p;
  if (peak.empty()) p.cpu_ns = c.at("cpu_s").seconds_ns();
  if (const Field share = c.at("cpu_share"); !share.is_null()) p.cpu_share = share.number();  // null: too short a window
  p.cpus_allowed = read_int(c.at("cpus_allowed"));
  p.rss_bytes = c.at(peak + "rss_bytes").count();
  p.open_fds = c.at(peak + "open_fds").count();
  p.fd_limit = count_or_zero(c.at("fd_limit"));
  p.port_range = count_or_zero(c.at("port_range"));
  const Field ports = c.at(peak + "ports");
  p.ports_counted = !ports.is_null();  // an interval's null: not counted (evidence/cost_budget.h)
  if (p.ports_counted) {
    for_each_item(ports, [&](const Field& u) {
      p.ports.push_back({u.at("local").string(), u.at("remote").string(), u.at("in_use").count()});
    });
  }
  return p;
}

evidence::PidSample read_pid(const Field& f) {
  evidence::PidSample s;
  s.pid = read_int(f.at("pid"));
  if (const Field error = f.at("error"); !error.is_null()) {
    s.error = error.string();
    if (s.error.empty()) error.fail("an empty error");
    return s;  // a failed read has no figures
  }
  s.cpu_user_ns = f.at("cpu_user_s").seconds_ns();
  s.cpu_system_ns = f.at("cpu_system_s").seconds_ns();
  s.rss_bytes = f.at("rss_bytes").count();
  s.threads = f.at("threads").count();
  if (const Field fds = f.at("open_fds"); !fds.is_null()) s.open_fds = fds.count();
  s.voluntary_switches = f.at("voluntary_switches").count();
  s.involuntary_switches = f.at("involuntary_switches").count();
  return s;
}

evidence::ScrapeSample read_scrape(const Field& f) {
  evidence::ScrapeSample s;
  s.url = f.at("url").string();
  if (const Field error = f.at("error"); !error.is_null()) {
    s.error = error.string();
    if (s.error.empty()) error.fail("an empty error");
  }
  s.took_ns = f.at("took_s").seconds_ns();
  for_each_item(f.at("series"), [&](const Field& v) {
    evidence::MetricValue& m = s.values.emplace_back();
    m.series = v.at("series").string();
    const std::string kind = v.at("kind").string();
    if (kind != "rate_per_s" && kind != "gauge") v.at("kind").fail("expected \"rate_per_s\" or \"gauge\"");
    m.is_rate = kind == "rate_per_s";
    if (const Field value = v.at("value"); !value.is_null()) m.value = value.real();
  });
  return s;
}

// A worker over the run: its wall and waited time (an older report: its waited
// time follows from its busy share).
evidence::WorkerLoad read_run_worker(const Field& w) {
  evidence::WorkerLoad load;
  load.wall_ns = w.at("wall_s").seconds_ns();
  load.cpu_ns = w.at("cpu_s").seconds_ns();
  if (w.has("runnable_s")) load.runnable_ns = w.at("runnable_s").seconds_ns();
  load.involuntary_switches = w.at("involuntary_switches").count();
  const double busy = w.at("busy").number();
  if (busy < 0 || busy > 1) w.at("busy").fail(fmt::format("{} is not a share in [0, 1]", busy));
  if (read_wall_and_wait(w, load)) return load;
  load.waited_ns = static_cast<TimeNs>(std::llround((1.0 - busy) * static_cast<double>(load.wall_ns)));
  return load;
}

evidence::PidTotals read_pid_totals(const Field& f) {
  evidence::PidTotals t;
  t.pid = read_int(f.at("pid"));
  t.cpu_user_ns = f.at("cpu_user_s").seconds_ns();
  t.cpu_system_ns = f.at("cpu_system_s").seconds_ns();
  t.peak_rss_bytes = f.at("peak_rss_bytes").count();
  t.peak_threads = f.at("peak_threads").count();
  if (const Field fds = f.at("peak_open_fds"); !fds.is_null()) t.peak_open_fds = fds.count();
  t.failed_samples = f.at("failed_samples").count();
  if (const Field error = f.at("last_error"); !error.is_null()) t.last_error = error.string();
  return t;
}

}  // namespace

void read_run_evidence(const Field& root, evidence::RunEvidence& run) {
  if (root.has("client") && !root.at("client").is_null()) {
    const Field c = root.at("client");
    run.busy_threshold = c.at("busy_threshold").number();
    for_each_item(c.at("workers"), [&](const Field& w) { run.workers.push_back(read_run_worker(w)); });
    if (c.has("cpu_share")) run.peak = read_process(c, "peak_");  // the process was sampled: its peaks
    run.lag_busy_intervals = c.at("lag_busy_intervals").count();
    run.client_bound = c.at("saturated").boolean();
    for_each_item(c.at("verdicts"), [&](const Field& v) { run.verdicts.push_back(v.string()); });
  }
  if (root.has("server") && !root.at("server").is_null()) {
    const Field s = root.at("server");
    for_each_item(s.at("pids"), [&](const Field& f) { run.pids.push_back(read_pid_totals(f)); });
    run.scrapes = s.at("scrapes").count();
    run.failed_scrapes = s.at("failed_scrapes").count();
  }
}

void read_interval_client(const Field& client, SeriesPoint& point) {
  for_each_item(client.at("workers"), [&](const Field& w) { point.workers.push_back(read_worker(w, point.duration_ns)); });
  // A sampled interval's object has verdicts (maybe none), and the process when it was read.
  if (!client.has("verdicts") && !client.has("cpu_s")) return;
  if (!point.evidence) point.evidence.emplace();
  if (client.has("cpu_s")) point.evidence->process = read_process(client);
  if (client.has("verdicts")) {
    for_each_item(client.at("verdicts"), [&](const Field& v) { point.evidence->verdicts.push_back(v.string()); });
  }
}

void read_interval_server(const Field& server, evidence::IntervalEvidence& evidence) {
  for_each_item(server.at("pids"), [&](const Field& f) { evidence.pids.push_back(read_pid(f)); });
  for_each_item(server.at("metrics"), [&](const Field& f) { evidence.scrapes.push_back(read_scrape(f)); });
}

}  // namespace pacer::report
