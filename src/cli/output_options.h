// The run's output options: what the report shows and where it goes (--latency,
// --format, -o, --hdr, --html, --csv, --csv-format, --csv-full-history), the time
// series and live view (--interval, --timeseries, --timeseries-histogram,
// --refresh, --plain). Their own option table and apply function, scanned with
// the run's (cli.cc). Pure; any thread.
#pragma once

#include <array>
#include <optional>

#include "cli/option_scan.h"
#include "core/config.h"
#include "core/expected.h"

namespace pacer::cli::output {

enum Option : int {
  kLatency = 2000,  // past the run's and the wire options' ids
  kFormat,
  kOutput,
  kInterval,
  kTimeseries,
  kTimeseriesHistogram,
  kHdr,
  kRefresh,
  kPlain,
  kHtml,
  kCsv,
  kCsvFormat,
  kCsvFullHistory,
};

inline constexpr std::array<OptionSpec, 13> kOptions{{
    {kLatency, '\0', "latency", false},
    {kFormat, '\0', "format", true},
    {kOutput, 'o', "output", true},
    {kInterval, '\0', "interval", true},
    {kTimeseries, '\0', "timeseries", true},
    {kTimeseriesHistogram, '\0', "timeseries-histogram", false},
    {kHdr, '\0', "hdr", true},
    {kRefresh, '\0', "refresh", true},
    {kPlain, '\0', "plain", false},
    {kHtml, '\0', "html", true},
    {kCsv, '\0', "csv", true},
    {kCsvFormat, '\0', "csv-format", true},
    {kCsvFullHistory, '\0', "csv-full-history", false},
}};

// Applies `option` if it is one of these; nullopt if it is not.
std::optional<Status> apply(const ScannedOption& option, Config& config);

}  // namespace pacer::cli::output
