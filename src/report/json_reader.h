// Reads a JSON report ("pacer-report", schema version 1) back into a RunReport: the
// inverse of render_json for everything it writes, histograms included (decoded
// losslessly from their HdrHistogram V2 strings). Used by `pacer merge` and
// `pacer report`. Not read back: the gates (--slo, --max-error-rate are not in the
// JSON; their verdicts are, RunReport::gate_failures_read) and --latency.
// Pure apart from read_json_report_file's read; main thread, setup only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "core/expected.h"
#include "report/run_report.h"

namespace pacer::report {

// Every failure (not JSON, another schema or version, a missing or mistyped field,
// a corrupt or truncated histogram) is kBadInput with a message naming
// source_name and the field, e.g. "shard2.json: latency.histogram: <reason>".
// Never throws. "req_per_s" is optional (reports from before it existed).
Result<RunReport> read_json_report(std::string_view text, const std::string& source_name);

// read_json_report of a document already parsed (a --repeat report's run).
Result<RunReport> read_json_report_document(const nlohmann::json& doc, const std::string& source_name);

// The text of the report file at path, at most max_bytes: kBadInput naming the
// file and the system's reason, or the cap (a regular file is measured before it is
// read; a pipe or device once it has passed the cap).
Result<std::string> read_report_file_text(const std::string& path, std::uint64_t max_bytes);

// read_report_file_text, then read_json_report(text, path): the one reader of
// report files, for `pacer report` and `pacer merge` alike.
Result<RunReport> read_json_report_file(const std::string& path, std::uint64_t max_bytes);

}  // namespace pacer::report
