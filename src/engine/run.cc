#include "engine/run.h"

#include <strings.h>

#include <cstring>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/shard_share.h"
#include "core/stop_signals_thread.h"
#include "engine/give_up.h"
#include "engine/http3_module.h"
#include "engine/worker.h"
#include "io/select.h"
#include "load/schedule.h"
#include "net/address.h"
#include "net/h2c_probe.h"
#include "net/tls_context.h"
#include "net/tls_probe.h"
#include "proto/alpn.h"
#include "proto/http2_request.h"
#include "quic/module.h"
#include "report/units.h"
#include "stats/name_table.h"
#include "targets/target_file.h"

namespace pacer::engine {

namespace {

// Each worker's share of -n: remainders go to the first workers, like connections.
std::vector<std::optional<std::uint64_t>> split_quota(const Config& config, std::size_t workers) {
  std::vector<std::optional<std::uint64_t>> out(workers);
  if (!config.request_count) return out;
  const std::uint64_t total = *config.request_count;
  for (std::size_t i = 0; i < workers; ++i) out[i] = total / workers + (i < total % workers ? 1 : 0);
  return out;
}

constexpr TimeNs kUnboundedNs = 365LL * 24 * 3600 * kNsPerS;  // -R with -n and no -d

// The open model's rate over the whole run (warm-up first, at the start rate).
std::optional<load::RateProfile> make_profile(const Config& config) {
  const bool time_bounded = config.duration_given || !config.request_count;
  const TimeNs duration = time_bounded ? config.duration_ns : kUnboundedNs;
  std::optional<load::RateProfile> profile;
  switch (config.load_model) {
    case LoadModel::kClosed: return std::nullopt;
    case LoadModel::kConstant: profile = load::RateProfile::constant(config.rate_per_s, duration); break;
    case LoadModel::kRamp:
      profile = load::RateProfile::ramp(config.rate_per_s, config.rate_end_per_s, duration);
      break;
    case LoadModel::kStages: {
      std::vector<load::Stage> stages;
      for (const RateStage& s : config.stages) stages.push_back(load::Stage{s.duration_ns, s.target_rate_per_s});
      profile = load::RateProfile::stages(stages);
      break;
    }
  }
  return profile->with_warmup(config.warmup_ns);
}


// Sleeps until the wall clock reaches unix_ns (or `stop` is set). Returns true
// if the wait was short enough (under 1 s) to keep an idle connection.
bool wait_for_wall_clock(std::int64_t unix_ns, const std::atomic<bool>& stop) {
  bool short_wait = true;
  while (!stop.load()) {
    timespec wall{};
    clock_gettime(CLOCK_REALTIME, &wall);
    const std::int64_t left = unix_ns - (static_cast<std::int64_t>(wall.tv_sec) * kNsPerS + wall.tv_nsec);
    if (left <= 0) break;
    if (left > kNsPerS) short_wait = false;
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<std::int64_t>(left, 50 * kNsPerMs)));
  }
  return short_wait;
}

// The controller's side of the interval rings: emits interval k once every
// worker has published it (or finished), until all workers are done.
class IntervalCollector {
 public:
  IntervalCollector(std::vector<std::unique_ptr<Worker>>& workers, const SharedRun& shared,
                    std::shared_ptr<const stats::NameTable> names, const load::RateProfile* profile,
                    const IntervalSink& sink, const TickSink& tick)
      : workers_(workers),
        shared_(shared),
        names_(std::move(names)),
        share_(shard_share(*shared.config)),
        profile_(profile),
        sink_(sink),
        tick_(tick) {}

