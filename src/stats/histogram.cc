// HdrHistogram with HdrHistogram_c's bucket layout: bucket b holds values
// [sub_bucket_half_count << (b + unit), sub_bucket_count << (b + unit)) in
// sub_bucket_half_count sub-buckets (bucket 0 also holds the lower half), and
// the count at counts_index(b, s) is ordered by value, so walking the counts in index
// order walks values in increasing order. The counts live in chunks of kChunkCounts
// indexes, allocated on first use (record or merge) and kept until destruction.
// Not thread-safe; each instance is owned by one thread.
#include "stats/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pacer::stats {
namespace {

// HdrHistogram's buckets_needed_to_cover_value: buckets until the first value the
// layout cannot hold exceeds value, stopping before the shift would overflow.
int buckets_needed_to_cover(std::int64_t value, std::int32_t sub_bucket_count, int unit_magnitude) {
  std::int64_t smallest_untrackable = static_cast<std::int64_t>(sub_bucket_count) << unit_magnitude;
  int buckets = 1;
  while (smallest_untrackable <= value) {
    if (smallest_untrackable > INT64_MAX / 2) return buckets + 1;
    smallest_untrackable <<= 1;
    ++buckets;
  }
  return buckets;
}

// The 1-based rank a percentile selects: max(1, ceil(percentile / 100 * total)).
// percentile is taken in fixed point (1e-9 percent) so that e.g. 99.9% of 1000
// is rank 999, where the double product 999.0000000000001 would round up to 1000.
std::int64_t rank_at_percentile(double percentile, std::int64_t total) {
  if (!(percentile > 0.0)) return 1;  // also catches NaN
  const double clamped = std::min(percentile, 100.0);
  constexpr __int128 kScale = 100'000'000'000;  // 100% in units of 1e-9 percent
  const auto scaled = static_cast<__int128>(std::llround(clamped * 1e9));
  const __int128 rank = (scaled * total + kScale - 1) / kScale;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(rank));
}

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "pacer: invalid Histogram parameters: %s\n", what);
  std::abort();
}

}  // namespace

Histogram::Histogram(std::int64_t lowest_discernible, std::int64_t highest_trackable, int significant_figures)
    : lowest_discernible_(lowest_discernible),
      highest_trackable_(highest_trackable),
      significant_figures_(significant_figures) {
  if (lowest_discernible < 1) die("lowest_discernible < 1");
  if (significant_figures < 1 || significant_figures > 5) die("significant_figures outside [1, 5]");
  if (highest_trackable / 2 < lowest_discernible) die("highest_trackable < 2 * lowest_discernible");

  // ceil(log2(2 * 10^significant_figures)), in integers to avoid log() rounding.
  std::int64_t single_unit_resolution = 2;
  for (int i = 0; i < significant_figures; ++i) single_unit_resolution *= 10;
  int sub_bucket_count_magnitude = 0;
  while ((std::int64_t{1} << sub_bucket_count_magnitude) < single_unit_resolution) ++sub_bucket_count_magnitude;

  sub_bucket_half_count_magnitude_ = std::max(sub_bucket_count_magnitude, 1) - 1;
  unit_magnitude_ = 63 - __builtin_clzll(static_cast<unsigned long long>(lowest_discernible));  // floor(log2)
  if (unit_magnitude_ + sub_bucket_half_count_magnitude_ > 61) die("lowest_discernible too large");

  sub_bucket_count_ = std::int32_t{1} << (sub_bucket_half_count_magnitude_ + 1);
  sub_bucket_half_count_ = sub_bucket_count_ / 2;
  sub_bucket_mask_ = static_cast<std::int64_t>(sub_bucket_count_ - 1) << unit_magnitude_;
  bucket_count_ = buckets_needed_to_cover(highest_trackable, sub_bucket_count_, unit_magnitude_);
  counts_len_ = (bucket_count_ + 1) * sub_bucket_half_count_;
  chunks_.resize(static_cast<std::size_t>((counts_len_ + kChunkCounts - 1) >> kChunkShift));
}

