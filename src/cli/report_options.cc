// `pacer report` options; see the header. Drawing is app/report_command.cc.
#include "cli/report_options.h"

#include <array>
#include <cassert>

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
  kCsvFullHistory, kReportOptionCount
};

Status apply_report_csv(const ScannedOption& option, ReportOptions& report) {
  if (option.value.empty()) return bad_argument(fmt::format("{}: the prefix is empty", option.flag));
  report.csv_prefix = option.value;
  for (const std::string& path : {report::csv_stats_path(option.value), report::csv_history_path(option.value),
                                  report::csv_failures_path(option.value)}) {
    if (Status ok = check_writable_path(path, option.flag); !ok) return ok;
  }
  return Ok{};
}

Status apply_max_regression(const ScannedOption& option, ReportOptions& report) {
  auto bounds = html::parse_regression_bounds(option.value, option.flag);
  if (!bounds) return bounds.error();
  report.max_regression = option.value;
  return Ok{};
}

Status apply_report_csv_format(const ScannedOption& option, ReportOptions& report) {
  if (option.value != "locust" && option.value != "pacer") {
    return bad_argument(fmt::format("{}: expected pacer or locust, got '{}'", option.flag, option.value));
  }
  report.csv_locust = option.value == "locust";
  return Ok{};
}

// A switch's row: the option sets its ReportOptions field to true.
template <bool ReportOptions::*Field>
Status set_report_switch(const ScannedOption&, ReportOptions& report) {
  report.*Field = true;
  return Ok{};
}

constexpr std::array<OptionRow<ReportOptions>, kReportOptionCount> kReportRows{{
    {{kMaxReportSize, '\0', "max-report-size", true},
     [](const ScannedOption& o, ReportOptions& r) { return parse_max_report_size(o, r.max_report_bytes); }},
    {{kOutput, 'o', "output", true},
     [](const ScannedOption& o, ReportOptions& r) {
       r.output_path = o.value;
       return check_writable_path(o.value, o.flag);
     }},
    {{kCsv, '\0', "csv", true}, &apply_report_csv},
    {{kCompare, '\0', "compare", false}, &set_report_switch<&ReportOptions::compare>},
    {{kStrict, '\0', "strict", false}, &set_report_switch<&ReportOptions::strict>},
    {{kMaxRegression, '\0', "max-regression", true}, &apply_max_regression},
    {{kForce, '\0', "force", false}, &set_report_switch<&ReportOptions::force>},
    {{kAllowMissing, '\0', "allow-missing", false}, &set_report_switch<&ReportOptions::allow_missing>},
    {{kStartTolerance, '\0', "start-tolerance", true},
     [](const ScannedOption& o, ReportOptions& r) { return store(parse_duration(o.value, o.flag), r.start_tolerance_ns); }},
    {{kHelp, 'h', "help", false}, [](const ScannedOption&, ReportOptions&) -> Status { return Ok{}; }},  // read from the scan
    {{kCsvFormat, '\0', "csv-format", true}, &apply_report_csv_format},
    {{kCsvFullHistory, '\0', "csv-full-history", false}, &set_report_switch<&ReportOptions::csv_full_history>},
}};

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

OptionTableReport report_options_table() { return report_of<ReportOptions>(kReportRows, kReportOptionCount); }

Result<Invocation> parse_report(std::span<const std::string> args) {
  assert(table_faults<ReportOptions>(kReportRows, kReportOptionCount).empty());  // tests/cli/run_options_test.cc names them
  const ScanResult scan = scan_options(args, specs_of<ReportOptions>(kReportRows), "pacer report --help");
  Invocation out;
  if (scan.has(kHelp)) {
    out.command = Command::kHelp;
    out.help_text = report_usage();
    return out;
  }
  if (scan.first_error) return *scan.first_error;
  if (Status applied = apply_options<ReportOptions>(scan.options, kReportRows, out.report); !applied) {
    return applied.error();
  }
  out.report.paths = scan.positionals;
  if (Status ok = check_report_options(out.report); !ok) return ok.error();
  out.command = Command::kReport;
  return out;
}

}  // namespace pacer::cli
