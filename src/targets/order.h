// --targets-order: which target each request takes. A TargetOrder is built once
// before the run (the weighted order's cycle) and shared read-only; each worker
// has its own TargetPicker, whose next() is O(1) and allocates nothing.
//
// - round-robin: targets in file order, each worker starting at its own offset;
// - weighted: a fixed cycle holding target i weight_i times, spread evenly
//   (stride scheduling: the k-th copy of i sits at (k + 1/2) / weight_i), so any
//   stretch of requests follows the weights closely, not only on average;
// - random: uniform over the targets, from a generator seeded by --seed and the
//   worker (and shard) index, so a run repeats.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/config.h"

namespace pacer::targets {

class TargetOrder {
 public:
  TargetOrder() = default;
  // weights: one per target (>= 1 each; the sum bounded by kMaxTotalWeight).
  TargetOrder(TargetsOrder order, std::span<const std::uint32_t> weights);

  TargetsOrder order() const { return order_; }
  std::uint32_t target_count() const { return target_count_; }
  // The weighted order's cycle: target indexes, sum(weights) entries.
  const std::vector<std::uint32_t>& cycle() const { return cycle_; }

 private:
  TargetsOrder order_ = TargetsOrder::kRoundRobin;
  std::uint32_t target_count_ = 1;
  std::vector<std::uint32_t> cycle_;
};

class TargetPicker {
 public:
  TargetPicker() = default;
  // stream: this worker's index among `streams` (all workers of all shards).
  TargetPicker(const TargetOrder& order, std::uint64_t stream, std::uint64_t streams, std::uint64_t seed);

  std::uint32_t next() {
    switch (kind_) {
      case TargetsOrder::kRoundRobin: {
        const std::uint32_t i = position_;
        position_ = position_ + 1 == count_ ? 0 : position_ + 1;
        return i;
      }
      case TargetsOrder::kWeighted: {
        const std::uint32_t i = cycle_[position_];
        position_ = position_ + 1 == count_ ? 0 : position_ + 1;
        return i;
      }
      case TargetsOrder::kRandom:
        return static_cast<std::uint32_t>((static_cast<unsigned __int128>(next_random()) * count_) >> 64);
    }
    return 0;
  }

 private:
  std::uint64_t next_random() {  // splitmix64
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  TargetsOrder kind_ = TargetsOrder::kRoundRobin;
  const std::uint32_t* cycle_ = nullptr;
  std::uint32_t count_ = 1;     // targets (round-robin, random) or cycle entries (weighted)
  std::uint32_t position_ = 0;
  std::uint64_t state_ = 0;
};

}  // namespace pacer::targets
