// Micro-benchmarks for stats::Histogram on the latency layout (1 ns .. 1 h, 3
// significant digits): record() is on every request's path, value_at_percentile()
// and merge() run once per report. Single-threaded; each benchmark owns its data.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "stats/histogram.h"

namespace {

using pacer::stats::Histogram;

// Latencies spread log-uniformly between 10 us and 100 ms, so record() touches
// many buckets as a real run does. Generated before timing starts.
std::vector<std::int64_t> make_latencies_ns(std::size_t count) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> log10_ns(4.0, 8.0);
  std::vector<std::int64_t> values_ns(count);
  for (auto& v : values_ns) v = static_cast<std::int64_t>(std::pow(10.0, log10_ns(rng)));
  return values_ns;
}

Histogram filled_histogram(std::size_t count) {
  Histogram h = Histogram::for_latency_ns();
  for (const std::int64_t v : make_latencies_ns(count)) h.record(v);
  return h;
}

void BM_HistogramRecord(benchmark::State& state) {
  const std::vector<std::int64_t> values_ns = make_latencies_ns(4096);
  Histogram h = Histogram::for_latency_ns();
  std::size_t i = 0;
  for (auto _ : state) {
    h.record(values_ns[i]);
    i = (i + 1) & (values_ns.size() - 1);
  }
  benchmark::DoNotOptimize(h.total_count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecord);

// The same value every time: the best case (one hot counter).
void BM_HistogramRecordSameValue(benchmark::State& state) {
  Histogram h = Histogram::for_latency_ns();
  std::int64_t value_ns = 1'234'567;
  for (auto _ : state) {
    benchmark::DoNotOptimize(value_ns);
    h.record(value_ns);
  }
  benchmark::DoNotOptimize(h.total_count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecordSameValue);

void BM_HistogramValueAtPercentile(benchmark::State& state) {
  const Histogram h = filled_histogram(1'000'000);
  const double percentile = static_cast<double>(state.range(0)) / 10.0;
  for (auto _ : state) benchmark::DoNotOptimize(h.value_at_percentile(percentile));
}
BENCHMARK(BM_HistogramValueAtPercentile)->Arg(500)->Arg(990)->Arg(999);

// One report's worth of percentiles (the wrk --latency set plus 99.99).
void BM_HistogramReportPercentiles(benchmark::State& state) {
  const Histogram h = filled_histogram(1'000'000);
  constexpr double kPercentiles[] = {50.0, 75.0, 90.0, 99.0, 99.9, 99.99};
  for (auto _ : state) {
    for (const double p : kPercentiles) benchmark::DoNotOptimize(h.value_at_percentile(p));
  }
}
BENCHMARK(BM_HistogramReportPercentiles);

void BM_HistogramMerge(benchmark::State& state) {
  const Histogram worker = filled_histogram(100'000);
  Histogram total = Histogram::for_latency_ns();
  for (auto _ : state) {
    benchmark::DoNotOptimize(total.merge(worker));
  }
  state.counters["counts_len"] = static_cast<double>(worker.counts_len());
}
BENCHMARK(BM_HistogramMerge);

}  // namespace
