// The weighted task pick: each task's share of 100k picks is within 1 % of its
// weight's share (fixed seed), and a single task is always picked.
#include "scenario/weighted_pick.h"

#include <gtest/gtest.h>

#include <vector>

namespace pacer::scenario {
namespace {

void expect_shares(const std::vector<double>& weights, std::uint64_t seed) {
  WeightedPick pick(weights);
  Rng rng(seed);
  std::vector<int> counts(weights.size());
  constexpr int kPicks = 100'000;
  for (int i = 0; i < kPicks; ++i) ++counts[static_cast<std::size_t>(pick.pick(rng))];
  double total = 0;
  for (double w : weights) total += w;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double share = static_cast<double>(counts[i]) / kPicks;
    EXPECT_NEAR(share, weights[i] / total, 0.01) << "task " << i << " of " << weights.size();
  }
}

TEST(WeightedPick, FourToOneWithinOnePercent) { expect_shares({4, 1}, 1); }

TEST(WeightedPick, UnevenWeightsWithinOnePercent) { expect_shares({1, 2, 3, 4, 0.5}, 42); }

TEST(WeightedPick, FractionalWeights) { expect_shares({0.25, 0.75}, 7); }

TEST(WeightedPick, OneTaskIsAlwaysPicked) {
  WeightedPick pick({3});
  Rng rng(9);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(pick.pick(rng), 0);
}

TEST(WeightedPick, SameSeedSamePicks) {
  WeightedPick pick({1, 1, 1});
  Rng a(5);
  Rng b(5);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(pick.pick(a), pick.pick(b));
}

}  // namespace
}  // namespace pacer::scenario
