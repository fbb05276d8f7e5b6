// See log_options.h.
#include "cli/log_options.h"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include "cli/run_draft.h"

namespace pacer::cli::request_log {

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

Result<double> parse_fraction(const ScannedOption& option) {
  const std::string& v = option.value;
  char* end = nullptr;
  errno = 0;
  double f = std::strtod(v.c_str(), &end);
  const bool percent = end != v.c_str() && *end == '%' && end[1] == '\0';
  if (percent) f /= 100;
  if (v.empty() || (!percent && *end != '\0') || !std::isfinite(f) || !(f > 0) || f > 1) {
    return bad_argument(fmt::format("{}: '{}' is not a fraction in (0, 1] (0.1 or 10% logs one request in ten)",
                                    option.flag, v));
  }
  return f;
}

Status apply_log_format(const ScannedOption& option, RunDraft& draft) {
  draft.request_log.format_given = true;
  if (option.value == "csv") {
    draft.config.request_log.format = RequestLogFormat::kCsv;
  } else if (option.value == "ndjson") {
    draft.config.request_log.format = RequestLogFormat::kNdjson;
  } else {
    return bad_argument(fmt::format("{}: '{}' is not a format (csv or ndjson)", option.flag, option.value));
  }
  return Ok{};
}

constexpr std::array<RunOptionRow, 4> kRows{{
    {{opt::kTrace, '\0', "trace", true},
     [](const ScannedOption& o, RunDraft& d) {
       return store(parse_positive_int(o, "exchanges to print"), d.config.trace_exchanges);
     }},
    {{opt::kLogRequests, '\0', "log-requests", true},
     [](const ScannedOption& o, RunDraft& d) -> Status {
       if (o.value.empty()) return bad_argument(fmt::format("{}: the file name is empty", o.flag));
       d.config.request_log.path = o.value;
       return Ok{};
     }},
    {{opt::kLogFormat, '\0', "log-format", true}, &apply_log_format},
    {{opt::kLogSample, '\0', "log-sample", true},
     [](const ScannedOption& o, RunDraft& d) {
       d.request_log.sample_given = true;
       return store(parse_fraction(o), d.config.request_log.sample);
     }},
}};

}  // namespace

std::span<const RunOptionRow> option_rows() { return kRows; }

Status finish(Config& config, const Flags& flags) {
  if (config.request_log.path.empty()) {
    if (flags.format_given) return bad_argument("--log-format needs --log-requests FILE");
    if (flags.sample_given) return bad_argument("--log-sample needs --log-requests FILE");
    return Ok{};
  }
  if (!flags.format_given) {
    const std::string& path = config.request_log.path;
    config.request_log.format = ends_with(path, ".ndjson") || ends_with(path, ".jsonl") ? RequestLogFormat::kNdjson
                                                                                        : RequestLogFormat::kCsv;
  }
  return Ok{};
}

}  // namespace pacer::cli::request_log
