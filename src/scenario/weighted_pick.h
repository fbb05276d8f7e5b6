// Picking a scenario's task at random by weight, and the small generator the
// scenario uses (one per worker, seeded from --seed and the worker's index so a
// run repeats). Built once before the run; pick() is O(log n), no allocation.
#pragma once

#include <cstdint>
#include <vector>

namespace pacer::scenario {

// SplitMix64: fast, 64-bit state, good enough for picking tasks and think times.
class Rng {
 public:
  explicit Rng(std::uint64_t seed = 1) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

class WeightedPick {
 public:
  WeightedPick() = default;
  // weights: each > 0 and finite (the loader checked).
  explicit WeightedPick(const std::vector<double>& weights);
  // An index in [0, size()), each with probability weight / total.
  int pick(Rng& rng) const;
  int size() const { return static_cast<int>(cumulative_.size()); }

 private:
  std::vector<double> cumulative_;  // running sums; the last is the total
};

}  // namespace pacer::scenario
