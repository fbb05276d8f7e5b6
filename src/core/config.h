// The run configuration: plain data produced by cli::parse, validated there, and
// passed down as const Config& (never mutated after parsing). Durations are
// nanoseconds (TimeNs); counts carry their unit in the name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"

namespace pacer {

// A parsed http:// or https:// URL.
struct Target {
  std::string url;           // as given by the user
  std::string scheme;        // "http" or "https"
  std::string host;          // without brackets for IPv6 literals
  std::uint16_t port = 0;    // explicit or the scheme's default
  bool has_explicit_port = false;
  std::string path = "/";    // path plus query, never empty
  bool is_tls() const { return scheme == "https"; }
  // Host header value: the host (bracketed if IPv6), plus ":port" when it is not
  // the scheme's default.
  std::string host_header() const;
};

struct Header {
  std::string name;
  std::string value;
};

// How requests are scheduled (DESIGN.md section 3).
enum class LoadModel {
  kClosed,    // each connection sends when its previous response completes (no -R)
  kConstant,  // -R N
  kRamp,      // -R A:B, linear over the duration
  kStages,    // --stages 30s:100,1m:1000: piecewise linear, starting from 0
};

// "closed", "constant", "ramp", "stages": the names reports use.
const char* load_model_name(LoadModel model);

// One `--stages` entry: ramp from the previous target to this one over duration_ns.
struct RateStage {
  TimeNs duration_ns = 0;
  double target_rate_per_s = 0;
};

// One --slo term: a latency statistic that must stay below a bound ("p99<250ms").
struct LatencyGate {
  enum class Statistic { kPercentile, kMean, kMax };
  Statistic statistic = Statistic::kPercentile;
  double percentile = 0;       // kPercentile: 0 < p < 100
  TimeNs limit_ns = 0;
  bool inclusive = false;      // "<=" rather than "<"
  std::string text;            // as the user wrote it, for messages
};

// Default input caps (see Config); the options raise or lower them.
inline constexpr std::uint64_t kDefaultMaxRequestBodyBytes = std::uint64_t{64} << 20;  // 64 MiB
inline constexpr std::uint64_t kDefaultMaxCaptureHeaders = 100;
inline constexpr std::uint64_t kDefaultMaxCaptureHeaderBytes = std::uint64_t{64} << 10;  // 64 KiB
inline constexpr std::uint64_t kDefaultMaxCaptureBodyBytes = std::uint64_t{8} << 20;     // 8 MiB
inline constexpr std::uint64_t kDefaultLuaMemoryBytes = std::uint64_t{256} << 20;        // 256 MiB per Lua state

// Targets (--targets FILE): one request of the run's set, as the file gave it,
// its URL already resolved against the command line's (same origin).
struct RequestTarget {
  std::string method = "GET";
  std::string path = "/";                 // origin-form: path plus query
  std::vector<Header> headers;            // the target's own; -H headers apply too (the target's win)
  std::optional<std::string> body;        // @file, "body" (base64) or "body_text"; else -b's, if any
  std::string name;                       // "name"; empty: "METHOD path" without the query
  std::uint32_t weight = 1;               // --targets-order weighted
  std::string where;                      // "file:line", for messages
};

// --targets-order: which target each request takes.
enum class TargetsOrder { kRoundRobin, kRandom, kWeighted };

// The live web view (--web, --web-token, --web-linger; issue 17, src/web/).
inline constexpr std::uint16_t kDefaultWebPort = 8089;
struct WebViewOptions {
  bool enabled = false;                   // --web was given
  std::string host = "127.0.0.1";         // an IPv4/IPv6 literal (cli turns "localhost" into 127.0.0.1)
  std::uint16_t port = kDefaultWebPort;   // 0: any free port (the URL printed says which)
  std::string token;                      // --web-token; empty: none (a non-loopback bind generates one)
  TimeNs linger_ns = 0;                   // --web-linger: keep serving the final page this long
};

// Evidence beside the numbers (issue 28, src/evidence/, cli/evidence_options.cc):
// the client's health verdict, the server's side, repeated runs.
struct EvidenceOptions {
  double client_busy_threshold = 0.9;             // --client-busy-threshold PCT, as a fraction
  std::vector<int> server_pids;                   // --server-pid PID (repeatable)
  std::vector<std::string> server_metrics_urls;   // --server-metrics URL (repeatable)
  std::vector<std::string> server_metric_selectors;  // --server-metric NAME|REGEX (repeatable)
  TimeNs server_metrics_timeout_ns = 0;           // --server-metrics-timeout; 0: half an interval, 50 ms..2 s
  int repeat = 1;                                 // --repeat N
  TimeNs repeat_pause_ns = 0;                     // --repeat-pause T
};

// One term of --capacity's objective ("p99<=50ms", "errors<=0.1%",
// "server_cpu<=80%"); src/capacity/objective.h judges a step by it.
struct ObjectiveTerm {
  enum class Figure { kLatency, kErrors, kServerCpu };
  Figure figure = Figure::kLatency;
  LatencyGate latency;         // kLatency: the statistic, its limit and < or <=
  double limit = 0;            // kErrors: a fraction of the requests; kServerCpu: CPUs (0.8: 80 % of one)
  bool inclusive = true;       // "<=" (kErrors, kServerCpu; kLatency: latency.inclusive)
  std::string text;            // as written, for messages
};

// The capacity search and the fixed sweep (issue 41, src/capacity/, app/capacity_run.h):
// a series of open-model steps, each -d long after a --warmup of its own.
struct CapacityOptions {
  bool search = false;                    // --capacity OBJECTIVE
  std::vector<double> sweep_rates;        // --sweep RATES (ascending); empty: no sweep
  std::string objective_text;             // as given ("" for a sweep without --capacity)
  std::vector<ObjectiveTerm> objective;
  double start_rate_per_s = 0;            // -R with --capacity; 0: a closed-loop probe picks it
  double precision = 0.03;                // --capacity-precision: the bracket's width, hi / lo - 1
  TimeNs budget_ns = 600 * kNsPerS;       // --capacity-budget: the whole search's time
  int step_repeat = 0;                    // --step-repeat N; 0: the mode's default (3 search, 1 sweep)
  bool enabled() const { return search || !sweep_rates.empty(); }
};

// Prometheus (issue 29, src/prom/, docs/prometheus.md): the remote-write push and
// the labels every exported series carries (the web view's /metrics has them too).
struct PrometheusOptions {
  std::string remote_write_url;           // --prometheus-remote-write URL; empty: no push
  std::vector<std::pair<std::string, std::string>> labels;  // --prometheus-label k=v, in order
  std::string basic_auth;                 // --prometheus-basic-auth USER:PASSWORD ("" : none)
  std::string bearer_token;               // --prometheus-bearer-token ("" : none)
  std::string run_id;                     // --run-id; empty: generated at start
  TimeNs timeout_ns = 5 * kNsPerS;        // --prometheus-timeout: one push's time, and the final flush's
};

// A file an option writes (-o, --hdr, --timeseries, ...): which option, which path.
struct OutputFile {
  const char* flag;
  std::string path;
};

// --proxy / -x and the proxy environment (issue 33; cli/connect_options.cc,
// src/proxy/): the proxy this run's connections go through, chosen once by curl's
// rules. http:// targets are forwarded (absolute-form request targets);
// https:// targets, and whatever else needs a byte stream, go through CONNECT.
struct ProxyConfig {
  std::string host;                       // without brackets for IPv6 literals
  std::uint16_t port = 0;
  std::string authorization;              // a Proxy-Authorization value ("Basic ..."); empty: none
  std::string shown;                      // "http://host:port" (never the password), for reports
  std::string source;                     // "--proxy", "https_proxy", ...: where it came from
  bool tunnel = false;                    // CONNECT host:port, then the target's bytes (TLS inside for https)
};

// --tls-min / --tls-max / --ciphers / --tls13-ciphers / --sni / --no-sni (issue 33).
struct TlsKnobs {
  int min_version = 0;                    // 0: the default; else net::kTls12Version or kTls13Version
  int max_version = 0;
  std::string ciphers;                    // TLS 1.2 cipher list (OpenSSL syntax); empty: default
  std::string tls13_ciphers;              // TLS 1.3 suites; empty: default
  std::optional<std::string> sni;         // --sni NAME; nullopt: the URL's host (when a name)
  bool no_sni = false;                    // --no-sni: send no server name at all
};

// --io: which I/O engine runs (io/select.h).
enum class IoChoice : std::uint8_t {
  kAuto,   // io_uring where this kernel allows it, else epoll (the report says why)
  kUring,  // io_uring or fail with the reason
  kEpoll,
};

// --log-requests (engine/record/request_log.h): one row per request.
enum class RequestLogFormat : std::uint8_t { kCsv, kNdjson };
struct RequestLogOptions {
  std::string path;                        // empty: no log
  RequestLogFormat format = RequestLogFormat::kCsv;  // --log-format, else from the extension
  double sample = 1.0;                     // --log-sample: the share of requests logged
};

struct Config {
  Target target;
  int threads = 2;
  int connections = 10;
  TimeNs duration_ns = 10 * kNsPerS;
  bool duration_given = false;            // -d was on the command line
  // The scenario's load shape ends the run (set once the file is loaded, app.cc):
  // -d bounds it only when given (duration_bounds_run).
  bool load_shaped = false;
  bool warmup_given = false;              // --warmup was on the command line
  TimeNs timeout_ns = 2 * kNsPerS;        // from t_send; 0 would mean no timeout (rejected by cli)
  TimeNs warmup_ns = 0;                   // nothing completed before this is recorded
  // --give-up: the run ends (exit 1) when no connection at all has been open this
  // long (docs/limits.md). 0: the default, 10 x timeout_ns (give_up_period_ns()).
  TimeNs give_up_ns = 0;
  TimeNs give_up_period_ns() const { return give_up_ns > 0 ? give_up_ns : 10 * timeout_ns; }
  std::optional<std::uint64_t> request_count;  // -n: stop after exactly this many requests finish
  std::string method = "GET";
  std::vector<Header> headers;            // -H, in order
  std::vector<std::string> cookies;       // --cookie, as given (cli/cookie_options.h joins them into headers)
  std::optional<std::string> body;        // -b; Content-Length is set when present
  bool keep_alive = true;                 // false: --disable-keepalive
  bool print_latency = false;             // --latency
  bool record_timeouts = true;            // false: --no-record-timeouts
  std::string script_path;                // -s/--script: a wrk-compatible Lua script; empty: none
  std::vector<std::string> script_args;   // after the URL (or `--`): init(args)'s args[1..]

