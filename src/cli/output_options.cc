// See output_options.h.
#include "cli/output_options.h"

#include <fmt/format.h>

#include "cli/csv_options.h"
#include "cli/units.h"

namespace pacer::cli::output {

namespace {

// --refresh: the live view's redraw period, 10 ms to 10 s (faster only costs
// CPU; slower is no longer live).
Status apply_refresh(const ScannedOption& option, Config& config) {
  auto ns = parse_duration(option.value, option.flag);
  if (!ns) return ns.error();
  if (*ns < 10 * kNsPerMs || *ns > 10 * kNsPerS) {
    return bad_argument(fmt::format("{}: refresh must be between 10ms and 10s, got {}", option.flag, option.value));
  }
  config.refresh_ns = *ns;
  return Ok{};
}

Status apply_interval(const ScannedOption& option, Config& config) {
  auto ns = parse_duration(option.value, option.flag);
  if (!ns) return ns.error();
  if (*ns <= 0) {
    return bad_argument(fmt::format("{}: interval must be greater than 0, got {}", option.flag, option.value));
  }
  config.interval_ns = *ns;
  return Ok{};
}

}  // namespace

std::optional<Status> apply(const ScannedOption& option, Config& config) {
  switch (option.id) {
    case kLatency: config.print_latency = true; return Ok{};
    case kFormat:
      if (option.value != "text" && option.value != "json") {
        return bad_argument(fmt::format("{}: format must be 'text' or 'json', got '{}'", option.flag, option.value));
      }
      config.json_format = option.value == "json";
      return Ok{};
    case kOutput: config.output_path = option.value; return Ok{};
    case kInterval: return apply_interval(option, config);
    case kTimeseries: config.timeseries_path = option.value; return Ok{};
    case kTimeseriesHistogram: config.timeseries_histogram = true; return Ok{};
    case kRefresh: return apply_refresh(option, config);
    case kPlain: config.plain = true; return Ok{};
    case kHdr: config.hgrm_path = option.value; return Ok{};
    case kHtml: config.html_path = option.value; return Ok{};
    case kCsv:
      if (option.value.empty()) return bad_argument(fmt::format("{}: the prefix is empty", option.flag));
      config.csv_prefix = option.value;
      return Ok{};
    case kCsvFormat: return apply_csv_format(option, config);
    case kCsvFullHistory: config.csv_full_history = true; return Ok{};
    default: return std::nullopt;
  }
}

}  // namespace pacer::cli::output
