// The capacity search's and the sweep's runs; see capacity_run.h.
#include "app/capacity_run.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "capacity/client_limit.h"
#include "capacity/objective.h"
#include "capacity/result_json.h"
#include "capacity/search.h"
#include "capacity/text.h"
#include "cli/load_options.h"
#include "core/atomic_file.h"
#include "html/report_files.h"
#include "report/units.h"

namespace pacer::app {

namespace {

using capacity::CapacityResult;
using capacity::Step;
using capacity::Verdict;

// Where the search's text goes: stdout, unless stdout carries its JSON.
struct Printer {
  std::FILE* out;
  bool progress;  // stderr is a terminal: say which step runs while it runs
  void text(const std::string& s) const {
    std::fputs(s.c_str(), out);
    std::fflush(out);
  }
  void running(const Step& next, const Config& config) const {
    if (!progress) return;
    std::fprintf(stderr, "pacer: step %d: %s for %s after a %s warm-up...\r", next.index,
                 next.probe ? "closed-loop probe" : capacity::rate_text(next.figures.target_rate_per_s).c_str(),
                 report::format_duration_short(config.duration_ns).c_str(),
                 report::format_duration_short(config.warmup_ns).c_str());
    std::fflush(stderr);
  }
  void done_running() const {
    if (progress) std::fputs("\33[2K\r", stderr);
  }
};

std::optional<double> lowest_service(const std::vector<Step>& steps) {
  std::optional<double> low;
  for (const Step& s : steps) {
    if (s.probe || s.figures.mean_service_ns <= 0) continue;
    if (!low || s.figures.mean_service_ns < *low) low = s.figures.mean_service_ns;
  }
  return low;
}

capacity::SearchSetup setup_of(const Config& config) {
  capacity::SearchSetup s;
  s.step_duration_ns = config.duration_ns;
  s.step_warmup_ns = config.warmup_ns;
  s.precision = config.capacity.precision;
  s.budget_ns = config.capacity.budget_ns;
  s.step_repeat = config.capacity.step_repeat;
  s.poisson = config.poisson;
  s.connections = config.connections;
  s.threads = config.threads;
  s.start_rate_per_s = config.capacity.start_rate_per_s;
  s.start_from = !config.capacity.sweep_rates.empty() ? "sweep" : s.start_rate_per_s > 0 ? "given" : "probe";
  s.server_sampled = !config.evidence.server_pids.empty() || !config.evidence.server_metrics_urls.empty();
  return s;
}

std::string signal_name(int sig) { return sig == SIGTERM ? "SIGTERM" : "Ctrl-C"; }

ExitCode signal_code(int sig) { return sig == SIGTERM ? ExitCode::kSigterm : ExitCode::kSigint; }

// The search's and the sweep's shared loop: runs a step, keeps it, prints its row.
class StepRunner {
 public:
  StepRunner(const Config& config, const RunStep& run_step, const std::function<int()>& received,
             CapacityResult& result, const Printer& printer, const SearchListener& listener)
      : config_(config), run_step_(run_step), received_(received), result_(result), printer_(printer),
        listener_(listener), started_ns_(monotonic_now_ns()) {}

  // Whether another step of the configured length fits the budget.
  bool fits_budget() const {
    const TimeNs step_ns = config_.warmup_ns + config_.duration_ns;
    return monotonic_now_ns() - started_ns_ + step_ns <= config_.capacity.budget_ns;
  }

  // Runs a step at rate (0: the probe); null when it did not end with a report of
  // its own (a signal, a run that failed before measuring).
  const Step* run(double rate) {
    const Config step = step_config(config_, rate);
    Step shown;
    shown.index = static_cast<int>(result_.steps.size()) + 1;
    shown.probe = rate == 0;
    shown.figures.target_rate_per_s = rate;
    printer_.running(shown, step);
    if (listener_.step_started) listener_.step_started(shown.index, rate, result_);
    report::RunReport kept;
    const ExitCode code = run_step_(step, &kept);
    printer_.done_running();
    const bool got = kept.measured_ns > 0 || kept.counters.requests_sent > 0 || kept.counters.responses > 0;
    if (received_() != 0) return nullptr;
    if (!got) {
      failed_ = code == ExitCode::kOk ? ExitCode::kRunFailed : code;
      return nullptr;
    }
    Step judged = judge_step(config_, std::move(kept), lowest_service(result_.steps));
    judged.index = shown.index;
    judged.probe = shown.probe;
    if (judged.probe) judged.verdict = Verdict::kMeasured;
    result_.steps.push_back(std::move(judged));
    capacity::number_repeats(result_.steps);
    printer_.text(capacity::render_row(result_, result_.steps.back()));
    if (listener_.step_done) listener_.step_done(result_);
    return &result_.steps.back();
  }