  // Scenarios (issue 16, --scenario FILE; src/scenario/): virtual users as Lua
  // coroutines, one connection each. cli sets `connections` to the users' count
  // (closed model: -u, default -c; open model: --max-users).
  std::string scenario_path;              // --scenario: empty: none
  std::vector<std::string> scenario_args; // after the URL: pacer.args[1..]
  int users = 0;                          // -u/--users (closed model); 0: not given
  double spawn_rate_per_s = 0;            // --spawn-rate: users started per second; 0: all at once
  int max_users = 10000;                  // --max-users: open model, users created at most; closed: the ceiling
                                          // of a load shape and the web view (connections = it when given)
  TimeNs stop_timeout_ns = 0;             // --stop-timeout: a user stopped by a lower count ends its task first
  std::vector<std::string> scenario_tags;          // --tags: run only tasks with one of these (issue 27)
  std::vector<std::string> scenario_exclude_tags;  // --exclude-tags: leave out tasks with one of these
  bool is_scenario() const { return !scenario_path.empty(); }

  // Input caps (docs/limits.md). A script's response() is given copies of each
  // response's headers and body; past a cap the response is a parse error.
  std::uint64_t max_request_body_bytes = kDefaultMaxRequestBodyBytes;     // --max-request-body: -b @FILE, @-
  std::uint64_t max_capture_headers = kDefaultMaxCaptureHeaders;          // --max-capture-headers
  std::uint64_t max_capture_header_bytes = kDefaultMaxCaptureHeaderBytes; // --max-capture-header-bytes
  std::uint64_t max_capture_body_bytes = kDefaultMaxCaptureBodyBytes;     // --max-capture-body
  std::uint64_t lua_memory_bytes = kDefaultLuaMemoryBytes;                // --lua-memory: per Lua state

