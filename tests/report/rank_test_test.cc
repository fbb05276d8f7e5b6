// The Mann-Whitney U test (report/rank_test.h) against values worked by hand and
// by the published tables.
#include "report/rank_test.h"

#include <gtest/gtest.h>

namespace pacer::report {
namespace {

TEST(MannWhitney, ThreeRunsEachAllWorseIsOneInTwenty) {
  // C(6,3) = 20 orderings; only one puts every candidate above every baseline.
  const RankTest t = mann_whitney({10, 11, 12}, {13, 14, 15});
  EXPECT_TRUE(t.exact);
  EXPECT_TRUE(t.all_greater);
  EXPECT_DOUBLE_EQ(t.u, 9);
  EXPECT_DOUBLE_EQ(t.p_greater, 1.0 / 20);
  EXPECT_DOUBLE_EQ(t.p_less, 1.0);
}

TEST(MannWhitney, InterleavedRunsAreFarFromSignificant) {
  const RankTest t = mann_whitney({10, 12, 14}, {11, 13, 15});
  EXPECT_DOUBLE_EQ(t.u, 6);  // 11>10; 13>10,12; 15>10,12,14
  // P(U >= 6) for n = m = 3: counts of U = 0..9 are 1 1 2 3 3 3 3 2 1 1.
  EXPECT_DOUBLE_EQ(t.p_greater, 7.0 / 20);
  EXPECT_DOUBLE_EQ(t.p_less, 16.0 / 20);
}

TEST(MannWhitney, ExactDistributionMatchesTheTableForFourAndFive) {
  // n = 4, m = 5: P(U <= 1) = 2 / C(9,4) = 2/126 (critical values tables).
  const RankTest t = mann_whitney({10, 11, 12, 13, 20}, {1, 2, 3, 15});
  EXPECT_DOUBLE_EQ(t.u, 4);  // 15 beats 10..13
  const RankTest lowest = mann_whitney({10, 11, 12, 13, 20}, {1, 2, 3, 11.5});
  EXPECT_DOUBLE_EQ(lowest.u, 2);
  const RankTest extreme = mann_whitney({10, 11, 12, 13, 20}, {1, 2, 3, 10.5});
  EXPECT_DOUBLE_EQ(extreme.u, 1);
  EXPECT_NEAR(extreme.p_less, 2.0 / 126, 1e-12);
}

TEST(MannWhitney, TiesUseTheNormalApproximation) {
  const RankTest same = mann_whitney({5, 5, 5}, {5, 5, 5});
  EXPECT_FALSE(same.exact);
  EXPECT_DOUBLE_EQ(same.p_greater, 1);
  const RankTest t = mann_whitney({1, 2, 2, 3, 4, 5, 6, 7}, {7, 9, 9, 10, 11, 12, 13, 14});  // 7 on both sides
  EXPECT_FALSE(t.exact);
  EXPECT_LT(t.p_greater, 0.001);
  EXPECT_GT(t.p_less, 0.99);
}

TEST(MannWhitney, LargeSamplesAreApproximatedSymmetrically) {
  std::vector<double> a, b;
  for (int i = 0; i < 40; ++i) {
    a.push_back(i * 2);
    b.push_back(i * 2 + 1);
  }
  const RankTest t = mann_whitney(a, b);
  EXPECT_FALSE(t.exact);
  EXPECT_GT(t.p_greater, 0.3);
  EXPECT_GT(t.p_less, 0.3);
}

TEST(MannWhitney, AnEmptySideJudgesNothing) {
  const RankTest t = mann_whitney({}, {1, 2});
  EXPECT_DOUBLE_EQ(t.p_greater, 1);
  EXPECT_DOUBLE_EQ(t.p_less, 1);
}

}  // namespace
}  // namespace pacer::report
