// Issue 27's scenario language through a fake worker: several user types (by
// weight or fixed count), nested task sets left by u:interrupt(), sequences,
// tags and --tags/--exclude-tags, pacing waits, u:success() and the test-level
// hooks; and the file's mistakes each refused with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "scenario/scenario_plan.h"
#include "scenario/test_hooks.h"
#include "users_fixture.h"

namespace pacer::scenario {
namespace {

// The path of user i's pending request.
std::string path_of(Users& users, int i) {
  const std::string_view bytes = users.request_bytes(i);
  const std::size_t start = bytes.find(' ') + 1;
  return std::string(bytes.substr(start, bytes.find(' ', start) - start));
}

class UserTypesTest : public UsersTest {
 protected:
  // Answers user i's requests with 200 one after another: the paths it asked for.
  std::vector<std::string> follow(int i, int steps, TimeNs step_ns = 1'000'000) {
    std::vector<std::string> paths;
    for (int k = 0; k < steps && users_->user(i).state == User::State::kWantsSend; ++k) {
      paths.push_back(path_of(*users_, i));
      answer(i, 200, port_.now_ns + step_ns);
    }
    return paths;
  }
  Error load_error(const std::string& code) {
    script_ = std::make_unique<pacer::testing::ScriptFile>(code);
    config_.scenario_path = script_->path();
    users_ = std::make_unique<Users>(config_, 0, 1, 1, 16);
    Status s = users_->prepare(port_);
    EXPECT_FALSE(s);
    return s ? Error{} : s.error();
  }
};

TEST(AssignUserTypes, FixedCountsComeFirstThenEveryPrefixFollowsTheWeights) {
  const std::vector<UserType> types = {{"browse", 3, -1}, {"admin", 1, 2}, {"buy", 1, -1}};
  const auto assigned = assign_user_types(types, 42);
  ASSERT_EQ(assigned.size(), 42u);
  EXPECT_EQ(assigned[0], 1);
  EXPECT_EQ(assigned[1], 1);
  std::map<int, int> seen;
  for (std::size_t i = 2; i < assigned.size(); ++i) {
    ++seen[assigned[i]];
    const double n = static_cast<double>(i - 1);
    EXPECT_LE(std::abs(seen[0] - n * 0.75), 1.0) << "after " << n << " weighted users";
    EXPECT_LE(std::abs(seen[2] - n * 0.25), 1.0) << "after " << n << " weighted users";
  }
  EXPECT_EQ(seen[0], 30);
  EXPECT_EQ(seen[2], 10);
  EXPECT_EQ(seen.count(1), 0u);
}

TEST(AssignUserTypes, OnlyFixedCountsStartNoMoreUsersThanTheyAskFor) {
  EXPECT_EQ(assign_user_types({{"a", 1, 2}, {"b", 1, 1}}, 10), (std::vector<std::uint8_t>{0, 0, 1}));
}

TEST_F(UserTypesTest, EachUserRunsTheTasksOfItsType) {
  load(R"(
    local admin = {fixed_count = 1, tasks = {{1, function(u) u:get("/admin") end}}}
    local shopper = {weight = 1, tasks = {{1, function(u) u:get("/shop") end}}}
    function shopper.on_start(u) u:get("/login") end
    return {shopper, admin})", 3);
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  EXPECT_EQ(follow(0, 2), (std::vector<std::string>{"/admin", "/admin"}));
  EXPECT_EQ(follow(1, 3), (std::vector<std::string>{"/login", "/shop", "/shop"}));
  EXPECT_EQ(follow(2, 2), (std::vector<std::string>{"/login", "/shop"}));
}

TEST_F(UserTypesTest, ATaskSetRunsItsTasksUntilInterruptedThenTheParentGoesOnAtOnce) {
  load(R"(
    local inner = pacer.taskset{
      on_start = function(u) u:get("/set-start") end,
      on_stop = function(u) u:get("/set-stop") end,
      tasks = {{1, function(u)
        u.n = (u.n or 0) + 1
        u:get("/inner-" .. u.n)
        if u.n % 2 == 0 then u:interrupt() end
      end, "inner"}},
    }
    return {tasks = {{1, inner}}})");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  EXPECT_EQ(follow(0, 8), (std::vector<std::string>{"/set-start", "/inner-1", "/inner-2", "/set-stop", "/set-start",
                                                    "/inner-3", "/inner-4", "/set-stop"}));
  ASSERT_EQ(users_->stats().tasks.size(), 1u);
  EXPECT_EQ(users_->stats().tasks[0].name, "inner");
  EXPECT_EQ(users_->stats().tasks[0].count, 4u) << "each inner task is a task; the set is not";
  EXPECT_EQ(users_->stats().script, 0u);
}