  // Protocol. Each connection carries up to `streams` (HTTP/2) or `pipeline`
  // (HTTP/1.1) requests at once; -c stays the number of connections.
  bool http2 = false;                     // --http2: prior knowledge (h2c) on http://, ALPN "h2" on https://
  int streams = 1;                        // --streams: HTTP/2 requests in flight per connection
  int pipeline = 1;                       // --pipeline: HTTP/1.1 requests written ahead per connection
  // HTTP/3 (issue 19): --http3, QUIC over UDP with ALPN "h3" (https:// only); --streams per connection.
  bool http3 = false;
  int requests_per_connection() const { return http2 || http3 ? streams : pipeline; }
  const char* protocol_name() const { return http3 ? "h3" : http2 ? "h2" : "http/1.1"; }  // as reports name it
  // HTTPS (target.is_tls()); ignored for http:// URLs (but the knobs below: cli/tls_options refuses them there).
  bool tls_verify = true;                 // false: -k/--insecure (no chain or host name check)
  std::string tls_ca_file;                // --cacert: trust only this CA bundle (else the system store)
  std::string tls_cert_file;              // --cert: client certificate (PEM), with tls_key_file
  std::string tls_key_file;               // --key
  bool tls_resume = true;                 // false: --no-tls-resume (a full handshake every connect)

