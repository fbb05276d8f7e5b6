// The HTML page drawn from a run's report (--html, `pacer report -o`): it embeds
// the JSON report rendered from the typed RunReport, so a run and `pacer report`
// (which reads a file into the same RunReport) write the same page. (The CSV
// files render the typed RunReport too: report/csv.h, report/locust_csv.h.)
// Main thread, at the end of a run or in `pacer report`.
#pragma once

#include <string>
#include <string_view>

#include "core/expected.h"
#include "report/run_report.h"

namespace pacer::html {

// The page's <title>: "pacer: URL".
std::string page_title(const report::RunReport& report);

// Writes the HTML page of report to html_path (when not empty), atomically.
// Errors name the path.
Status write_report_page(const report::RunReport& report, const std::string& html_path);

// Writes the page of a --repeat report (app/repeat.h's JSON) to html_path, atomically.
Status write_repeat_page(std::string_view repeat_json, const std::string& html_path);

}  // namespace pacer::html
