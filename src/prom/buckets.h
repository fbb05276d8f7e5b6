// The latency histograms' Prometheus buckets (docs/prometheus.md): nominal
// bounds from 1 µs to 10 s in 1-2.5-5 steps, then 30 s and 60 s (24 in all),
// each moved up to the end of the HdrHistogram bucket that holds it (at most
// 0.1% higher: 1 µs stays 1 µs, 2.5 µs becomes 2.501 µs, 1 ms 1.000447 ms), so
// that every sample of pacer's histograms lands in the bucket a Prometheus
// client library would have put it in (le: value <= bound).
// Pure; any thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "prom/metrics.h"
#include "stats/histogram.h"

namespace pacer::prom {

// The nominal bounds in nanoseconds, increasing.
std::span<const std::int64_t> nominal_bounds_ns();

// The bounds as `layout` can fill them exactly: each nominal bound moved up to
// its HdrHistogram bucket's highest equivalent value, in nanoseconds.
std::vector<std::int64_t> exact_bounds_ns(const stats::Histogram& layout);
// The same in seconds (the le labels).
std::vector<double> bounds_seconds(std::span<const std::int64_t> bounds_ns);

// A histogram series from `histogram` (nanoseconds) over exact bounds from
// exact_bounds_ns(histogram). Its sum, in seconds, takes each sample at its
// bucket's middle (HdrHistogram's mean does the same), so it is within the
// histogram's precision of the true sum.
HistogramSample fill_histogram(const stats::Histogram& histogram, std::span<const std::int64_t> bounds_ns,
                               Labels labels);

}  // namespace pacer::prom
