// Writing the HTML page and the CSV files; see report_files.h.
#include "html/report_files.h"

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "html/html_page.h"
#include "report/csv.h"

namespace pacer::html {

std::string page_title(std::string_view report_json) {
  const auto r = nlohmann::json::parse(report_json, nullptr, false);
  if (r.is_object() && r.contains("config") && r["config"].is_object() && r["config"].contains("url") &&
      r["config"]["url"].is_string()) {
    return "pacer: " + r["config"]["url"].get<std::string>();
  }
  return "pacer report";
}

Status write_report_files(std::string_view report_json, const std::string& html_path, const std::string& csv_prefix) {
  if (!html_path.empty()) {
    if (Status written = write_output_file("--html", html_path, render_page(page_title(report_json), report_json)); !written) {
      return written;
    }
  }
  if (csv_prefix.empty()) return Ok{};
  auto csv = report::render_csv(report_json);
  if (!csv) return csv.error();
  const std::pair<std::string, const std::string*> files[] = {
      {report::csv_stats_path(csv_prefix), &csv->stats},
      {report::csv_history_path(csv_prefix), &csv->history},
      {report::csv_failures_path(csv_prefix), &csv->failures},
  };
  for (const auto& [path, body] : files) {
    if (Status written = write_output_file("--csv", path, *body); !written) return written;
  }
  return Ok{};
}

}  // namespace pacer::html