TEST_F(UserTypesTest, ASequenceRunsItsTasksInOrderEachAsManyTimesAsItsFirstField) {
  load(R"(return {tasks = {{1, pacer.sequence{tasks = {
      {2, function(u) u:get("/a") end}, {1, function(u) u:get("/b") end}}}}}})");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  EXPECT_EQ(follow(0, 6), (std::vector<std::string>{"/a", "/a", "/b", "/a", "/a", "/b"}));
}

TEST_F(UserTypesTest, InterruptOutsideATaskSetIsAScriptError) {
  load(R"(return {tasks = {{1, function(u) u:get("/x"); u:interrupt() end}}})");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  EXPECT_EQ(follow(0, 2), (std::vector<std::string>{"/x", "/x"}));
  EXPECT_EQ(users_->stats().script, 2u) << "one for each task that called it";
}

constexpr const char* kTagged = R"(
  return {tasks = {
    {1, function(u) u:get("/untagged") end},
    {1, function(u) u:get("/browse") end, tags = {"browse"}},
    {1, pacer.taskset{tags = {"buy"}, tasks = {{1, function(u) u:get("/buy") end}}}},
  }})";

TEST_F(UserTypesTest, TagsSelectTasksAndATaskSetsTagsReachItsTasks) {
  config_.scenario_tags = {"buy"};
  load(kTagged);
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  EXPECT_EQ(follow(0, 3), (std::vector<std::string>{"/buy", "/buy", "/buy"}));
}

TEST_F(UserTypesTest, ExcludedTagsLeaveTheirTasksOut) {
  config_.scenario_exclude_tags = {"buy", "browse"};
  load(kTagged);
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  EXPECT_EQ(follow(0, 3), (std::vector<std::string>{"/untagged", "/untagged", "/untagged"}));
}

TEST_F(UserTypesTest, AnUnknownTagOrAnEmptySelectionIsRefused) {
  config_.scenario_tags = {"bye"};
  EXPECT_NE(load_error(kTagged).message.find("--tags: no task or task set has the tag 'bye'"), std::string::npos);
  config_.scenario_tags = {"browse"};
  config_.scenario_exclude_tags = {"browse"};
  const Error empty = load_error(kTagged);
  EXPECT_EQ(empty.kind, ErrorKind::kBadInput);
  EXPECT_NE(empty.message.find("empty tag selection"), std::string::npos) << empty.message;
}

TEST_F(UserTypesTest, TheDefinitionsMistakesAreRefusedWithTheReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"return {tasks = {{1, function() end}}, wiat = 1}", "user: unknown field 'wiat'"},
      {"return {{weight = 0, tasks = {{1, function() end}}}}", "users[1].weight must be a positive number"},
      {"return {{weight = 1, fixed_count = 2, tasks = {{1, function() end}}}}", "give weight or fixed_count, not both"},
      {"return {{fixed_count = 1.5, tasks = {{1, function() end}}}}", "fixed_count must be a whole number"},
      {"return {tasks = {{-1, function() end}}}", "user.tasks[1]: the weight (first field) must be a positive number"},
      {"return {tasks = {{1, pacer.taskset{tasks = {}}}}}", "user.tasks[1].tasks is missing or empty"},
      {"return {tasks = {{1, pacer.sequence{tasks = {{1.5, function() end}}}}}}", "a whole number"},
      {"return {tasks = {{1, function() end, tag = {'x'}}}}", "user.tasks[1]: unknown field 'tag'"},
      {"return {}", "user.tasks is missing or empty"},
      {"return {{tasks = {{1, function() end}}, on_test_start = function() end}}", "belong to the returned list"},
  };
  for (const auto& [code, message] : cases) {
    const Error e = load_error(code);
    EXPECT_EQ(e.kind, ErrorKind::kBadInput) << code;
    EXPECT_NE(e.message.find(message), std::string::npos) << code << " -> " << e.message;
  }
}

