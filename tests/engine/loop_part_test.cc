// The loop part's own decisions, without a worker: its stop rules
// (engine/loop/stop_rules.h), each on its own and in their order: a stop at
// once, the drain's start (-d, a shape's end), and the load's end; and its
// wait (engine/loop/waiter.h): how long, and when the closed loop pauses first.
#include "engine/loop/stop_rules.h"

#include <gtest/gtest.h>

#include "engine/control/load_control.h"
#include "engine/loop/waiter.h"
#include "part_fakes.h"

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

struct NoLoopEvents final : io::Events {
  void on_wake(TimeNs) override {}
  void on_io(io::Channel&, std::uint32_t, int) override {}
};

TEST(Waiter, WaitsUntilThePartDueFirstButNotWhileBytesWaitUnread) {
  testing::PartRun run;
  testing::FakeEngine engine;
  NoLoopEvents events;
  LoopClock clock;
  Waiter waiter(run.shared);
  clock.now = 1000 * kNsPerMs;
  waiter.wait(engine, events, clock, clock.now + 5 * kNsPerMs, false, {});
  EXPECT_EQ(engine.last_wait_ns, 5 * kNsPerMs);
  waiter.wait(engine, events, clock, clock.now - kNsPerMs, false, {});  // overdue: no wait
  EXPECT_EQ(engine.last_wait_ns, 0);
  waiter.wait(engine, events, clock, clock.now + 5 * kNsPerMs, true, {});  // a budget left bytes unread
  EXPECT_EQ(engine.last_wait_ns, 0);
  // The wait's own time runs from its start to the wake-up.
  const TimeNs started = monotonic_now_ns();
  waiter.wait(engine, events, clock, clock.now, false, {});
  const TimeNs waited = waiter.waited(started + kNsPerS);
  EXPECT_LE(waited, kNsPerS);
  EXPECT_GT(waited, kNsPerS / 2);
  EXPECT_EQ(waiter.waited(started - kNsPerS), 0);  // never negative
}

TEST(Waiter, TheClosedLoopPausesOnlyAfterAFewResponsesWithManyInFlightAndReceiveStamps) {
  testing::PartRun run;
  testing::FakeEngine engine;
  NoLoopEvents events;
  LoopClock clock;
  Waiter waiter(run.shared);
  clock.refresh();
  const TimeNs far = clock.now + kNsPerS;
  waiter.sample(1600 * kNsPerUs, true);  // a pause of 100 us
  std::uint64_t ended = 0;
  // Each wait after the first: the last wake-up ended `answered` of them.
  auto wait = [&](std::uint64_t answered, std::size_t in_flight, bool unread_left = false) {
    ended += answered;
    waiter.wait(engine, events, clock, far, unread_left, {in_flight, ended});
  };
  wait(0, 8);  // nothing ended yet: no pause
  EXPECT_EQ(engine.submits, 0);
  wait(1, 8);
  EXPECT_EQ(engine.submits, 1);  // paused: what the wake-up queued left first
  wait(1, 7);        // too few in flight for a batch
  wait(1, 8, true);  // bytes wait unread
  wait(0, 8);        // the last wake-up ended nothing (a timer's)
  EXPECT_EQ(engine.submits, 1);
  wait(8, 8);  // the responses came in a batch already
  EXPECT_EQ(engine.submits, 1);
  wait(7, 100);
  EXPECT_EQ(engine.submits, 2);
  // One event of an HTTP/2 connection's read can carry many responses: what
  // counts is what the wake-up ended, not how many events it took.
  wait(40, 100);
  EXPECT_EQ(engine.submits, 2);
  waiter.sample(1600 * kNsPerUs, false);  // no receive stamps: the pause would be in the latency
  wait(1, 8);
  EXPECT_EQ(engine.submits, 2);
  waiter.sample(1600 * kNsPerUs, true);
  wait(1, 8);
  EXPECT_EQ(engine.submits, 3);
  run.open_model(100, kNsPerS);  // arrivals are timed: never
  wait(1, 8);
  EXPECT_EQ(engine.submits, 3);
}

}  // namespace
}  // namespace pacer::engine
