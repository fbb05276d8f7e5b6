// Prometheus buckets filled from HdrHistograms; see the header.
#include "prom/buckets.h"

#include <algorithm>
#include <array>

namespace pacer::prom {

namespace {

constexpr std::int64_t kUs = 1'000;
constexpr std::int64_t kMs = 1'000'000;
constexpr std::int64_t kS = 1'000'000'000;

constexpr std::array<std::int64_t, 24> kNominalNs{
    1 * kUs,   2500,       5 * kUs,   10 * kUs,  25 * kUs,  50 * kUs,  100 * kUs, 250 * kUs,
    500 * kUs, 1 * kMs,    2500 * kUs, 5 * kMs,  10 * kMs,  25 * kMs,  50 * kMs,  100 * kMs,
    250 * kMs, 500 * kMs,  1 * kS,    2500 * kMs, 5 * kS,   10 * kS,   30 * kS,   60 * kS,
};

}  // namespace

std::span<const std::int64_t> nominal_bounds_ns() { return kNominalNs; }

std::vector<std::int64_t> exact_bounds_ns(const stats::Histogram& layout) {
  std::vector<std::int64_t> out;
  out.reserve(kNominalNs.size());
  for (const std::int64_t nominal : kNominalNs) out.push_back(layout.highest_equivalent(nominal));
  return out;
}

std::vector<double> bounds_seconds(std::span<const std::int64_t> bounds_ns) {
  std::vector<double> out;
  out.reserve(bounds_ns.size());
  for (const std::int64_t ns : bounds_ns) out.push_back(static_cast<double>(ns) / 1e9);
  return out;
}

HistogramSample fill_histogram(const stats::Histogram& histogram, std::span<const std::int64_t> bounds_ns,
                               Labels labels) {
  HistogramSample out;
  out.labels = std::move(labels);
  std::vector<std::uint64_t> per_bucket(bounds_ns.size() + 1, 0);  // the last: above every bound (+Inf)
  double sum_ns = 0;
  histogram.for_each_recorded([&](std::int64_t lowest, std::int64_t highest, std::int64_t count) {
    // Every bound is some bucket's highest value, so a bucket lies wholly at or
    // below a bound or wholly above it: its samples go where their values would.
    const auto at = std::lower_bound(bounds_ns.begin(), bounds_ns.end(), highest);
    per_bucket[static_cast<std::size_t>(at - bounds_ns.begin())] += static_cast<std::uint64_t>(count);
    sum_ns += static_cast<double>(histogram.median_equivalent(lowest)) * static_cast<double>(count);
  });
  std::uint64_t running = 0;
  out.cumulative.reserve(bounds_ns.size());
  for (std::size_t i = 0; i < bounds_ns.size(); ++i) {
    running += per_bucket[i];
    out.cumulative.push_back(running);
  }
  out.count = running + per_bucket.back();
  out.sum = sum_ns / 1e9;
  return out;
}

}  // namespace pacer::prom
