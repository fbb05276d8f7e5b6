// The HTML page drawn from a run's report (--html, `pacer report -o`): it embeds
// the JSON report rendered from the typed RunReport, so a run and `pacer report`
// (which reads a file into the same RunReport) write the same page; a --repeat
// report's and a capacity search's pages embed their own JSON documents. (The CSV
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

// Writes the page of a capacity search (issue 41: a "pacer-capacity" JSON document,
// drawn by web/capacity.js) to html_path (when not empty), atomically; titled
// "pacer: capacity of URL". kBadInput when the text is not such a document.
Status write_capacity_page(std::string_view capacity_json, const std::string& html_path);

// Writes the page comparing two capacity searches (`pacer report A B --compare`):
// the "pacer-capacity-compare" document {"schema", "version": 1, "baseline": {"file",
// "doc"}, "candidate": {"file", "doc"}}, each doc the side's JSON as given, the names
// its file names; titled "pacer: A vs B". kBadInput naming the side that is not a
// "pacer-capacity" document.
Status write_capacity_compare_page(std::string_view baseline_json, std::string_view candidate_json,
                                   std::string_view baseline_name, std::string_view candidate_name,
                                   const std::string& html_path);

}  // namespace pacer::html
