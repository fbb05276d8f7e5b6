// The parts of a run's load control (engine/control/), each on its own: the
// target the workers take, the run's end, the reset schedule, the change log
// and the shape's clock.
#include "engine/control/load_change_log.h"
#include "engine/control/load_target.h"
#include "engine/control/reset_schedule.h"
#include "engine/control/run_end.h"
#include "engine/control/shape_driver.h"

#include <gtest/gtest.h>

#include <vector>

namespace pacer::engine {
namespace {

TEST(PublishedTarget, EachPublishIsTheNextGenerationAndTheFirstStepIsNone) {
  LoadTarget first;
  first.users = 3;
  PublishedTarget published(LoadKind::kUsers, 10, 0, first);
  EXPECT_EQ(published.generation(), 0u);
  EXPECT_EQ(published.users(), 3);
  LoadTarget shaped = published.target();
  shaped.users = 4;
  published.set_first(shaped);  // before the run: the workers start with it, no change to follow
  EXPECT_EQ(published.generation(), 0u);
  EXPECT_EQ(published.target().users, 4);
  LoadTarget next = published.target();
  next.users = 7;
  next.generation = 99;  // the part numbers the generations, not the writer
  published.publish(next);
  published.publish(next);
  EXPECT_EQ(published.generation(), 2u);
  EXPECT_EQ(published.target().generation, 2u);
  EXPECT_EQ(published.target().users, 7);
  EXPECT_FALSE(published.is_rate());
  EXPECT_EQ(published.ceiling(), 10);
}

TEST(RunEnd, TheFirstEndIsKeptWithItsTime) {
  RunEnd end;
  EXPECT_FALSE(end.ended());
  EXPECT_EQ(end.ended_at_ns(), 0);
  EXPECT_TRUE(end.end(5 * kNsPerS));
  EXPECT_FALSE(end.end(9 * kNsPerS));
  EXPECT_TRUE(end.ended());
  EXPECT_EQ(end.ended_at_ns(), 5 * kNsPerS);
}

TEST(ResetSchedule, WithoutIntervalsAResetIsALeadAheadAndOneComingIsNotScheduledTwice) {
  ResetSchedule resets;
  ASSERT_FALSE(resets.schedule(kNsPerS));  // before the start
  resets.started(kNsPerS, kNsPerS, 100 * kNsPerS, 0);
  auto first = resets.schedule(3 * kNsPerS);
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->is_new);
  EXPECT_EQ(first->at_ns, 3 * kNsPerS + ResetSchedule::kResetLeadNs);
  EXPECT_EQ(resets.reset_generation(), 1u);
  auto again = resets.schedule(3 * kNsPerS + 1);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->is_new);
  EXPECT_EQ(again->at_ns, first->at_ns);
  EXPECT_EQ(resets.reset_generation(), 1u);
  auto later = resets.schedule(4 * kNsPerS);  // the first has come: a new one
  ASSERT_TRUE(later);
  EXPECT_TRUE(later->is_new);
  EXPECT_EQ(resets.reset_generation(), 2u);
  EXPECT_EQ(resets.reset_at_ns(), 4 * kNsPerS + ResetSchedule::kResetLeadNs);
}

TEST(LoadChangeLog, ChangesAreTimedFromTheStartAndTheRateFollowsThem) {
  LoadChangeLog log;
  EXPECT_DOUBLE_EQ(log.make("web", {}, 7 * kNsPerS).at_s, 0.0);  // before the start
  log.started(2 * kNsPerS);
  report::LoadChangeReport c = log.make("shape", "9 asked, 4 at most", 5 * kNsPerS);
  EXPECT_DOUBLE_EQ(c.at_s, 3.0);
  EXPECT_EQ(c.by, "shape");
  EXPECT_TRUE(log.changes().empty());  // made, not yet added
  log.add(c);
  ASSERT_EQ(log.changes().size(), 1u);
  EXPECT_TRUE(log.last_note_is("9 asked, 4 at most"));
  EXPECT_FALSE(log.last_note_is(""));
  const load::RateProfile profile = load::RateProfile::constant(50, 10 * kNsPerS);
  EXPECT_DOUBLE_EQ(log.mean_rate_per_s(profile, 0, 4 * kNsPerS), 50);  // no rate change: the profile's
  log.add_rate(150, 4 * kNsPerS);  // 2 s into the run
  EXPECT_DOUBLE_EQ(log.mean_rate_per_s(profile, 0, 4 * kNsPerS), (2 * 50.0 + 2 * 150.0) / 4);
  EXPECT_DOUBLE_EQ(planned_rate_per_s(profile, &log, 2 * kNsPerS, 3 * kNsPerS), 150);
  EXPECT_DOUBLE_EQ(planned_rate_per_s(profile, nullptr, 2 * kNsPerS, 3 * kNsPerS), 50);
}

TEST(ShapeDriver, TheShapeIsDueEverySecondFromTheStartAndALateAskSkipsAhead) {
  ShapeDriver driver;
  EXPECT_FALSE(driver.has_shape());
  EXPECT_FALSE(driver.ask_if_due(5 * kNsPerS));  // no shape: never
  std::vector<double> asked;
  driver.set([&](double run_s) -> ShapeAnswer {
    asked.push_back(run_s);
    return std::optional<ShapeStep>{};
  });
  const TimeNs start = 10 * kNsPerS;
  driver.started(start);
  EXPECT_FALSE(driver.ask_if_due(start + kNsPerS - 1));
  auto on_time = driver.ask_if_due(start + kNsPerS);
  ASSERT_TRUE(on_time);
  EXPECT_EQ(on_time->due_ns, start + kNsPerS);
  // Held up past two seconds: asked once, at its time, then a period from now.
  auto late = driver.ask_if_due(start + 3 * kNsPerS + kNsPerS / 2);
  ASSERT_TRUE(late);
  EXPECT_EQ(late->due_ns, start + 2 * kNsPerS);
  EXPECT_FALSE(driver.ask_if_due(start + 4 * kNsPerS));
  EXPECT_TRUE(driver.ask_if_due(start + 4 * kNsPerS + kNsPerS / 2));
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_DOUBLE_EQ(asked[1], 3.5);
  driver.failed("boom");
  EXPECT_EQ(driver.error(), "boom");
}

}  // namespace
}  // namespace pacer::engine
