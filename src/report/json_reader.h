// Reads a JSON report ("pacer-report", schema version 1) back into a RunReport: the
// inverse of render_json for everything it writes, histograms included (decoded
// losslessly from their HdrHistogram V2 strings). Used by `pacer merge`. Not read
// back: the gates (--slo, --max-error-rate are not in the JSON) and --latency.
// Pure apart from read_json_report_file's read; main thread, setup only.
#pragma once

#include <string>
#include <string_view>

#include "core/expected.h"
#include "report/run_report.h"

namespace pacer::report {

// Every failure (not JSON, another schema or version, a missing or mistyped field,
// a corrupt or truncated histogram) is kBadInput with a message naming
// source_name and the field, e.g. "shard2.json: latency.histogram: <reason>".
// Never throws. "req_per_s" is optional (reports from before it existed).
Result<RunReport> read_json_report(std::string_view text, const std::string& source_name);

// Reads the file at path, then read_json_report(text, path); an unreadable file
// is kBadInput naming it and the system's reason.
Result<RunReport> read_json_report_file(const std::string& path);

}  // namespace pacer::report