Histogram Histogram::for_latency_ns() { return Histogram(1, 3'600'000'000'000, 3); }

std::atomic<long> Histogram::chunk_allocations_{0};

Histogram::Histogram(const Histogram& other)
    : lowest_discernible_(other.lowest_discernible_),
      highest_trackable_(other.highest_trackable_),
      significant_figures_(other.significant_figures_),
      unit_magnitude_(other.unit_magnitude_),
      sub_bucket_half_count_magnitude_(other.sub_bucket_half_count_magnitude_),
      sub_bucket_count_(other.sub_bucket_count_),
      sub_bucket_half_count_(other.sub_bucket_half_count_),
      sub_bucket_mask_(other.sub_bucket_mask_),
      bucket_count_(other.bucket_count_),
      counts_len_(other.counts_len_),
      total_count_(other.total_count_),
      clamped_count_(other.clamped_count_),
      min_(other.min_),
      max_(other.max_),
      chunks_(other.chunks_.size()) {
  for (std::size_t c = 0; c < chunks_.size(); ++c) {
    if (other.chunks_[c] == nullptr) continue;
    std::copy_n(other.chunks_[c].get(), kChunkCounts, allocate_chunk(c));
  }
}

Histogram& Histogram::operator=(const Histogram& other) {
  if (this != &other) *this = Histogram(other);
  return *this;
}

std::int64_t* Histogram::allocate_chunk(std::size_t chunk) {
  chunks_[chunk] = std::make_unique<std::int64_t[]>(kChunkCounts);  // zeroed
  chunk_allocations_.fetch_add(1, std::memory_order_relaxed);
  return chunks_[chunk].get();
}

int Histogram::allocated_chunks() const {
  return static_cast<int>(std::count_if(chunks_.begin(), chunks_.end(), [](const Chunk& c) { return c != nullptr; }));
}

std::size_t Histogram::memory_bytes() const {
  return sizeof(*this) + chunks_.capacity() * sizeof(Chunk) +
         static_cast<std::size_t>(allocated_chunks()) * kChunkCounts * sizeof(std::int64_t);
}

int Histogram::bucket_index(std::int64_t value) const noexcept {
  // The mask folds every value below sub_bucket_count << unit into bucket 0.
  const int pow2_ceiling = 64 - __builtin_clzll(static_cast<unsigned long long>(value | sub_bucket_mask_));
  return pow2_ceiling - unit_magnitude_ - (sub_bucket_half_count_magnitude_ + 1);
}

int Histogram::sub_bucket_index(std::int64_t value, int bucket) const noexcept {
  return static_cast<int>(value >> (bucket + unit_magnitude_));
}

int Histogram::counts_index(int bucket, int sub_bucket) const noexcept {
  const int bucket_base = (bucket + 1) << sub_bucket_half_count_magnitude_;
  return bucket_base + (sub_bucket - sub_bucket_half_count_);
}

std::int64_t Histogram::value_from(int bucket, int sub_bucket) const noexcept {
  return static_cast<std::int64_t>(sub_bucket) << (bucket + unit_magnitude_);
}

std::int64_t Histogram::clamp_to_range(std::int64_t value) const noexcept {
  return std::clamp<std::int64_t>(value, 0, highest_trackable_);
}

bool Histogram::same_layout(const Histogram& other) const noexcept {
  return lowest_discernible_ == other.lowest_discernible_ && highest_trackable_ == other.highest_trackable_ &&
         significant_figures_ == other.significant_figures_;
}

void Histogram::record_n(std::int64_t value, std::int64_t count) noexcept {
  if (count <= 0) return;
  if (value > highest_trackable_) clamped_count_ += count;
  const std::int64_t v = clamp_to_range(value);
  const int bucket = bucket_index(v);
  const int index = counts_index(bucket, sub_bucket_index(v, bucket));
  chunk_for(index)[index & (kChunkCounts - 1)] += count;
  total_count_ += count;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
}

