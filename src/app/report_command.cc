// `pacer report`; see the header. One run: a single file is drawn as it is (every
// field it has, gates and endpoints included); several are merged first, exactly
// as `pacer merge` merges them, and the merge's JSON report is drawn.
#include "app/report_command.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/repeat.h"
#include "core/atomic_file.h"
#include "html/compare.h"
#include "html/html_page.h"
#include "html/report_files.h"
#include "report/csv.h"
#include "report/json.h"
#include "report/json_reader.h"
#include "report/locust_csv.h"
#include "report/merge.h"
#include "stats/name_table.h"

namespace pacer::app {
namespace {

ExitCode fail(const Error& error) {
  std::fprintf(stderr, "pacer report: %s\n", stats::printable_name(error.message).c_str());
  return error.kind == ErrorKind::kRuntime ? ExitCode::kRunFailed : ExitCode::kBadArguments;
}

// A file's text, checked to be a pacer report by the reader pacer merge uses
// (report/json_reader.h: the same size cap, the same histogram checks).
Result<std::string> read_report_text(const std::string& path, std::uint64_t max_bytes, report::RunReport* parsed) {
  auto text = report::read_report_file_text(path, max_bytes);
  if (!text) return text.error();
  auto report = report::read_json_report(*text, path);
  if (!report) return report.error();
  if (parsed != nullptr) *parsed = std::move(*report);
  return text;
}

// A pacer report, or a --repeat report (issue 28, one side of --compare) whose every
// run is one, checked by the same reader.
Result<std::string> read_run_or_repeat(const std::string& path, std::uint64_t max_bytes) {
  auto text = report::read_report_file_text(path, max_bytes);
  if (!text) return text.error();
  const auto doc = nlohmann::json::parse(*text, nullptr, false);
  if (!doc.is_object() || doc.value("schema", std::string()) != "pacer-repeat") {
    return read_report_text(path, max_bytes, nullptr);
  }
  if (!doc.contains("runs") || !doc["runs"].is_array() || doc["runs"].empty()) {
    return bad_input(fmt::format("{}: a --repeat report without runs", path));
  }
  for (std::size_t i = 0; i < doc["runs"].size(); ++i) {
    auto run = report::read_json_report(doc["runs"][i].dump(), fmt::format("{} (run {})", path, i + 1));
    if (!run) return run.error();
  }
  return text;
}

// One side of --compare: a report, a --repeat report, or FILE,FILE,... (single
// runs made apart, for example interleaved with the other side's, so that a machine
// whose speed drifts moves both sides alike): their --repeat report, as if one
// --repeat had made them.
Result<std::string> read_side(const std::string& arg, std::uint64_t max_bytes) {
  if (arg.find(',') == std::string::npos) return read_run_or_repeat(arg, max_bytes);
  std::vector<report::RunReport> runs;
  std::vector<std::string> texts;
  std::size_t from = 0;
  while (from <= arg.size()) {
    const std::size_t comma = std::min(arg.find(',', from), arg.size());
    const std::string path = arg.substr(from, comma - from);
    if (path.empty()) return bad_input(fmt::format("'{}': an empty file name in the list", arg));
    runs.emplace_back();
    auto text = read_report_text(path, max_bytes, &runs.back());
    if (!text) return text.error();
    texts.push_back(std::move(*text));
    from = comma + 1;
  }
  return render_repeat_json(texts, repeat_figures(runs), 0);
}

// The JSON report of the run the files hold: one file's own text (a --repeat
// report's too: the page draws its runs), or the merge's.
Result<std::string> run_json(const cli::ReportOptions& options) {
  if (options.paths.size() == 1) return read_run_or_repeat(options.paths[0], options.max_report_bytes);
  std::vector<report::RunReport> shards(options.paths.size());
  for (std::size_t i = 0; i < options.paths.size(); ++i) {
    auto text = read_report_text(options.paths[i], options.max_report_bytes, &shards[i]);
    if (!text) return text.error();
  }
  report::MergeRules rules;
  rules.force = options.force;
  rules.allow_missing = options.allow_missing;
  rules.start_tolerance_ns = options.start_tolerance_ns;
  auto merged = report::merge_reports(shards, options.paths, rules);
  if (!merged) return merged.error();
  return report::render_json(*merged);
}

ExitCode compare(const cli::ReportOptions& options) {
  auto base = read_side(options.paths[0], options.max_report_bytes);
  if (!base) return fail(base.error());
  auto cand = read_side(options.paths[1], options.max_report_bytes);
  if (!cand) return fail(cand.error());
  auto changes = html::compare_reports(*base, *cand);
  if (!changes) return fail(changes.error());
  std::vector<html::RegressionBound> bounds;
  if (!options.max_regression.empty()) {
    auto parsed = html::parse_regression_bounds(options.max_regression, "--max-regression");
    if (!parsed) return fail(parsed.error());
    bounds = std::move(*parsed);
  }
  const std::vector<html::BoundResult> results = html::check_bounds(*changes, bounds);
  std::fputs(html::render_compare_text(*changes, results, options.paths[0], options.paths[1]).c_str(), stdout);
  std::fflush(stdout);
  if (!options.output_path.empty()) {
    const std::string data =
        html::render_compare_json(*base, *cand, *changes, results, options.paths[0], options.paths[1]);
    const std::string page = html::render_page("pacer: " + options.paths[0] + " vs " + options.paths[1], data);
    if (Status written = write_output_file("-o", options.output_path, page); !written) return fail(written.error());
  }
  std::string broken;
  for (const html::BoundResult& r : results) {
    if (r.counts(options.strict)) broken += fmt::format("{}{} (bound {:g}%)", broken.empty() ? "" : ", ", r.bound.figure, r.bound.limit * 100);
  }
  if (broken.empty()) return ExitCode::kOk;
  // Without --strict only the bounds broken beyond the noise (or where it cannot be told) are here.
  std::fprintf(stderr, "pacer report: regression beyond --max-regression: %s\n", broken.c_str());
  return ExitCode::kGateFailed;
}

}  // namespace

ExitCode run_report_command(const cli::ReportOptions& options) {
  if (options.compare) return compare(options);
  auto json = run_json(options);
  if (!json) return fail(json.error());
  if (Status written = html::write_report_files(*json, options.output_path); !written) return fail(written.error());
  if (options.csv_prefix.empty()) return ExitCode::kOk;
  // The CSV files render the typed report, as a live run's do (a --repeat report is no one run: refused here).
  auto typed = report::read_json_report(*json, options.paths[0]);
  if (!typed) return fail(typed.error());
  const Status written = options.csv_locust
                             ? report::write_locust_csv(*typed, options.csv_prefix, options.csv_full_history)
                             : report::write_csv(*typed, options.csv_prefix);
  return written ? ExitCode::kOk : fail(written.error());
}

}  // namespace pacer::app
