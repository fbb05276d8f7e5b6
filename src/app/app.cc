#include "app/app.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <optional>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/capacity_run.h"
#include "app/capacity_web.h"
#include "app/live_output.h"
#include "app/load_steering.h"
#include "app/prometheus_output.h"
#include "app/repeat.h"
#include "app/report_command.h"
#include "app/run_description.h"
#include "app/signals.h"
#include "app/version_report.h"
#include "cli/cli.h"
#include "cli/units.h"
#include "core/exit_code.h"
#include "engine/run.h"
#include "io/select.h"
#include "core/atomic_file.h"
#include "html/report_files.h"
#include "report/locust_csv.h"
#include "scenario/test_hooks.h"
#include "scenario/scenario_load.h"
#include "report/csv.h"
#include "report/endpoints.h"
#include "report/gates.h"
#include "report/hgrm.h"
#include "report/json.h"
#include "report/json_reader.h"
#include "report/merge.h"
#include "report/text.h"
#include "net/self_signed.h"
#include "script/script_host.h"
#include "server/server.h"
#include "stats/name_table.h"
#include "watchdog/lua_watch.h"
#include "web/live_view.h"

namespace pacer::app {

namespace {

std::int64_t now_unix_ns() {
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);
  return static_cast<std::int64_t>(wall.tv_sec) * kNsPerS + wall.tv_nsec;
}

ExitCode exit_code_for(const Error& error) {
  return error.kind == ErrorKind::kRuntime ? ExitCode::kRunFailed : ExitCode::kBadArguments;
}

ExitCode fail(const Error& error) {
  // A message may quote a target, -m, a server's or a script's text: never a raw
  // control character (an ESC, a CR, a NUL that would cut it short): one line.
  std::fprintf(stderr, "pacer: %s\n", stats::printable_name(error.message).c_str());
  return exit_code_for(error);
}

// The exit code of a run a signal stopped (DESIGN.md section 2).
ExitCode stopped_code(const StopSignals& signals) {
  return signals.received() == SIGTERM ? ExitCode::kSigterm : ExitCode::kSigint;
}

// An error once a Ctrl-C or SIGTERM came (an output that waited for its FIFO's
// reader, say): said on stderr, but the exit code is the signal's.
ExitCode fail_unless_stopped(const Error& error, const StopSignals& signals) {
  const ExitCode code = fail(error);
  return signals.received() == 0 ? code : stopped_code(signals);
}

// The JSON report, rendered once for every copy of it (--web, stdout, -o, --html, --csv).
class RenderedJson {
 public:
  explicit RenderedJson(const report::RunReport& report) : report_(report) {}
  const std::string& text() {
    if (!text_) text_ = report::render_json(report_);
    return *text_;
  }

