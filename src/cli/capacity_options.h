// The capacity search's options (issue 41, docs/capacity.md): --capacity
// OBJECTIVE, --sweep RATES, --step-repeat N, --capacity-precision PCT,
// --capacity-budget T; their own option table, scanned with the run's. finish()
// checks them against the rest (what a series of steps cannot combine with) and
// sets each step's defaults (-d 5s, --warmup 1s unless given). Errors are
// kBadArgument (exit 2) naming the flag. Main thread.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "cli/option_scan.h"
#include "cli/run_option_ids.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::capacity_flags {

inline constexpr int kMaxSweepRates = 100;
inline constexpr int kMaxStepRepeat = 10;
inline constexpr TimeNs kDefaultStepNs = 5 * kNsPerS;
inline constexpr TimeNs kDefaultStepWarmupNs = kNsPerS;

// "100,200,400" or "100:1000:100" (from:to:step, to included when on the grid):
// ascending, distinct, at most kMaxSweepRates.
Result<std::vector<double>> parse_sweep(std::string_view text, std::string_view flag);

// Their rows (spec and apply function); the ids are cli/run_option_ids.h's.
std::span<const RunOptionRow> option_rows();

// Once every option is read, before the load options' own checks: what a search
// cannot be combined with, and the open model each step runs (-R is the start).
Status finish(Config& config, bool stages_given);

}  // namespace pacer::cli::capacity_flags
