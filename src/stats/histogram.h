// HdrHistogram: records integer values in O(1) into an array of counts whose
// layout (unit magnitude, sub-bucket count, bucket count, counts index) is the one
// HdrHistogram_c and the Java reference use, so the V2 encoding needs no conversion.
// The counts are stored lazily, in chunks of kChunkCounts consecutive indexes
// (2 KiB): a chunk is allocated the first time a value of its range is recorded or
// merged in, and kept until the histogram is destroyed (reset() zeroes it), so a
// histogram costs what the ranges it has seen cost, and record() allocates at most
// once per chunk in its lifetime. Not thread-safe: each worker owns its
// histograms; merge() combines them.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace pacer::stats {

class Histogram {
 public:
  // lowest_discernible >= 1; highest_trackable >= 2 * lowest_discernible;
  // significant_figures in [1, 5]. Invalid parameters abort (programmer error).
  Histogram(std::int64_t lowest_discernible, std::int64_t highest_trackable, int significant_figures);

  // The latency layout used everywhere: 1 ns to 1 h, 3 significant digits.
  static Histogram for_latency_ns();

  Histogram(const Histogram& other);
  Histogram& operator=(const Histogram& other);
  Histogram(Histogram&&) noexcept = default;
  Histogram& operator=(Histogram&&) noexcept = default;
  ~Histogram() = default;

  // Counts per chunk (a power of two): the unit of lazy allocation.
  static constexpr int kChunkShift = 8;
  static constexpr int kChunkCounts = 1 << kChunkShift;

  // Records value (count times). A negative value is recorded as 0; a value above
  // highest_trackable() is clamped to it and counted in clamped_count(). The first
  // value of a chunk's range allocates that chunk (std::bad_alloc terminates).
  void record(std::int64_t value) noexcept { record_n(value, 1); }
  void record_n(std::int64_t value, std::int64_t count) noexcept;

  // Adds other's counts. Layouts must match (same constructor parameters), and
  // no count (a bucket's, the total, the clamped) may pass INT64_MAX: otherwise
  // nothing changes and the outcome says why. merge() is the same as a bool.
  // Not the per-request path (record_n is, unchecked): merges run at the end of
  // a run, per interval, and in `pacer merge`, whose counts come from files.
  enum class MergeOutcome { kMerged, kLayoutDiffers, kCountOverflows };
  [[nodiscard]] MergeOutcome merge_checked(const Histogram& other);
  bool merge(const Histogram& other) { return merge_checked(other) == MergeOutcome::kMerged; }
  // Zeroes every count; allocated chunks stay allocated (a reused histogram, such
  // as an interval ring's, does not allocate again for the ranges it has seen).
  void reset() noexcept;

  // Memory: chunks allocated by this histogram, and its footprint in bytes (the
  // object, the chunk table and the chunks).
  int allocated_chunks() const;
  std::size_t memory_bytes() const;
  // Chunks allocated by every Histogram of the process so far (a relaxed counter,
  // touched only when a chunk is allocated): lets the allocation test tell the
  // bounded first-touch allocations from per-request ones.
  static long chunk_allocations_total() { return chunk_allocations_.load(std::memory_order_relaxed); }

  std::int64_t total_count() const { return total_count_; }
  std::int64_t clamped_count() const { return clamped_count_; }
  // min/max are the exact recorded extremes (0 when empty), not bucket bounds.
  std::int64_t min() const;
  std::int64_t max() const;
  // From bucket midpoints, as HdrHistogram does, but within the exact [min, max]
  // (a true mean is); 0 when empty.
  double mean() const;
  // HdrHistogram's own mean, the buckets' midpoints unclamped: what its .hgrm
  // footer prints (the Java and C implementations' byte for byte).
  double hdr_mean() const;
  // A histogram decoded from V2 (which keeps buckets only) gets back the exact
  // extremes its summary gave: false (nothing changed) when they do not fall in
  // its lowest and highest buckets.
  bool restore_extremes(std::int64_t min, std::int64_t max);
  double stdev() const;   // population standard deviation; 0 when empty

  // HdrHistogram semantics: the smallest recorded bucket whose cumulative count
  // reaches ceil(percentile/100 * total) (at least 1), reported as the highest
  // value equivalent to that bucket, but never above max(). percentile in [0, 100].
  std::int64_t value_at_percentile(double percentile) const;

  // Share (0..1) of recorded values in [lo, hi] by bucket; used for "+/- Stdev".
  double fraction_within(double lo, double hi) const;

  // Number of recorded values whose bucket is at or below the bucket of value.
  std::int64_t count_at_or_below(std::int64_t value) const;

