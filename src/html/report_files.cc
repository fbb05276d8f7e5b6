// Writing the HTML page; see report_files.h.
#include "html/report_files.h"

#include "core/atomic_file.h"
#include "html/html_page.h"
#include "report/json.h"
#include "stats/name_table.h"

namespace pacer::html {

// The URL as the embedded report writes it (printable).
std::string page_title(const report::RunReport& report) { return "pacer: " + stats::printable_name(report.url); }

Status write_report_page(const report::RunReport& report, const std::string& html_path) {
  if (html_path.empty()) return Ok{};
  return write_output_file("--html", html_path, render_page(page_title(report), report::render_json(report)));
}

Status write_repeat_page(std::string_view repeat_json, const std::string& html_path) {
  return write_output_file("--html", html_path, render_page("pacer report", repeat_json));
}

}  // namespace pacer::html
