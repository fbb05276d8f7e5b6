// run(): the start-up (engine/start_up.h), the run's shared plan, one Worker
// thread per share of the connections, the interval collector while they run
// (engine/interval_collector.h), and the report from their results
// (engine/collect.h). Main thread.
#include "engine/run.h"

#include "engine/record/request_log.h"
#include "trace/wire_trace.h"

#include <cstring>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/stop_signals_thread.h"
#include "engine/collect.h"
#include "engine/conn/start_gate.h"
#include "engine/control/load_control.h"
#include "engine/controller.h"
#include "engine/give_up.h"
#include "engine/interval_collector.h"
#include "engine/loop/doorbell.h"
#include "engine/start_up.h"
#include "engine/worker.h"
#include "load/schedule.h"
#include "quic/module.h"
#include "stats/name_table.h"

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

// The open model's rate over the whole run (warm-up first, at the start rate).
// A load shape's run starts at its first step's rate and goes until the shape
// (or -d) ends it; its later steps come through the control.
std::optional<load::RateProfile> make_profile(const Config& config, const LoadControl* control) {
  const bool shaped = control != nullptr && control->shape().has_shape();
  const TimeNs duration = config.duration_bounds_run() ? config.duration_ns : kUnboundedRunNs;
  std::optional<load::RateProfile> profile;
  if (shaped && config.is_open_model()) return load::RateProfile::constant(control->published().target().rate_per_s, duration + config.warmup_ns);
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

// Everything the worker threads read, on the heap: a run that ends without a
// stuck worker's thread (engine/controller.h) leaves it to that thread, which may
// still touch it, and the process ends without freeing it.
struct RunState {
  explicit RunState(StartUp started) : up(std::move(started)) {}
  StartUp up;
  std::shared_ptr<stats::NameTable> names;
  stats::NameTable unused_names{1};
  std::unique_ptr<targets::RequestSet> requests;
  std::unique_ptr<quic::Requests> http3_requests;  // --http3: over the HTTP/2 header lists, one per target
  SharedRun shared;
  std::optional<load::RateProfile> profile;
  std::unique_ptr<GiveUpWatch> give_up;
  std::unique_ptr<StartBarrier> start_barrier;
  std::unique_ptr<RequestLogFile> request_log;  // --log-requests
  std::unique_ptr<trace::TraceBudget> trace;  // --trace N
  std::unique_ptr<DocumentLengths> documents;  // ab's document length per name (record/document.h)
  Doorbell doorbell;  // the controller's wake-up (loop/doorbell.h)
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::thread> threads;
};

// The run's shared plan, before any worker: every request's bytes, built once
// (their names first in the name table; a script names its own requests, and
// its static request's name is added by each worker, so its run has no
// command-line request name), the start-up's address and TLS, the load control's
// parts, --trace and --log-requests, and the open model's rate over the run.
Status share_run(RunState& state, const Config& config, const std::atomic<bool>& stop, const script::ScriptHost* script,
                 const LoadControl* control) {
  StartUp& up = state.up;
  SharedRun& shared = state.shared;
  state.names = std::make_shared<stats::NameTable>(static_cast<std::size_t>(config.max_names));
  state.requests = std::make_unique<targets::RequestSet>(config, script == nullptr ? *state.names : state.unused_names);
  const targets::RequestSet& requests = *state.requests;
  if (up.http3 != nullptr) state.http3_requests = up.http3->requests(requests.http2());
  shared.config = &config;
  shared.options = part_options(config);
  shared.address = up.probe.address;
  if (up.probe.fd.valid()) shared.probe_connect_ns = up.probe.connect_ns;
  shared.route = &up.route;
  shared.tls = up.tls ? &*up.tls : nullptr;
  shared.requests = &requests;
  shared.http2_request = config.http2 ? &requests.http2()[0] : nullptr;
  shared.http3 = up.http3;
  shared.http3_requests = state.http3_requests.get();
  shared.quic_tls = up.quic_tls.get();
  shared.slots_per_connection = static_cast<std::uint32_t>(config.requests_per_connection());
  shared.stop = &stop;
  shared.io_engine = up.io.kind;
  shared.names = state.names.get();
  state.documents = std::make_unique<DocumentLengths>(state.names->id_limit());
  shared.documents = state.documents.get();
  if (control != nullptr) {
    shared.control = &control->published();
    shared.run_end = &control->run_end();
    shared.resets = &control->resets();
    shared.load_log = &control->log();
  }
  shared.doorbell = &state.doorbell;
  if (config.trace_exchanges > 0) {
    state.trace = std::make_unique<trace::TraceBudget>(config.trace_exchanges);
    shared.trace = state.trace.get();
  }
  if (!config.request_log.path.empty()) {
    auto log = RequestLogFile::open(config);
    if (!log) return log.error();
    state.request_log = std::move(*log);
    shared.request_log = state.request_log.get();
  }
  state.profile = make_profile(config, control);
  if (state.profile) shared.profile = &*state.profile;
  return Ok{};
}

// The start-up's probe connection, when the first worker will not take it.
struct ClosedProbe {
  bool closed = false;  // a connection the server saw: counted as opened
  bool was_tls = false;
};

// -s: the script's setup, once per run. It may send the first worker elsewhere
// (thread.addr): the probe connection is then closed unused.
Result<ClosedProbe> set_up_script(RunState& state, script::ScriptHost* script) {
  ClosedProbe probe;
  if (script == nullptr) return probe;
  StartUp& up = state.up;
  if (Status s = script->setup(state.shared.worker_count, up.probe.address); !s) return s.error();
  state.shared.script = script;
  const net::Address& first = script->thread(0).address();
  if (first.length != up.probe.address.length ||
      std::memcmp(&first.storage, &up.probe.address.storage, first.length) != 0) {
    probe.closed = up.probe.fd.valid();
    probe.was_tls = up.probe_tls.active();
    up.probe_tls.close();
    up.probe.fd.reset();
  }
  return probe;
}

// One worker per share of the connections (and of -n), each prepared.
Status make_workers(RunState& state, const Config& config, const std::vector<int>& shares, ClosedProbe probe) {
  const auto quotas = split_quota(config, shares.size());
  for (std::size_t i = 0; i < shares.size(); ++i) {
    state.workers.push_back(std::make_unique<Worker>(state.shared, static_cast<int>(i), shares[i], quotas[i]));
    if (Status s = state.workers.back()->prepare(); !s) return s.error();
  }
  if (probe.closed) state.workers.front()->count_closed_probe(probe.was_tls);
  return Ok{};
}

// --start-at's wait, then the probe connection to the first worker (its first
// connection). A probe idle through a long wait may be closed by the server:
// it is dropped and the worker connects afresh at the start.
void hand_over_probe(RunState& state, const Config& config, const std::atomic<bool>& stop) {
  StartUp& up = state.up;
  Worker& first = *state.workers.front();
  if (config.start_at_unix_ns && !wait_for_wall_clock(*config.start_at_unix_ns, stop) && up.probe.fd.valid()) {
    first.count_closed_probe(up.probe_tls.active());  // the server saw it: "connections opened" too
    up.probe_tls.close();
    up.probe.fd.reset();
  }
  if (up.probe.fd.valid()) {
    first.adopt_first_connection(std::move(up.probe.fd), up.probe.connect_ns, std::move(up.probe_tls),
                                 up.probe_handshake_ns);
  }
}

// The clock starts, only after everything is allocated: the run's times, the
// load control's, the give-up rule's and the workers' start barrier.
void start_clock(RunState& state, const Config& config, LoadControl* control) {
  SharedRun& shared = state.shared;
  shared.start_ns = monotonic_now_ns();
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);
  shared.start_unix_ns = static_cast<std::int64_t>(wall.tv_sec) * kNsPerS + wall.tv_nsec;
  shared.record_from_ns = shared.start_ns + config.warmup_ns;
  // A load shape ends the run itself: -d bounds it only when given.
  shared.end_ns = config.duration_bounds_run() ? shared.record_from_ns + config.duration_ns
                                               : std::numeric_limits<TimeNs>::max();
  // A statistics reset falls on a boundary of the intervals the outputs print
  // (--interval; the engine's own may be finer, for the live view, and divide it).
  if (control != nullptr) {
    control->started(shared.start_ns, shared.record_from_ns, shared.end_ns, shared.interval_ns > 0 ? config.interval_ns : 0);
  }
  state.give_up = std::make_unique<GiveUpWatch>(shared.worker_count, shared.start_ns);
  shared.give_up = state.give_up.get();
  state.start_barrier = std::make_unique<StartBarrier>(shared.worker_count);
  shared.start_barrier = state.start_barrier.get();
}

