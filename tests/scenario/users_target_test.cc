// Population::set_target (issue 27, for load shapes and the web view's POST /users):
// more users start at the spawn rate, fewer stop from the highest index after
// their current task (bounded by the stop timeout), run on_stop, release their
// connection, count no error, and start afresh when wanted again.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "users_fixture.h"

namespace pacer::scenario {
namespace {

constexpr TimeNs kS = 1'000'000'000;

constexpr const char* kThinking = R"(
  return {wait = 1, on_start = function(u) u.starts = (u.starts or 0) + 1 end,
          on_stop = function(u) u:get("/bye") end,
          tasks = {{1, function(u) u:get("/work") end, "work"}}})";

class UsersTargetTest : public UsersTest {
 protected:
  // Every user with a request pending gets its response at `at`.
  void answer_all(TimeNs at) {
    for (int i = 0; i < users_->count(); ++i) {
      if (users_->user(i).state == User::State::kWantsSend) {
        users_->sent(i);
        users_->on_response(i, 200, at, true);
      }
    }
    port_.now_ns = at;
    users_->run_due(at);
  }
};

TEST_F(UsersTargetTest, FewerUsersStopFromTheHighestIndexBetweenTasksAtOnce) {
  load(kThinking, 4);
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  answer_all(port_.now_ns + 1000);  // every user thinks now
  ASSERT_EQ(users_->user(3).state, User::State::kThinking);
  users_->population().set_target({2}, 0, 10 * kS, port_.now_ns);
  EXPECT_EQ(port_.released, (std::vector<int>{3, 2}));
  EXPECT_EQ(users_->population().running(), 2);
  EXPECT_EQ(users_->user(3).state, User::State::kUnborn);
  EXPECT_EQ(users_->user(1).state, User::State::kThinking);
  EXPECT_EQ(users_->stats().tasks[0].count, 4u);
  EXPECT_EQ(users_->stats().tasks[0].failures, 0u);
  EXPECT_EQ(users_->stats().script + users_->stats().check, 0u) << "a stopped user is no error";
}

TEST_F(UsersTargetTest, AStoppedUserFinishesItsTaskWithinTheStopTimeout) {
  load(kThinking, 2);
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  ASSERT_EQ(users_->user(1).state, User::State::kWantsSend);
  users_->sent(1);
  users_->population().set_target({1}, 0, 5 * kS, port_.now_ns);
  EXPECT_TRUE(port_.released.empty()) << "its request is in flight";
  users_->on_response(1, 200, port_.now_ns + kS, true);
  port_.now_ns += kS;
  users_->run_due(port_.now_ns);
  EXPECT_EQ(port_.released, std::vector<int>{1}) << "stopped at the end of its task";
  EXPECT_EQ(users_->stats().tasks[0].count, 1u) << "its task finished and counts";
}

TEST_F(UsersTargetTest, APastStopTimeoutCutsTheTaskWithoutCountingIt) {
  load(kThinking, 2);
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  users_->sent(1);
  users_->population().set_target({1}, 0, 2 * kS, port_.now_ns);
  port_.now_ns += 3 * kS;
  users_->run_due(port_.now_ns);
  EXPECT_EQ(port_.released, std::vector<int>{1});
  users_->on_response(1, 200, port_.now_ns, true);  // the late response finds no user waiting
  EXPECT_EQ(users_->user(1).state, User::State::kUnborn);
  EXPECT_EQ(users_->stats().tasks[0].count, 0u);
  EXPECT_EQ(users_->stats().tasks[0].failures, 0u);
}

TEST_F(UsersTargetTest, MoreUsersStartAtTheSpawnRateAndRunOnStartAgain) {
  load(kThinking, 4);
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  answer_all(port_.now_ns + 1000);
  users_->population().set_target({1}, 0, 0, port_.now_ns);
  ASSERT_EQ(users_->population().running(), 1);
  port_.connected.clear();
  const TimeNs now = port_.now_ns;
  users_->population().set_target({4}, 2.0, 0, now);  // 2 users a second: at now, now + 0.5 s, now + 1 s
  EXPECT_EQ(port_.connected, std::vector<int>{1});
  users_->run_due(now + kS / 2);
  EXPECT_EQ(port_.connected, (std::vector<int>{1, 2}));
  users_->population().set_target({3}, 2.0, 0, now + kS / 2);  // the third is no longer wanted before it starts
  users_->run_due(now + 2 * kS);
  EXPECT_EQ(port_.connected, (std::vector<int>{1, 2}));
  EXPECT_EQ(users_->population().running(), 3);
  EXPECT_EQ(users_->stats().users_started, 6u);
}

TEST_F(UsersTargetTest, AUserWantedAgainWhileFinishingItsTaskGoesOn) {
  load(kThinking, 2);
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  users_->sent(1);
  users_->population().set_target({1}, 0, 5 * kS, port_.now_ns);
  users_->population().set_target({2}, 0, 5 * kS, port_.now_ns);
  users_->on_response(1, 200, port_.now_ns + 1000, true);
  users_->run_due(port_.now_ns + 1000);
  EXPECT_TRUE(port_.released.empty());
  EXPECT_EQ(users_->user(1).state, User::State::kThinking);
}

TEST_F(UsersTargetTest, FewerUsersLeaveAtTheSpawnRateFromTheHighestIndex) {
  load(kThinking, 5);
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  answer_all(port_.now_ns + 1000);  // every user thinks now
  const TimeNs now = port_.now_ns;
  users_->population().set_target({1}, 2.0, 0, now);  // 4 leave, 2 a second: at now, +0.5 s, +1 s, +1.5 s
  EXPECT_EQ(port_.released, std::vector<int>{4});
  EXPECT_EQ(users_->population().running(), 4);
  port_.now_ns = now + kS / 2;
  users_->run_due(port_.now_ns);
  EXPECT_EQ(port_.released, (std::vector<int>{4, 3}));
  port_.now_ns = now + kS;
  users_->run_due(port_.now_ns);
  EXPECT_EQ(port_.released, (std::vector<int>{4, 3, 2}));
  EXPECT_EQ(users_->population().running(), 2);
  // Wanted again before its turn: the last one stays.
  users_->population().set_target({2}, 2.0, 0, port_.now_ns);
  port_.now_ns = now + 3 * kS;
  users_->run_due(port_.now_ns);
  EXPECT_EQ(port_.released, (std::vector<int>{4, 3, 2}));
  EXPECT_EQ(users_->population().running(), 2);
  EXPECT_NE(users_->user(1).state, User::State::kUnborn);
}

TEST_F(UsersTargetTest, AUserWhoseTurnToLeaveComesInATaskEndsItFirst) {
  load(kThinking, 2);
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  answer_all(port_.now_ns + 1000);
  const TimeNs now = port_.now_ns;
  users_->population().set_target({0}, 0.5, 10 * kS, now);  // user 1 at once, user 0 two seconds later
  EXPECT_EQ(port_.released, std::vector<int>{1});
  port_.now_ns = now + kS;  // user 0's think time is over: it is in its task when its turn comes
  users_->run_due(port_.now_ns);
  ASSERT_EQ(users_->user(0).state, User::State::kWantsSend);
  port_.now_ns = now + 2 * kS;
  users_->run_due(port_.now_ns);
  EXPECT_EQ(port_.released, std::vector<int>{1}) << "its task is not cut";
  users_->sent(0);
  users_->on_response(0, 200, port_.now_ns + 1000, true);
  port_.now_ns += 1000;
  users_->run_due(port_.now_ns);
  EXPECT_EQ(port_.released, (std::vector<int>{1, 0}));
  EXPECT_EQ(users_->stats().tasks[0].count, 3u);
}

}  // namespace
}  // namespace pacer::scenario
