// The evidence options (issue 28, docs/output.md "client" and "server"):
// --client-busy-threshold PCT, --server-pid PID and --server-metrics URL
// (repeatable), --server-metric NAME|REGEX (repeatable), --server-metrics-timeout T,
// --repeat N and --repeat-pause T. Their own option table, scanned with the run
// options. Errors are kBadArgument (exit 2) naming the flag. Main thread.
#pragma once

#include <array>
#include <optional>

#include "cli/option_scan.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::evidence_flags {

enum Option : int {
  kClientBusyThreshold = 8800,  // past the other modules' ids
  kServerPid,
  kServerMetrics,
  kServerMetric,
  kServerMetricsTimeout,
  kRepeat,
  kRepeatPause,
};

inline constexpr std::array<OptionSpec, 7> kOptions{{
    {kClientBusyThreshold, '\0', "client-busy-threshold", true},
    {kServerPid, '\0', "server-pid", true},
    {kServerMetrics, '\0', "server-metrics", true},
    {kServerMetric, '\0', "server-metric", true},
    {kServerMetricsTimeout, '\0', "server-metrics-timeout", true},
    {kRepeat, '\0', "repeat", true},
    {kRepeatPause, '\0', "repeat-pause", true},
}};

// At most this many --repeat runs (each is a whole run; the report keeps them all).
inline constexpr int kMaxRepeat = 100;

// Applies `option` if it is one of these; nullopt if it is not.
std::optional<Status> apply(const ScannedOption& option, Config& config);

// Once every option is read: --server-metric needs --server-metrics, --repeat-pause
// needs --repeat, --repeat not with -n-less ... (the checks that need all options).
Status finish(const Config& config);

}  // namespace pacer::cli::evidence_flags
