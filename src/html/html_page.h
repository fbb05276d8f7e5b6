// The self-contained HTML page of a report: uPlot's and pacer's CSS and JavaScript
// (embedded at build time, html/assets.h) and the data they draw, a JSON report (or a
// comparison of two), in one file that requests nothing from anywhere. The page
// draws everything from the embedded JSON (web/report.js), so `--html` and
// `pacer report` share one data path. Pure; any thread.
#pragma once

#include <string>
#include <string_view>

namespace pacer::html {

// data_json: a JSON report (render_json's text), a "pacer-compare" object
// (html/compare.h), a --repeat report or a capacity search's document (or two:
// html/report_files.h). title goes into <title> (escaped).
std::string render_page(std::string_view title, std::string_view data_json);

// JSON text made safe inside <script type="application/json">: every '<' (which in
// JSON can only be inside a string) becomes \u003c, so no "</script>" or "<!--" in
// a URL or an error reason can end the element early.
std::string json_for_script(std::string_view json);

}  // namespace pacer::html
