// The evidence options (issue 28, docs/output.md "client" and "server"):
// --client-busy-threshold PCT, --server-pid PID and --server-metrics URL
// (repeatable), --server-metric NAME|REGEX (repeatable), --server-metrics-timeout T,
// --repeat N and --repeat-pause T. Their own option table, scanned with the run
// options. Errors are kBadArgument (exit 2) naming the flag. Main thread.
#pragma once

#include <span>

#include "cli/option_scan.h"
#include "cli/run_option_ids.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::evidence_flags {

// At most this many --repeat runs (each is a whole run; the report keeps them all).
inline constexpr int kMaxRepeat = 100;

// Their rows (spec and apply function); the ids are cli/run_option_ids.h's.
std::span<const RunOptionRow> option_rows();

// Once every option is read: --server-metric needs --server-metrics, --repeat-pause
// needs --repeat, --repeat not with -n-less ... (the checks that need all options).
Status finish(const Config& config);

}  // namespace pacer::cli::evidence_flags
