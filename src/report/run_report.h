// RunReport: everything a finished run measured, as plain data. The engine fills
// it; every formatter is a pure function of it (tested with golden files).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/shard_share.h"
#include "evidence/samples.h"
#include "report/series_point.h"
#include "scenario/scenario_stats.h"
#include "stats/counters.h"
#include "stats/histogram.h"
#include "stats/name_stats.h"

namespace pacer::report {

// Histogram of per-thread requests/second samples (wrk's Req/Sec row).
stats::Histogram make_rate_histogram();

// What `pacer merge` found about the set of reports it merged.
struct MergeInfo {
  int files = 0;                       // reports merged
  std::vector<int> missing_shards;     // shard indexes absent (--allow-missing)
  TimeNs start_spread_ns = 0;          // latest shard start minus the earliest
  TimeNs start_tolerance_ns = 0;       // --start-tolerance
  std::string earliest_start_file;     // the reports that started first and last
  std::string latest_start_file;
  bool starts_differ() const { return start_spread_ns > start_tolerance_ns; }
};

// One request name's figures (the Endpoints table, JSON endpoints[]).
struct EndpointReport {
  std::string name;
  stats::NameCounts counts;
  stats::Histogram latency = stats::Histogram::for_latency_ns();  // t_done - t_sched, timeouts censored
  stats::Histogram ttfb = stats::Histogram::for_latency_ns();     // first response byte - t_send
  // The timeouts among latency (censored: the true latency is at least the value);
  // settle_endpoints() fills it where the engine's records tell it exactly.
  stats::Histogram latency_censored = stats::Histogram::for_latency_ns();
};

// --prometheus-remote-write (issue 29): what became of the run's pushes
// (prom::PushStats as the report prints it).
struct RemoteWriteSummary {
  std::uint64_t pushes = 0;   // bodies queued (one per --interval, and the final one)
  std::uint64_t sent = 0;     // accepted by the receiver
  std::uint64_t dropped = 0;  // dropped unsent: the queue was full (a slow or dead receiver)
  std::uint64_t failed = 0;   // refused (4xx), or unsent when the final flush ran out of time
  std::uint64_t retries = 0;
  std::string last_error;     // "" when none
  bool incomplete() const { return dropped + failed > 0; }
};

// A change of a scenario's user count while the run went (issue 27): by its
// load shape or the web view's POST /users; or the shape's end of the run.
struct LoadChangeReport {
  double at_s = 0;              // since the run started (the warm-up included)
  int users_from = 0;
  int users_to = 0;
  // An open-model run's change is of its rate (requests, or tasks, per second; the
  // users fields are then unused).
  std::optional<double> rate_from_per_s;
  std::optional<double> rate_to_per_s;
  double spawn_rate_per_s = 0;  // 0: at once
  bool ended = false;           // the shape ended the run
  bool reset = false;           // the statistics started again here (POST /stats/reset)
  std::string by;               // "shape" or "web"
  std::string note;             // a count clamped to --max-users, or empty
  // The users per type the change asked for, when it named types (issue 42;
  // empty: every type, by their weights and fixed counts), in the file's order.
  std::vector<std::pair<std::string, int>> users_by_type;
};

struct RunReport {
  // What was asked for.
  std::string url;
  std::string method = "GET";
  int threads = 0;
  int connections = 0;
  TimeNs duration_ns = 0;                  // the -d asked for (0 when only -n bounds the run)
  std::optional<std::uint64_t> request_count;
  TimeNs timeout_ns = 0;
  TimeNs warmup_ns = 0;
  bool keep_alive = true;
  std::string protocol = "http/1.1";      // "http/1.1" or "h2"
  int requests_per_connection = 1;        // --streams (h2) or --pipeline (http/1.1)
  bool print_latency = false;
  bool record_timeouts = true;
  LoadModel load_model = LoadModel::kClosed;
  double rate_per_s = 0;                   // constant rate, or a ramp's start
  double rate_end_per_s = 0;               // a ramp's end
  std::vector<RateStage> stages;
  bool poisson = false;
  std::uint64_t seed = 0;
  TimeNs deadline_ns = 0;
  double target_rate_per_s = 0;            // open model: scheduled arrivals / measured window
  // Open model: of counters.requests_sent, those written after -d ended (the drain
  // sends arrivals already due); nullopt until the engine reports it (issue 31).
  std::optional<std::uint64_t> sent_while_draining;
  // How far into the measured time the last of -c connections first opened, when
  // they were still being opened once it began; the whole measured time when some
  // never did (nullopt: all were open before it began, or not known: a scenario's
  // users, an older report).
  std::optional<TimeNs> connections_ramp_ns;
  // The part of the whole test this report covers (shard_share() below): the
  // figures above are that part's (connections, -n, target_rate_per_s), except
  // the rates asked for (rate_per_s, rate_end_per_s, stages), which are the
  // whole test's as given on the command line.
  int shard_index = 0;                     // --shard i/N
  int shard_count = 1;
  std::string shard_source;                // --shard auto: "SLURM_PROCID" etc.; empty for i/N
  bool body_without_content_type = false;  // a -b body with no Content-Type header (no script)
  int shards_covered = 1;                  // a merge: how many of the shard_count shards it holds
  int test_connections = 0;                // the whole test's -c (0: unknown, an older report)
  std::optional<std::uint64_t> test_request_count;  // the whole test's -n
  std::optional<MergeInfo> merge;          // set by pacer merge
  // What the run asked of the wire.
  std::string unix_socket;                 // --unix-socket ("" over TCP)
  int follow_redirects = 0;                // --follow-redirects N (0: off)
  bool compressed = false;                 // --compressed
  std::vector<LatencyGate> slo;            // --slo
  std::optional<double> max_error_rate;    // --max-error-rate
  // A report read from a file (report/json_reader.h): its gates' verdicts as the
  // file gave them (the gates themselves are not in the JSON), which failed_gates
  // returns; nullopt for a live run and for a merge, whose gates are evaluated.
  std::optional<std::vector<std::string>> gate_failures_read;
  // The I/O engine: "io_uring" or "epoll" ("" in older reports),
  // and why --io auto ran on epoll ("" when it did not fall back).
  std::string io_engine;
  std::string io_fallback;
  bool spin = false;                       // --spin: workers polled instead of sleeping
  // The connection path (issue 33): the proxy ("" when direct: "http://host:port"),
  // where it came from ("--proxy", "https_proxy", ...), whether connections
  // tunnel through it (CONNECT) or it forwards the requests; --bind's address count.
  std::string proxy;
  std::string proxy_source;
  bool proxy_tunnel = false;
  std::size_t bind_addresses = 0;
  // https: what the start-up handshake negotiated ("" when not https or HTTP/3).
  std::string tls_protocol;
  std::string tls_cipher;
  std::string tls_alpn;
  // ab's fields (issue 33; engine/record/document.h): the Server header of the
  // first response recorded (nullopt: no response, or an older report; "" when it
  // had none); the document length, the body length of the first recorded 2xx
  // response, and its request name (nullopt: no 2xx response). A merge whose
  // shards' document lengths differ keeps the first shard's and says so.
  std::optional<std::string> server;
  std::optional<std::uint64_t> document_bytes;
  std::string document_name;
  bool document_lengths_differ = false;