Histogram::MergeOutcome Histogram::merge_checked(const Histogram& other) {
  if (!same_layout(other)) return MergeOutcome::kLayoutDiffers;
  if (other.total_count_ == 0) return MergeOutcome::kMerged;  // nothing recorded (a clamped value is counted too)
  // Check the sums first, so a refused merge changes nothing. The totals are
  // enough: every count is at most its histogram's total (counts are added only
  // with the total, and a decoded total is checked), so when the totals' sum
  // fits, so does every count's.
  std::int64_t total = 0;
  std::int64_t clamped = 0;
  if (__builtin_add_overflow(total_count_, other.total_count_, &total) ||
      __builtin_add_overflow(clamped_count_, other.clamped_count_, &clamped)) {
    return MergeOutcome::kCountOverflows;
  }
  other.for_each_count([&](int i, std::int64_t n) { chunk_for(i)[i & (kChunkCounts - 1)] += n; });
  total_count_ = total;
  clamped_count_ = clamped;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  return MergeOutcome::kMerged;
}

void Histogram::reset() noexcept {
  if (total_count_ > 0) {  // every count lies between the indexes of the recorded min and max
    const int first = index_of(min_);
    const int last = index_of(max_);
    for (int c = first >> kChunkShift; c <= last >> kChunkShift; ++c) {
      std::int64_t* chunk = chunks_[static_cast<std::size_t>(c)].get();
      if (chunk == nullptr) continue;
      const int base = c << kChunkShift;
      std::fill(chunk + std::max(0, first - base), chunk + std::min(kChunkCounts, last - base + 1), 0);
    }
  }
  total_count_ = 0;
  clamped_count_ = 0;
  min_ = INT64_MAX;
  max_ = 0;
}

std::int64_t Histogram::min() const { return total_count_ == 0 ? 0 : min_; }
std::int64_t Histogram::max() const { return max_; }

double Histogram::hdr_mean() const {
  if (total_count_ == 0) return 0.0;
  double sum = 0.0;
  for_each_recorded([&](std::int64_t lo, std::int64_t, std::int64_t n) {
    sum += static_cast<double>(median_equivalent(lo)) * static_cast<double>(n);
  });
  return sum / static_cast<double>(total_count_);
}

double Histogram::mean() const {
  // The buckets' middles estimate it; min and max are exact, and a true mean lies
  // between them (one sample in a bucket's lower half would otherwise read above its max).
  return total_count_ == 0 ? 0.0 : std::clamp(hdr_mean(), static_cast<double>(min_), static_cast<double>(max_));
}

bool Histogram::restore_extremes(std::int64_t min, std::int64_t max) {
  if (total_count_ == 0 || min > max || index_of(min) != index_of(min_) || index_of(max) != index_of(max_)) return false;
  min_ = min;
  max_ = max;
  return true;
}

double Histogram::stdev() const {
  if (total_count_ == 0) return 0.0;
  const double mu = hdr_mean();  // the spread of the buckets, as HdrHistogram gives it
  double sum_squares = 0.0;
  for_each_recorded([&](std::int64_t lo, std::int64_t, std::int64_t n) {
    const double dev = static_cast<double>(median_equivalent(lo)) - mu;
    sum_squares += dev * dev * static_cast<double>(n);
  });
  return std::sqrt(sum_squares / static_cast<double>(total_count_));
}

std::int64_t Histogram::value_at_percentile(double percentile) const {
  if (total_count_ == 0) return 0;
  if (!(percentile > 0.0)) return min();
  const std::int64_t rank = rank_at_percentile(percentile, total_count_);
  std::int64_t cumulative = 0;
  for (std::size_t c = 0; c < chunks_.size(); ++c) {  // stops at the rank: no for_each_count
    const std::int64_t* chunk = chunks_[c].get();
    if (chunk == nullptr) continue;
    const int base = static_cast<int>(c) << kChunkShift;
    const int end = std::min(kChunkCounts, counts_len_ - base);
    for (int k = 0; k < end; ++k) {
      cumulative += chunk[k];
      if (cumulative >= rank) return std::min(highest_equivalent(value_at_index(base + k)), max());
    }
  }
  return max();  // unreachable while the counts sum to total_count_
}

