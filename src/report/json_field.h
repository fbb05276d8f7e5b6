// A cursor into a parsed JSON report: a value and the dotted path that led to it
// ("config.url"), whose typed reads throw FieldError naming that path and what
// was wrong. Internal to the report readers (json_reader.cc, series_reader.cc).
#pragma once

#include <cmath>
#include <cstdio>
#include <ctime>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "stats/hdr_codec.h"
#include "stats/histogram.h"

namespace pacer::report {

struct FieldError {
  std::string path;
  std::string reason;
};

// A JSON value and the dotted path that led to it ("config.url").
class Field {
 public:
  Field(const nlohmann::json& value, std::string path) : value_(value), path_(std::move(path)) {}

  const nlohmann::json& value() const { return value_; }
  const std::string& path() const { return path_; }
  bool is_null() const { return value_.is_null(); }

  [[noreturn]] void fail(std::string reason) const { throw FieldError{path_, std::move(reason)}; }

  // A member that must be present.
  Field at(const std::string& key) const {
    if (!value_.is_object()) fail(fmt::format("expected an object, got {}", value_.type_name()));
    const auto it = value_.find(key);
    if (it == value_.end()) throw FieldError{child_path(key), "missing"};
    return Field(*it, child_path(key));
  }
  bool has(const std::string& key) const { return value_.is_object() && value_.contains(key); }

  std::string string() const {
    if (!value_.is_string()) fail(fmt::format("expected a string, got {}", value_.type_name()));
    return value_.get<std::string>();
  }
  bool boolean() const {
    if (!value_.is_boolean()) fail(fmt::format("expected true or false, got {}", value_.type_name()));
    return value_.get<bool>();
  }
  std::uint64_t count() const {
    if (!value_.is_number_unsigned()) {
      fail(fmt::format("expected a non-negative integer, got {}", value_.dump()));
    }
    return value_.get<std::uint64_t>();
  }
  double number() const {
    if (!value_.is_number()) fail(fmt::format("expected a number, got {}", value_.type_name()));
    const double v = value_.get<double>();
    if (!std::isfinite(v) || v < 0) fail(fmt::format("expected a non-negative number, got {}", value_.dump()));
    return v;
  }
  // Any finite number, negative too (a gauge's value).
  double real() const {
    if (!value_.is_number()) fail(fmt::format("expected a number, got {}", value_.type_name()));
    const double v = value_.get<double>();
    if (!std::isfinite(v)) fail(fmt::format("expected a finite number, got {}", value_.dump()));
    return v;
  }
  int positive_int() const {
    const std::uint64_t v = count();
    if (v < 1 || v > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
      fail(fmt::format("expected an integer from 1 to {}, got {}", std::numeric_limits<int>::max(), v));
    }
    return static_cast<int>(v);
  }
  // Seconds as written by render_json -> integer nanoseconds.
  TimeNs seconds_ns() const {
    const double ns = number() * 1e9;
    if (ns > 9.2e18) fail(fmt::format("{} seconds is too long", value_.dump()));
    return static_cast<TimeNs>(std::llround(ns));
  }

 private:
  std::string child_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const nlohmann::json& value_;
  std::string path_;
};

// A base64 V2 histogram into `into` (which holds the layout pacer uses there).
inline void read_histogram(const Field& f, stats::Histogram& into) {
  auto decoded = stats::decode_v2_base64(f.string());
  if (!decoded) f.fail(decoded.error().message);
  into.reset();
  if (!into.merge(*decoded)) {
    f.fail(fmt::format("layout {}..{} at {} digits is not the one pacer writes here", decoded->lowest_discernible(),
                       decoded->highest_trackable(), decoded->significant_figures()));
  }
}

// A count that must fit an int (a pid, a CPU count).
inline int read_int(const Field& f) {
  const std::uint64_t v = f.count();
  if (v > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) f.fail("too large");
  return static_cast<int>(v);
}

// A UTC time as the writers give it, "2026-11-30T00:53:20.123Z" with `digits` (3 or
// 6) of fraction, in nanoseconds since 1970: a field that is not one, or a time
// int64 nanoseconds cannot hold (before 1677, after 2262), fails naming itself.
inline std::int64_t read_utc_time(const Field& f, int digits) {
  const std::string text = f.string();
  const std::string format = fmt::format("%4d-%2d-%2dT%2d:%2d:%2d.%{}dZ%n", digits);
  std::tm tm{};
  int fraction = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), format.c_str(), &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec, &fraction, &consumed) != 7 ||
      static_cast<std::size_t>(consumed) != text.size() || fraction < 0) {
    f.fail(fmt::format("expected a UTC time like 2026-12-01T14:20:01.{}Z, got '{}'", std::string("123456").substr(0, digits),
                       text));
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  // Checked in whole seconds before the nanosecond arithmetic, which would overflow.
  const std::int64_t secs = static_cast<std::int64_t>(timegm(&tm));
  constexpr std::int64_t kMinS = std::numeric_limits<std::int64_t>::min() / kNsPerS + 1;
  constexpr std::int64_t kMaxS = std::numeric_limits<std::int64_t>::max() / kNsPerS - 1;
  if (secs < kMinS || secs > kMaxS) f.fail(fmt::format("'{}' is outside 1677-2262 (int64 nanoseconds since 1970)", text));
  const std::int64_t unit = digits == 3 ? kNsPerMs : 1000;
  return secs * kNsPerS + std::int64_t{fraction} * unit;
}

}  // namespace pacer::report