  // Bucket geometry (HdrHistogram's names).
  std::int64_t lowest_discernible() const { return lowest_discernible_; }
  std::int64_t highest_trackable() const { return highest_trackable_; }
  int significant_figures() const { return significant_figures_; }
  int counts_len() const { return counts_len_; }
  int index_of(std::int64_t value) const;
  std::int64_t count_at_index(int index) const {
    const std::int64_t* chunk = chunks_[static_cast<std::size_t>(index >> kChunkShift)].get();
    return chunk == nullptr ? 0 : chunk[index & (kChunkCounts - 1)];
  }
  std::int64_t value_at_index(int index) const;           // lowest value of that bucket
  std::int64_t lowest_equivalent(std::int64_t value) const;
  std::int64_t highest_equivalent(std::int64_t value) const;
  std::int64_t size_of_equivalent_range(std::int64_t value) const;
  std::int64_t median_equivalent(std::int64_t value) const;

  // Calls fn(bucket_lowest_value, bucket_highest_value, count) for each bucket
  // with a non-zero count, in increasing value order.
  template <typename Fn>
  void for_each_recorded(Fn&& fn) const {
    for_each_count([&](int i, std::int64_t n) {
      const std::int64_t lo = value_at_index(i);
      fn(lo, highest_equivalent(lo), n);
    });
  }

  // Calls fn(index, count) for each non-zero count, in increasing index order.
  // Looks only between the indexes of the recorded min and max (every count
  // lies there), skipping the chunks never allocated: an interval's histogram
  // that keeps the chunks of every range it has seen costs what this interval
  // reached, not what the run did.
  template <typename Fn>
  void for_each_count(Fn&& fn) const {
    if (total_count_ == 0) return;
    const int first = index_of(min_);
    const int last = index_of(max_);
    for (int c = first >> kChunkShift; c <= last >> kChunkShift; ++c) {
      const std::int64_t* chunk = chunks_[static_cast<std::size_t>(c)].get();
      if (chunk == nullptr) continue;
      const int base = c << kChunkShift;
      const int end = std::min(kChunkCounts, last - base + 1);
      for (int k = std::max(0, first - base); k < end; ++k) {
        if (chunk[k] != 0) fn(base + k, chunk[k]);
      }
    }
  }

 private:
  // HdrHistogram's internal coordinates; value must be >= 0.
  int bucket_index(std::int64_t value) const noexcept;
  int sub_bucket_index(std::int64_t value, int bucket) const noexcept;
  int counts_index(int bucket, int sub_bucket) const noexcept;
  std::int64_t value_from(int bucket, int sub_bucket) const noexcept;
  std::int64_t clamp_to_range(std::int64_t value) const noexcept;
  bool same_layout(const Histogram& other) const noexcept;
  // The chunk holding counts index `index`, allocated (zeroed) if it was not:
  // record_n's one branch on the lazy storage (a shift, no division).
  std::int64_t* chunk_for(int index) {
    const auto chunk = static_cast<std::size_t>(index >> kChunkShift);
    std::int64_t* counts = chunks_[chunk].get();
    if (counts == nullptr) [[unlikely]] counts = allocate_chunk(chunk);
    return counts;
  }
  [[gnu::noinline, gnu::cold]] std::int64_t* allocate_chunk(std::size_t chunk);

  using Chunk = std::unique_ptr<std::int64_t[]>;
  static std::atomic<long> chunk_allocations_;

  std::int64_t lowest_discernible_;
  std::int64_t highest_trackable_;
  int significant_figures_;
  int unit_magnitude_ = 0;
  int sub_bucket_half_count_magnitude_ = 0;
  std::int32_t sub_bucket_count_ = 0;
  std::int32_t sub_bucket_half_count_ = 0;
  std::int64_t sub_bucket_mask_ = 0;
  int bucket_count_ = 0;
  int counts_len_ = 0;
  std::int64_t total_count_ = 0;
  std::int64_t clamped_count_ = 0;
  std::int64_t min_ = INT64_MAX;
  std::int64_t max_ = 0;
  std::vector<Chunk> chunks_;  // counts_len_ / kChunkCounts rounded up; null: all zero
};

// A percentile read from a latency histogram that also holds censored samples
// (requests cancelled at their timeout, recorded at the cancel time). Within a
// bucket, censored samples rank after uncensored ones because their true value is
// at least the recorded one. If the requested rank lands on a censored sample the
// value is only a lower bound: is_lower_bound is true and reports print ">= value".
struct Percentile {
  std::int64_t value = 0;
  bool is_lower_bound = false;
};

// all: every sample (censored ones included); censored: only the censored samples,
// same layout. percentile in [0, 100].
Percentile percentile_with_censoring(const Histogram& all, const Histogram& censored, double percentile);

// The latency histogram `h` holds, made (the latency layout) on first use: the
// per-name histograms are made only for the names that record.
inline Histogram& latency_histogram(std::unique_ptr<Histogram>& h) {
  if (!h) [[unlikely]] h = std::make_unique<Histogram>(Histogram::for_latency_ns());
  return *h;
}

}  // namespace pacer::stats
