// The stuck-Lua verdict (watchdog/lua_watch.h), polled with a fake clock.
#include "watchdog/lua_watch.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <csignal>
#include <thread>

#include "script/lua_state.h"

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

// The whole mechanism outside the engine: a thread stuck in a compiled LuaJIT
// loop is found by the watch on the real clock, and the process leaves it behind.
// In a child process, so the stuck thread goes with it.
TEST(StuckWatch, AnEndlessLuaLoopIsFoundAndTheProcessLeavesIt) {
  const TimeNs started = monotonic_now_ns();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    script::LuaStatePtr L = script::new_lua_state();
    LuaBeat beat;
    std::thread worker([&] {
      const InLua mark(&beat, "the scenario's task 'spin'");
      luaL_dostring(L.get(), "while true do end");
    });
    worker.detach();
    const std::array<const LuaBeat*, 1> view{&beat};
    StuckWatch watch(1, kNsPerS / 5);
    const TimeNs end = monotonic_now_ns();  // the run "should have ended" now
    while (true) {
      const TimeNs now = monotonic_now_ns();
      if (const auto stuck = watch.poll(view, {}, now, end)) {
        exit_leaving_stuck_threads(stuck->worker == 0 && stuck->what.find("'spin'") != std::string::npos ? 42 : 1);
      }
      if (now - end > 10 * kNsPerS) exit_leaving_stuck_threads(2);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  int status = 0;
  for (int i = 0; i < 1000 && ::waitpid(child, &status, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (::waitpid(child, &status, WNOHANG) == 0) {
    ::kill(child, SIGKILL);
    ::waitpid(child, &status, 0);
    FAIL() << "the watch did not end the process within 10 s";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 42);
  EXPECT_LT(monotonic_now_ns() - started, 5 * kNsPerS);  // grace 0.2 s, generous for a loaded machine
}

}  // namespace
}  // namespace pacer::watchdog
