// The load's changes while a run goes (engine/control/load_control.h): each
// worker's share of a user count, the ceiling, the shape's steps and its end,
// and the changes kept for the report, as the control's parts show them.
#include "engine/control/load_control.h"
#include "engine/control/reset_watch.h"

#include <gtest/gtest.h>

#include <vector>

namespace pacer::engine {
namespace {

scenario::MixRequest mix_of(int n) {
  scenario::MixRequest mix;
  mix.users = n;
  return mix;
}

ShapeStep shape_step(int users, std::optional<double> spawn_rate_per_s) {
  ShapeStep s;
  s.users = users;
  s.spawn_rate_per_s = spawn_rate_per_s;
  return s;
}

TEST(LoadControl, EachWorkerRunsTheIdsOfItsOwnThatAreBelowTheCount) {
  // ids interleave: worker w of W has ids w, w + W, w + 2W, ...
  EXPECT_EQ(users_share(5, 0, 2), 3);  // 0, 2, 4
  EXPECT_EQ(users_share(5, 1, 2), 2);  // 1, 3
  EXPECT_EQ(users_share(1, 1, 2), 0);
  EXPECT_EQ(users_share(0, 0, 1), 0);
  int total = 0;
  for (int w = 0; w < 7; ++w) total += users_share(100, w, 7);
  EXPECT_EQ(total, 100);
}

TEST(LoadControl, AskingAboveTheCeilingIsRefusedAndEachChangeIsKept) {
  LoadControl control(2, 6, 0);
  control.started(1'000'000'000);
  const std::uint64_t before = control.published().generation();
  Status refused = control.set_users(mix_of(7), std::nullopt, "web", 2'000'000'000);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("ceiling of 6"), std::string::npos);
  EXPECT_EQ(control.published().generation(), before);
  ASSERT_TRUE(control.set_users(mix_of(5), 10.0, "web", 3'500'000'000));
  EXPECT_GT(control.published().generation(), before);
  EXPECT_EQ(control.published().target().users, 5);
  EXPECT_EQ(control.published().target().spawn_rate_per_s, 10.0);
  ASSERT_TRUE(control.set_users(mix_of(5), 10.0, "web", 4'000'000'000));  // the same: no change recorded
  const auto changes = control.log().changes();
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_DOUBLE_EQ(changes[0].at_s, 2.5);
  EXPECT_EQ(changes[0].users_from, 2);
  EXPECT_EQ(changes[0].users_to, 5);
  EXPECT_EQ(changes[0].by, "web");
}

TEST(LoadControl, TheShapeIsAskedEverySecondClampedToTheCeilingAndEndsTheRun) {
  LoadControl control(1, 4, 2.0);
  std::vector<double> asked;
  control.set_shape([&](double t) -> Result<std::optional<ShapeStep>> {
    asked.push_back(t);
    if (t < 1) return std::optional<ShapeStep>{shape_step(3, std::nullopt)};
    if (t < 2.5) return std::optional<ShapeStep>{shape_step(9, 5.0)};
    return std::optional<ShapeStep>{};
  });
  ASSERT_TRUE(control.first_step());
  EXPECT_EQ(control.published().users(), 3);
  const TimeNs start = 10 * kNsPerS;
  control.started(start);
  control.tick(start + kNsPerS / 2);  // not due yet
  EXPECT_EQ(asked.size(), 1u);
  control.tick(start + kNsPerS);
  EXPECT_EQ(control.published().users(), 4);
  EXPECT_EQ(control.published().target().spawn_rate_per_s, 5.0);
  EXPECT_FALSE(control.run_end().ended());
  control.tick(start + 2 * kNsPerS);  // 9 again: held at 4, said once
  control.tick(start + 3 * kNsPerS);
  EXPECT_TRUE(control.run_end().ended());
  const auto changes = control.log().changes();
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].note, "9 asked, 4 at most (--max-users)");
  EXPECT_TRUE(changes[1].ended);
  EXPECT_FALSE(control.set_users(mix_of(2), std::nullopt, "web", start + 4 * kNsPerS));  // the run is ending
}

TEST(LoadControl, AShapeErrorEndsTheRunAndIsKept) {
  LoadControl control(1, 4, 0);
  control.set_shape([](double t) -> Result<std::optional<ShapeStep>> {
    if (t < 1) return std::optional<ShapeStep>{shape_step(1, std::nullopt)};
    return runtime_error("boom");
  });
  ASSERT_TRUE(control.first_step());
  control.started(0);
  control.tick(kNsPerS);
  EXPECT_TRUE(control.run_end().ended());
  EXPECT_EQ(control.shape().error(), "boom");
}

TEST(LoadControl, AShapeThatEndsAtOnceIsRefusedBeforeTheRun) {
  LoadControl control(1, 4, 0);
  control.set_shape([](double) -> Result<std::optional<ShapeStep>> { return std::optional<ShapeStep>{}; });
  Status first = control.first_step();
  ASSERT_FALSE(first);
  EXPECT_NE(first.error().message.find("ends the run at 0 s"), std::string::npos);
}

TEST(LoadControl, ARateControlChangesTheRateAndTheTargetFollowsTheChanges) {
  LoadControl control(RateControl{100, 1000});
  ASSERT_TRUE(control.published().is_rate());
  const TimeNs start = 5 * kNsPerS;
  control.started(start);
  EXPECT_FALSE(control.set_users(mix_of(3), std::nullopt, "web", start + kNsPerS));  // a rate control has no users
  Status above = control.set_rate(2000, "web", start + kNsPerS);
  ASSERT_FALSE(above);
  EXPECT_NE(above.error().message.find("at most 1000/s"), std::string::npos);
  EXPECT_FALSE(control.set_rate(-1, "web", start + kNsPerS));
  const std::uint64_t before = control.published().generation();
  ASSERT_TRUE(control.set_rate(400, "web", start + 2 * kNsPerS));
  EXPECT_GT(control.published().generation(), before);
  EXPECT_EQ(control.published().target().rate_per_s, 400);
  ASSERT_TRUE(control.set_rate(0, "web", start + 3 * kNsPerS));
  const auto changes = control.log().changes();
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].rate_from_per_s, 100);
  EXPECT_EQ(changes[0].rate_to_per_s, 400);
  EXPECT_DOUBLE_EQ(changes[0].at_s, 2.0);
  EXPECT_EQ(changes[1].rate_to_per_s, 0);
  // The run's -R 100 profile for 10 s, then 400/s from 2 s, 0 from 3 s.
  const load::RateProfile profile = load::RateProfile::constant(100, 10 * kNsPerS);
  EXPECT_DOUBLE_EQ(control.log().mean_rate_per_s(profile, 0, 2 * kNsPerS), 100);
  EXPECT_DOUBLE_EQ(control.log().mean_rate_per_s(profile, 2 * kNsPerS, 3 * kNsPerS), 400);
  EXPECT_DOUBLE_EQ(control.log().mean_rate_per_s(profile, 0, 4 * kNsPerS), (200.0 + 400.0) / 4);
  EXPECT_DOUBLE_EQ(planned_rate_per_s(profile, &control.log(), 3 * kNsPerS, 5 * kNsPerS), 0);
  EXPECT_DOUBLE_EQ(planned_rate_per_s(profile, nullptr, 3 * kNsPerS, 5 * kNsPerS), 100);
}

TEST(LoadControl, AUsersControlRefusesARate) {
  LoadControl control(2, 6, 0);
  Status refused = control.set_rate(10, "web", 0);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("closed model"), std::string::npos);
}

TEST(LoadControl, AResetFallsOnTheNextIntervalBoundaryAtLeastALeadAhead) {
  LoadControl control{FixedLoad{}};
  ASSERT_FALSE(control.reset_stats("web", 1));  // before the start
  const TimeNs start = 10 * kNsPerS;
  const TimeNs record_from = start + 2 * kNsPerS;  // a 2 s warm-up
  control.started(start, record_from, record_from + 10 * kNsPerS, kNsPerS);
  EXPECT_EQ(control.resets().reset_generation(), 0u);
  // During the warm-up: at its end.
  auto at = control.reset_stats("web", start + kNsPerS / 2);
  ASSERT_TRUE(at);
  EXPECT_EQ(*at, record_from);
  EXPECT_EQ(control.resets().reset_at_ns(), record_from);
  EXPECT_EQ(control.resets().reset_generation(), 1u);
  // Asked again before it came: the same one.
  EXPECT_EQ(*control.reset_stats("web", start + kNsPerS), record_from);
  EXPECT_EQ(control.resets().reset_generation(), 1u);
  // 3.95 s into the recorded window: 4 s is less than the lead away, so 5 s.
  at = control.reset_stats("web", record_from + 3950 * kNsPerMs);
  ASSERT_TRUE(at);
  EXPECT_EQ(*at, record_from + 5 * kNsPerS);
  // One that would fall past -d's end is refused.
  EXPECT_FALSE(control.reset_stats("web", record_from + 9950 * kNsPerMs));
  const auto changes = control.log().changes();
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_TRUE(changes[1].reset);
  EXPECT_DOUBLE_EQ(changes[1].at_s, 7.0);  // since the start, the warm-up included
  EXPECT_FALSE(control.set_users(mix_of(3), std::nullopt, "web", record_from));  // a closed loop's load does not change
  EXPECT_FALSE(control.set_rate(3, "web", record_from));
}

TEST(ResetWatch, AWorkerTakesEachResetOnceWhenItsTimeComes) {
  LoadControl control{FixedLoad{}};
  control.started(kNsPerS, kNsPerS, 100 * kNsPerS, kNsPerS);
  ResetWatch watch(&control.resets());
  EXPECT_FALSE(watch.due(2 * kNsPerS));
  EXPECT_EQ(watch.next_due_ns(), kNeverNs);
  ASSERT_TRUE(control.reset_stats("web", 2 * kNsPerS));  // at 3 s
  EXPECT_FALSE(watch.due(2 * kNsPerS + 1));
  EXPECT_EQ(watch.next_due_ns(), 3 * kNsPerS);
  EXPECT_EQ(watch.due(3 * kNsPerS + 5), std::optional<TimeNs>(3 * kNsPerS));
  EXPECT_FALSE(watch.due(4 * kNsPerS));
  EXPECT_EQ(ResetWatch(nullptr).due(5 * kNsPerS), std::nullopt);
}

}  // namespace
}  // namespace pacer::engine