// A stuck thread cannot be stopped or joined: it runs on with what it reads,
// and the report is the other workers' (the app then ends the process). Those
// finishing their drain get a moment; any still not done is left too. Returns
// how many were left behind.
std::size_t leave_stuck_workers(RunState& state) {
  std::vector<std::unique_ptr<Worker>>& workers = state.workers;
  const TimeNs wait_until = monotonic_now_ns() + kNsPerS;
  const auto all_but_stuck_done = [&] {
    for (std::size_t i = 0; i < workers.size(); ++i) {
      if (!workers[i]->is_done() && !workers[i]->lua_beat().seen().in_lua) return false;
    }
    return true;
  };
  while (monotonic_now_ns() < wait_until && !all_but_stuck_done()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::size_t left_behind = 0;
  for (std::size_t i = workers.size(); i-- > 0;) {
    if (workers[i]->is_done()) continue;
    state.threads[i].detach();
    (void)workers[i].release();
    workers.erase(workers.begin() + static_cast<std::ptrdiff_t>(i));
    state.threads.erase(state.threads.begin() + static_cast<std::ptrdiff_t>(i));
    ++left_behind;
  }
  return left_behind;
}

// After the workers: a script's or a shape's error ends the run as an error;
// --log-requests' file is finished (not with a stuck worker still writing).
Status check_after_workers(RunState& state, const Config& config, const script::ScriptHost* script,
                           const LoadControl* control, bool stuck) {
  if (!stuck && script != nullptr && script->failed()) return runtime_error(script->failure());
  if (control != nullptr) {
    if (const std::string error = control->shape().error(); !error.empty()) {
      return runtime_error(fmt::format("scenario {}: shape: {}", config.scenario_path, error));
    }
  }
  if (state.request_log && !stuck) return state.request_log->finish();
  return Ok{};
}

// The load control's part of the report: its changes, and whether a shape drove the run.
void add_load_changes(report::RunReport& report, const LoadControl& control, const SharedRun& shared) {
  report.load_changes = control.log().changes();
  // A reset the run ended before (a stop, -n) never started the figures again.
  std::erase_if(report.load_changes, [&](const report::LoadChangeReport& c) {
    return c.reset && c.at_s > report.recorded_from_s + 1e-9;
  });
  report.load_shaped = control.shape().has_shape();
  // A shaped open-model run's rate is its shape's (the first step's at the start), not -R's.
  if (report.load_shaped && control.published().is_rate() && shared.profile != nullptr) {
    report.rate_per_s = shared.profile->rate_at(0);
  }
}

}  // namespace

