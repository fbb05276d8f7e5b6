// --trace N (trace/wire_trace.h) and the per-request log's options (docs/output.md, "Per-request log"):
// --log-requests FILE, --log-format csv|ndjson (default: from FILE's extension,
// .ndjson or .jsonl for NDJSON, else CSV) and --log-sample FRACTION (0 < F <= 1).
// Their own option table, apply and finish functions, scanned with the run's
// (cli.cc). Main thread, at parse time.
#pragma once

#include <array>
#include <optional>

#include "cli/option_scan.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::request_log {

enum Option : int {
  kLogRequests = 7800,  // past the cookie options' ids
  kLogFormat,
  kLogSample,
  kTrace,
};

inline constexpr std::array<OptionSpec, 4> kOptions{{
    {kTrace, '\0', "trace", true},
    {kLogRequests, '\0', "log-requests", true},
    {kLogFormat, '\0', "log-format", true},
    {kLogSample, '\0', "log-sample", true},
}};

struct Flags {
  bool format_given = false;
  bool sample_given = false;
};

// Applies `option` if it is one of these; nullopt if it is not.
std::optional<Status> apply(const ScannedOption& option, Config& config, Flags& flags);

// The format from the extension unless given; --log-format and --log-sample need --log-requests.
Status finish(Config& config, const Flags& flags);

}  // namespace pacer::cli::request_log
