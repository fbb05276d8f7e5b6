// --trace N (trace/wire_trace.h) and the per-request log's options (docs/output.md, "Per-request log"):
// --log-requests FILE, --log-format csv|ndjson (default: from FILE's extension,
// .ndjson or .jsonl for NDJSON, else CSV) and --log-sample FRACTION (0 < F <= 1).
// Their own option table, apply and finish functions, scanned with the run's
// (cli/run_options.h). Main thread, at parse time.
#pragma once

#include <span>

#include "cli/option_scan.h"
#include "cli/run_option_ids.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::request_log {

struct Flags {
  bool format_given = false;
  bool sample_given = false;
};

// Their rows (spec and apply function); the ids are cli/run_option_ids.h's.
std::span<const RunOptionRow> option_rows();

// The format from the extension unless given; --log-format and --log-sample need --log-requests.
Status finish(Config& config, const Flags& flags);

}  // namespace pacer::cli::request_log