double Histogram::fraction_within(double lo, double hi) const {
  if (total_count_ == 0) return 0.0;
  std::int64_t inside = 0;
  for_each_recorded([&](std::int64_t bucket_lo, std::int64_t, std::int64_t n) {
    const auto mid = static_cast<double>(median_equivalent(bucket_lo));
    if (mid >= lo && mid <= hi) inside += n;
  });
  return static_cast<double>(inside) / static_cast<double>(total_count_);
}

std::int64_t Histogram::count_at_or_below(std::int64_t value) const {
  const int last = index_of(value);
  std::int64_t cumulative = 0;
  for_each_count([&](int i, std::int64_t n) {
    if (i <= last) cumulative += n;
  });
  return cumulative;
}

// Values outside [0, highest_trackable] map to the index they would be recorded at.
int Histogram::index_of(std::int64_t value) const {
  const std::int64_t v = clamp_to_range(value);
  const int bucket = bucket_index(v);
  return counts_index(bucket, sub_bucket_index(v, bucket));
}

std::int64_t Histogram::value_at_index(int index) const {
  int bucket = (index >> sub_bucket_half_count_magnitude_) - 1;
  int sub_bucket = (index & (sub_bucket_half_count_ - 1)) + sub_bucket_half_count_;
  if (bucket < 0) {  // the lower half of bucket 0
    sub_bucket -= sub_bucket_half_count_;
    bucket = 0;
  }
  return value_from(bucket, sub_bucket);
}

// The equivalence helpers accept any value; negatives are treated as 0.
std::int64_t Histogram::lowest_equivalent(std::int64_t value) const {
  const std::int64_t v = std::max<std::int64_t>(value, 0);
  const int bucket = bucket_index(v);
  return value_from(bucket, sub_bucket_index(v, bucket));
}

std::int64_t Histogram::size_of_equivalent_range(std::int64_t value) const {
  // HdrHistogram_c also checks sub_bucket >= sub_bucket_count here; with the mask
  // in bucket_index() that cannot happen, so the range is just the bucket's unit.
  return std::int64_t{1} << (unit_magnitude_ + bucket_index(std::max<std::int64_t>(value, 0)));
}

std::int64_t Histogram::highest_equivalent(std::int64_t value) const {
  // lowest + (size - 1) rather than next_non_equivalent - 1: no overflow at INT64_MAX.
  return lowest_equivalent(value) + (size_of_equivalent_range(value) - 1);
}

std::int64_t Histogram::median_equivalent(std::int64_t value) const {
  return lowest_equivalent(value) + (size_of_equivalent_range(value) >> 1);
}

Percentile percentile_with_censoring(const Histogram& all, const Histogram& censored, double percentile) {
  if (all.total_count() == 0) return {};
  const bool has_censored = censored.counts_len() == all.counts_len() &&
                            censored.lowest_discernible() == all.lowest_discernible() &&
                            censored.highest_trackable() == all.highest_trackable() &&
                            censored.significant_figures() == all.significant_figures();
  const std::int64_t rank = rank_at_percentile(percentile, all.total_count());
  std::int64_t cumulative = 0;
  for (int i = 0; i < all.counts_len(); ++i) {
    const std::int64_t in_bucket = all.count_at_index(i);
    if (cumulative + in_bucket < rank) {
      cumulative += in_bucket;
      continue;
    }
    // Censored samples rank last within their bucket: their true value is larger.
    const std::int64_t censored_here = has_censored ? censored.count_at_index(i) : 0;
    const std::int64_t uncensored_here = std::max<std::int64_t>(in_bucket - censored_here, 0);
    return {all.value_at_percentile(percentile), rank > cumulative + uncensored_here};
  }
  return {all.max(), false};  // unreachable while counts sum to total_count()
}

}  // namespace pacer::stats