  // What happened.
  std::int64_t start_unix_ns = 0;          // wall-clock start of the load (CLOCK_REALTIME)
  TimeNs measured_ns = 0;                  // from the end of warm-up to the last recorded completion
  bool interrupted = false;
  std::string gave_up;                     // why the give-up rule ended the run ("" when it did not)
  // A worker stuck inside one Lua call when the run should have ended (a task
  // that never yields): the run ended without it; its figures are not in the
  // report ("" when none was).
  std::string stuck_worker;
  double recorded_from_s = 0;  // when the recorded window began, since the start: the warm-up's end, or a reset
  std::vector<LoadChangeReport> load_changes;  // in order; empty when the load never changed
  bool load_shaped = false;                // the scenario has a load shape (it ends the run; duration_ns: -d, or 0)
  int users_at_start = 0;                  // a closed scenario: the users it starts with (connections: the most)
  std::string first_error;                 // first connection failure's reason, for the report
  std::string tls_first_error;             // the earliest TLS failure's reason ("" when none)
  stats::Counters counters;
  stats::Histogram latency = stats::Histogram::for_latency_ns();          // t_done - t_sched
  stats::Histogram latency_censored = stats::Histogram::for_latency_ns(); // the timeouts among them
  stats::Histogram connect = stats::Histogram::for_latency_ns();          // TCP connect time
  stats::Histogram tls_handshake = stats::Histogram::for_latency_ns();    // TCP connected -> TLS handshake done
  // Through a proxy's CONNECT tunnel (issue 33): connect is the TCP connect to
  // the proxy, this the tunnel's set-up (CONNECT sent -> 2xx read), before TLS.
  stats::Histogram tunnel = stats::Histogram::for_latency_ns();
  stats::Histogram service = stats::Histogram::for_latency_ns();          // t_done - t_send (open model)
  stats::Histogram queue_delay = stats::Histogram::for_latency_ns();      // t_send - t_sched (open model)
  stats::Histogram ttfb = stats::Histogram::for_latency_ns();             // first response byte - t_send
  stats::Histogram rate_samples = make_rate_histogram();                  // per thread, per 100 ms
  // Per request name, in the order the names were first seen (formatters sort).
  std::vector<EndpointReport> endpoints;
  std::uint64_t max_names = 0;             // --max-names (0: not known, an older report)
  bool names_capped = false;               // requests past --max-names were counted under "(other)"
  bool targets_file = false;               // --targets was used (the text report shows Endpoints)
  std::size_t targets_count = 0;           // --targets: how many targets the file held (0: not known)
  std::string targets_order;               // --targets-order ("round-robin", "random", "weighted")

