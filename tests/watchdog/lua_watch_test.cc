// The stuck-Lua verdict (watchdog/lua_watch.h), polled with a fake clock.
#include "watchdog/lua_watch.h"

#include <gtest/gtest.h>

#include <array>
#include <thread>

namespace pacer::watchdog {
namespace {

constexpr TimeNs kGrace = kNsPerS;

TEST(StuckWatch, AWorkerInsideOneCallPastTheEndAndTheGraceIsStuck) {
  std::array<LuaBeat, 2> beats;
  const std::array<const LuaBeat*, 2> view{&beats[0], &beats[1]};
  StuckWatch watch(2, kGrace);
  beats[1].enter("the scenario's task 'spin'");
  EXPECT_FALSE(watch.poll(view, {}, 0, std::nullopt));                // first seen at 0
  EXPECT_FALSE(watch.poll(view, {}, 5 * kNsPerS, std::nullopt));      // long, but the run goes on
  EXPECT_FALSE(watch.poll(view, {}, 5 * kNsPerS, 5 * kNsPerS));       // the end: grace not over
  const auto stuck = watch.poll(view, {}, 6 * kNsPerS, 5 * kNsPerS);  // end + grace
  ASSERT_TRUE(stuck);
  EXPECT_EQ(stuck->worker, 1);
  EXPECT_EQ(stuck->in_call_ns, 6 * kNsPerS);
  EXPECT_NE(stuck->message().find("worker 1 has been inside the scenario's task 'spin' for 6.0s"), std::string::npos)
      << stuck->message();
}

TEST(StuckWatch, AWorkerThatKeepsReturningIsNeverStuck) {
  LuaBeat beat;
  const std::array<const LuaBeat*, 1> view{&beat};
  StuckWatch watch(1, kGrace);
  for (TimeNs t = 0; t < 10 * kNsPerS; t += kNsPerS / 2) {
    beat.enter("request()");  // a new call each poll: slow, but not stuck
    EXPECT_FALSE(watch.poll(view, {}, t, 0)) << t;
  }
  beat.leave();
  EXPECT_FALSE(watch.poll(view, {}, 20 * kNsPerS, 0));
}

TEST(StuckWatch, ACallThatStartsLateNeedsItsOwnGrace) {
  LuaBeat beat;
  const std::array<const LuaBeat*, 1> view{&beat};
  StuckWatch watch(1, kGrace);
  EXPECT_FALSE(watch.poll(view, {}, 0, 0));
  beat.enter("response()");
  EXPECT_FALSE(watch.poll(view, {}, 3 * kNsPerS, 0));                // first seen 3 s after the end
  EXPECT_FALSE(watch.poll(view, {}, 3 * kNsPerS + kGrace / 2, 0));
  EXPECT_TRUE(watch.poll(view, {}, 3 * kNsPerS + kGrace, 0));
}

TEST(StuckWatch, DoneWorkersAreSkipped) {
  LuaBeat beat;
  const std::array<const LuaBeat*, 1> view{&beat};
  const std::array<bool, 1> done{true};
  StuckWatch watch(1, kGrace);
  beat.enter("task");
  EXPECT_FALSE(watch.poll(view, done, 0, 0));
  EXPECT_FALSE(watch.poll(view, done, 9 * kNsPerS, 0));
}

TEST(StuckWatch, InLuaMarksTheScopeFromAnotherThread) {
  LuaBeat beat;
  std::thread worker([&beat] {
    InLua mark(&beat, "task 'x'");
    EXPECT_TRUE(beat.seen().in_lua);
  });
  worker.join();
  EXPECT_FALSE(beat.seen().in_lua);
  EXPECT_EQ(beat.seen().calls, 1u);
}

}  // namespace
}  // namespace pacer::watchdog