 private:
  const report::RunReport& report_;
  std::optional<std::string> text_;
};

// The report's files: -o, --hgrm, and --html and --csv (drawn from the report, as
// `pacer report` draws them).
Status write_report_outputs(const Config& config, const report::RunReport& result, RenderedJson& json) {
  if (!config.output_path.empty()) {
    const std::string body = config.json_format ? json.text()
                                                : report::render_header(result) + report::render_text(result);
    if (Status written = write_output_file("-o", config.output_path, body); !written) return written;
  }
  if (!config.hgrm_path.empty()) {
    const std::string hgrm = report::render_hgrm(result.latency, 1e6);  // ns -> ms, as wrk2 prints
    if (Status written = write_output_file("--hdr", config.hgrm_path, hgrm); !written) return written;
  }
  if (!config.html_path.empty()) {
    if (Status written = html::write_report_page(result, config.html_path); !written) return written;
  }
  if (config.csv_prefix.empty()) return Ok{};
  return config.csv_locust ? report::write_locust_csv(result, config.csv_prefix, config.csv_full_history)
                           : report::write_csv(result, config.csv_prefix);
}

// Where a run's report goes besides its own outputs: --repeat's and the capacity
// search's copy of it, and what they print themselves.
struct RunSinks {
  report::RunReport* keep = nullptr;  // a copy of the report (null: none)
  bool text_to_stderr = false;        // stdout is --repeat's or the search's JSON
  bool quiet = false;                 // a capacity step: no header, report or progress of its own
};

// What a run loads before any output. A script that does not load (syntax
// error, unreadable), --io uring where io_uring cannot run, or a scenario that
// does not check (exit 2) stops here; the scenario's on_test_start runs here,
// before any connection. The load may change while the run goes (a load shape,
// asked for its first step now; the web view's POST /users and /rate): config
// learns whether a shape drives it, and the web view's report so far starts
// again with the run as it now is.
struct RunInputs {
  std::unique_ptr<script::ScriptHost> script;
  std::unique_ptr<scenario::TestHooks> test_hooks;
  std::unique_ptr<engine::LoadControl> control;
};

Result<RunInputs> load_run_inputs(Config& config, web::LiveView* web_view) {
  RunInputs in;
  if (!config.script_path.empty()) {
    auto loaded = script::ScriptHost::load(config);
    if (!loaded) return loaded.error();
    in.script = std::move(*loaded);
  }
  if (const auto io = io::choose_engine(config.io); !io) return io.error();
  if (config.is_scenario()) {
    auto hooks = scenario::TestHooks::start(config);
    if (!hooks) return hooks.error();
    in.test_hooks = std::move(*hooks);
  }
  in.control = make_load_control(config, in.test_hooks.get());
  if (in.control) {
    if (Status first = in.control->first_step(); !first) return first.error();
    config.load_shaped = in.control->shape().has_shape();
    if (config.load_shaped && web_view != nullptr) web_view->begin_run(config);
  }
  return in;
}

// The notes on stderr, then the report's header (with the load the run starts
// with) on report_out when the text report is what gets read there.
void print_start(const Config& config, const engine::LoadControl* control, std::FILE* report_out, bool text_report) {
  report::RunReport header = header_fields(config);
  if (control != nullptr) {
    const engine::PublishedTarget& load = control->published();
    header.load_shaped = control->shape().has_shape();
    if (load.kind() == engine::LoadKind::kUsers) header.users_at_start = load.users();
    if (load.is_rate() && header.load_shaped) header.rate_per_s = load.target().rate_per_s;
  }
  std::vector<std::string> notes = config.proxy_notes;
  notes.push_back(unsynchronised_start_note(config));
  for (const std::string& note : notes) {
    if (!note.empty()) std::fprintf(stderr, "pacer: note: %s\n", stats::printable_name(note).c_str());
  }
  if (text_report) {
    std::fputs(report::render_header(header).c_str(), report_out);
    std::fflush(report_out);
  }
}

// --timeseries' stream: stdout ("-"), a file of its own, or none.
struct SeriesOutput {
  bool on_stdout = false;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file{nullptr, &std::fclose};
  std::FILE* stream = nullptr;
};

// Opens --timeseries' file, if any; returns the exit code when it cannot.
std::optional<ExitCode> open_series(const Config& config, const StopSignals& signals, SeriesOutput& out) {
  out.on_stdout = config.timeseries_path == "-";
  if (out.on_stdout) out.stream = stdout;
  if (config.timeseries_path.empty() || out.on_stdout) return std::nullopt;
  auto opened = open_streamed_output(config.timeseries_path);
  if (!opened) return fail_unless_stopped(runtime_error("--timeseries: " + opened.error().message), signals);
  out.file.reset(::fdopen(opened->get(), "w"));
  if (!out.file) {
    return fail(runtime_error("--timeseries: cannot write '" + config.timeseries_path + "': " + std::strerror(errno)));
  }
  (void)opened->release();  // the FILE owns it now
  out.stream = out.file.get();
  return std::nullopt;
}

// Who else is told of each --interval (either may be null): the live web view,
// with its NDJSON line, and --web's /metrics or --prometheus-remote-write (issue 29).
struct IntervalOutputs {
  web::LiveView* web = nullptr;
  PrometheusOutput* prometheus = nullptr;

