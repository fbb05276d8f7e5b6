#include "cli/shard_options.h"

#include <cstdlib>
#include <ctime>
#include <string>

#include <fmt/format.h>

namespace pacer::cli {

namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

std::optional<int> small_int(std::string_view text) {
  if (!all_digits(text) || text.size() > 6) return std::nullopt;
  return std::atoi(std::string(text).c_str());
}

// "2026-11-30T12:00:00Z" or with ".123" before the Z.
std::optional<std::int64_t> parse_rfc3339_utc(std::string_view text) {
  if (text.size() < 20 || text.back() != 'Z' || text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != 't') ||
      text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  const auto year = small_int(text.substr(0, 4)), month = small_int(text.substr(5, 2)), day = small_int(text.substr(8, 2));
  const auto hour = small_int(text.substr(11, 2)), minute = small_int(text.substr(14, 2)),
             second = small_int(text.substr(17, 2));
  if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 || *day < 1 || *day > 31 ||
      *hour > 23 || *minute > 59 || *second > 60) {
    return std::nullopt;
  }
  std::int64_t fraction_ns = 0;
  const std::string_view rest = text.substr(19, text.size() - 20);
  if (!rest.empty()) {
    if (rest.front() != '.' || !all_digits(rest.substr(1)) || rest.size() > 10) return std::nullopt;
    std::string digits(rest.substr(1));
    digits.resize(9, '0');
    fraction_ns = std::atoll(digits.c_str());
  }
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = *month - 1;
  tm.tm_mday = *day;
  tm.tm_hour = *hour;
  tm.tm_min = *minute;
  tm.tm_sec = *second;
  return static_cast<std::int64_t>(timegm(&tm)) * kNsPerS + fraction_ns;
}

}  // namespace

Status parse_shard(std::string_view text, std::string_view flag, Config& config) {
  const std::size_t slash = text.find('/');
  const auto index = slash == std::string_view::npos ? std::nullopt : small_int(text.substr(0, slash));
  const auto count = slash == std::string_view::npos ? std::nullopt : small_int(text.substr(slash + 1));
  if (!index || !count) return bad_argument(fmt::format("{}: '{}' is not i/N (e.g. 0/3: the first of 3 shards)", flag, text));
  if (*count < 1 || *index >= *count) {
    return bad_argument(fmt::format("{}: shard {} of {} does not exist (i runs from 0 to N-1)", flag, *index, *count));
  }
  config.shard_index = *index;
  config.shard_count = *count;
  return Ok{};
}

Result<std::int64_t> parse_start_at(std::string_view text, std::string_view flag, std::int64_t now_unix_ns) {
  std::optional<std::int64_t> at = parse_rfc3339_utc(text);
  if (!at && !text.empty() && text.find_first_not_of("0123456789.") == std::string_view::npos &&
      text.find('.') == text.rfind('.')) {
    at = static_cast<std::int64_t>(std::strtod(std::string(text).c_str(), nullptr) * 1e9);
  }
  if (!at) {
    return bad_argument(fmt::format(
        "{}: '{}' is not a time (RFC 3339 in UTC such as 2026-11-30T12:00:00Z, or Unix seconds)", flag, text));
  }
  if (*at <= now_unix_ns) return bad_argument(fmt::format("{}: {} is in the past", flag, text));
  return *at;
}

Status apply_shard_share(Config& config) {
  const int n = config.shard_count;
  const int i = config.shard_index;
  if (n == 1) return Ok{};
  if (config.connections < n) {
    return bad_argument(fmt::format("--shard: {} shards need at least {} connections in total, got -c {}", n, n,
                                    config.connections));
  }
  config.connections = config.connections / n + (i < config.connections % n ? 1 : 0);
  if (config.request_count) {
    const std::uint64_t total = *config.request_count;
    const std::uint64_t share = total / static_cast<std::uint64_t>(n) + (static_cast<std::uint64_t>(i) < total % static_cast<std::uint64_t>(n) ? 1 : 0);
    if (share == 0) return bad_argument(fmt::format("--shard: -n {} leaves shard {} of {} no request", total, i, n));
    config.request_count = share;
  }
  return Ok{};
}

}  // namespace pacer::cli