  TlsKnobs tls_knobs;                     // versions, ciphers, SNI
  // Connect path (issue 33): proxy, source addresses.
  std::optional<ProxyConfig> proxy;       // nullopt: connect directly
  std::vector<std::string> proxy_notes;   // what stderr says of the proxy variables (HTTP_PROXY not used, ...)
  std::vector<std::string> bind_addresses;  // --bind: local IP literals, round-robin; empty: the kernel's choice

  // Where connections go, redirects, response decoding.
  std::string unix_socket_path;           // --unix-socket: connect there instead of TCP (URL gives Host and path)
  int follow_redirects = 0;               // --follow-redirects N: same-origin hops per request; 0: off (as wrk)
  bool compressed = false;                // --compressed: ask for and decode gzip, deflate, br, zstd

  // Open model (-R, --stages). Rates are totals for the run, requests/second.
  LoadModel load_model = LoadModel::kClosed;
  double rate_per_s = 0;                  // kConstant; kRamp: the start rate
  double rate_end_per_s = 0;              // kRamp: the end rate
  std::vector<RateStage> stages;          // kStages; their durations add up to duration_ns
  bool poisson = false;                   // --arrival poisson (default uniform)
  std::uint64_t seed = 1;                 // --seed: Poisson arrivals repeat exactly for one seed
  TimeNs deadline_ns = 0;                 // --deadline: shed requests queued longer; 0 = off

  // CI gates: a breach exits 3 (DESIGN.md section 2).
  std::vector<LatencyGate> slo;           // --slo "p99<250ms,max<2s"
  std::optional<double> max_error_rate;   // --max-error-rate 1% (a fraction, 0..1)

  // Many machines: this process runs shard `shard_index` (0-based) of `shard_count`.
  // cli::parse has already cut connections and -n down to this shard's share
  // (the whole test's are kept beside them); rates stay the run's totals (the
  // engine takes every shard_count-th arrival). What the shard prints comes from
  // shard_share(config) (core/shard_share.h).
  int shard_index = 0;
  int shard_count = 1;
  std::string shard_source;               // --shard auto: the variable the index came from; empty for i/N
  bool shard_starts_together = false;     // --shard auto found an engine that starts every shard at once
  int test_connections = 0;                           // the whole test's -c (0: same as connections)
  std::optional<std::uint64_t> test_request_count;    // the whole test's -n
  std::optional<std::int64_t> start_at_unix_ns;  // --start-at: begin the load at this wall-clock time

