// The files drawn from a JSON report: the HTML page (--html,
// `pacer report -o`) and the three CSV files (--csv). Both take the JSON report's
// text, so a run and `pacer report` write the same files from the same data.
// Main thread, at the end of a run or in `pacer report`.
#pragma once

#include <string>
#include <string_view>

#include "core/expected.h"

namespace pacer::html {

// The page's <title>: "pacer: URL" from the report (or "pacer report").
std::string page_title(std::string_view report_json);

// Writes the HTML page to html_path (when not empty) and the CSV files for
// csv_prefix (when not empty), each atomically. Errors name the path.
Status write_report_files(std::string_view report_json, const std::string& html_path, const std::string& csv_prefix);

}  // namespace pacer::html
