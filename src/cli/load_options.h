// Parsing of the open-model options: -R N, -R A:B, --stages, --arrival, --seed,
// --deadline, and their checks against the rest of the Config.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "cli/option_scan.h"
#include "cli/run_option_ids.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli {

// The highest rate one process schedules (10M requests per second): far above what
// one machine can send, and low enough that an arrival is never closer than 100 ns to
// the next. Above it a run cannot hold its schedule, so it is refused (exit 2).
inline constexpr double kMaxRatePerProcess = 10e6;
inline constexpr const char* kMaxRateText = "10M";
inline constexpr double kMaxShards = 1e6;  // parse_rate's bound before the shard count is known

// A request rate: a positive decimal with an optional k/M/G suffix ("2000", "1.5k").
// allow_zero admits 0 (a ramp or stage may start or end at 0).
Result<double> parse_rate(std::string_view text, std::string_view flag, bool allow_zero);

// -R: "N" (constant) or "A:B" (linear ramp); fills load_model and the rates.
Status apply_rate_option(std::string_view text, std::string_view flag, Config& config);

// --stages "30s:100,1m:1000,30s:0".
Result<std::vector<RateStage>> parse_stages(std::string_view text, std::string_view flag);

// The open model's peak rate (per process, after --shard's split) is at most
// kMaxRatePerProcess; exit 2 naming the range otherwise.
Status check_rate_range(const Config& config);

// Cross-checks once every option is read: -R with --stages, a ramp or stages with
// -n, -d with --stages (the stages set the duration), --deadline or --arrival
// without an open model. Sets duration_ns from the stages.
Status finish_load_options(Config& config, bool stages_given, bool arrival_given, bool deadline_given);

// The run's load options: threads, connections, duration, -n, the open model's
// rate and arrivals, --deadline, --give-up, the I/O engine. Their own option
// table and apply function, scanned with the run's (cli/run_options.h).
namespace load {

// Which of them were given (finish_load_options words its checks with them).
struct Flags {
  bool stages_given = false;
  bool arrival_given = false;
  bool deadline_given = false;
};

// Their rows (spec and apply function); the ids are cli/run_option_ids.h's.
std::span<const RunOptionRow> option_rows();

}  // namespace load

}  // namespace pacer::cli