  // I/O engine: --io; PACER_IO decides what auto means (io/select.h).
  IoChoice io = IoChoice::kAuto;
  // --spin: workers poll for events instead of sleeping (each takes a whole CPU),
  // so a send leaves within microseconds of its time even where a sleeping
  // thread wakes late (virtual machines, busy hosts: README, Options).
  bool spin = false;
  // Request names and targets (--targets, --targets-order, --max-names).
  std::uint64_t max_names = 1000;         // --max-names: distinct request names before "(other)"
  std::string targets_path;               // --targets FILE ("-": stdin); empty: the URL's one request
  std::vector<RequestTarget> targets;     // parsed from targets_path; empty without --targets
  TargetsOrder targets_order = TargetsOrder::kRoundRobin;  // --targets-order

  // Output.
  bool json_format = false;               // --format json (default text)
  std::string output_path;                // -o: the final report goes to this file (atomically)
  std::string hgrm_path;                  // --hdr: the latency distribution in .hgrm form (milliseconds)
  TimeNs interval_ns = kNsPerS;           // --interval: time-series rows
  std::string timeseries_path;            // --timeseries FILE ("-": stdout); empty: off
  bool timeseries_histogram = false;      // --timeseries-histogram: each row carries its V2 histogram
  TimeNs refresh_ns = 100 * kNsPerMs;     // --refresh: how often the live view is redrawn
  bool plain = false;                     // --plain: plain progress lines, never the live view
  WebViewOptions web;                     // --web (live web view)
  PrometheusOptions prometheus;           // --prometheus-* (issue 29)
  EvidenceOptions evidence;               // --server-pid, --server-metrics, --repeat ... (issue 28)
  CapacityOptions capacity;               // --capacity, --sweep (issue 41)
  bool keep_series = false;               // keep the time series with no file asking (a capacity step's)
  // Files written at the end of the run (and of an interrupted one).
  std::string html_path;                  // --html FILE: the self-contained HTML report
  RequestLogOptions request_log;          // --log-requests, --log-format, --log-sample
  int trace_exchanges = 0;                // --trace N: the first N exchanges on stderr (trace/wire_trace.h)
  std::string csv_prefix;                 // --csv PREFIX: PREFIX_stats.csv, _history.csv, _failures.csv
  bool csv_locust = false;                // --csv-format locust: Locust 2.x's four files instead (report/locust_csv.h)
  bool csv_full_history = false;          // --csv-full-history: Locust's history gets a row per name per interval
  // The JSON report (and these files) carry the time series.
  std::string command_line;               // the command as given, shell-quoted (the HTML report's header)
  bool keeps_timeseries() const { return keep_series || !timeseries_path.empty() || !html_path.empty() || !csv_prefix.empty(); }
  // stdout carries data for a program: the JSON report (--format json without -o)
  // or the time series (--timeseries -). Nothing else may be written there.
  bool stdout_is_data() const { return timeseries_path == "-" || (json_format && output_path.empty()); }
  bool is_open_model() const { return load_model != LoadModel::kClosed; }
  // Whether -d's end ends the run (and so its recorded window): -d given, or its
  // default when nothing else ends the run (-n, a load shape). The engine, the
  // report, the intervals and the live view all ask this.
  bool duration_bounds_run() const { return duration_given || (!request_count && !load_shaped); }
  // Every file this run writes: each is checked before the run starts.
  // A new file option adds itself here. ("--timeseries -" is stdout: not listed.)
  std::vector<OutputFile> output_files() const;
};

// Connections each worker owns: exactly `connections` in total, remainders spread
// over the first workers (4/3/3 for 3 workers and 10 connections). Workers are
// capped at the number of connections.
std::vector<int> connections_per_worker(int threads, int connections);

}  // namespace pacer
