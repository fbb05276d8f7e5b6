// .hgrm rendering. Two details make the output match Java's byte for byte:
// the percentile levels follow PercentileIterator's arithmetic exactly (same
// doubles, same order of operations), and numbers are formatted the way
// java.util.Formatter does %.Nf, which rounds the shortest round-trip decimal
// half-up instead of rounding the exact binary value as printf does.
#include "report/hgrm.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

namespace pacer::report {
namespace {

constexpr int kTicksPerHalfDistance = 5;

// java.util.Formatter's "%.{precision}f": start from the shortest decimal that
// reads back as value (Double.toString's digits) and round it half-up. For
// 0.0045 printf prints 0.004 (the double is 0.00449999...), Java prints 0.005.
std::string java_fixed(double value, int precision) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string_view text(buf, static_cast<std::size_t>(end - buf));  // "-d.ddde-XX"
  std::string out;
  if (text.front() == '-') {
    out.push_back('-');
    text.remove_prefix(1);
  }
  const std::size_t e = text.find('e');
  std::string digits;
  for (const char c : text.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exponent = 0;
  std::from_chars(text.data() + e + 1 + (text[e + 1] == '+'), text.data() + text.size(), exponent);
  if (value == 0.0) digits = "0";

  // value = 0.<digits> * 10^point; keep `point + precision` digits, rounding half-up.
  int point = exponent + 1;
  const int keep = point + precision;
  if (keep < 0) {
    digits.clear();
  } else if (static_cast<std::size_t>(keep) < digits.size()) {
    const bool round_up = digits[static_cast<std::size_t>(keep)] >= '5';
    digits.resize(static_cast<std::size_t>(keep));
    if (round_up) {
      int i = keep - 1;
      for (; i >= 0 && digits[static_cast<std::size_t>(i)] == '9'; --i) digits[static_cast<std::size_t>(i)] = '0';
      if (i >= 0) {
        ++digits[static_cast<std::size_t>(i)];
      } else {
        digits.insert(digits.begin(), '1');
        ++point;
      }
    }
  }
  const auto digit_at = [&](int position) {  // position 0 is the first digit after "0."
    return position >= 0 && static_cast<std::size_t>(position) < digits.size()
               ? digits[static_cast<std::size_t>(position)]
               : '0';
  };
  if (point <= 0) {
    out.push_back('0');
  } else {
    for (int i = 0; i < point; ++i) out.push_back(digit_at(i));
  }
  if (precision > 0) {
    out.push_back('.');
    for (int i = 0; i < precision; ++i) out.push_back(digit_at(point + i));
  }
  return out;
}

std::string java_fixed(double value, int precision, int width) {
  const std::string text = java_fixed(value, precision);
  return std::string(static_cast<std::size_t>(std::max(0, width - static_cast<int>(text.size()))), ' ') + text;
}

// One line of the distribution: the highest value equivalent to the bucket the
// iteration stopped at, the percentile level it stopped for, and the count so far.
struct PercentileStep {
  std::int64_t value = 0;
  double percentile = 0.0;
  std::int64_t count_to_value = 0;
};

// PercentileIterator.incrementIterationLevel: a fixed tick size within each half
// of the remaining distance to 100%. The exponent is capped only to keep the
// arithmetic defined where Java's long would overflow (levels within 1e-15 of 100).
double next_percentile_level(double level) {
  const double half_distances = std::log(100.0 / (100.0 - level)) / std::log(2.0);
  const std::int64_t exponent = half_distances < 60.0 ? static_cast<std::int64_t>(half_distances) + 1 : 61;
  const double ticks = kTicksPerHalfDistance * std::ldexp(1.0, static_cast<int>(exponent));
  return level + 100.0 / ticks;
}

// PercentileIterator over AbstractHistogramIterator: walk the buckets, emitting a
// step whenever the cumulative percentile reaches the next level (a bucket can
// emit several), then one last step at 100% on the highest recorded bucket.
std::vector<PercentileStep> percentile_steps(const stats::Histogram& histogram) {
  std::vector<PercentileStep> steps;
  const std::int64_t total = histogram.total_count();
  if (total == 0) return steps;
  double level = 0.0;
  std::int64_t count_to_index = 0;
  int index = 0;
  bool fresh_bucket = true;
  const auto emit_next = [&] {
    for (; index < histogram.counts_len(); ++index, fresh_bucket = true) {
      const std::int64_t count = histogram.count_at_index(index);
      if (fresh_bucket) count_to_index += count;
      fresh_bucket = false;
      if (count != 0 && (100.0 * static_cast<double>(count_to_index)) / static_cast<double>(total) >= level) {
        steps.push_back({histogram.highest_equivalent(histogram.value_at_index(index)), level, count_to_index});
        return true;
      }
    }
    return false;
  };
  while (count_to_index < total) {
    if (!emit_next()) return steps;  // unreachable while the counts sum to total_count()
    const double next = next_percentile_level(level);
    if (!(next > level)) break;  // no progress left in a double: only absurd totals get here
    level = next;
  }
  level = 100.0;
  emit_next();
  return steps;
}

// HdrHistogram's sub-bucket count: 2^ceil(log2(2 * 10^significant_figures)).
std::int64_t sub_bucket_count(int significant_figures) {
  std::int64_t resolution = 2;
  for (int i = 0; i < significant_figures; ++i) resolution *= 10;
  std::int64_t count = 1;
  while (count < resolution) count <<= 1;
  return count;
}

}  // namespace

std::string render_hgrm(const stats::Histogram& histogram, double output_value_unit_scaling) {
  const int digits = histogram.significant_figures();
  std::string out =
      fmt::format("{:>12} {:>14} {:>10} {:>14}\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");
  for (const PercentileStep& step : percentile_steps(histogram)) {
    const double value = static_cast<double>(step.value) / output_value_unit_scaling;
    const double fraction = step.percentile / 100.0;
    out += fmt::format("{} {} {:>10}", java_fixed(value, digits, 12), java_fixed(fraction, 12, 2), step.count_to_value);
    if (step.percentile != 100.0) out += " " + java_fixed(1.0 / (1.0 - fraction), 2, 14);
    out += '\n';
  }

  const std::int64_t max = histogram.max() == 0 ? 0 : histogram.highest_equivalent(histogram.max());
  const std::int64_t subs = sub_bucket_count(digits);
  const std::int64_t buckets = histogram.counts_len() / (subs / 2) - 1;
  out += fmt::format("#[Mean    = {}, StdDeviation   = {}]\n",
                     java_fixed(histogram.hdr_mean() / output_value_unit_scaling, digits, 12),
                     java_fixed(histogram.stdev() / output_value_unit_scaling, digits, 12));
  out += fmt::format("#[Max     = {}, Total count    = {:>12}]\n",
                     java_fixed(static_cast<double>(max) / output_value_unit_scaling, digits, 12),
                     histogram.total_count());
  out += fmt::format("#[Buckets = {:>12}, SubBuckets     = {:>12}]\n", buckets, subs);
  return out;
}

}  // namespace pacer::report
