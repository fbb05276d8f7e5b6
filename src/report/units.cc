#include "report/units.h"

#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace pacer::report {

std::string format_time_ns(double ns) {
  double v = ns / 1000.0;
  if (v < 1000.0) return fmt::format("{:.2f}us", v);
  v /= 1000.0;
  if (v < 1000.0) return fmt::format("{:.2f}ms", v);
  v /= 1000.0;
  if (v < 60.0) return fmt::format("{:.2f}s", v);
  v /= 60.0;
  if (v < 60.0) return fmt::format("{:.2f}m", v);
  return fmt::format("{:.2f}h", v / 60.0);
}

std::string format_metric(double value) {
  static const char* const kUnits[] = {"", "k", "M", "G", "T"};
  int unit = 0;
  while (std::fabs(value) >= 1000.0 && unit < 4) {
    value /= 1000.0;
    ++unit;
  }
  return fmt::format("{:.2f}{}", value, kUnits[unit]);
}

std::string format_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 5) {
    bytes /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.2f}{}", bytes, kUnits[unit]);
}

std::string format_duration_short(TimeNs ns) {
  if (ns % kNsPerS != 0) {
    if (ns % kNsPerMs == 0) return fmt::format("{}ms", ns / kNsPerMs);
    return fmt::format("{}us", ns / kNsPerUs);
  }
  const TimeNs s = ns / kNsPerS;
  if (s % 3600 == 0) return fmt::format("{}h", s / 3600);
  if (s >= 60 && s % 60 == 0) return fmt::format("{}m", s / 60);
  if (s > 60) return fmt::format("{}m{}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

std::string pad_units(const std::string& text, int width) {
  const std::size_t len = text.size();
  int pad = 2;
  if (len >= 1 && std::isalpha(static_cast<unsigned char>(text[len - 1]))) --pad;
  if (len >= 2 && std::isalpha(static_cast<unsigned char>(text[len - 2]))) --pad;
  std::string out = fmt::format("{:>{}}{:{}}", text, width - pad, "", pad);
  // A value wider than its column (">=500.75ms") must still be separated from
  // the previous column, or whitespace-splitting readers see one field.
  if (static_cast<int>(len) > width - pad) out.insert(out.begin(), ' ');
  return out;
}

}  // namespace pacer::report
