// --csv PREFIX, the run as three CSV files in Locust's shape (so a
// Locust user's spreadsheet needs only a column rename; docs/output.md lists the
// columns). Made from the JSON report's text, like the HTML report: one data path.
// Times in milliseconds (Locust's unit) with six decimals, i.e. exact nanoseconds.
// Pure; main thread.
#pragma once

#include <string>
#include <string_view>

#include "core/expected.h"

namespace pacer::report {

struct CsvFiles {
  std::string stats;     // PREFIX_stats.csv: a row per endpoint name, then "Aggregated"
  std::string history;   // PREFIX_history.csv: a row per interval of the time series
  std::string failures;  // PREFIX_failures.csv: error class, name, first reason, count
};

// report_json: render_json's text (or any pacer-report JSON). kBadInput when it is not
// one or a histogram does not decode.
Result<CsvFiles> render_csv(std::string_view report_json);

// The three paths --csv PREFIX writes, in CsvFiles' order.
std::string csv_stats_path(const std::string& prefix);
std::string csv_history_path(const std::string& prefix);
std::string csv_failures_path(const std::string& prefix);

}  // namespace pacer::report
