// --targets-order (src/targets/order.h): round-robin, the weighted cycle, and
// seeded random picks.
#include "targets/order.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace pacer::targets {
namespace {

TEST(TargetOrder, RoundRobinVisitsEveryTargetInTurnFromEachWorkersOffset) {
  const std::array<std::uint32_t, 3> weights{1, 1, 1};
  const TargetOrder order(TargetsOrder::kRoundRobin, weights);
  TargetPicker second(order, 1, 2, 1);
  std::vector<std::uint32_t> picks;
  for (int i = 0; i < 4; ++i) picks.push_back(second.next());
  EXPECT_EQ(picks, (std::vector<std::uint32_t>{1, 2, 0, 1}));
}

TEST(TargetOrder, TheWeightedCycleHoldsEachTargetWeightTimesSpreadEvenly) {
  const std::array<std::uint32_t, 3> weights{1, 3, 6};
  const TargetOrder order(TargetsOrder::kWeighted, weights);
  ASSERT_EQ(order.cycle().size(), 10u);
  std::array<int, 3> counts{};
  for (std::uint32_t t : order.cycle()) ++counts[t];
  EXPECT_EQ(counts, (std::array<int, 3>{1, 3, 6}));
  // Evenly spread: the weight-6 target never sits out two picks in a row.
  for (std::size_t i = 0; i + 2 < order.cycle().size(); ++i) {
    EXPECT_TRUE(order.cycle()[i] == 2 || order.cycle()[i + 1] == 2 || order.cycle()[i + 2] == 2) << i;
  }
  TargetPicker picker(order, 0, 1, 1);
  std::array<int, 3> drawn{};
  for (int i = 0; i < 1000; ++i) ++drawn[picker.next()];
  EXPECT_EQ(drawn, (std::array<int, 3>{100, 300, 600}));
}

TEST(TargetOrder, RandomPicksRepeatForOneSeedAndCoverEveryTarget) {
  const std::array<std::uint32_t, 4> weights{1, 1, 1, 1};
  const TargetOrder order(TargetsOrder::kRandom, weights);
  TargetPicker a(order, 0, 2, 42);
  TargetPicker b(order, 0, 2, 42);
  TargetPicker other_seed(order, 0, 2, 43);
  std::array<int, 4> counts{};
  int same_as_other_seed = 0;
  for (int i = 0; i < 40000; ++i) {
    const std::uint32_t x = a.next();
    ASSERT_EQ(x, b.next());
    same_as_other_seed += x == other_seed.next() ? 1 : 0;
    ++counts[x];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 600);
  EXPECT_LT(same_as_other_seed, 12000);  // about a quarter agree by chance
}

}  // namespace
}  // namespace pacer::targets
