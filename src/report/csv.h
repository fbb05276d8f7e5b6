// --csv PREFIX, the run as three CSV files in Locust's shape (so a
// Locust user's spreadsheet needs only a column rename; docs/output.md lists the
// columns). Rendered from the typed RunReport (a live run's, or a report file read
// back by json_reader.h: the same files either way).
// Times in milliseconds (Locust's unit) with six decimals, i.e. exact nanoseconds.
// Pure; main thread.
#pragma once

#include <string>

#include "core/expected.h"
#include "report/run_report.h"

namespace pacer::report {

struct CsvFiles {
  std::string stats;     // PREFIX_stats.csv: a row per endpoint name, then "Aggregated"
  std::string history;   // PREFIX_history.csv: a row per interval of the time series
  std::string failures;  // PREFIX_failures.csv: error class, name, first reason, count
};

CsvFiles render_csv(const RunReport& r);
// Renders and writes the three files, each atomically; errors name the path.
Status write_csv(const RunReport& r, const std::string& prefix);

// The three paths --csv PREFIX writes, in CsvFiles' order.
std::string csv_stats_path(const std::string& prefix);
std::string csv_history_path(const std::string& prefix);
std::string csv_failures_path(const std::string& prefix);

}  // namespace pacer::report
