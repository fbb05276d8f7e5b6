// The loop part's own decisions, without a worker: its stop rules
// (engine/loop/stop_rules.h), each on its own and in their order: a stop at
// once, the drain's start (-d, a shape's end), and the load's end.
#include "engine/loop/stop_rules.h"

#include <gtest/gtest.h>

#include "engine/control/load_control.h"

namespace pacer::engine {
namespace {

TEST(StopRules, TheStopFlagComesFirstThenAScriptsStopThenTheGiveUp) {
  EXPECT_EQ(StopRules::interrupted(false, false, false), StopReason::kRunning);
  EXPECT_EQ(StopRules::interrupted(true, true, true), StopReason::kStopFlag);
  EXPECT_EQ(StopRules::interrupted(false, true, true), StopReason::kScriptStop);
  EXPECT_EQ(StopRules::interrupted(false, false, true), StopReason::kGaveUp);
}

TEST(StopRules, TheDrainBeginsAtTheEndOfTheDurationAndNotBefore) {
  const TimeNs end_ns = 10 * kNsPerS;
  const StopRules rules(nullptr);
  EXPECT_FALSE(rules.drain_begins(10 * kNsPerS - 1, end_ns).has_value());
  ASSERT_TRUE(rules.drain_begins(10 * kNsPerS, end_ns).has_value());
  // A late wake-up: the recorded window still ends at -d's end.
  EXPECT_EQ(*rules.drain_begins(12 * kNsPerS, end_ns), 10 * kNsPerS);
  EXPECT_EQ(StopRules::next_due_ns(false, end_ns), 10 * kNsPerS);
  EXPECT_EQ(StopRules::next_due_ns(true, end_ns), kNeverNs);
}

TEST(StopRules, WithoutADurationOnlyTheLoadControlsEndBeginsTheDrain) {
  const TimeNs never = kNeverNs;
  const StopRules none(nullptr);
  EXPECT_FALSE(none.drain_begins(1'000'000 * kNsPerS, never).has_value());

  LoadControl control(1, 4, 0);
  control.set_shape([](double t) -> Result<std::optional<ShapeStep>> {
    ShapeStep one;
    one.users = 1;
    if (t < 2) return std::optional<ShapeStep>{one};
    return std::optional<ShapeStep>{};  // the shape ends the run at 2 s
  });
  ASSERT_TRUE(control.first_step());
  control.started(0);
  const StopRules shaped(&control.run_end());
  control.tick(kNsPerS);
  EXPECT_FALSE(shaped.drain_begins(kNsPerS, never).has_value());
  control.tick(2 * kNsPerS);
  ASSERT_TRUE(control.run_end().ended());
  // Seen at a later wake-up: the window ends at the second the shape ended it.
  ASSERT_TRUE(shaped.drain_begins(2 * kNsPerS + kNsPerS / 3, never).has_value());
  EXPECT_EQ(*shaped.drain_begins(2 * kNsPerS + kNsPerS / 3, never), 2 * kNsPerS);
  // A duration shorter than the shape still ends first.
  const TimeNs shorter = kNsPerS + kNsPerS / 2;
  EXPECT_EQ(*shaped.drain_begins(3 * kNsPerS, shorter), kNsPerS + kNsPerS / 2);
}

TEST(StopRules, TheLoadIsDoneWhenNothingIsInFlightAndTheDriverHasNothingLeft) {
  const LoadProgress sending{false, false};
  const LoadProgress sent_all{true, false};
  const LoadProgress drained{false, true};
  EXPECT_EQ(StopRules::done(false, false, sending), StopReason::kRunning);
  EXPECT_EQ(StopRules::done(false, false, sent_all), StopReason::kDone);        // -n reached
  EXPECT_EQ(StopRules::done(false, true, sent_all), StopReason::kRunning);      // its last responses first
  EXPECT_EQ(StopRules::done(false, false, drained), StopReason::kRunning);      // not draining: drained says nothing
  EXPECT_EQ(StopRules::done(true, false, drained), StopReason::kDone);          // the drain is over
  EXPECT_EQ(StopRules::done(true, false, sent_all), StopReason::kRunning);      // a backlog or users still ending tasks
  EXPECT_EQ(StopRules::done(true, true, drained), StopReason::kRunning);
}

}  // namespace
}  // namespace pacer::engine
