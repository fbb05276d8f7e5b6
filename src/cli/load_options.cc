#include "cli/load_options.h"

#include "cli/io_options.h"
#include "cli/run_draft.h"

#include "core/shard_share.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "cli/units.h"

namespace pacer::cli {

Result<double> parse_rate(std::string_view text, std::string_view flag, bool allow_zero) {
  std::string_view digits = text;
  double multiplier = 1;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'k': case 'K': multiplier = 1e3; break;
      case 'M': multiplier = 1e6; break;
      case 'G': multiplier = 1e9; break;
      default: break;
    }
    if (multiplier != 1) digits.remove_suffix(1);
  }
  const bool well_formed = !digits.empty() && digits.find_first_not_of("0123456789.") == std::string_view::npos &&
                           digits.find('.') == digits.rfind('.') && digits != ".";
  if (!well_formed) {
    return bad_argument(fmt::format("{}: '{}' is not a rate (requests per second, e.g. 2000 or 1.5k)", flag, text));
  }
  const double rate = std::strtod(std::string(digits).c_str(), nullptr) * multiplier;
  if (!std::isfinite(rate) || rate > kMaxRatePerProcess * kMaxShards) {
    return bad_argument(fmt::format("{}: rate {} is more than pacer can schedule (at most {} requests per second "
                                    "per process)", flag, text, kMaxRateText));
  }
  if (rate <= 0 && !allow_zero) {
    return bad_argument(fmt::format("{}: rate must be greater than 0, got {}", flag, text));
  }
  return rate;
}

Status apply_rate_option(std::string_view text, std::string_view flag, Config& config) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    auto rate = parse_rate(text, flag, false);
    if (!rate) return rate.error();
    config.load_model = LoadModel::kConstant;
    config.rate_per_s = *rate;
    return Ok{};
  }
  auto from = parse_rate(text.substr(0, colon), flag, true);
  if (!from) return from.error();
  auto to = parse_rate(text.substr(colon + 1), flag, true);
  if (!to) return to.error();
  if (*from == 0 && *to == 0) return bad_argument(fmt::format("{}: a ramp from 0 to 0 sends nothing", flag));
  config.load_model = LoadModel::kRamp;
  config.rate_per_s = *from;
  config.rate_end_per_s = *to;
  return Ok{};
}

Result<std::vector<RateStage>> parse_stages(std::string_view text, std::string_view flag) {
  std::vector<RateStage> stages;
  TimeNs total_ns = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const std::size_t colon = item.find(':');
    if (item.empty() || colon == std::string_view::npos) {
      return bad_argument(fmt::format("{}: stage '{}' is not DURATION:RATE (e.g. --stages 30s:100,1m:1000,30s:0)",
                                      flag, item));
    }
    auto duration = parse_duration(item.substr(0, colon), flag);
    if (!duration) return duration.error();
    if (*duration <= 0) return bad_argument(fmt::format("{}: stage '{}' has no duration", flag, item));
    if (*duration > std::numeric_limits<TimeNs>::max() - total_ns) {
      return bad_argument(fmt::format("{}: the stages together last too long (at stage '{}')", flag, item));
    }
    total_ns += *duration;
    auto rate = parse_rate(item.substr(colon + 1), flag, true);
    if (!rate) return rate.error();
    stages.push_back(RateStage{*duration, *rate});
    start = comma + 1;
  }
  bool any_rate = false;
  for (const RateStage& s : stages) any_rate = any_rate || s.target_rate_per_s > 0;
  if (!any_rate) return bad_argument(fmt::format("{}: every stage has rate 0, so nothing would be sent", flag));
  return stages;
}

namespace {

// The highest rate of the run's profile: -R, the end of a ramp, or a stage's target.
double peak_rate(const Config& config) {
  double peak = std::max(config.rate_per_s, config.rate_end_per_s);
  for (const RateStage& s : config.stages) peak = std::max(peak, s.target_rate_per_s);
  return peak;
}

}  // namespace

Status check_rate_range(const Config& config) {
  if (!config.is_open_model()) return Ok{};
  // -R is the whole run's rate; with --shard each process takes its share.
  const int shards = std::max(1, config.shard_count);
  if (shard_share(config).rate(peak_rate(config)) <= kMaxRatePerProcess) return Ok{};
  const char* flag = config.load_model == LoadModel::kStages ? "--stages" : "-R";
  return bad_argument(fmt::format(
      "{}: a peak of {:.0f} requests per second is more than pacer can schedule: at most {} per process{} "
      "(split a higher rate over machines with --shard)",
      flag, peak_rate(config), kMaxRateText,
      shards > 1 ? fmt::format(", {:.0f} over {} shards", kMaxRatePerProcess * shards, shards) : ""));
}

