// See log_options.h.
#include "cli/log_options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

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

}  // namespace

std::optional<Status> apply(const ScannedOption& option, Config& config, Flags& flags) {
  switch (option.id) {
    case kLogRequests:
      if (option.value.empty()) return bad_argument(fmt::format("{}: the file name is empty", option.flag));
      config.request_log.path = option.value;
      return Ok{};
    case kLogFormat:
      flags.format_given = true;
      if (option.value == "csv") {
        config.request_log.format = RequestLogFormat::kCsv;
      } else if (option.value == "ndjson") {
        config.request_log.format = RequestLogFormat::kNdjson;
      } else {
        return bad_argument(fmt::format("{}: '{}' is not a format (csv or ndjson)", option.flag, option.value));
      }
      return Ok{};
    case kLogSample: {
      flags.sample_given = true;
      auto f = parse_fraction(option);
      if (!f) return f.error();
      config.request_log.sample = *f;
      return Ok{};
    }
    case kTrace: return store(parse_positive_int(option, "exchanges to print"), config.trace_exchanges);
    default: return std::nullopt;
  }
}

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
