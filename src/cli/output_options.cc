// See output_options.h.
#include "cli/output_options.h"

#include <array>

#include <fmt/format.h>

#include "cli/csv_options.h"
#include "cli/run_draft.h"
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

Status apply_format(const ScannedOption& option, RunDraft& draft) {
  if (option.value != "text" && option.value != "json") {
    return bad_argument(fmt::format("{}: format must be 'text' or 'json', got '{}'", option.flag, option.value));
  }
  draft.config.json_format = option.value == "json";
  return Ok{};
}

// A switch's row: the option sets its Config field to true.
template <bool Config::*Field>
Status set_true(const ScannedOption&, RunDraft& draft) {
  draft.config.*Field = true;
  return Ok{};
}

// An option whose value is a file name or prefix kept as given.
template <std::string Config::*Field>
Status keep_path(const ScannedOption& option, RunDraft& draft) {
  draft.config.*Field = option.value;
  return Ok{};
}

constexpr std::array<RunOptionRow, 13> kRows{{
    {{opt::kLatency, '\0', "latency", false}, &set_true<&Config::print_latency>},
    {{opt::kFormat, '\0', "format", true}, &apply_format},
    {{opt::kOutput, 'o', "output", true}, &keep_path<&Config::output_path>},
    {{opt::kInterval, '\0', "interval", true},
     [](const ScannedOption& o, RunDraft& d) { return apply_interval(o, d.config); }},
    {{opt::kTimeseries, '\0', "timeseries", true}, &keep_path<&Config::timeseries_path>},
    {{opt::kTimeseriesHistogram, '\0', "timeseries-histogram", false}, &set_true<&Config::timeseries_histogram>},
    {{opt::kHdr, '\0', "hdr", true}, &keep_path<&Config::hgrm_path>},
    {{opt::kRefresh, '\0', "refresh", true},
     [](const ScannedOption& o, RunDraft& d) { return apply_refresh(o, d.config); }},
    {{opt::kPlain, '\0', "plain", false}, &set_true<&Config::plain>},
    {{opt::kHtml, '\0', "html", true}, &keep_path<&Config::html_path>},
    {{opt::kCsv, '\0', "csv", true},
     [](const ScannedOption& o, RunDraft& d) -> Status {
       if (o.value.empty()) return bad_argument(fmt::format("{}: the prefix is empty", o.flag));
       d.config.csv_prefix = o.value;
       return Ok{};
     }},
    {{opt::kCsvFormat, '\0', "csv-format", true},
     [](const ScannedOption& o, RunDraft& d) { return apply_csv_format(o, d.config); }},
    {{opt::kCsvFullHistory, '\0', "csv-full-history", false}, &set_true<&Config::csv_full_history>},
}};

}  // namespace

std::span<const RunOptionRow> option_rows() { return kRows; }

}  // namespace pacer::cli::output
