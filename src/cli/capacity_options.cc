// The capacity search's options; see capacity_options.h.
#include "cli/capacity_options.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "capacity/objective.h"
#include "cli/load_options.h"
#include "cli/units.h"
#include "cli/run_draft.h"

namespace pacer::cli::capacity_flags {

namespace {

Result<double> parse_percent(const ScannedOption& option, double max_share) {
  std::string v = option.value;
  const bool percent = !v.empty() && v.back() == '%';
  if (percent) v.pop_back();
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  const double share = percent ? x / 100 : x;
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x) || share <= 0 || share > max_share) {
    return bad_argument(fmt::format("{}: expected a share above 0 and at most {:g}% (such as 3% or 0.03), got '{}'",
                                    option.flag, max_share * 100, option.value));
  }
  return share;
}

// Which option asked for a series of steps, for the messages.
std::string mode_flag(const CapacityOptions& c) { return c.search && c.sweep_rates.empty() ? "--capacity" : "--sweep"; }

Status refuse(const CapacityOptions& c, std::string_view what, std::string_view why) {
  return bad_argument(fmt::format("{}: not with {} ({})", mode_flag(c), what, why));
}

}  // namespace

Result<std::vector<double>> parse_sweep(std::string_view text, std::string_view flag) {
  std::vector<double> rates;
  if (text.find(':') != std::string_view::npos) {
    const std::size_t a = text.find(':');
    const std::size_t b = text.find(':', a + 1);
    if (b == std::string_view::npos || text.find(':', b + 1) != std::string_view::npos) {
      return bad_argument(fmt::format("{}: '{}' is not FROM:TO:STEP (e.g. 100:1000:100)", flag, text));
    }
    auto from = parse_rate(text.substr(0, a), flag, false);
    if (!from) return from.error();
    auto to = parse_rate(text.substr(a + 1, b - a - 1), flag, false);
    if (!to) return to.error();
    auto step = parse_rate(text.substr(b + 1), flag, false);
    if (!step) return step.error();
    if (*to < *from) return bad_argument(fmt::format("{}: '{}' ends below where it starts", flag, text));
    const double count = std::floor((*to - *from) / *step + 1e-9) + 1;
    if (count > kMaxSweepRates) {
      return bad_argument(fmt::format("{}: '{}' is {:.0f} rates; at most {}", flag, text, count, kMaxSweepRates));
    }
    for (int i = 0; i < static_cast<int>(count); ++i) rates.push_back(*from + i * *step);
    return rates;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    auto rate = parse_rate(text.substr(start, comma - start), flag, false);
    if (!rate) return rate.error();
    if (!rates.empty() && *rate <= rates.back()) {
      return bad_argument(fmt::format("{}: the rates must ascend, each once ('{}')", flag, text));
    }
    rates.push_back(*rate);
    if (rates.size() > static_cast<std::size_t>(kMaxSweepRates)) {
      return bad_argument(fmt::format("{}: at most {} rates", flag, kMaxSweepRates));
    }
    start = comma + 1;
  }
  return rates;
}

namespace {

Status apply_objective(const ScannedOption& option, RunDraft& draft) {
  auto terms = capacity::parse_objective(option.value, option.flag);
  if (!terms) return terms.error();
  CapacityOptions& c = draft.config.capacity;
  c.search = true;
  c.objective_text = option.value;
  c.objective = std::move(*terms);
  return Ok{};
}

Status apply_step_repeat(const ScannedOption& option, RunDraft& draft) {
  auto n = parse_positive_int(option, "the runs of a step");
  if (!n) return n.error();
  if (*n > kMaxStepRepeat) return bad_argument(fmt::format("{}: at most {}, got {}", option.flag, kMaxStepRepeat, *n));
  draft.config.capacity.step_repeat = *n;
  return Ok{};
}

constexpr std::array<RunOptionRow, 5> kRows{{
    {{opt::kCapacity, '\0', "capacity", true}, &apply_objective},
    {{opt::kSweep, '\0', "sweep", true},
     [](const ScannedOption& o, RunDraft& d) { return store(parse_sweep(o.value, o.flag), d.config.capacity.sweep_rates); }},
    {{opt::kStepRepeat, '\0', "step-repeat", true}, &apply_step_repeat},
    {{opt::kCapacityPrecision, '\0', "capacity-precision", true},
     [](const ScannedOption& o, RunDraft& d) { return store(parse_percent(o, 0.5), d.config.capacity.precision); }},
    {{opt::kCapacityBudget, '\0', "capacity-budget", true},
     [](const ScannedOption& o, RunDraft& d) {
       return store(parse_positive_duration(o, "the search's time budget"), d.config.capacity.budget_ns);
     }},
}};

}  // namespace

