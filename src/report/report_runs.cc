// A report file's runs; see report_runs.h. The text is parsed once; a run's
// report goes to json_reader's document reader, so its errors are that reader's.
#include "report/report_runs.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/json_reader.h"

namespace pacer::report {

Result<ReportRuns> read_report_runs(std::string_view text, const std::string& source_name) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("schema") || doc["schema"] != "pacer-repeat") {
    // Not valid JSON: read again for the parser's message, with the place.
    auto run = doc.is_discarded() ? read_json_report(text, source_name) : read_json_report_document(doc, source_name);
    if (!run) return run.error();
    ReportRuns out;
    out.runs.push_back(std::move(*run));
    return out;
  }
  if (!doc.contains("runs") || !doc["runs"].is_array() || doc["runs"].empty()) {
    return bad_input(fmt::format("{}: a --repeat report without runs", source_name));
  }
  ReportRuns out;
  out.repeat = true;
  if (doc.contains("repeat_pause_s")) {
    const nlohmann::json& pause = doc["repeat_pause_s"];
    if (!pause.is_number() || !std::isfinite(pause.get<double>()) || pause.get<double>() < 0 ||
        pause.get<double>() > 1e9) {
      return bad_input(fmt::format("{}: repeat_pause_s: expected a number of seconds", source_name));
    }
    out.repeat_pause_ns = static_cast<TimeNs>(std::llround(pause.get<double>() * 1e9));
  }
  for (std::size_t i = 0; i < doc["runs"].size(); ++i) {
    auto run = read_json_report_document(doc["runs"][i], fmt::format("{} (run {})", source_name, i + 1));
    if (!run) return run.error();
    out.runs.push_back(std::move(*run));
  }
  return out;
}

Result<ReportRuns> read_report_runs_file(const std::string& path, std::uint64_t max_bytes) {
  auto text = read_report_file_text(path, max_bytes);
  if (!text) return text.error();
  return read_report_runs(*text, path);
}

}  // namespace pacer::report
