// `pacer report` options; see the header. Drawing is app/report_command.cc.
#include "cli/report_options.h"

#include <array>

#include <fmt/format.h>

#include "cli/merge_options.h"
#include "cli/option_scan.h"
#include "cli/units.h"
#include "core/atomic_file.h"
#include "html/compare.h"
#include "report/csv.h"

namespace pacer::cli {
namespace {

enum ReportOption : int {
  kOutput, kCsv, kCompare, kMaxRegression, kForce, kAllowMissing, kStartTolerance, kMaxReportSize, kHelp, kCsvFormat, kStrict,
  kCsvFullHistory,
};

constexpr std::array<OptionSpec, 12> kReportOptions{{
    {kMaxReportSize, '\0', "max-report-size", true},
    {kOutput, 'o', "output", true},
    {kCsv, '\0', "csv", true},
    {kCompare, '\0', "compare", false},
    {kStrict, '\0', "strict", false},
    {kMaxRegression, '\0', "max-regression", true},
    {kForce, '\0', "force", false},
    {kAllowMissing, '\0', "allow-missing", false},
    {kStartTolerance, '\0', "start-tolerance", true},
    {kHelp, 'h', "help", false},
    {kCsvFormat, '\0', "csv-format", true},
    {kCsvFullHistory, '\0', "csv-full-history", false},
}};

Status apply_report_option(const ScannedOption& option, ReportOptions& report) {
  switch (option.id) {
    case kOutput:
      report.output_path = option.value;
      return check_writable_path(option.value, option.flag);
    case kCsv:
      if (option.value.empty()) return bad_argument(fmt::format("{}: the prefix is empty", option.flag));
      report.csv_prefix = option.value;
      for (const std::string& path : {report::csv_stats_path(option.value), report::csv_history_path(option.value),
                                      report::csv_failures_path(option.value)}) {
        if (Status ok = check_writable_path(path, option.flag); !ok) return ok;
      }
      return Ok{};
    case kCompare: report.compare = true; return Ok{};
    case kStrict: report.strict = true; return Ok{};
    case kMaxRegression: {
      auto bounds = html::parse_regression_bounds(option.value, option.flag);
      if (!bounds) return bounds.error();
      report.max_regression = option.value;
      return Ok{};
    }
    case kMaxReportSize: return parse_max_report_size(option, report.max_report_bytes);
    case kCsvFormat:
      if (option.value != "locust" && option.value != "pacer") {
        return bad_argument(fmt::format("{}: expected pacer or locust, got '{}'", option.flag, option.value));
      }
      report.csv_locust = option.value == "locust";
      return Ok{};
    case kCsvFullHistory: report.csv_full_history = true; return Ok{};
    case kForce: report.force = true; return Ok{};
    case kAllowMissing: report.allow_missing = true; return Ok{};
    case kStartTolerance: {
      auto tolerance = parse_duration(option.value, option.flag);
      if (!tolerance) return tolerance.error();
      report.start_tolerance_ns = *tolerance;
      return Ok{};
    }
    default: return Ok{};
  }
}

Status check_report_options(const ReportOptions& r) {
  if (r.paths.empty()) return bad_argument("report: give at least one JSON report file (pacer report --help)");
  if (r.compare && r.paths.size() != 2) {
    return bad_argument(fmt::format("report --compare: give two reports, BASELINE.json CANDIDATE.json (got {})",
                                    r.paths.size()));
  }
  if (!r.max_regression.empty() && !r.compare) return bad_argument("report: --max-regression needs --compare");
  if (r.strict && r.max_regression.empty()) return bad_argument("report: --strict needs --max-regression");
  if (r.compare && !r.csv_prefix.empty()) return bad_argument("report: --csv draws one run, not a --compare");
  if (r.csv_prefix.empty() && r.csv_locust) return bad_argument("report: --csv-format needs --csv PREFIX");
  if (r.csv_full_history && !r.csv_locust) return bad_argument("report: --csv-full-history needs --csv-format locust");
  return Ok{};
}

}  // namespace

Result<Invocation> parse_report(std::span<const std::string> args) {
  const ScanResult scan = scan_options(args, kReportOptions, "pacer report --help");
  Invocation out;
  if (scan.has(kHelp)) {
    out.command = Command::kHelp;
    out.help_text = report_usage();
    return out;
  }
  if (scan.first_error) return *scan.first_error;
  for (const ScannedOption& option : scan.options) {
    if (Status applied = apply_report_option(option, out.report); !applied) return applied.error();
  }
  out.report.paths = scan.positionals;
  if (Status ok = check_report_options(out.report); !ok) return ok.error();
  out.command = Command::kReport;
  return out;
}

}  // namespace pacer::cli
