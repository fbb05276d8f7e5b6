// `pacer report`; see the header. Every file is read into typed reports
// (report/json_reader.h, report/report_runs.h), which are drawn as a live run's
// are: one file's run (or a --repeat report's runs); several files are merged
// first, exactly as `pacer merge` merges them, and the merge is drawn.
#include "app/report_command.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <fmt/format.h>

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
#include "report/report_runs.h"
#include "stats/name_table.h"

namespace pacer::app {
namespace {

ExitCode fail(const Error& error) {
  std::fprintf(stderr, "pacer report: %s\n", stats::printable_name(error.message).c_str());
  return error.kind == ErrorKind::kRuntime ? ExitCode::kRunFailed : ExitCode::kBadArguments;
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
  auto read = read_runs(options);
  if (!read) return fail(read.error());
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