  // The time series, kept with --timeseries, --html or --csv: each interval's
  // figures (report/series_point.h), in order, which the JSON report writes as
  // the NDJSON lines' objects with their histograms. nullopt: not kept (the JSON
  // report then has no "timeseries").
  std::optional<std::vector<SeriesPoint>> timeseries;
  std::string command_line;                // the command as given, shell-quoted; "" when unknown
  std::optional<RemoteWriteSummary> remote_write;  // --prometheus-remote-write only
  // --scenario (issue 16): the Tasks table, `check` and `script` errors, names.
  scenario::ScenarioStats scenario;
  // Issue 28: the client's health (each worker's busy share and CPU, the process's
  // peaks), the server's side (--server-pid, --server-metrics) and the verdicts.
  evidence::RunEvidence evidence;
};

// The part of the whole test this report covers, with its figures
// (core/shard_share.h): what the text and JSON reports print about it.
ShardShare shard_share(const RunReport& r);

// Whether the run's URL is https:// (its reports show the TLS figures).
inline bool is_https(const RunReport& r) { return r.url.size() >= 8 && (r.url[4] == 's' || r.url[4] == 'S') && r.url[5] == ':'; }

// Why the server refused the requests, when the run can tell: a body sent with
// no Content-Type that got 415 (Unsupported Media Type) responses. One line,
// "" when there is nothing to say.
std::string body_hint(const RunReport& r);

// Open model: the window the target rate covers: -d (the drain after it sends only
// what was already due), or the measured time when the run ended sooner (-n, Ctrl-C).
inline TimeNs schedule_window_ns(const RunReport& r) {
  return r.duration_ns > 0 ? std::min(r.measured_ns, r.duration_ns) : r.measured_ns;
}

// Requests written per second. Open model: over schedule_window_ns, the window the
// target covers, so that arrivals due before the end and sent during the drain do not
// read as falling behind when the drain is long (a stall at the end); closed loop:
// over the measured time, like every other rate.
// When the engine says which requests were written during the drain, only those
// written during the run count here (the drain's are their own figure).
inline double sent_rate_per_s(const RunReport& r) {
  const TimeNs window_ns = r.load_model == LoadModel::kClosed ? r.measured_ns : schedule_window_ns(r);
  const std::uint64_t during_run = r.counters.requests_sent - std::min(r.sent_while_draining.value_or(0),
                                                                        r.counters.requests_sent);
  return window_ns > 0 ? static_cast<double>(during_run) * 1e9 / static_cast<double>(window_ns) : 0;
}

// A scenario's tasks ended (recorded), per second of the window the target covers
// (open model) or of the measured time (closed): the unit its open-model rate counts.
inline double tasks_ended_rate_per_s(const RunReport& r) {
  std::uint64_t ended = 0;
  for (const scenario::TaskRow& t : r.scenario.tasks) ended += t.count;
  const TimeNs window_ns = r.load_model == LoadModel::kClosed ? r.measured_ns : schedule_window_ns(r);
  return window_ns > 0 ? static_cast<double>(ended) * 1e9 / static_cast<double>(window_ns) : 0;
}

// Open model: the sent rate over the target rate (a scenario's: tasks ended over
// tasks asked, the target's unit); nullopt in the closed loop and when
// the target asked for fewer than one request in the window (the ratio of a fraction
// of a request would be absurd: one request sent against 10^-6 asked).
inline std::optional<double> sent_to_target(const RunReport& r) {
  if (r.load_model == LoadModel::kClosed || r.measured_ns <= 0 || r.target_rate_per_s <= 0) return std::nullopt;
  if (r.target_rate_per_s * static_cast<double>(schedule_window_ns(r)) / 1e9 < 1.0) return std::nullopt;
  return (r.scenario.active ? tasks_ended_rate_per_s(r) : sent_rate_per_s(r)) / r.target_rate_per_s;
}

// Whether the run counts as failed because not one request succeeded.
inline bool no_request_succeeded(const RunReport& r) { return r.counters.successes() == 0; }

}  // namespace pacer::report