Result<report::RunReport> run(const Config& config, const std::atomic<bool>& stop, TimeNs interval_ns,
                              const IntervalSink& sink, const TickSink& tick,
                              script::ScriptHost* script, LoadControl* control) {
  auto started = start_up(config);
  if (!started) return started.error();
  auto state = std::make_unique<RunState>(std::move(*started));
  SharedRun& shared = state->shared;
  if (Status shared_ok = share_run(*state, config, stop, script, control); !shared_ok) return shared_ok.error();
  const std::vector<int> shares = connections_per_worker(config.threads, config.connections);
  shared.worker_count = static_cast<int>(shares.size());
  auto probe = set_up_script(*state, script);
  if (!probe) return probe.error();
  shared.interval_ns = sink ? interval_ns : 0;
  if (Status made = make_workers(*state, config, shares, *probe); !made) return made.error();
  hand_over_probe(*state, config, stop);
  start_clock(*state, config, control);

  state->threads.reserve(state->workers.size());
  for (auto& w : state->workers) {
    Worker* worker = w.get();
    state->threads.push_back(thread_leaving_stop_signals([worker] { worker->run(); }));
  }
  std::optional<IntervalCollector> collector;
  if (shared.interval_ns > 0) collector.emplace(state->workers, shared, state->names, sink, tick);
  const std::optional<watchdog::StuckWorker> stuck =
      watch_workers(state->workers, shared, collector ? &*collector : nullptr, control);
  const std::size_t left_behind = stuck ? leave_stuck_workers(*state) : 0;
  for (auto& t : state->threads) t.join();
  if (Status checked = check_after_workers(*state, config, script, control, stuck.has_value()); !checked) {
    return checked.error();
  }

  report::RunReport report = collect_report(config, shared, state->workers, stop, *state->give_up);
  if (control != nullptr) add_load_changes(report, *control, shared);
  report.tls_protocol = state->up.negotiated.protocol;
  report.tls_cipher = state->up.negotiated.cipher;
  report.tls_alpn = state->up.negotiated.alpn;
  if (stuck) {
    report.stuck_worker = stuck->message();
    if (left_behind > 1) report.stuck_worker += fmt::format(" ({} workers were left behind)", left_behind);
    report.interrupted = true;
    (void)state.release();  // the stuck thread still reads it
  }
  return report;
}

}  // namespace pacer::engine
