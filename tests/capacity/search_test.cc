#include "capacity/search.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

namespace pacer::capacity {
namespace {

// Runs a search against a made-up server: verdict(rate) for every step; returns
// the rates it tried, in order.
std::vector<double> drive(Search& search, const std::function<StepVerdict(double)>& verdict, int max_steps = 100) {
  std::vector<double> tried;
  while (const std::optional<double> rate = search.next_rate()) {
    tried.push_back(*rate);
    search.record(verdict(*rate));
    if (static_cast<int>(tried.size()) >= max_steps) break;
  }
  return tried;
}

StepVerdict below(double rate, double capacity) {
  if (rate <= capacity) return {Verdict::kHolds, false, "", ""};
  return {Verdict::kBreaks, false, "p99 too high", ""};
}

TEST(Search, ClimbsThenBisectsToABracketWithinThePrecision) {
  SearchSettings settings;
  settings.start_rate_per_s = 1000;
  settings.precision = 0.03;
  Search search(settings);
  const std::vector<double> tried = drive(search, [](double r) { return below(r, 11'900); });
  ASSERT_EQ(search.outcome(), Outcome::kFound);
  // 1000, 2000, 4000, 8000, 16000: the climb doubles until a step breaks.
  ASSERT_GE(tried.size(), 5u);
  EXPECT_EQ(tried[0], 1000);
  EXPECT_EQ(tried[4], 16'000);
  ASSERT_TRUE(search.holds_at() && search.breaks_at());
  EXPECT_LE(*search.holds_at(), 11'900);
  EXPECT_GT(*search.breaks_at(), 11'900);
  EXPECT_LE(*search.breaks_at() / *search.holds_at() - 1, 0.03);
  EXPECT_EQ(search.broken_by(), "p99 too high");
  EXPECT_LE(tried.size(), 12u);  // log2(8000 / 0.03 / 8000) bisection steps after the climb
}

TEST(Search, AFirstStepThatBreaksDescendsUntilOneHolds) {
  SearchSettings settings;
  settings.start_rate_per_s = 10'000;
  Search search(settings);
  const std::vector<double> tried = drive(search, [](double r) { return below(r, 700); });
  ASSERT_EQ(search.outcome(), Outcome::kFound);
  EXPECT_EQ(tried[1], 5000);
  EXPECT_EQ(tried[2], 2500);
  EXPECT_LE(*search.holds_at(), 700);
  EXPECT_GT(*search.breaks_at(), 700);
}

TEST(Search, NoRateHeldDownToTheFloor) {
  SearchSettings settings;
  settings.start_rate_per_s = 64;
  Search search(settings);
  drive(search, [](double r) { return below(r, 0.1); });
  EXPECT_EQ(search.outcome(), Outcome::kNoRateHeld);
  EXPECT_FALSE(search.holds_at());
  EXPECT_EQ(*search.breaks_at(), 1);
}

TEST(Search, ANearRateIsRepeatedAndHoldsOnlyWhenEveryRunHolds) {
  SearchSettings settings;
  settings.start_rate_per_s = 100;
  settings.max_runs = 3;
  Search search(settings);
  // 100 holds far from the limit; 200 holds twice near it, then breaks.
  int runs_at_200 = 0;
  const std::vector<double> tried = drive(search, [&](double r) -> StepVerdict {
    if (r < 150) return {Verdict::kHolds, false, "", ""};
    if (r == 200 && ++runs_at_200 < 3) return {Verdict::kHolds, true, "", ""};
    return {Verdict::kBreaks, true, "p99 51ms > 50ms", ""};
  });
  ASSERT_GE(tried.size(), 4u);
  EXPECT_EQ(tried[1], 200);
  EXPECT_EQ(tried[2], 200);
  EXPECT_EQ(tried[3], 200);  // the third run broke: 200 does not hold
  EXPECT_EQ(*search.breaks_at(), 150) << "bisection continued below the unstable rate";
  EXPECT_EQ(search.outcome(), Outcome::kFound);
}

TEST(Search, ANearRateThatHoldsEveryRunCountsAsHolding) {
  SearchSettings settings;
  settings.start_rate_per_s = 100;
  settings.max_runs = 3;
  Search search(settings);
  const std::vector<double> tried = drive(search, [](double r) -> StepVerdict {
    if (r <= 100) return {Verdict::kHolds, true, "", ""};
    return {Verdict::kBreaks, false, "x", ""};
  });
  EXPECT_EQ(tried[0], 100);
  EXPECT_EQ(tried[1], 100);
  EXPECT_EQ(tried[2], 100);
  EXPECT_EQ(tried[3], 200);
  EXPECT_EQ(*search.holds_at(), 100);
}

TEST(Search, TheClientLimitEndsTheSearchWithNoFigure) {
  SearchSettings settings;
  settings.start_rate_per_s = 100;
  Search search(settings);
  const std::vector<double> tried = drive(search, [](double r) -> StepVerdict {
    if (r < 300) return {Verdict::kHolds, false, "", ""};
    return {Verdict::kClient, false, "", "the connections: raise -c"};
  });
  EXPECT_EQ(tried.size(), 3u);
  EXPECT_EQ(search.outcome(), Outcome::kClientLimited);
  EXPECT_EQ(search.client_limit(), "the connections: raise -c");
  EXPECT_EQ(*search.holds_at(), 200);
  EXPECT_FALSE(search.next_rate());
}

TEST(Search, TheClimbStopsAtTheHighestRatePacerSchedules) {
  SearchSettings settings;
  settings.start_rate_per_s = 3000;
  settings.max_rate_per_s = 10'000;
  Search search(settings);
  const std::vector<double> tried = drive(search, [](double) { return StepVerdict{Verdict::kHolds, false, "", ""}; });
  EXPECT_EQ(tried, (std::vector<double>{3000, 6000, 10'000}));
  EXPECT_EQ(search.outcome(), Outcome::kNeverBroke);
  EXPECT_EQ(*search.holds_at(), 10'000);
}

TEST(Search, RatesAreRoundedAsPeopleReadThem) {
  EXPECT_EQ(round_rate(11'812.4), 11'812);
  EXPECT_EQ(round_rate(12.345), 12.3);
  EXPECT_EQ(round_rate(0.01), 0.1);
}

}  // namespace
}  // namespace pacer::capacity
