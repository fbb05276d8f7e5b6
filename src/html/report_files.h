// The HTML page drawn from a JSON report (--html, `pacer report -o`): the page
// embeds the report's text, so a run and `pacer report` write the same page.
// (The CSV files render the typed RunReport: report/csv.h, report/locust_csv.h.)
// Main thread, at the end of a run or in `pacer report`.
#pragma once

#include <string>
#include <string_view>

#include "core/expected.h"

namespace pacer::html {

// The page's <title>: "pacer: URL" from the report (or "pacer report").
std::string page_title(std::string_view report_json);

// Writes the HTML page to html_path (when not empty), atomically. Errors name the path.
Status write_report_files(std::string_view report_json, const std::string& html_path);

}  // namespace pacer::html