std::span<const RunOptionRow> option_rows() { return kRows; }

Status finish(Config& config, bool stages_given) {
  CapacityOptions& c = config.capacity;
  if (!c.enabled()) {
    if (c.step_repeat > 0 || c.precision != CapacityOptions{}.precision || c.budget_ns != CapacityOptions{}.budget_ns) {
      return bad_argument("--step-repeat, --capacity-precision and --capacity-budget need --capacity or --sweep");
    }
    return Ok{};
  }
  if (config.shard_count > 1) return refuse(c, "--shard", "a search needs every step's combined result; run it on one machine");
  if (config.evidence.repeat > 1) return refuse(c, "--repeat", "use --step-repeat N to run each step N times");
  if (config.request_count) return refuse(c, "-n", "each step runs for -d");
  if (stages_given || config.load_model == LoadModel::kRamp || config.load_model == LoadModel::kStages) {
    return refuse(c, "a ramp or --stages", "the search chooses each step's constant rate");
  }
  if (!c.sweep_rates.empty() && config.load_model == LoadModel::kConstant) {
    return refuse(c, "-R", "--sweep gives the rates");
  }
  if (!config.timeseries_path.empty()) return refuse(c, "--timeseries", "each step's series is in the JSON report");
  if (!config.csv_prefix.empty()) return refuse(c, "--csv", "the CSV files are one run's; the JSON report has every step");
  if (!config.request_log.path.empty()) return refuse(c, "--log-requests", "the per-request log is one run's");
  if (!config.hgrm_path.empty()) return refuse(c, "--hdr", "each step's histogram is in the JSON report");
  if (!config.slo.empty() || config.max_error_rate) {
    return refuse(c, "--slo or --max-error-rate", "the objective is the search's gate: --capacity 'p99<=50ms,errors<=1%'");
  }
  if (config.is_scenario() && config.load_model == LoadModel::kClosed && c.sweep_rates.empty()) {
    return bad_argument("--capacity with --scenario: give the start rate in tasks per second with -R (the probe is "
                        "a closed loop of requests)");
  }
  if (capacity::needs_server_samples(c.objective) && config.evidence.server_pids.empty() &&
      config.evidence.server_metrics_urls.empty()) {
    return bad_argument("--capacity: server_cpu needs --server-pid PID or --server-metrics URL to read it from");
  }
  for (double rate : c.sweep_rates) {
    if (rate > kMaxRatePerProcess) {
      return bad_argument(fmt::format("--sweep: rate {:g} is more than pacer can schedule (at most {} requests per "
                                      "second per process)", rate, kMaxRateText));
    }
  }
  if (c.step_repeat == 0) c.step_repeat = c.sweep_rates.empty() ? 3 : 1;
  if (!config.duration_given) config.duration_ns = kDefaultStepNs;
  if (!config.warmup_given) config.warmup_ns = kDefaultStepWarmupNs;
  if (c.budget_ns < config.duration_ns + config.warmup_ns) {
    return bad_argument(fmt::format("--capacity-budget: {:g}s is shorter than one step (-d {:g}s after --warmup {:g}s)",
                                    static_cast<double>(c.budget_ns) / 1e9,
                                    static_cast<double>(config.duration_ns) / 1e9,
                                    static_cast<double>(config.warmup_ns) / 1e9));
  }
  if (c.sweep_rates.empty()) {
    c.start_rate_per_s = config.load_model == LoadModel::kConstant ? config.rate_per_s : 0;
  }
  // Each step is an open-model run; its rate is set when it starts (app/capacity_run.h).
  if (config.load_model == LoadModel::kClosed) {
    config.load_model = LoadModel::kConstant;
    config.rate_per_s = c.sweep_rates.empty() ? 1 : c.sweep_rates.front();
  }
  return Ok{};
}

}  // namespace pacer::cli::capacity_flags