  // Polls until every worker is done. Main thread.
  void run() {
    while (true) {
      const bool all_done = std::all_of(workers_.begin(), workers_.end(), [](auto& w) { return w->is_done(); });
      while (ready(next_)) emit();
      if (all_done) return;
      if (tick_) tick_(monotonic_now_ns() - shared_.start_ns);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

 private:
  bool ready(std::uint64_t k) const {
    bool any = false;
    for (const auto& w : workers_) {
      const std::uint64_t published = w->intervals()->published();
      if (published > k) {
        any = true;
      } else if (!w->is_done()) {
        return false;
      }
    }
    return any;
  }

  void emit() {
    merged_.reset();
    std::fill(merged_names_.begin(), merged_names_.end(), stats::NameIntervalCounts{});
    report::IntervalReport out;
    out.index = next_;
    out.start_ns = static_cast<TimeNs>(next_) * shared_.interval_ns;
    out.start_unix_ns = shared_.start_unix_ns + (shared_.record_from_ns - shared_.start_ns) + out.start_ns;
    TimeNs end = shared_.record_from_ns + out.start_ns;
    stats::ScenarioErrorCounts scenario_errors;
    for (auto& w : workers_) {
      IntervalRing& ring = *w->intervals();
      if (ring.published() <= next_) continue;
      const IntervalSnapshot& s = ring.slot(next_);
      out.sent += s.sent;
      out.completed += s.completed;
      out.scheduled += s.scheduled;
      out.errors.merge(s.errors);
      scenario_errors.merge(s.scenario_errors);
      out.open_connections += s.open_connections;
      out.backlog += s.backlog;
      out.schedule_lag_ns = std::max(out.schedule_lag_ns, s.schedule_lag_ns);
      out.in_flight += s.in_flight;
      out.oldest_in_flight_ns = std::max(out.oldest_in_flight_ns, s.oldest_in_flight_ns);
      out.in_flight_over_interval += s.in_flight_over_interval;
      out.service_ns_sum += s.service_ns_sum;
      merged_.merge(s.latency);
      if (merged_names_.size() < s.names.size()) merged_names_.resize(s.names.size());  // a script added names
      for (std::size_t id = 0; id < s.names.size(); ++id) {
        merged_names_[id].completed += s.names[id].completed;
        merged_names_[id].errors += s.names[id].errors;
      }
      end = std::max(end, s.end_ns);
      ring.consume(next_);
    }
    out.duration_ns = end - (shared_.record_from_ns + out.start_ns);
    if (profile_ != nullptr && out.duration_ns > 0) {
      const TimeNs from = shared_.record_from_ns - shared_.start_ns + out.start_ns;
      out.target_rate_per_s = share_.rate(profile_->mean_rate_per_s(from, from + out.duration_ns));
    }
    if (shared_.config->is_scenario()) out.scenario_errors = scenario_errors;
    out.latency = &merged_;
    out.names = merged_names_;
    out.name_table = names_;
    sink_(out);
    ++next_;
  }

  std::vector<std::unique_ptr<Worker>>& workers_;
  const SharedRun& shared_;
  std::shared_ptr<const stats::NameTable> names_;  // outlives the run while an interval holds it
  const ShardShare share_;  // the profile is the whole test's; this shard runs its share
  const load::RateProfile* profile_;
  const IntervalSink& sink_;
  const TickSink& tick_;
  std::uint64_t next_ = 0;
  stats::Histogram merged_ = stats::Histogram::for_latency_ns();
  std::vector<stats::NameIntervalCounts> merged_names_;  // per name id, zeroed per interval, grown as workers' are
};

net::TlsClientOptions tls_options(const Config& config) {
  net::TlsClientOptions o;
  o.server_name = config.target.host;
  o.verify_peer = config.tls_verify;
  o.ca_file = config.tls_ca_file;
  o.cert_file = config.tls_cert_file;
  o.key_file = config.tls_key_file;
  o.resume_sessions = config.tls_resume;
  o.alpn = proto::alpn_protocols(config.http2);
  return o;
}

// h2c (prior knowledge): a server that speaks only HTTP/1.1 answers the preface in
// HTTP/1.1. Said once, here, rather than as an error per request. The probe
// connection is spent (its preface went out), so it is closed: the workers open their own.
// Where connections go: the host's addresses, or the --unix-socket path.
Result<std::vector<net::Address>> resolve_target(const Config& config) {
  if (config.unix_socket_path.empty()) return net::resolve(config.target.host, config.target.port);
  auto address = net::unix_address(config.unix_socket_path);
  if (!address) return address.error();
  return std::vector<net::Address>{*address};
}

Status check_h2c(const Config& config, UniqueFd& probe_fd) {
  const TimeNs wait_ns = std::min<TimeNs>(config.timeout_ns, 2 * kNsPerS);
  const bool http1 = net::answers_h2_preface_in_http1(probe_fd.get(), wait_ns);
  probe_fd.reset();
  if (!http1) return Ok{};
  return runtime_error(config.target.host + ":" + std::to_string(config.target.port) +
                       ": the server answered in HTTP/1.1, not HTTP/2 (--http2 on http:// speaks HTTP/2 by "
                       "prior knowledge; the server may offer HTTP/2 only over https://, or not at all)");
}

// The earliest TLS failure of any worker, for the report ("" when none).
std::string first_tls_error(const std::vector<std::unique_ptr<Worker>>& workers) {
  const WorkerResult* first = nullptr;
  for (const auto& w : workers) {
    const WorkerResult& r = w->result();
    if (r.tls_first_error_ns >= 0 && (first == nullptr || r.tls_first_error_ns < first->tls_first_error_ns)) first = &r;
  }
  return first == nullptr ? std::string() : std::string(first->tls_first_error.data());
}

// --http3: the start-up check is a QUIC handshake (quic::Module::probe); its connection
// is not adopted, so the result carries the address that answered and no socket.
Result<net::Connected> probe_http3(const Config& config, const std::vector<net::Address>& addresses,
                                   const quic::Module& http3, const quic::TlsConfig& tls) {
  auto answered = http3.probe(addresses, tls, std::min<TimeNs>(config.timeout_ns, 5 * kNsPerS));
  if (!answered) {
    return runtime_error(config.target.host + ":" + std::to_string(config.target.port) + " (HTTP/3 over QUIC): " +
                         answered.error().message);
  }
  net::Connected probe;
  probe.address = *answered;
  return probe;
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
void collect_endpoints(std::vector<std::unique_ptr<Worker>>& workers, const stats::NameTable& names,
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

report::RunReport make_report(const Config& config) {
  report::RunReport r;
  r.url = config.target.url;
  r.method = config.method;
  r.connections = config.connections;
  r.duration_ns = config.duration_given || !config.request_count ? config.duration_ns : 0;
  r.request_count = config.request_count;
  r.timeout_ns = config.timeout_ns;
  r.warmup_ns = config.warmup_ns;
  r.keep_alive = config.keep_alive;
  r.protocol = config.protocol_name();
  r.requests_per_connection = config.requests_per_connection();
  r.print_latency = config.print_latency;
  r.record_timeouts = config.record_timeouts;
  r.load_model = config.load_model;
  r.rate_per_s = config.rate_per_s;
  r.rate_end_per_s = config.rate_end_per_s;
  r.stages = config.stages;
  r.poisson = config.poisson;
  r.seed = config.seed;
  r.deadline_ns = config.deadline_ns;
  // A script may set its own headers and body, so only a -b body is judged.
  r.body_without_content_type = config.body && config.script_path.empty() &&
                                std::none_of(config.headers.begin(), config.headers.end(), [](const Header& h) {
                                  return strcasecmp(h.name.c_str(), "Content-Type") == 0;
                                });
  r.targets_file = !config.targets_path.empty();
  r.targets_count = config.targets.size();
  r.targets_order = targets::targets_order_name(config.targets_order);
  r.unix_socket = config.unix_socket_path;
  r.follow_redirects = config.follow_redirects;
  r.compressed = config.compressed;
  r.slo = config.slo;
  r.max_error_rate = config.max_error_rate;
  r.shard_index = config.shard_index;
  r.shard_count = config.shard_count;
  r.shard_source = config.shard_source;
  // The engine --io picks (checked once per process; run() fails on an impossible --io uring).
  if (const auto io = io::choose_engine(config.io)) {
    r.io_engine = io::engine_name(io->kind);
    r.io_fallback = io->fallback;
  }
  r.spin = config.spin;
  const ShardShare share = shard_share(config);
  r.test_connections = share.test_connections;
  r.test_request_count = share.test_requests;
  return r;
}

Result<report::RunReport> run(const Config& config, const std::atomic<bool>& stop, TimeNs interval_ns,
                              const IntervalSink& sink, const TickSink& tick,
                              script::ScriptHost* script) {
  const auto io = io::choose_engine(config.io);  // --io uring where it cannot run stops here
  if (!io) return io.error();
  // TLS files are checked first: a bad --cacert is the user's to fix (exit 2).
  // --http3 loads its module before (the module reads them with GnuTLS instead
  // of OpenSSL: docs/http3.md).
  const quic::Module* http3 = nullptr;
  std::unique_ptr<quic::TlsConfig> quic_tls;
  if (config.http3) {
    auto module = http3_module();
    if (!module) return module.error();
    http3 = *module;
    auto client = http3->tls(tls_options(config));
    if (!client) return client.error();
    quic_tls = std::move(*client);
  }
  std::optional<net::TlsContext> tls;
  if (config.target.is_tls() && !config.http3) {
    auto context = net::TlsContext::client(tls_options(config));
    if (!context) return context.error();
    tls.emplace(std::move(*context));
  }
  auto addresses = resolve_target(config);
  if (!addresses) return addresses.error();
  auto probe = config.http3 ? probe_http3(config, *addresses, *http3, *quic_tls)
                            : net::first_connectable(*addresses, std::min<TimeNs>(config.timeout_ns, 5 * kNsPerS));
  if (!probe && config.http3) return probe.error();
  if (!probe) {
    const std::string where = config.unix_socket_path.empty()
                                  ? config.target.host + ":" + std::to_string(config.target.port)
                                  : "unix socket " + config.unix_socket_path;
    return runtime_error("cannot connect to " + where + ": " + probe.error().message);
  }
  // https: the probe connection also proves the handshake (and ALPN) before the run.
  net::TlsStream probe_tls;
  TimeNs probe_handshake_ns = 0;
  if (tls) {
    const std::string where = config.target.host + ":" + std::to_string(config.target.port);
    auto handshake = net::handshake_blocking(probe_tls, *tls, probe->fd.get(), std::min<TimeNs>(config.timeout_ns, 5 * kNsPerS));
    if (!handshake) {
      // A server that speaks no protocol we offered ends the handshake with an alert.
      const bool declined_h2 = config.http2 && handshake.error().message.find("no application protocol") != std::string::npos;
      return runtime_error(where + ": " + handshake.error().message +
                           (declined_h2 ? " (" + std::string(proto::alpn_mismatch(true, "")) + ")" : ""));
    }
    if (const std::string_view mismatch = proto::alpn_mismatch(config.http2, probe_tls.alpn()); !mismatch.empty()) {
      return runtime_error(where + ": " + std::string(mismatch));
    }
    probe_handshake_ns = *handshake;
  }
  if (config.http2 && !tls) {
    if (Status h2c = check_h2c(config, probe->fd); !h2c) return h2c.error();
  }

  // Every request's bytes, built once; their names first in the name table. A
  // script names its own requests (its static request's name is added by each
  // worker), so its run has no command-line request name.
  const auto names = std::make_shared<stats::NameTable>(static_cast<std::size_t>(config.max_names));
  stats::NameTable unused_names(1);
  const targets::RequestSet requests(config, script == nullptr ? *names : unused_names);
  // --http3: over the HTTP/2 header lists, one per target.
  const std::unique_ptr<quic::Requests> http3_requests = http3 != nullptr ? http3->requests(requests.http2()) : nullptr;
  SharedRun shared;
  shared.config = &config;
  shared.address = probe->address;
  shared.tls = tls ? &*tls : nullptr;
  shared.requests = &requests;
  shared.http2_request = config.http2 ? &requests.http2()[0] : nullptr;
  shared.http3 = http3;
  shared.http3_requests = http3_requests.get();
  shared.quic_tls = quic_tls.get();
  shared.slots_per_connection = static_cast<std::uint32_t>(config.requests_per_connection());
  shared.stop = &stop;
  shared.io_engine = io->kind;
  shared.names = names.get();
  const std::optional<load::RateProfile> profile = make_profile(config);
  if (profile) shared.profile = &*profile;

  const std::vector<int> shares = connections_per_worker(config.threads, config.connections);
  const auto quotas = split_quota(config, shares.size());
  shared.worker_count = static_cast<int>(shares.size());
  if (script != nullptr) {
    if (Status s = script->setup(shared.worker_count, probe->address); !s) return s.error();
    shared.script = script;
    // setup() may have sent the first worker elsewhere (thread.addr).
    const net::Address& first = script->thread(0).address();
    if (first.length != probe->address.length || std::memcmp(&first.storage, &probe->address.storage, first.length) != 0) {
      probe_tls.close();
      probe->fd.reset();
    }
  }
  shared.interval_ns = sink ? interval_ns : 0;
  std::vector<std::unique_ptr<Worker>> workers;
  for (std::size_t i = 0; i < shares.size(); ++i) {
    workers.push_back(std::make_unique<Worker>(shared, static_cast<int>(i), shares[i], quotas[i]));
    if (Status s = workers.back()->prepare(); !s) return s.error();
  }
  if (config.start_at_unix_ns) {
    // A probe connection idle through a long wait may be closed by the server:
    // drop it and let the worker connect afresh at the start.
    if (!wait_for_wall_clock(*config.start_at_unix_ns, stop)) {
      probe_tls.close();
      probe->fd.reset();
    }
  }
  if (probe->fd.valid()) {
    workers.front()->adopt_first_connection(std::move(probe->fd), probe->connect_ns, std::move(probe_tls),
                                            probe_handshake_ns);
  }

  // The clock starts only after everything is allocated.
  shared.start_ns = monotonic_now_ns();
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);
  shared.start_unix_ns = static_cast<std::int64_t>(wall.tv_sec) * kNsPerS + wall.tv_nsec;
  shared.record_from_ns = shared.start_ns + config.warmup_ns;
  const bool time_bounded = config.duration_given || !config.request_count;
  shared.end_ns = time_bounded ? shared.record_from_ns + config.duration_ns : std::numeric_limits<TimeNs>::max();
  GiveUpWatch give_up(shared.worker_count, shared.start_ns);
  shared.give_up = &give_up;

  std::vector<std::thread> threads;
  threads.reserve(workers.size());
  for (auto& w : workers) threads.push_back(thread_leaving_stop_signals([&w] { w->run(); }));
  if (shared.interval_ns > 0) IntervalCollector(workers, shared, names, shared.profile, sink, tick).run();
  for (auto& t : threads) t.join();
  if (script != nullptr && script->failed()) return runtime_error(script->failure());

  report::RunReport report = make_report(config);
  report.threads = static_cast<int>(workers.size());
  TimeNs finished = shared.record_from_ns;
  for (auto& w : workers) {
    WorkerResult& r = w->result();
    report.counters.merge(r.counters);
    report.latency.merge(r.unsent_latency);
    report.latency_censored.merge(r.latency_censored);
    report.connect.merge(r.connect);
    report.tls_handshake.merge(r.tls_handshake);
    report.service.merge(r.service);
    report.queue_delay.merge(r.queue_delay);
    report.rate_samples.merge(r.rate_samples);
    report.scenario.merge(r.scenario);
    finished = std::max(finished, r.finished_ns);
    if (report.first_error.empty()) report.first_error = r.first_error;
  }
  report.tls_first_error = first_tls_error(workers);
  collect_endpoints(workers, *names, report);
  // Latency and TTFB are recorded under the request's name only: the run's are its
  // names' together (every name a worker recorded under is an endpoint).
  for (const report::EndpointReport& e : report.endpoints) {
    report.latency.merge(e.latency);
    report.ttfb.merge(e.ttfb);
  }
  report.measured_ns = finished - shared.record_from_ns;
  report.start_unix_ns = shared.start_unix_ns;
  if (profile) {
    // The rate asked for over the recorded window (the drain sends nothing new).
    // A time-bounded run lasts the whole profile (the worker waits for -d even
    // when the schedule's last arrival came earlier), so the window is -d unless
    // the run was stopped or ended by -n.
    const TimeNs window = std::min(report.measured_ns, shared.end_ns - shared.record_from_ns);
    const double test_rate = profile->mean_rate_per_s(config.warmup_ns, config.warmup_ns + window);
    report.target_rate_per_s = shard_share(config).rate(test_rate);
  }
  report.interrupted = stop.load();
  if (give_up.gave_up()) {
    report.gave_up = fmt::format("no connection was open for {} (--give-up)",
                                 report::format_duration_short(config.give_up_period_ns()));
  }
  return report;
}

}  // namespace pacer::engine
