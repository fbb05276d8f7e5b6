// --csv PREFIX --csv-format locust (issue 27): Locust 2.x's four files, with its
// names, headers, units (milliseconds) and rounding, so that a pipeline written
// for Locust's reads pacer's unchanged (docs/output.md says what the rounding
// loses). Rendered from the typed RunReport, as pacer's own CSV files are.
//   PREFIX_stats.csv          a row per name (Locust's Type = the method, Name = the path), then Aggregated
//   PREFIX_stats_history.csv  a row per interval (Aggregated), and with full_history a row per name before it
//   PREFIX_failures.csv       Method, Name, Error, Occurrences: a row per name and error (a check's
//                             CatchResponseError with its message, a status's HTTPError per code)
//   PREFIX_exceptions.csv     Count, Message, Traceback, Nodes: the scenario's Lua errors
// Pure but for writing the files; main thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/expected.h"
#include "report/run_report.h"
#include "stats/histogram.h"

namespace pacer::report {

struct LocustCsvFiles {
  std::string stats;
  std::string history;
  std::string failures;
  std::string exceptions;
};

LocustCsvFiles render_locust_csv(const RunReport& r, bool full_history);
// Renders and writes the four files, each atomically; errors name the path.
Status write_locust_csv(const RunReport& r, const std::string& prefix, bool full_history);

// Locust's response-time dict from a histogram: each bucket's middle in ms,
// rounded as Locust keeps it (whole ms below 100, then to 10, 100, 1000 ms).
std::map<double, std::int64_t> locust_response_times(const stats::Histogram& h);
// Locust's calculate_response_time_percentile (percent in 0..1) and median_from_dict.
double locust_percentile(const std::map<double, std::int64_t>& times, std::int64_t count, double percent);
double locust_median(const std::map<double, std::int64_t>& times, std::int64_t count);
// A number as Python's repr prints a float ("150.0", "0.734", "1e-05").
std::string python_float(double v);

}  // namespace pacer::report
