// See weighted_pick.h.
#include "scenario/weighted_pick.h"

#include <algorithm>

namespace pacer::scenario {

WeightedPick::WeightedPick(const std::vector<double>& weights) {
  cumulative_.reserve(weights.size());
  double sum = 0;
  for (double w : weights) {
    sum += w;
    cumulative_.push_back(sum);
  }
}

int WeightedPick::pick(Rng& rng) const {
  if (cumulative_.size() <= 1) return 0;
  const double x = rng.uniform() * cumulative_.back();
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), x);
  const auto index = std::min<std::ptrdiff_t>(it - cumulative_.begin(), static_cast<std::ptrdiff_t>(cumulative_.size()) - 1);
  return static_cast<int>(index);
}

}  // namespace pacer::scenario
