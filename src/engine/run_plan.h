// What every worker of one run shares (read-only once workers start) and what
// each worker hands back. Built by engine::run on the main thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/config.h"
#include "engine/conn/route.h"
#include "engine/record/document.h"
#include "evidence/worker_load.h"
#include "io/engine.h"
#include "load/schedule.h"
#include "net/address.h"
#include "net/tls_context.h"
#include "scenario/scenario_stats.h"
#include "proto/http2_request.h"
#include "quic/module.h"
#include "stats/counters.h"
#include "stats/histogram.h"
#include "stats/name_stats.h"
#include "stats/name_table.h"
#include "targets/request_set.h"

namespace pacer::script {
class ScriptHost;
}
namespace pacer::trace {
class TraceBudget;
}

namespace pacer::engine {

class GiveUpWatch;
class StartBarrier;
class Doorbell;
class LoadChangeLog;
class PublishedTarget;
class ResetSchedule;
class RunEnd;
class RequestLogFile;

// How long an open-model schedule runs when nothing but -n or a load shape ends
// the run (-R with -n and no -d): a year.
inline constexpr TimeNs kUnboundedRunNs = 365LL * 24 * 3600 * kNsPerS;

// What each part of a worker reads of the configuration, built once by run()
// (part_options): the parts see these, never Config itself.
struct ConnectOptions {  // the connection pool and the transport
  TimeNs timeout_ns = 2 * kNsPerS;  // a connect or handshake not done within it fails
  TimeNs give_up_ns = 20 * kNsPerS;  // the give-up rule's period (--give-up)
  bool tls_resume = true;           // new connections resume the last TLS session or QUIC ticket
};
struct ExchangeOptions {  // the exchange
  TimeNs timeout_ns = 2 * kNsPerS;  // a request with no response within it is cancelled
  bool keep_alive = true;           // false: one request per connection
  bool record_timeouts = true;      // a timeout's latency is recorded (censored)
};
struct LoadOptions {  // the load drivers, the open model's arrivals, the request source
  TimeNs timeout_ns = 2 * kNsPerS;  // an arrival waits at most this for a connection...
  TimeNs deadline_ns = 0;           // ...or this (--deadline) when shorter: then it is shed
  bool record_timeouts = true;      // an unsent arrival's latency is recorded (censored)
  bool poisson = false;             // --arrival poisson
  int shard_index = 0;              // --shard i/N: this process's share of the draws
  int shard_count = 1;
  std::uint64_t seed = 0;           // --seed: the arrivals' and the targets' draws
  TimeNs stop_timeout_ns = 0;       // --stop-timeout: a scenario's stopped user ends its task first
};
struct WireOptions {  // the sessions: redirects and decoding
  Target target;                    // where relative redirects resolve
  int follow_redirects = 0;
  bool compressed = false;
};
struct LoopOptions {  // the worker's loop
  bool spin = false;                // --spin: never sleep in the wait
  TimeNs interval_ns = kNsPerS;     // --interval: the in-flight gauge's "older than an interval"
};
struct PartOptions {
  ConnectOptions connect;
  ExchangeOptions exchange;
  LoadOptions load;
  WireOptions wire;
  LoopOptions loop;
};
PartOptions part_options(const Config& config);

struct SharedRun {
  // The whole configuration, for what is not a worker part's: the script's and
  // the scenario users' own settings, the shard's share of the figures.
  const Config* config = nullptr;
  PartOptions options;  // what the parts read, built once
  net::Address address;
  const ConnectRoute* route = nullptr;  // --bind, the proxy's tunnel (engine/conn/route.h); null: direct, no bind
  TimeNs probe_connect_ns = -1;  // the start-up probe's TCP connect, alone (-1: none): conn/start_gate.h
  const net::TlsContext* tls = nullptr;  // https://: every connection handshakes; null for http://
  // Every request of the run, built once (targets/request_set.h): the command
  // line's one, or the --targets file's.
  const targets::RequestSet* requests = nullptr;
  const proto::Http2Request* http2_request = nullptr;  // non-null: speak HTTP/2 (prior knowledge or ALPN h2)
  // --http3 (null otherwise): the loaded HTTP/3 module, each request's HTTP/3
  // form (one per target) and the GnuTLS client.
  const quic::Module* http3 = nullptr;
  const quic::Requests* http3_requests = nullptr;
  const quic::TlsConfig* quic_tls = nullptr;
  std::uint32_t slots_per_connection = 1;  // --streams (HTTP/2) or --pipeline (HTTP/1.1)
  TimeNs start_ns = 0;               // load begins (all workers)
  std::int64_t start_unix_ns = 0;    // the wall clock (CLOCK_REALTIME) at start_ns
  TimeNs record_from_ns = 0;         // start + warm-up: requests scheduled earlier are not recorded
  TimeNs end_ns = 0;                 // no new request is scheduled at or after this (INT64_MAX: none)
  const std::atomic<bool>* stop = nullptr;  // set by the controller: stop at once (signal)
  // Open model only (nullptr in the closed loop): the run's rate over time, from start_ns.
  const load::RateProfile* profile = nullptr;
  int worker_count = 1;
  TimeNs interval_ns = 0;            // > 0: workers publish per-interval figures (IntervalRing)
  script::ScriptHost* script = nullptr;  // -s: set up before the workers start; null without a script
  GiveUpWatch* give_up = nullptr;    // the give-up rule's shared state (engine/give_up.h); null: no rule
  StartBarrier* start_barrier = nullptr;  // the workers' closed-loop start, together (conn/start_gate.h); null: none
  io::EngineKind io_engine = io::EngineKind::kEpoll;  // the I/O engine every worker runs (--io)
  // Request names (targets): the run's name table (scripts add names during the run).
  stats::NameTable* names = nullptr;
  // A run's changing load (engine/control/load_control.h), as each reader takes
  // it; all null without a control. control: the users or rate the workers run;
  // run_end: a load shape's end of the run; resets: when the statistics start
  // again; load_log: the changes, and a rate control's rates over time.
  const PublishedTarget* control = nullptr;
  const RunEnd* run_end = nullptr;
  const ResetSchedule* resets = nullptr;
  const LoadChangeLog* load_log = nullptr;
  RequestLogFile* request_log = nullptr;  // --log-requests (engine/record/request_log.h); null: none
  trace::TraceBudget* trace = nullptr;    // --trace N: the exchanges left to print (trace/wire_trace.h); null: none
  DocumentLengths* documents = nullptr;   // ab's document length per name (record/document.h); null: not kept
  Doorbell* doorbell = nullptr;  // rung when an interval is published or a worker is done (loop/doorbell.h); null: none
};

struct WorkerResult {
  stats::Counters counters;
  // Latency and time to first byte are recorded once, under the request's name
  // (`names`); the run's histograms are their sum, made at the end (engine/run.cc).
  // Here only the latencies of arrivals never sent, which have no name yet.
  stats::Histogram unsent_latency = stats::Histogram::for_latency_ns();
  stats::Histogram latency_censored = stats::Histogram::for_latency_ns();
  stats::Histogram connect = stats::Histogram::for_latency_ns();
  stats::Histogram tls_handshake = stats::Histogram::for_latency_ns();  // TCP connected -> handshake done
  stats::Histogram tunnel = stats::Histogram::for_latency_ns();  // through a proxy: CONNECT sent -> 2xx read
  stats::Histogram service = stats::Histogram::for_latency_ns();      // t_done - t_send (open model)
  stats::Histogram queue_delay = stats::Histogram::for_latency_ns();  // t_send - t_sched (open model)
  stats::Histogram rate_samples;     // requests/second per 100 ms window
  TimeNs finished_ns = 0;            // when this worker's loop ended
  TimeNs recorded_from_ns = 0;       // the warm-up's end, or the statistics reset it made
  TimeNs connections_up_ns = 0;      // when all its -c connections had first opened (0: never all; issue 31)
  std::uint64_t sent_while_draining = 0;  // of counters.requests_sent, those written after -d's end
  evidence::WorkerLoad load;         // its busy share and CPU over the loop (issue 28)
  std::string first_error;           // the first connection failure, for the report
  // The first TLS failure's reason (fixed size: noted on the hot path without
  // allocating) and when it happened (-1: none), so the controller picks the earliest.
  std::array<char, 256> tls_first_error{};
  TimeNs tls_first_error_ns = -1;
  stats::NameRecorder names;         // per request name (stats/name_stats.h), indexed by NameId
  scenario::ScenarioStats scenario;  // --scenario: tasks, checks, script errors, names
  FirstResponse first_response;      // ab's Server header and document length (record/document.h)
  explicit WorkerResult(stats::Histogram rate) : rate_samples(std::move(rate)) {}
};

}  // namespace pacer::engine
