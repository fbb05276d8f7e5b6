// Writing the HTML page and the CSV files; see report_files.h.
#include "html/report_files.h"

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "html/html_page.h"

namespace pacer::html {

std::string page_title(std::string_view report_json) {
  const auto r = nlohmann::json::parse(report_json, nullptr, false);
  if (r.is_object() && r.contains("config") && r["config"].is_object() && r["config"].contains("url") &&
      r["config"]["url"].is_string()) {
    return "pacer: " + r["config"]["url"].get<std::string>();
  }
  return "pacer report";
}

Status write_report_files(std::string_view report_json, const std::string& html_path) {
  if (html_path.empty()) return Ok{};
  return write_output_file("--html", html_path, render_page(page_title(report_json), report_json));
}

}  // namespace pacer::html
