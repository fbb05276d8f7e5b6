#include "cli/shard_options.h"

#include <cstdlib>
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

constexpr const char* kMonthNames[] = {"January", "February", "March",     "April",   "May",      "June",
                                        "July",    "August",   "September", "October", "November", "December"};

bool is_leap_year(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int days_in_month(int year, int month) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap_year(year) ? 29 : kDays[month - 1];
}

// Days from 1970-01-01 to year-month-day of the proleptic Gregorian calendar
// (Howard Hinnant's days_from_civil): exact, no timegm (which rolls 30 February
// over to March and works in time_t).
std::int64_t days_from_civil(int year, int month, int day) {
  const int y = year - (month <= 2 ? 1 : 0);
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int year_of_era = y - era * 400;
  const int day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return std::int64_t{era} * 146097 + day_of_era - 719468;
}

// A wall-clock time as whole Unix seconds plus nanoseconds, before it is
// checked against now (so no arithmetic here can overflow).
struct WallTime {
  std::int64_t seconds = 0;
  std::int64_t fraction_ns = 0;
};

// ".123" (up to 9 digits) -> nanoseconds; nullopt if malformed.
std::optional<std::int64_t> fraction_ns(std::string_view rest) {
  if (rest.empty()) return 0;
  if (rest.front() != '.' || !all_digits(rest.substr(1)) || rest.size() > 10) return std::nullopt;
  std::string digits(rest.substr(1));
  digits.resize(9, '0');
  return std::atoll(digits.c_str());
}

// "2026-11-30T12:00:00Z" or with ".123" before the Z. nullopt: not of that
// shape; an error: of that shape but no such time (the reason says why).
std::optional<Result<WallTime>> parse_rfc3339_utc(std::string_view text, std::string_view flag) {
  if (text.size() < 20 || text.back() != 'Z' || text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != 't') ||
      text[13] != ':' || text[16] != ':') {
    return std::nullopt;
  }
  const auto year = small_int(text.substr(0, 4)), month = small_int(text.substr(5, 2)), day = small_int(text.substr(8, 2));
  const auto hour = small_int(text.substr(11, 2)), minute = small_int(text.substr(14, 2)),
             second = small_int(text.substr(17, 2));
  const auto fraction = fraction_ns(text.substr(19, text.size() - 20));
  if (!year || !month || !day || !hour || !minute || !second || !fraction) return std::nullopt;
  const auto no_such = [&](std::string why) -> Result<WallTime> {
    return bad_argument(fmt::format("{}: '{}' is not a valid time: {}", flag, text, why));
  };
  if (*month < 1 || *month > 12) return no_such(fmt::format("month {} is outside 01-12", *month));
  if (*day < 1 || *day > days_in_month(*year, *month)) {
    return no_such(fmt::format("{} {} has {} days", kMonthNames[*month - 1], *year, days_in_month(*year, *month)));
  }
  if (*hour > 23) return no_such(fmt::format("hour {} is outside 00-23", *hour));
  if (*minute > 59) return no_such(fmt::format("minute {} is outside 00-59", *minute));
  // 60 only as a leap second (23:59:60); Unix time counts it as the next second.
  if (*second > 60 || (*second == 60 && (*hour != 23 || *minute != 59))) {
    return no_such(fmt::format("second {} is outside 00-59 (60 only at 23:59:60, a leap second)", *second));
  }
  const std::int64_t seconds = days_from_civil(*year, *month, *day) * 86400 + *hour * 3600 + *minute * 60 + *second;
  return Result<WallTime>(WallTime{seconds, *fraction});
}

// Unix seconds, "1796040000" or "1796040000.5"; nullopt if not of that shape.
std::optional<WallTime> parse_unix_seconds(std::string_view text) {
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view rest = dot == std::string_view::npos ? std::string_view() : text.substr(dot);
  const auto fraction = fraction_ns(rest);
  if (!all_digits(whole) || !fraction) return std::nullopt;
  // More than 12 digits is past year 33000: kept finite here, refused as too far ahead.
  if (whole.size() > 12) return WallTime{std::int64_t{999'999'999'999}, 0};
  return WallTime{std::atoll(std::string(whole).c_str()), *fraction};
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
  std::optional<WallTime> at;
  if (auto rfc3339 = parse_rfc3339_utc(text, flag)) {
    if (!*rfc3339) return rfc3339->error();
    at = **rfc3339;
  } else {
    at = parse_unix_seconds(text);
  }
  if (!at) {
    return bad_argument(fmt::format(
        "{}: '{}' is not a time (RFC 3339 in UTC such as 2026-11-30T12:00:00Z, or Unix seconds)", flag, text));
  }
  // Compared in whole seconds first: a far-off time, ahead or behind, never
  // reaches the nanosecond arithmetic, where it would overflow.
  const std::int64_t now_s = now_unix_ns / kNsPerS;
  if (at->seconds < now_s) return bad_argument(fmt::format("{}: {} is in the past", flag, text));
  if (at->seconds - now_s > kMaxStartAheadS) {
    return bad_argument(fmt::format("{}: {} is {} days ahead; a start may be at most {} days ahead (the process "
                                    "waits for it)",
                                    flag, text, (at->seconds - now_s) / 86400, kMaxStartAheadS / 86400));
  }
  const std::int64_t at_ns = at->seconds * kNsPerS + at->fraction_ns;
  if (at_ns <= now_unix_ns) return bad_argument(fmt::format("{}: {} is in the past", flag, text));
  return at_ns;
}

Status apply_shard_share(Config& config) {
  const int n = config.shard_count;
  const int i = config.shard_index;
  if (config.test_connections == 0) {  // the whole test's figures, before the cut
    config.test_connections = config.connections;
    config.test_request_count = config.request_count;
  }
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
