// What a report file given to `pacer report` holds, read into typed reports: a
// run's JSON report ("pacer-report", json_reader.h), or a --repeat report
// ("pacer-repeat", docs/output.md) whose every run is one, each read by the same
// reader. Main thread, setup only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/expected.h"
#include "report/run_report.h"

namespace pacer::report {

struct ReportRuns {
  std::vector<RunReport> runs;  // one for a run's report; a --repeat report's, in order (never empty)
  bool repeat = false;          // a --repeat report
  TimeNs repeat_pause_ns = 0;   // its --repeat-pause
};

// kBadInput naming source_name and the field, as read_json_report's (a run of a
// --repeat report is named "SOURCE (run N)"); never throws.
Result<ReportRuns> read_report_runs(std::string_view text, const std::string& source_name);

// read_report_file_text (json_reader.h), then read_report_runs(text, path).
Result<ReportRuns> read_report_runs_file(const std::string& path, std::uint64_t max_bytes);

}  // namespace pacer::report
