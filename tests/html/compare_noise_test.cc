// Significance of a compared figure (html/compare_noise.h): deterministic samples.
#include "html/compare_noise.h"
#include "html/compare.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace pacer::html {
namespace {

TEST(CompareNoise, ThreeRunsEachEveryNewRunSlowerAndBeyondTheSpreadIsSignificant) {
  const Significance s = judge({100, 104, 98}, {140, 145, 138}, true, 0.40, true, "slower");
  EXPECT_TRUE(s.known);
  EXPECT_TRUE(s.significant);
  EXPECT_TRUE(s.every_worse);
  EXPECT_DOUBLE_EQ(s.p, 0.05);
  EXPECT_EQ(s.words, "3 runs each, every new run slower than every old one: significant");
}

TEST(CompareNoise, AChangeWithinTheRunToRunSpreadIsNotSignificant) {
  // Every new run is slower, but by less than the baseline's own spread (± 15 %).
  const Significance s = judge({93, 100, 108}, {116, 117, 118}, true, 0.12, true, "slower");
  EXPECT_TRUE(s.known);
  EXPECT_FALSE(s.significant);
  EXPECT_EQ(s.words, "within twice the run-to-run spread of ± 15 %: not significant");
}

TEST(CompareNoise, OverRunsAChangeMustPassTwiceTheSpread) {
  // Every new run is slower by 11 %, and each side spans 6 %: a change between one
  // and two ranges is what two batches of one build differ by now and then.
  const Significance s = judge({100, 103, 106}, {111, 114, 117}, true, 0.11, true, "slower");
  EXPECT_FALSE(s.significant);
  EXPECT_NEAR(s.spread, 6.0 / 103, 1e-9);  // relative to the baseline's median
  EXPECT_EQ(s.words, "within twice the run-to-run spread of ± 6 %: not significant");
  const Significance twice = judge({100, 103, 106}, {113, 116, 119}, true, 0.13, true, "slower");
  EXPECT_TRUE(twice.significant);
}

TEST(CompareNoise, TheNoisierSideSetsTheSpread) {
  // A tight baseline, a scattered candidate: its ± 40 % spread covers a +15 % change.
  const Significance s = judge({100, 101, 102}, {110, 115, 150}, true, 0.15, true);
  EXPECT_FALSE(s.significant);
  EXPECT_NEAR(s.spread, 0.396, 0.001);
}

TEST(CompareNoise, InterleavedRunsAreNotSignificantWhateverTheChange) {
  const Significance s = judge({100, 120, 140}, {110, 130, 150}, true, 0.30, true);
  EXPECT_FALSE(s.significant);
  EXPECT_NE(s.words.find("not significant"), std::string::npos);
}

TEST(CompareNoise, ThroughputIsWorseWhenLower) {
  const Significance s = judge({1000, 1010, 990}, {700, 710, 690}, true, -0.30, false);
  EXPECT_TRUE(s.significant);
  // An improvement beyond the noise is significant too (the test runs the way the figure moved).
  const Significance better = judge({1000, 1010, 990}, {1300, 1310, 1290}, true, 0.30, false);
  EXPECT_TRUE(better.significant);
  EXPECT_FALSE(better.every_worse);
  EXPECT_EQ(better.words, "3 runs each, every new run better than every old one: significant");
}

TEST(CompareNoise, OneRunASideUsesIntervalsAtOnePercent) {
  std::vector<double> base, cand;
  for (int i = 0; i < 10; ++i) {
    base.push_back(100 + (i % 3));
    cand.push_back(200 + (i % 3));
  }
  const Significance s = judge(base, cand, false, 1.0, true);
  EXPECT_TRUE(s.significant);
  EXPECT_FALSE(s.over_runs);
  const Significance few = judge({1, 2, 3}, {4, 5, 6}, false, 1.0, true);
  EXPECT_FALSE(few.known);
  EXPECT_NE(few.words.find("significance unknown"), std::string::npos);
}

}  // namespace
}  // namespace pacer::html

namespace pacer::html {
namespace {

TEST(CompareNoise, ABrokenBoundCountsOnlyBeyondTheNoiseUnlessStrict) {
  BoundResult within{{"p99", 0.10}, 0.12, true, judge({93, 100, 108}, {116, 117, 118}, true, 0.12, true)};
  EXPECT_FALSE(within.counts(false));
  EXPECT_TRUE(within.counts(true));  // --strict: the plain bound
  BoundResult beyond{{"p99", 0.10}, 0.40, true, judge({100, 104, 98}, {140, 145, 138}, true, 0.40, true)};
  EXPECT_TRUE(beyond.counts(false));
  BoundResult unknown{{"p99", 0.10}, 0.40, true, judge({100}, {140}, false, 0.40, true)};
  EXPECT_TRUE(unknown.counts(false));  // cannot be judged: the bound decides
  BoundResult kept{{"p99", 0.10}, 0.05, false, beyond.significance};
  EXPECT_FALSE(kept.counts(true));
}

// Issue 43 (8): a bound passed within noise too large to judge is undecided (pacer
// report exits 4), not a pass, and says how many runs a side would settle it.
TEST(CompareNoise, ABoundBrokenWithinTheNoiseIsUndecidedWithTheRunsToSettleIt) {
  // p99 +309 %, the runs spread far more: not significant.
  const Significance s = judge({100, 700, 150}, {409, 1200, 300}, true, 3.09, true);
  ASSERT_TRUE(s.known);
  ASSERT_FALSE(s.significant);
  BoundResult within{{"p99", 0.10}, 3.09, true, s};
  EXPECT_TRUE(within.undecided(false));
  EXPECT_FALSE(within.counts(false));
  EXPECT_FALSE(within.undecided(true));  // --strict: a regression
  BoundResult unknown{{"p99", 0.10}, 0.40, true, judge({100}, {140}, false, 0.40, true)};
  EXPECT_FALSE(unknown.undecided(false));  // cannot be judged: the bound decides (exit 3)
  BoundResult held{{"p99", 0.10}, 0.05, false, s};
  EXPECT_FALSE(held.undecided(false));
  // The runs a side: 2 (1.645 + 0.842)^2 (deviation / change)^2, at least 3 and more than the 3 judged.
  ASSERT_TRUE(s.runs_to_settle);
  EXPECT_GE(*s.runs_to_settle, 4u);
  EXPECT_NE(settle_words(s).find(fmt::format("about {} runs a side (--repeat {}) would settle it",
                                             *s.runs_to_settle, *s.runs_to_settle)),
            std::string::npos);
}

TEST(CompareNoise, RunsToSettleFollowTheDeviationOverTheChange) {
  EXPECT_EQ(runs_to_settle(0.10, 0.10, 1), 13u);  // 12.37 -> 13
  EXPECT_EQ(runs_to_settle(0.20, 0.10, 1), 4u);   // 3.09 -> 4
  EXPECT_EQ(runs_to_settle(0.50, 0.01, 1), 3u);   // at least 3
  EXPECT_EQ(runs_to_settle(0.50, 0.01, 5), 6u);   // more than a side has
  EXPECT_EQ(runs_to_settle(-0.20, 0.10, 1), 4u);  // a fall: the same
  EXPECT_FALSE(runs_to_settle(0.01, 0.10, 1));    // 1237: past --repeat's 100
  EXPECT_FALSE(runs_to_settle(0, 0.10, 1));       // no change: nothing to settle
  Significance none;
  EXPECT_EQ(settle_words(none), "more than 100 runs a side would be needed to settle it: quieten the machine");
}

}  // namespace
}  // namespace pacer::html
