// Unit tests for stats::Histogram's lazy storage: counts live in chunks allocated
// on first use. A histogram that allocated only the chunks it touched must read
// exactly like one with every chunk allocated (the eager layout: the same counts,
// percentiles, moments and V2 bytes), merge and reset must keep that true, reset
// must keep the chunks (no allocation when a reused histogram sees the same ranges
// again), and the widest layouts cost only the ranges they hold. Fixed seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "stats/hdr_codec.h"
#include "stats/histogram.h"

namespace pacer::stats {
namespace {

constexpr std::int64_t kHourNs = 3'600'000'000'000;

// Every chunk of the layout allocated and every count zero: the eager layout.
Histogram fully_allocated(std::int64_t lowest, std::int64_t highest, int sig) {
  Histogram h(lowest, highest, sig);
  Histogram touch_all(lowest, highest, sig);
  for (int i = 0; i < touch_all.counts_len(); i += Histogram::kChunkCounts) touch_all.record(touch_all.value_at_index(i));
  EXPECT_TRUE(h.merge(touch_all));
  h.reset();
  EXPECT_EQ(h.total_count(), 0);
  return h;
}

// Log-uniform values from lowest to a bit past highest (clamped), and one negative.
std::vector<std::int64_t> random_values(std::uint64_t seed, std::size_t n, std::int64_t highest,
                                        std::int64_t lowest = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> log_value(std::log(static_cast<double>(lowest)),
                                                   std::log(static_cast<double>(highest)) + 0.5);
  std::vector<std::int64_t> values(n);
  for (auto& v : values) v = static_cast<std::int64_t>(std::exp(log_value(rng)));
  values.push_back(-5);
  return values;
}

void expect_same_reading(const Histogram& lazy, const Histogram& eager) {
  ASSERT_EQ(lazy.counts_len(), eager.counts_len());
  for (int i = 0; i < lazy.counts_len(); ++i) ASSERT_EQ(lazy.count_at_index(i), eager.count_at_index(i)) << i;
  EXPECT_EQ(lazy.total_count(), eager.total_count());
  EXPECT_EQ(lazy.clamped_count(), eager.clamped_count());
  EXPECT_EQ(lazy.min(), eager.min());
  EXPECT_EQ(lazy.max(), eager.max());
  EXPECT_EQ(lazy.mean(), eager.mean());
  EXPECT_EQ(lazy.stdev(), eager.stdev());
  for (double p : {0.0, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    EXPECT_EQ(lazy.value_at_percentile(p), eager.value_at_percentile(p)) << p;
  }
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{1'000}, std::int64_t{1'000'000}, kHourNs}) {
    EXPECT_EQ(lazy.count_at_or_below(v), eager.count_at_or_below(v)) << v;
  }
  EXPECT_EQ(lazy.fraction_within(1e3, 1e9), eager.fraction_within(1e3, 1e9));
  EXPECT_EQ(encode_v2(lazy), encode_v2(eager));
}

TEST(HistogramLazy, ANewHistogramHoldsNoChunk) {
  const Histogram h = Histogram::for_latency_ns();
  EXPECT_EQ(h.allocated_chunks(), 0);
  // The chunk table only: 1 KiB or so, where the eager layout took 270 KiB.
  EXPECT_LT(h.memory_bytes(), std::size_t{4096});
  EXPECT_EQ(h.value_at_percentile(99), 0);
  EXPECT_EQ(h.count_at_index(h.counts_len() - 1), 0);
}

TEST(HistogramLazy, RecordingAllocatesOnlyTheChunksOfTheRangesSeen) {
  Histogram h = Histogram::for_latency_ns();
  const long before = Histogram::chunk_allocations_total();
  for (int i = 0; i < 1000; ++i) h.record(100'000 + i);  // 100 us .. 101 us: one chunk
  EXPECT_EQ(h.allocated_chunks(), 1);
  h.record(5'000'000'000);  // 5 s: a second one
  EXPECT_EQ(h.allocated_chunks(), 2);
  EXPECT_EQ(Histogram::chunk_allocations_total() - before, 2);
  const auto chunk_bytes = static_cast<std::size_t>(Histogram::kChunkCounts) * sizeof(std::int64_t);
  EXPECT_LT(h.memory_bytes(), 2 * chunk_bytes + 4096);
}

TEST(HistogramLazy, ReadsExactlyLikeTheFullyAllocatedLayout) {
  // The whole range (every chunk ends up allocated), and a run's usual spread
  // (50 us .. 20 ms, plus the negative value: a few chunks).
  for (const std::int64_t lowest : {std::int64_t{1}, std::int64_t{50'000}}) {
    const std::int64_t highest = lowest == 1 ? kHourNs + kHourNs / 4 : 20'000'000;
    Histogram lazy = Histogram::for_latency_ns();
    Histogram eager = fully_allocated(1, kHourNs, 3);
    for (std::int64_t v : random_values(lowest, 5'000, highest, lowest)) {
      lazy.record(v);
      eager.record(v);
    }
    if (lowest > 1) {
      EXPECT_LT(lazy.allocated_chunks(), eager.allocated_chunks() / 2);
    }
    expect_same_reading(lazy, eager);
  }
}

TEST(HistogramLazy, OtherLayoutsReadExactlyLikeTheirFullyAllocatedOnes) {
  // Sub-bucket halves smaller and larger than a chunk, and a counts length that
  // is not a multiple of the chunk (the last chunk is partly outside the layout).
  struct Layout {
    std::int64_t lowest, highest;
    int sig;
  };
  for (const Layout& l : {Layout{1, 1'000'000, 1}, Layout{1000, 10'000'000'000, 2}, Layout{1, 45928, 3},
                          Layout{1, 1'000'000'000, 5}}) {
    const auto [lowest, highest, sig] = l;
    Histogram lazy(lowest, highest, sig);
    Histogram eager = fully_allocated(lowest, highest, sig);
    for (std::int64_t v : random_values(7, 3'000, highest)) {
      lazy.record(v);
      eager.record(v);
    }
    expect_same_reading(lazy, eager);
  }
}

TEST(HistogramLazy, MergeAllocatesOnlyWhatTheOtherHoldsAndReadsLikeEager) {
  Histogram a = Histogram::for_latency_ns();
  Histogram b = Histogram::for_latency_ns();
  Histogram eager = fully_allocated(1, kHourNs, 3);
  for (std::int64_t v : random_values(11, 2'000, kHourNs)) {
    a.record(v);
    eager.record(v);
  }
  b.record(42);
  b.record(7'000'000);
  eager.record(42);
  eager.record(7'000'000);
  Histogram into = Histogram::for_latency_ns();
  ASSERT_TRUE(into.merge(b));
  EXPECT_EQ(into.allocated_chunks(), b.allocated_chunks());
  ASSERT_TRUE(into.merge(a));
  expect_same_reading(into, eager);
}

TEST(HistogramLazy, RefusedMergeAllocatesNothing) {
  Histogram a = Histogram::for_latency_ns();
  Histogram b = Histogram::for_latency_ns();
  a.record_n(1'000, INT64_MAX - 1);
  b.record_n(1'000, 5);
  b.record(9'000'000'000);
  const int chunks = a.allocated_chunks();
  EXPECT_EQ(a.merge_checked(b), Histogram::MergeOutcome::kCountOverflows);
  EXPECT_EQ(a.allocated_chunks(), chunks);
  EXPECT_EQ(a.count_at_or_below(kHourNs), INT64_MAX - 1);
}

TEST(HistogramLazy, ResetKeepsChunksSoReuseDoesNotAllocate) {
  Histogram h = Histogram::for_latency_ns();
  const std::vector<std::int64_t> values = random_values(5, 2'000, 10'000'000'000);
  for (int round = 0; round < 3; ++round) {
    const long before = Histogram::chunk_allocations_total();
    for (std::int64_t v : values) h.record(v);
    if (round > 0) {
      EXPECT_EQ(Histogram::chunk_allocations_total(), before) << "round " << round;
    }
    const int chunks = h.allocated_chunks();
    h.reset();
    EXPECT_EQ(h.allocated_chunks(), chunks);
    EXPECT_EQ(h.total_count(), 0);
    EXPECT_EQ(h.max(), 0);
    EXPECT_EQ(h.value_at_percentile(50), 0);
    for (int i = 0; i < h.counts_len(); ++i) ASSERT_EQ(h.count_at_index(i), 0);
  }
}

TEST(HistogramLazy, CopyIsDeepAndReadsTheSame) {
  Histogram a = Histogram::for_latency_ns();
  for (std::int64_t v : random_values(3, 500, kHourNs)) a.record(v);
  Histogram copy = a;
  expect_same_reading(copy, a);
  copy.record(123);
  EXPECT_EQ(copy.total_count(), a.total_count() + 1);
  Histogram assigned = Histogram::for_latency_ns();
  assigned = a;
  expect_same_reading(assigned, a);
}

TEST(HistogramLazy, WidestLayoutCostsOnlyTheRangesItHolds) {
  // 1 .. INT64_MAX at 5 digits: about 6 million counts (48 MB eager).
  Histogram h(1, INT64_MAX, 5);
  EXPECT_GT(h.counts_len(), 5'000'000);
  h.record(1);
  h.record(INT64_MAX);
  EXPECT_EQ(h.allocated_chunks(), 2);
  EXPECT_LT(h.memory_bytes(), std::size_t{256 * 1024});
  EXPECT_EQ(h.value_at_percentile(100), INT64_MAX);
  EXPECT_EQ(h.value_at_percentile(50), 1);
  const Result<Histogram> back = decode_v2(encode_v2(h));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->allocated_chunks(), 2);
  EXPECT_EQ(back->total_count(), 2);
  EXPECT_EQ(encode_v2(*back), encode_v2(h));
}

}  // namespace
}  // namespace pacer::stats

namespace pacer::stats {
namespace {

// Reset and the readers look only between the recorded min and max: a histogram
// reused for a range far from the last one's reads only what it holds now.
TEST(HistogramRange, AResetHistogramReusedForAnotherRangeHoldsOnlyTheNewCounts) {
  Histogram h = Histogram::for_latency_ns();
  for (std::int64_t v = 1'000; v < 2'000'000'000; v *= 3) h.record_n(v, 7);
  h.reset();
  EXPECT_EQ(h.total_count(), 0);
  int seen = 0;
  h.for_each_count([&](int, std::int64_t) { ++seen; });
  EXPECT_EQ(seen, 0);
  h.record_n(50'000, 2);
  h.record_n(60'000'000, 1);
  std::int64_t sum = 0;
  h.for_each_count([&](int, std::int64_t n) { sum += n; });
  EXPECT_EQ(sum, 3);
  EXPECT_EQ(h.value_at_percentile(100), 60'000'000);  // never above the recorded max
  Histogram copy = Histogram::for_latency_ns();
  ASSERT_TRUE(copy.merge(h));
  EXPECT_EQ(copy.total_count(), 3);
  EXPECT_EQ(copy.value_at_percentile(50), h.value_at_percentile(50));
  h.reset();  // every count zeroed, at the range's two ends too
  for (std::int64_t v = 1'000; v < 2'000'000'000; v *= 3) EXPECT_EQ(h.count_at_index(h.index_of(v)), 0) << v;
}

TEST(HistogramRange, MergingAnEmptyHistogramChangesAndAllocatesNothing) {
  Histogram empty = Histogram::for_latency_ns();
  empty.record_n(5'000, 1);
  empty.reset();  // allocated chunks, no counts
  Histogram h = Histogram::for_latency_ns();
  const long before = Histogram::chunk_allocations_total();
  EXPECT_EQ(h.merge_checked(empty), Histogram::MergeOutcome::kMerged);
  EXPECT_EQ(Histogram::chunk_allocations_total(), before);
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
}

}  // namespace
}  // namespace pacer::stats