  void operator()(const report::IntervalReport& interval, const std::string& line) const {
    if (web != nullptr) web->on_interval(interval, line);
    if (prometheus != nullptr) prometheus->on_interval(interval);
  }
  IntervalListener listener() const {
    if (web == nullptr && prometheus == nullptr) return nullptr;
    return *this;
  }
};

// The report, completed before any copy of it is rendered (the web view's too).
void complete_report(report::RunReport& result, const Config& config, LiveOutput& live, evidence::Watch& watch,
                     PrometheusOutput* prometheus, const StopSignals& signals) {
  report::settle_endpoints(result);           // names nobody requested, censored samples
  result.command_line = config.command_line;  // the HTML report's header
  result.timeseries = live.take_series();     // --timeseries, --html, --csv
  watch.finish(result.evidence);              // the client's and the server's side, the verdicts
  if (prometheus != nullptr) result.remote_write = prometheus->finish(result, &signals.flag());  // the final push
  if (result.remote_write && result.remote_write->incomplete()) {  // also on stderr: JSON may take stdout
    const std::string line = report::render_remote_write_line(*result.remote_write);
    std::fprintf(stderr, "pacer: warning: %s", line.c_str() + line.find_first_not_of(' '));
  }
}

// The exit code once the report is out: a script's done() (os.exit(n) in it
// decides), a stuck worker (the process ends now, its outputs written), a
// signal, a run that gave up or where nothing succeeded, a failed gate.
ExitCode exit_code_after(const report::RunReport& result, script::ScriptHost* script, const StopSignals& signals,
                         bool gates_failed) {
  if (script != nullptr) {
    auto done = script->done(result);  // prints after the report
    std::fflush(nullptr);
    if (!done) return fail(done.error());
    if (*done) return static_cast<ExitCode>(**done);
  }
  if (!result.stuck_worker.empty()) {
    // Its thread cannot be joined.
    std::fprintf(stderr, "pacer: %s\n", stats::printable_name(result.stuck_worker).c_str());
    const ExitCode code = signals.received() == 0 ? ExitCode::kRunFailed : stopped_code(signals);
    watchdog::exit_leaving_stuck_threads(to_int(code));
  }
  if (signals.received() != 0) return stopped_code(signals);
  if (!result.gave_up.empty()) {
    std::fprintf(stderr, "pacer: gave up: %s\n", stats::printable_name(result.gave_up).c_str());
    return ExitCode::kRunFailed;
  }
  if (report::no_request_succeeded(result)) return ExitCode::kRunFailed;
  if (gates_failed) return ExitCode::kGateFailed;
  return ExitCode::kOk;
}

// Runs the load described by config and prints wrk's report (or writes the
// report where --format/-o send it). With --web, tells web_view (may be null) of
// each interval and of the final report.
ExitCode run_and_report_to(const Config& asked, StopSignals& signals, web::LiveView* web_view,
                           const RunSinks& sinks = {}) {
  // The scenario's load shape, once loaded, is part of what the run is (its end is the shape's).
  Config config = asked;
  auto inputs = load_run_inputs(config, web_view);
  if (!inputs) return fail(inputs.error());
  engine::LoadControl* control = inputs->control.get();
  // The time series may take stdout; the final report then goes to stderr.
  std::FILE* report_out = config.timeseries_path == "-" || sinks.text_to_stderr ? stderr : stdout;
  // JSON on its stream must be nothing but JSON; otherwise people get wrk's text.
  const bool text_report = !sinks.quiet && (!config.json_format || !config.output_path.empty());
  print_start(config, control, report_out, text_report);
  SeriesOutput series;
  if (const auto failed = open_series(config, signals, series)) return *failed;
  // The live view only where the text report will be read: stdout, a terminal.
  ui::DisplayChoice display = ui::choose_display(isatty(STDOUT_FILENO) == 1, config.plain, !config.stdout_is_data(),
                                                 ui::TerminalEnv::from_process());
  if (sinks.quiet) display = ui::DisplayChoice{.silent = true};
  const std::unique_ptr<PrometheusOutput> prometheus = PrometheusOutput::start(config, web_view);
  // The client's health and the server's side, sampled at each --interval (issue 28);
  // it outlives the live output, which samples through it until finish().
  evidence::Watch watch(config.evidence, config.unix_socket_path.empty() ? config.target.port : 0, config.interval_ns,
                        config.is_open_model(), config.spin, config.is_scenario());
  LiveOutput live(config, display, series.stream, IntervalOutputs{web_view, prometheus.get()}.listener());
  const LentSteering lent(web_view, control);
  live.set_watch(&watch);
  auto result = engine::run(config, signals.flag(), live.engine_interval_ns(), live.interval_sink(), live.tick_sink(),
                            inputs->script.get(), control);
  live.finish();  // the terminal is back before anything else is printed
  if (inputs->test_hooks) {
    if (Status stopped = inputs->test_hooks->stop(result ? &result->scenario : nullptr); !stopped) {
      std::fprintf(stderr, "pacer: %s\n", stopped.error().message.c_str());
    }
  }
  if (result) complete_report(*result, config, live, watch, prometheus.get(), signals);
  if (!result) {
    if (web_view != nullptr) web_view->finish(web::failure_json(result.error()));
    return fail_unless_stopped(result.error(), signals);
  }
  RenderedJson json(*result);
  if (web_view != nullptr) web_view->finish(json.text());
  if (sinks.keep != nullptr) *sinks.keep = *result;  // --repeat, the capacity search
  const std::vector<std::string> gates = report::failed_gates(*result);
  if (text_report) {
    std::fputs(report::render_text(*result).c_str(), report_out);
    for (const std::string& line : gates) std::fprintf(report_out, "%s\n", line.c_str());
  } else if (!sinks.quiet) {
    std::fputs(json.text().c_str(), report_out);
  }
  std::fflush(report_out);
  if (Status written = write_report_outputs(config, *result, json); !written) {
    return fail_unless_stopped(written.error(), signals);
  }
  if (const int err = live.series_write_errno(); err != 0 || (series.file && std::fclose(series.file.release()) != 0)) {
    const std::string where = series.on_stdout ? "stdout" : "'" + config.timeseries_path + "'";
    return fail_unless_stopped(
        runtime_error("--timeseries: cannot write " + where + ": " + std::strerror(err != 0 ? err : errno)), signals);
  }
  return exit_code_after(*result, inputs->script.get(), signals, !gates.empty());
}

// The run, with the live web view around it when --web is on: bound before the
// run (an address in use is exit 2 before anything is printed), kept for
// --web-linger after it. The files and the exit code are the run's.
ExitCode run_and_report(const Config& config) {
  StopSignals signals;  // before the web view: its Stop may come at once
  if (config.evidence.repeat > 1) {  // --repeat N (app/repeat.h); --web is refused with it
    const bool json_on_stdout = config.stdout_is_data();
    return run_repeated(
        config,
        [&](const Config& each, report::RunReport* keep) {
          return run_and_report_to(each, signals, nullptr, RunSinks{keep, json_on_stdout, false});
        },
        [&] { return signals.received() != 0; });
  }
  if (config.capacity.enabled()) {  // --capacity, --sweep (app/capacity_run.h), with --web one page for all steps
    const auto run_step = [&](const Config& step, report::RunReport* keep, web::LiveView* view) {
      return run_and_report_to(step, signals, view, RunSinks{keep, true, true});
    };
    if (config.web.enabled) return run_capacity_on_web(config, signals, run_step);
    return run_capacity(
        config, [&](const Config& step, report::RunReport* keep) { return run_step(step, keep, nullptr); },
        [&] { return signals.received(); });
  }
  if (!config.web.enabled) return run_and_report_to(config, signals, nullptr);
  auto web_view = web::LiveView::start(config, &StopSignals::request_stop);
  if (!web_view) return fail(web_view.error());
  const ExitCode code = run_and_report_to(config, signals, web_view->get());
  signals.rearm();  // a Ctrl-C or Stop now ends the linger
  (*web_view)->linger(config.web.linger_ns, signals.flag());
  (*web_view)->close();
  return code;
}

ExitCode run_demo(Config config) {
  server::ServeConfig serve;
  serve.listen_host = "127.0.0.1";
  serve.listen_port = 0;
  serve.threads = 1;
  auto srv = server::Server::start(serve);
  if (!srv) return fail(srv.error());
  auto target = cli::parse_url(fmt::format("http://127.0.0.1:{}/", (*srv)->port()));
  if (!target) return fail(target.error());
  config.target = *target;
  std::printf("pacer demo: built-in target listening on %s (pacer serve, in-process)\n\n", config.target.url.c_str());
  const ExitCode code = run_and_report(config);
  std::printf("\nThe server answered %llu requests on %llu connections.\n",
              static_cast<unsigned long long>((*srv)->requests_answered()),
              static_cast<unsigned long long>((*srv)->connections_accepted()));
  (*srv)->stop();
  return code;
}

// What the text report says prominently, on stderr when stdout carries JSON.
void warn_about_merge(const report::MergeInfo& m) {
  if (!m.missing_shards.empty()) {
    std::string list;
    for (int i : m.missing_shards) list += (list.empty() ? "" : ", ") + std::to_string(i);
    std::fprintf(stderr,
                 "pacer merge: warning: shards missing: %s (--allow-missing); the report covers the others only\n",
                 list.c_str());
  }
  if (m.starts_differ()) {
    std::fprintf(stderr,
                 "pacer merge: warning: the shards started %.3fs apart (%s first, %s last), more than the %.3fs "
                 "tolerance (--start-tolerance): their combined rate is not the test's\n",
                 static_cast<double>(m.start_spread_ns) / 1e9, m.earliest_start_file.c_str(),
                 m.latest_start_file.c_str(), static_cast<double>(m.start_tolerance_ns) / 1e9);
  }
}

// `pacer merge`: reads every shard's JSON report, merges them and prints the result
// like a run's report (text to stdout unless --format json without -o). Gates
// are not checked: --slo and --max-error-rate are not in the JSON.
ExitCode run_merge(const cli::MergeOptions& options) {
  std::vector<report::RunReport> shards;
  shards.reserve(options.paths.size());
  for (const std::string& path : options.paths) {
    auto shard = report::read_json_report_file(path, options.max_report_bytes);
    if (!shard) return fail(shard.error());
    shards.push_back(std::move(*shard));
  }
  report::MergeRules rules;
  rules.force = options.force;
  rules.allow_missing = options.allow_missing;
  rules.start_tolerance_ns = options.start_tolerance_ns;
  auto merged = report::merge_reports(shards, options.paths, rules);
  if (!merged) return fail(merged.error());
  merged->print_latency = options.print_latency;
  const std::string text = report::render_header(*merged) + report::render_text(*merged);
  const bool text_on_stdout = !options.json_format || !options.output_path.empty();
  if (!text_on_stdout) warn_about_merge(*merged->merge);
  std::fputs(text_on_stdout ? text.c_str() : report::render_json(*merged).c_str(), stdout);
  std::fflush(stdout);
  if (!options.output_path.empty()) {
    const std::string body = options.json_format ? report::render_json(*merged) : text;
    if (Status written = write_output_file("-o", options.output_path, body); !written) return fail(written.error());
  }
  return report::no_request_succeeded(*merged) ? ExitCode::kRunFailed : ExitCode::kOk;
}

// `pacer cert`: a throwaway self-signed pair for `pacer serve --tls` and tests.
ExitCode run_cert(const cli::CertOptions& options) {
  auto pair = net::make_self_signed(options.hosts, options.valid_days);
  if (!pair) return fail(pair.error());
  if (Status written = net::write_pem_pair(*pair, options.out_dir); !written) return fail(written.error());
  std::string names;
  for (const std::string& host : options.hosts) names += (names.empty() ? "" : ", ") + host;
  std::printf("pacer cert: wrote %s/cert.pem and %s/key.pem (self-signed, for %s; valid %d days)\n",
              options.out_dir.c_str(), options.out_dir.c_str(), names.c_str(), options.valid_days);
  return ExitCode::kOk;
}

// --check-args: the files a run loads before its first connection (-s, --scenario)
// load as the run would load them, so a missing or broken one is exit 2 here too.
Status check_run_inputs(const Config& config) {
  if (!config.script_path.empty()) {
    auto loaded = script::ScriptHost::load(config);
    if (!loaded) return loaded.error();
  }
  return config.is_scenario() ? scenario::check_scenario(config) : Status(Ok{});
}

}  // namespace