Status finish_load_options(Config& config, bool stages_given, bool arrival_given, bool deadline_given) {
  if (stages_given) {
    if (config.load_model != LoadModel::kClosed) {
      return bad_argument("--stages and -R both set the rate; give one of them");
    }
    if (config.duration_given) {
      return bad_argument("--stages sets the duration (the stages' total); leave out -d");
    }
    config.load_model = LoadModel::kStages;
    config.duration_ns = 0;
    for (const RateStage& s : config.stages) config.duration_ns += s.duration_ns;
    config.duration_given = true;
  }
  if (config.request_count && (config.load_model == LoadModel::kRamp || config.load_model == LoadModel::kStages)) {
    return bad_argument("-n cannot be combined with a ramp (-R A:B) or --stages: their rate depends on the duration");
  }
  if (!config.is_open_model()) {
    if (arrival_given) return bad_argument("--arrival needs an open model: give -R or --stages");
    if (deadline_given) return bad_argument("--deadline needs an open model: give -R or --stages");
  }
  return check_rate_range(config);
}

namespace load {
namespace {

Status apply_requests(const ScannedOption& option, RunDraft& draft) {
  auto count = parse_count(option.value, option.flag);
  if (count && *count < 1) {
    return bad_argument(fmt::format("{}: requests must be at least 1, got {}", option.flag, option.value));
  }
  return store(std::move(count), draft.config.request_count);
}

Status apply_arrival(const ScannedOption& option, RunDraft& draft) {
  draft.load.arrival_given = true;
  if (option.value != "uniform" && option.value != "poisson") {
    return bad_argument(fmt::format("{}: arrival must be 'uniform' or 'poisson', got '{}'", option.flag, option.value));
  }
  draft.config.poisson = option.value == "poisson";
  return Ok{};
}

constexpr std::array<RunOptionRow, 14> kRows{{
    {{opt::kThreads, 't', "threads", true},
     [](const ScannedOption& o, RunDraft& d) { return store(parse_positive_int(o, "threads"), d.config.threads); }},
    {{opt::kConnections, 'c', "connections", true},
     [](const ScannedOption& o, RunDraft& d) { return store(parse_positive_int(o, "connections"), d.config.connections); }},
    {{opt::kDuration, 'd', "duration", true},
     [](const ScannedOption& o, RunDraft& d) {
       d.config.duration_given = true;
       return store(parse_positive_duration(o, "duration"), d.config.duration_ns);
     }},
    {{opt::kTimeout, '\0', "timeout", true},
     [](const ScannedOption& o, RunDraft& d) { return store(parse_positive_duration(o, "timeout"), d.config.timeout_ns); }},
    {{opt::kGiveUp, '\0', "give-up", true},
     [](const ScannedOption& o, RunDraft& d) {
       return store(parse_positive_duration(o, "give-up period"), d.config.give_up_ns);
     }},
    {{opt::kWarmup, '\0', "warmup", true},
     [](const ScannedOption& o, RunDraft& d) {
       d.config.warmup_given = true;
       return store(parse_duration(o.value, o.flag), d.config.warmup_ns);
     }},
    {{opt::kRequests, 'n', "requests", true}, &apply_requests},
    {{opt::kRate, 'R', "rate", true},
     [](const ScannedOption& o, RunDraft& d) { return apply_rate_option(o.value, o.flag, d.config); }},
    {{opt::kStages, '\0', "stages", true},
     [](const ScannedOption& o, RunDraft& d) {
       d.load.stages_given = true;
       return store(parse_stages(o.value, o.flag), d.config.stages);
     }},
    {{opt::kArrival, '\0', "arrival", true}, &apply_arrival},
    {{opt::kSeed, '\0', "seed", true},
     [](const ScannedOption& o, RunDraft& d) { return store(parse_count(o.value, o.flag), d.config.seed); }},
    {{opt::kDeadline, '\0', "deadline", true},
     [](const ScannedOption& o, RunDraft& d) {
       d.load.deadline_given = true;
       return store(parse_positive_duration(o, "deadline"), d.config.deadline_ns);
     }},
    {{opt::kIo, '\0', "io", true},
     [](const ScannedOption& o, RunDraft& d) { return store(parse_io(o.value, o.flag), d.config.io); }},
    {{opt::kSpin, '\0', "spin", false},
     [](const ScannedOption&, RunDraft& d) -> Status {
       d.config.spin = true;
       return Ok{};
     }},
}};

}  // namespace

std::span<const RunOptionRow> option_rows() { return kRows; }

}  // namespace load

}  // namespace pacer::cli
