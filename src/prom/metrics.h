// The Prometheus data model pacer exports (docs/prometheus.md): metric families
// of counters, gauges and classic histograms, each series with its labels. Plain
// data, built on the main thread from the run's figures (prom/run_metrics.h) and
// written out as text (prom/exposition.h) or as a remote-write request
// (prom/remote_write.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pacer::prom {

enum class MetricType { kCounter, kGauge, kHistogram };

struct Label {
  std::string name;
  std::string value;
};
using Labels = std::vector<Label>;

// One counter or gauge series.
struct Sample {
  Labels labels;
  double value = 0;
};

// One histogram series: cumulative counts per upper bound (bounds_s of the
// family, then +Inf = count), the sum of the samples in seconds and their count.
struct HistogramSample {
  Labels labels;
  std::vector<std::uint64_t> cumulative;  // one per bound, not counting +Inf
  double sum = 0;
  std::uint64_t count = 0;
};

struct Family {
  // The family's name without the counter's "_total" (OpenMetrics' family name);
  // the 0.0.4 text and the series' __name__ add it back.
  std::string name;
  std::string help;
  MetricType type = MetricType::kGauge;
  std::string unit;                    // "seconds", "bytes" or "" (the name ends in it)
  std::vector<Sample> samples;         // counters and gauges
  std::vector<double> bounds_s;        // histograms: the upper bounds (le), increasing
  std::vector<HistogramSample> histograms;
};

// The name a counter's samples carry (name + "_total"), others' as is.
inline std::string sample_name(const Family& family) {
  return family.type == MetricType::kCounter ? family.name + "_total" : family.name;
}

}  // namespace pacer::prom
