// `pacer report`; see the header. Every file is read into typed reports
// (report/json_reader.h, report/report_runs.h), which are drawn as a live run's
// are: one file's run (or a --repeat report's runs); several files are merged
// first, exactly as `pacer merge` merges them, and the merge is drawn.
#include "app/report_command.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "app/repeat.h"
#include "capacity/result_json.h"
#include "capacity/text.h"
#include "core/atomic_file.h"
#include "html/compare.h"
#include "html/html_page.h"
#include "html/report_files.h"
#include "report/csv.h"
#include "report/json.h"
#include "report/gates.h"
#include "report/json_reader.h"
#include "report/locust_csv.h"
#include "report/merge.h"
#include "report/report_runs.h"
#include "report/text.h"
#include "stats/name_table.h"

namespace pacer::app {
namespace {

ExitCode fail(const Error& error) {
  std::fprintf(stderr, "pacer report: %s\n", stats::printable_name(error.message).c_str());
  return error.kind == ErrorKind::kRuntime ? ExitCode::kRunFailed : ExitCode::kBadArguments;
}

// ---- Capacity searches (issue 41): read into capacity::CapacityResult, printed
// and drawn from it as the search printed and drew it.

// The text of a regular file that is a capacity search's JSON, or nothing (another
// kind of file, or one the run readers will name the fault of). Pipes are left to
// the run readers, which read them once.
std::optional<std::string> capacity_text(const std::string& path, std::uint64_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  auto text = report::read_report_file_text(path, max_bytes);
  if (!text || !capacity::is_capacity_json(*text)) return std::nullopt;
  return std::move(*text);
}

// `pacer report SEARCH.json [-o PAGE]`: the search's text on stdout, its page with -o;
// `pacer report A.json B.json --compare [-o PAGE]`: the two answers side by side and
// the page drawing both curves. Nothing when the files are not capacity searches'.
std::optional<ExitCode> report_capacity(const cli::ReportOptions& options) {
  if (options.paths.size() != (options.compare ? 2u : 1u)) return std::nullopt;
  std::vector<capacity::CapacityResult> searches;
  for (const std::string& path : options.paths) {
    auto text = capacity_text(path, options.max_report_bytes);
    if (!text) break;
    auto read = capacity::read_capacity_json(*text, path);
    if (!read) return fail(read.error());
    searches.push_back(std::move(*read));
  }
  if (searches.empty()) return std::nullopt;
  if (searches.size() != options.paths.size()) {
    return fail(bad_input(fmt::format("--compare: '{}' is a capacity search's report and '{}' is not",
                                      options.paths[0], options.paths[1])));
  }
  if (!options.csv_prefix.empty()) {
    return fail(bad_input(
        fmt::format("--csv: '{}' is a capacity search's report; give one step's run report", options.paths[0])));
  }
  if (!options.max_regression.empty()) {
    return fail(bad_input("--max-regression: not for capacity searches (their answers are brackets; the comparison "
                          "says whether they overlap)"));
  }
  if (!options.compare) {
    std::fputs(capacity::render_text(searches[0]).c_str(), stdout);
    std::fflush(stdout);
    const Status written = html::write_capacity_page(capacity::render_capacity_json(searches[0]), options.output_path);
    return written ? ExitCode::kOk : fail(written.error());
  }
  std::fputs(capacity::render_compare_text(searches[0], searches[1], options.paths[0], options.paths[1]).c_str(), stdout);
  std::fflush(stdout);
  const Status written = html::write_capacity_compare_page(
      capacity::render_capacity_json(searches[0]), capacity::render_capacity_json(searches[1]), options.paths[0],
      options.paths[1], options.output_path);
  return written ? ExitCode::kOk : fail(written.error());
}

// One side of --compare: a report, a --repeat report, or FILE,FILE,... (single
// runs made apart, for example interleaved with the other side's, so that a machine
// whose speed drifts moves both sides alike): their runs, as if one --repeat had
// made them.
Result<std::vector<report::RunReport>> read_side(const std::string& arg, std::uint64_t max_bytes) {
  if (arg.find(',') == std::string::npos) {
    auto file = report::read_report_runs_file(arg, max_bytes);
    if (!file) return file.error();
    return std::move(file->runs);
  }
  std::vector<report::RunReport> runs;
  std::size_t from = 0;
  while (from <= arg.size()) {
    const std::size_t comma = std::min(arg.find(',', from), arg.size());
    const std::string path = arg.substr(from, comma - from);
    if (path.empty()) return bad_input(fmt::format("'{}': an empty file name in the list", arg));
    auto run = report::read_json_report_file(path, max_bytes);
    if (!run) return run.error();
    runs.push_back(std::move(*run));
    from = comma + 1;
  }
  return runs;
}

// What the files hold: one file's runs (a --repeat report's too: the page draws
// its runs), or the merge of several runs' reports (shards).
Result<report::ReportRuns> read_runs(const cli::ReportOptions& options) {
  if (options.paths.size() == 1) return report::read_report_runs_file(options.paths[0], options.max_report_bytes);
  std::vector<report::RunReport> shards;
  for (const std::string& path : options.paths) {
    auto shard = report::read_json_report_file(path, options.max_report_bytes);
    if (!shard) return shard.error();
    shards.push_back(std::move(*shard));
  }
  report::MergeRules rules;
  rules.force = options.force;
  rules.allow_missing = options.allow_missing;
  rules.start_tolerance_ns = options.start_tolerance_ns;
  auto merged = report::merge_reports(shards, options.paths, rules);
  if (!merged) return merged.error();
  report::ReportRuns out;
  out.runs.push_back(std::move(*merged));
  return out;
}

ExitCode compare(const cli::ReportOptions& options) {
  auto base = read_side(options.paths[0], options.max_report_bytes);
  if (!base) return fail(base.error());
  auto cand = read_side(options.paths[1], options.max_report_bytes);
  if (!cand) return fail(cand.error());
  const std::vector<html::FigureChange> changes = html::compare_reports(*base, *cand);
  std::vector<html::RegressionBound> bounds;
  if (!options.max_regression.empty()) {
    auto parsed = html::parse_regression_bounds(options.max_regression, "--max-regression");
    if (!parsed) return fail(parsed.error());
    bounds = std::move(*parsed);
  }
  const std::vector<html::BoundResult> results = html::check_bounds(changes, bounds);
  std::fputs(html::render_compare_text(changes, results, options.paths[0], options.paths[1]).c_str(), stdout);
  std::fflush(stdout);
  if (!options.output_path.empty()) {
    const std::string data =
        html::render_compare_json(*base, *cand, changes, results, options.paths[0], options.paths[1]);
    const std::string page = html::render_page("pacer: " + options.paths[0] + " vs " + options.paths[1], data);
    if (Status written = write_output_file("-o", options.output_path, page); !written) return fail(written.error());
  }
  std::string broken;
  std::string undecided;
  for (const html::BoundResult& r : results) {
    if (r.counts(options.strict)) broken += fmt::format("{}{} (bound {:g}%)", broken.empty() ? "" : ", ", r.bound.figure, r.bound.limit * 100);
    if (r.undecided(options.strict)) {
      undecided += fmt::format("{}{} (bound {:g}%; {})", undecided.empty() ? "" : ", ", r.bound.figure,
                               r.bound.limit * 100, html::settle_words(r.significance));
    }
  }
  if (!broken.empty()) {
    // Without --strict only the bounds broken beyond the noise (or where it cannot be told) are here.
    std::fprintf(stderr, "pacer report: regression beyond --max-regression: %s\n", broken.c_str());
    return ExitCode::kGateFailed;
  }
  if (undecided.empty()) return ExitCode::kOk;
  // A gate that cannot fail is no gate: passed bounds within too much noise are neither.
  std::fprintf(stderr, "pacer report: undecided: beyond --max-regression but within the noise: %s\n",
               undecided.c_str());
  return ExitCode::kUndecided;
}

}  // namespace

ExitCode run_report_command(const cli::ReportOptions& options) {
  if (std::optional<ExitCode> done = report_capacity(options)) return *done;
  if (options.compare) return compare(options);
  auto read = read_runs(options);
  if (!read) return fail(read.error());
  if (options.output_path.empty() && options.csv_prefix.empty()) {  // the text, as the run printed it
    std::string text;
    if (read->repeat) {
      text = render_repeat_text(repeat_figures(read->runs), read->runs.size(), read->repeat_pause_ns);
    } else {
      const report::RunReport& run = read->runs.front();
      text = report::render_header(run) + report::render_text(run);
      for (const std::string& line : report::failed_gates(run)) text += line + "\n";
    }
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
    return ExitCode::kOk;
  }
  if (read->repeat) {  // its page draws its runs; the CSV files are one run's
    if (!options.csv_prefix.empty()) {
      return fail(bad_input(fmt::format("--csv: '{}' is a --repeat report; give one run's report", options.paths[0])));
    }
    const std::string data = render_repeat_json(read->runs, repeat_figures(read->runs), read->repeat_pause_ns);
    if (Status written = html::write_repeat_page(data, options.output_path); !written) return fail(written.error());
    return ExitCode::kOk;
  }
  const report::RunReport& run = read->runs.front();
  if (Status written = html::write_report_page(run, options.output_path); !written) return fail(written.error());
  if (options.csv_prefix.empty()) return ExitCode::kOk;
  const Status written = options.csv_locust ? report::write_locust_csv(run, options.csv_prefix, options.csv_full_history)
                                            : report::write_csv(run, options.csv_prefix);
  return written ? ExitCode::kOk : fail(written.error());
}

}  // namespace pacer::app
