// Writing the HTML page; see report_files.h.
#include "html/report_files.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "html/html_page.h"
#include "report/json.h"
#include "stats/name_table.h"

namespace pacer::html {

namespace {

using json = nlohmann::ordered_json;

// A capacity search's document, parsed (key order kept), or kBadInput naming `name`.
Result<json> parse_capacity(std::string_view text, std::string_view name) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return bad_input(fmt::format("{}: not JSON", name));
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != "pacer-capacity") {
    return bad_input(fmt::format("{}: not a capacity search's document (schema \"pacer-capacity\")", name));
  }
  return doc;
}

}  // namespace

// The URL as the embedded report writes it (printable).
std::string page_title(const report::RunReport& report) { return "pacer: " + stats::printable_name(report.url); }

Status write_report_page(const report::RunReport& report, const std::string& html_path) {
  if (html_path.empty()) return Ok{};
  return write_output_file("--html", html_path, render_page(page_title(report), report::render_json(report)));
}

Status write_repeat_page(std::string_view repeat_json, const std::string& html_path) {
  return write_output_file("--html", html_path, render_page("pacer report", repeat_json));
}

Status write_capacity_page(std::string_view capacity_json, const std::string& html_path) {
  if (html_path.empty()) return Ok{};
  auto doc = parse_capacity(capacity_json, "the capacity report");
  if (!doc) return doc.error();
  const std::string url = (*doc).contains("url") && (*doc)["url"].is_string() ? (*doc)["url"].get<std::string>() : "";
  // The text as given is embedded: the page draws exactly what the search wrote.
  return write_output_file("--html", html_path, render_page("pacer: capacity of " + stats::printable_name(url), capacity_json));
}

Status write_capacity_compare_page(std::string_view baseline_json, std::string_view candidate_json,
                                   std::string_view baseline_name, std::string_view candidate_name,
                                   const std::string& html_path) {
  if (html_path.empty()) return Ok{};
  auto baseline = parse_capacity(baseline_json, baseline_name);
  if (!baseline) return baseline.error();
  auto candidate = parse_capacity(candidate_json, candidate_name);
  if (!candidate) return candidate.error();
  json out = {{"schema", "pacer-capacity-compare"},
              {"version", 1},
              {"baseline", {{"file", stats::printable_name(baseline_name)}, {"doc", std::move(*baseline)}}},
              {"candidate", {{"file", stats::printable_name(candidate_name)}, {"doc", std::move(*candidate)}}}};
  const std::string title =
      fmt::format("pacer: {} vs {}", stats::printable_name(baseline_name), stats::printable_name(candidate_name));
  return write_output_file("-o", html_path, render_page(title, out.dump()));
}

}  // namespace pacer::html
