// Significance of a compared figure (html/compare_noise.h): deterministic samples.
#include "html/compare_noise.h"
#include "html/compare.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace pacer::html