TEST_F(UserTypesTest, ConstantPacingCountsTheTasksOwnTime) {
  load(R"(return {wait = pacer.constant_pacing(10), tasks = {{1, function(u) u:get("/a"); u:get("/b") end}}})");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  const TimeNs task_start = users_->user(0).task_start_ns;
  answer(0, 200, task_start + 1'500'000'000);
  answer(0, 200, task_start + 3'000'000'000);
  ASSERT_EQ(users_->user(0).state, User::State::kThinking);
  EXPECT_EQ(users_->user(0).wake_ns, task_start + 10'000'000'000) << "the next task starts 10 s after this one did";
}

TEST_F(UserTypesTest, ConstantPacingWaitsNothingAfterATaskLongerThanItsPeriod) {
  load(R"(return {wait = pacer.constant_throughput(0.5), tasks = {{1, function(u) u:get("/a") end}}})");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  const TimeNs task_start = users_->user(0).task_start_ns;
  answer(0, 200, task_start + 3'000'000'000);
  ASSERT_EQ(users_->user(0).state, User::State::kWantsSend) << "2 s period, 3 s task: the next task at once";
  EXPECT_EQ(users_->user(0).task_start_ns, task_start + 3'000'000'000);
}

TEST_F(UserTypesTest, SuccessTurnsAnErrorResponseIntoASuccessfulTask) {
  port_.takes_success = true;
  load(R"(return {tasks = {{1, function(u)
      local r = u:get("/missing")
      if r.status == 404 then u.forgiven = u:success() end
      u:get(u.forgiven and "/forgiven" or "/not")
    end, "t"}}})");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  answer(0, 404, port_.now_ns + 1000);
  EXPECT_EQ(path_of(*users_, 0), "/forgiven");
  answer(0, 200, port_.now_ns + 1000);
  EXPECT_EQ(port_.successes, std::vector<int>{0});
  EXPECT_EQ(users_->stats().tasks[0].count, 1u);
  EXPECT_EQ(users_->stats().tasks[0].failures, 0u);
  const auto& names = users_->stats().names;
  const auto missing = std::find_if(names.begin(), names.end(), [](const NameRow& r) { return r.name == "GET /missing"; });
  ASSERT_NE(missing, names.end());
  EXPECT_EQ(missing->requests, 1u);
  EXPECT_EQ(missing->failed, 0u);
}

TEST_F(UserTypesTest, SuccessLeavesTheRequestFailedWhenTheRecorderDoesNotTakeIt) {
  load(R"(return {tasks = {{1, function(u) u:get("/missing"); u:success(); u:get("/next") end, "t"}}})");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  answer(0, 500, port_.now_ns + 1000);
  answer(0, 200, port_.now_ns + 1000);
  const auto& names = users_->stats().names;
  const auto missing = std::find_if(names.begin(), names.end(), [](const NameRow& r) { return r.name == "GET /missing"; });
  ASSERT_NE(missing, names.end());
  EXPECT_EQ(missing->failed, 1u) << "the run's counts still say so: every output the same";
  EXPECT_EQ(users_->stats().tasks[0].failures, 0u);
}

TEST_F(UserTypesTest, TheStopRunsTheOnStopOfTheTaskSetsTheUserIsInThenItsTypes) {
  load(R"(
    local log = {}
    return {on_stop = function(u) u:get("/user-stop") end,
            tasks = {{1, pacer.taskset{on_stop = function(u) u:get("/set-stop") end,
                                       tasks = {{1, function(u) u:get("/in") end}}}}}})");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  ASSERT_EQ(path_of(*users_, 0), "/in");
  users_->stop();
  EXPECT_EQ(path_of(*users_, 0), "/user-stop") << "the last request on_stop made (not sent)";
}

TEST(TestHooks, StartAndStopRunOnceInAStateOfTheirOwn) {
  pacer::testing::ScriptFile file(R"(
    return {{tasks = {{1, function() end}}},
            on_test_start = function() started = (started or 0) + 41 end,
            on_test_stop = function() error("stopped after " .. tostring(started + 1)) end})");
  Config config;
  config.scenario_path = file.path();
  auto hooks = TestHooks::start(config);
  ASSERT_TRUE(hooks) << hooks.error().message;
  const Status stopped = (*hooks)->stop();
  ASSERT_FALSE(stopped);
  EXPECT_NE(stopped.error().message.find("on_test_stop: "), std::string::npos);
  EXPECT_NE(stopped.error().message.find("stopped after 42"), std::string::npos) << stopped.error().message;
  EXPECT_TRUE((*hooks)->stop()) << "once";
}

TEST(TestHooks, AnErrorInOnTestStartStopsTheRunBeforeItStarts) {
  pacer::testing::ScriptFile file(R"(return {on_test_start = function() error("no database") end,
                                            tasks = {{1, function() end}}})");
  Config config;
  config.scenario_path = file.path();
  auto hooks = TestHooks::start(config);
  ASSERT_FALSE(hooks);
  EXPECT_EQ(hooks.error().kind, ErrorKind::kRuntime);
  EXPECT_NE(hooks.error().message.find("on_test_start: "), std::string::npos);
  EXPECT_NE(hooks.error().message.find("no database"), std::string::npos);
}

}  // namespace
}  // namespace pacer::scenario