  TimeNs elapsed_ns() const { return monotonic_now_ns() - started_ns_; }
  ExitCode failed() const { return failed_; }

 private:
  const Config& config_;
  const RunStep& run_step_;
  const std::function<int()>& received_;
  CapacityResult& result_;
  const Printer& printer_;
  const SearchListener& listener_;
  TimeNs started_ns_;
  ExitCode failed_ = ExitCode::kOk;
};

void cut(capacity::Answer& a, const std::function<int()>& received, const Config& config, bool budget) {
  a.cut_short = true;
  a.cut_reason = received() != 0 ? signal_name(received())
                 : budget        ? fmt::format("the time budget ({}, --capacity-budget)",
                                               report::format_duration_short(config.capacity.budget_ns))
                                 : "a step that failed";
}

void run_search(const Config& config, StepRunner& runner, const std::function<int()>& received,
                CapacityResult& result) {
  capacity::Answer& answer = result.answer;
  double start = config.capacity.start_rate_per_s;
  if (start <= 0) {
    if (!runner.fits_budget()) return cut(answer, received, config, true);
    const Step* probe = runner.run(0);
    if (probe == nullptr) return cut(answer, received, config, false);
    if (probe->figures.achieved_rate_per_s <= 0) {
      answer.kind = capacity::AnswerKind::kNoRateHeld;
      answer.broken_by = "the closed-loop probe got no response";
      return;
    }
    start = std::max(1.0, probe->figures.achieved_rate_per_s / 2);
    result.setup.start_rate_per_s = capacity::round_rate(start);
  }
  capacity::SearchSettings settings;
  settings.start_rate_per_s = start;
  settings.precision = config.capacity.precision;
  settings.max_runs = config.capacity.step_repeat;
  settings.max_rate_per_s = cli::kMaxRatePerProcess;
  capacity::Search search(settings);
  while (const std::optional<double> rate = search.next_rate()) {
    if (!runner.fits_budget()) {
      cut(answer, received, config, true);
      break;
    }
    const Step* step = runner.run(*rate);
    if (step == nullptr) {
      cut(answer, received, config, false);
      break;
    }
    search.record({step->verdict, step->near, step->broken_by, step->client_limit});
  }
  answer.holds_at_per_s = search.holds_at();
  answer.breaks_at_per_s = search.breaks_at();
  answer.broken_by = search.broken_by();
  answer.client_limit = search.client_limit();
  switch (search.outcome()) {
    case capacity::Outcome::kFound: answer.kind = capacity::AnswerKind::kFound; break;
    case capacity::Outcome::kClientLimited: answer.kind = capacity::AnswerKind::kClientLimited; break;
    case capacity::Outcome::kNoRateHeld: answer.kind = capacity::AnswerKind::kNoRateHeld; break;
    case capacity::Outcome::kNeverBroke: answer.kind = capacity::AnswerKind::kNeverBroke; break;
    case capacity::Outcome::kSearching:
      answer.kind = !answer.breaks_at_per_s ? capacity::AnswerKind::kNeverBroke
                    : !answer.holds_at_per_s ? capacity::AnswerKind::kNoRateHeld
                                             : capacity::AnswerKind::kFound;
      break;
  }
}

void run_sweep(const Config& config, StepRunner& runner, const std::function<int()>& received,
               CapacityResult& result) {
  capacity::Answer& answer = result.answer;
  answer.kind = capacity::AnswerKind::kSweep;
  for (double rate : config.capacity.sweep_rates) {
    bool all_held = true;
    std::string broken_by;
    for (int run = 0; run < config.capacity.step_repeat; ++run) {
      if (!runner.fits_budget()) return cut(answer, received, config, true);
      const Step* step = runner.run(rate);
      if (step == nullptr) return cut(answer, received, config, false);
      if (step->verdict == Verdict::kClient && answer.client_limit.empty()) answer.client_limit = step->client_limit;
      if (step->verdict != Verdict::kHolds) {
        all_held = false;
        if (broken_by.empty()) broken_by = step->broken_by;
      }
    }
    if (result.terms.empty()) continue;
    if (all_held && !answer.breaks_at_per_s) answer.holds_at_per_s = rate;
    if (!all_held && !answer.breaks_at_per_s) {
      answer.breaks_at_per_s = rate;
      answer.broken_by = broken_by.empty() ? "the client limited it" : broken_by;
    }
  }
}

ExitCode exit_code_of(const CapacityResult& result, const std::function<int()>& received, ExitCode failed) {
  if (received() != 0) return signal_code(received());
  if (failed != ExitCode::kOk) return failed;
  switch (result.answer.kind) {
    case capacity::AnswerKind::kClientLimited: return ExitCode::kRunFailed;
    case capacity::AnswerKind::kNoRateHeld: return result.steps.empty() ? ExitCode::kRunFailed : ExitCode::kGateFailed;
    default: return ExitCode::kOk;
  }
}

}  // namespace

CapacityResult search_asked(const Config& config) {
  CapacityResult result;
  result.sweep = !config.capacity.sweep_rates.empty();
  result.url = config.target.url;
  result.command_line = config.command_line;
  result.objective_text = config.capacity.objective_text;
  result.terms = config.capacity.objective;
  result.setup = setup_of(config);
  return result;
}

Config step_config(const Config& config, double rate_per_s) {
  Config step = config;
  step.capacity = {};
  step.output_path.clear();
  step.html_path.clear();
  step.json_format = false;
  step.keep_series = true;
  // Ten batches per step at least (the verdict's spread is judged batch to batch,
  // capacity/objective.h), each of 100 ms at least.
  step.interval_ns = std::min(config.interval_ns, std::max<TimeNs>(config.duration_ns / 10, 100 * kNsPerMs));
  if (rate_per_s > 0) {
    step.load_model = LoadModel::kConstant;
    step.rate_per_s = rate_per_s;
  } else {
    step.load_model = LoadModel::kClosed;
    step.rate_per_s = 0;
    step.poisson = false;
  }
  return step;
}

Step judge_step(const Config& config, report::RunReport run, std::optional<double> baseline_service_ns) {
  Step s;
  s.figures = capacity::step_figures(run);
  s.client_limit = capacity::client_limit(run, s.figures, baseline_service_ns);
  if (!s.client_limit.empty()) {
    s.verdict = Verdict::kClient;
  } else if (!config.capacity.objective.empty()) {
    const std::vector<capacity::TermReading> readings = capacity::read_terms(config.capacity.objective, run, s.figures);
    s.verdict = capacity::all_hold(readings) ? Verdict::kHolds : Verdict::kBreaks;
    s.near = capacity::any_near(readings);
    s.broken_by = capacity::broken_phrase(readings);
  } else {
    s.verdict = Verdict::kMeasured;
  }
  s.run = std::move(run);
  return s;
}

ExitCode run_capacity(const Config& config, const RunStep& run_step, const std::function<int()>& received,
                      const SearchListener& listener) {
  CapacityResult result = search_asked(config);
  const bool json_on_stdout = config.json_format && config.output_path.empty();
  const Printer printer{json_on_stdout ? stderr : stdout, isatty(STDERR_FILENO) == 1};
  printer.text(capacity::render_intro(result));
  StepRunner runner(config, run_step, received, result, printer, listener);
  if (result.sweep) {
    run_sweep(config, runner, received, result);
  } else {
    run_search(config, runner, received, result);
  }
  result.answer.elapsed_ns = runner.elapsed_ns();
  printer.text(capacity::render_answer(result));
  const std::string json = capacity::render_capacity_json(result);
  if (listener.finished) listener.finished(result, json);
  if (json_on_stdout) {
    std::fputs(json.c_str(), stdout);
    std::fflush(stdout);
  }
  if (!config.output_path.empty()) {
    const std::string body = config.json_format ? json : capacity::render_text(result);
    if (Status written = write_output_file("-o", config.output_path, body); !written) {
      std::fprintf(stderr, "pacer: %s\n", written.error().message.c_str());
      return ExitCode::kRunFailed;
    }
  }
  if (Status page = html::write_capacity_page(json, config.html_path); !page) {
    std::fprintf(stderr, "pacer: %s\n", page.error().message.c_str());
    return ExitCode::kRunFailed;
  }
  return exit_code_of(result, received, runner.failed());
}

}  // namespace pacer::app