int main_entry(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto parsed = cli::parse(args, STDIN_FILENO);
  if (!parsed) return to_int(fail(parsed.error()));
  cli::Invocation& inv = *parsed;
  switch (inv.command) {
    case cli::Command::kHelp:
      std::fputs(inv.help_text.c_str(), stdout);
      return to_int(ExitCode::kOk);
    case cli::Command::kVersion:
      std::fputs(version_text().c_str(), stdout);
      return to_int(ExitCode::kOk);
    case cli::Command::kServe:
      return server::run_serve(inv.serve);
    case cli::Command::kDemo:
      return to_int(run_demo(inv.run));
    case cli::Command::kRun:
      return to_int(run_and_report(inv.run));
    case cli::Command::kCheckArgs:
      if (Status inputs = check_run_inputs(inv.run); !inputs) return to_int(fail(inputs.error()));
      std::fputs(describe_run(inv.run, now_unix_ns()).c_str(), stdout);
      return to_int(ExitCode::kOk);
    case cli::Command::kMerge:
      return to_int(run_merge(inv.merge));
    case cli::Command::kCert:
      return to_int(run_cert(inv.cert));
    case cli::Command::kReport:
      return to_int(run_report_command(inv.report));
  }
  return to_int(ExitCode::kRunFailed);
}

}  // namespace pacer::app
