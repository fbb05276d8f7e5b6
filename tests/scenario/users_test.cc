// Virtual users driven through a fake worker (Port): a coroutine resumes with
// the response, with a failed request's error (status 0, error = the class),
// think time and u:sleep put the next step's due time where docs/scenarios.md
// says, a Lua error ends the task and the user goes on, u:fail counts a check
// under the request's name, and the open model hands tasks to free users.
#include "scenario/users.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "users_fixture.h"

namespace pacer::scenario {
namespace {

TEST_F(UsersTest, ResumesWithTheResponseAndSendsTheNextStep) {
  load(R"(return { tasks = { {1, function(u)
      local r = u:get("/first", nil, "first")
      u:get("/second?status=" .. r.status, {["X-Id"] = tostring(u.id)})
    end} } })");
  users_->start(port_.now_ns);
  EXPECT_EQ(port_.connected, std::vector<int>{0});
  users_->run_due(port_.now_ns);
  ASSERT_EQ(users_->user(0).state, User::State::kWantsSend);
  EXPECT_EQ(request_line(), "GET /first HTTP/1.1");
  EXPECT_NE(std::string(users_->request_bytes(0)).find("Host: 127.0.0.1:8080\r\n"), std::string::npos);
  answer(0, 203, 2'000'000'000);
  ASSERT_EQ(users_->user(0).state, User::State::kWantsSend);
  EXPECT_EQ(request_line(), "GET /second?status=203 HTTP/1.1");
  EXPECT_NE(std::string(users_->request_bytes(0)).find("X-Id: 0\r\n"), std::string::npos);
  EXPECT_EQ(users_->user(0).mark_ns, 2'000'000'000) << "the next step is due when the previous one finished";
  EXPECT_EQ(users_->stats().names[users_->user(0).name].name, "GET /second") << "the query is not in the name";
}

TEST_F(UsersTest, HeadersReplaceTheirNamesakesWhateverTheCase) {
  config_.headers = {{"X-Token", "from -H"}, {"Host", "cmd.example"}, {"Accept", "*/*"}};
  config_.keep_alive = false;
  load(R"(return { tasks = { {1, function(u)
      u:post("/p", "abc", {["x-token"] = "from the call", ["content-length"] = "3", connection = "keep-alive"})
    end} } })");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  ASSERT_EQ(users_->user(0).state, User::State::kWantsSend);
  const std::string bytes(users_->request_bytes(0));
  const std::string head = bytes.substr(0, bytes.find("\r\n\r\n") + 2);
  const auto lines = [&](const std::string& prefix) {
    std::size_t n = 0;
    for (std::size_t at = head.find("\r\n"); at != std::string::npos; at = head.find("\r\n", at + 2)) {
      if (head.compare(at + 2, prefix.size(), prefix) == 0) ++n;
    }
    return n;
  };
  EXPECT_EQ(lines("Host: cmd.example\r\n"), 1u) << head;  // -H Host replaces pacer's
  EXPECT_EQ(lines("Host:"), 1u) << head;
  EXPECT_EQ(lines("x-token: from the call\r\n"), 1u) << head;
  EXPECT_EQ(lines("X-Token:"), 0u) << head;
  EXPECT_EQ(lines("Accept: */*\r\n"), 1u) << head;
  EXPECT_EQ(lines("Content-Length:"), 0u) << head;
  EXPECT_EQ(lines("content-length: 3\r\n"), 1u) << head;
  EXPECT_EQ(lines("Connection:"), 0u) << head;
  EXPECT_EQ(lines("connection: keep-alive\r\n"), 1u) << head;
}

TEST_F(UsersTest, AnAnsweredUserResumesAtOnceAndOnlyOnce) {
  load(R"(return { tasks = { {1, function(u)
      local r = u:get("/one")
      u:get("/two?after=" .. r.status)
      u:get("/three")
    end} } })");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  users_->sent(0);
  users_->on_response(0, 200, port_.now_ns + 10, true);
  EXPECT_EQ(users_->user(0).state, User::State::kQueued);
  users_->resume_answered(0);  // the worker, right after reading the connection
  ASSERT_EQ(users_->user(0).state, User::State::kWantsSend);
  EXPECT_EQ(request_line(), "GET /two?after=200 HTTP/1.1");
  const std::size_t sends = port_.sends.size();
  users_->run_due(port_.now_ns + 20);  // its stale ring entry is skipped
  EXPECT_EQ(users_->user(0).state, User::State::kWantsSend);
  EXPECT_EQ(request_line(), "GET /two?after=200 HTTP/1.1");
  EXPECT_EQ(port_.sends.size(), sends);
  answer(0, 200, port_.now_ns + 30);  // queued again, through the ring this time
  EXPECT_EQ(request_line(), "GET /three HTTP/1.1");
}

TEST_F(UsersTest, AFailedRequestResumesWithStatusZeroAndItsErrorClass) {
  load(R"(return { tasks = { {1, function(u)
      local r = u:get("/slow")
      u:get("/after?status=" .. r.status .. "&error=" .. tostring(r.error))
    end} } })");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  users_->sent(0);
  users_->on_failed(0, "timeout", 3'000'000'000, true);
  users_->run_due(3'000'000'000);
  EXPECT_EQ(request_line(), "GET /after?status=0&error=timeout HTTP/1.1");
  EXPECT_EQ(users_->user(0).mark_ns, 3'000'000'000);
  users_->sent(0);
  users_->on_failed(0, "read", 3'500'000'000, true);
  users_->run_due(3'500'000'000);
  // The task ended (it had two steps) and failed; the next one starts at once (no wait).
  EXPECT_EQ(users_->stats().tasks[0].count, 1u);
  EXPECT_EQ(users_->stats().tasks[0].failures, 1u);
  EXPECT_EQ(users_->stats().names[0].failed, 1u);
}

TEST_F(UsersTest, ThinkTimeAndSleepSetTheDueTimes) {
  load(R"(return { wait = pacer.constant(2), tasks = { {1, function(u)
      u:get("/a")
      u:sleep(0.5)
      u:get("/b")
    end} } })");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  const TimeNs t0 = port_.now_ns;
  EXPECT_EQ(users_->user(0).mark_ns, t0) << "the first task starts when the user does";
  answer(0, 200, t0 + 100'000'000);
  // u:sleep(0.5): due 0.5 s after /a finished.
  EXPECT_EQ(users_->user(0).state, User::State::kSleeping);
  EXPECT_EQ(users_->next_due_ns(), t0 + 600'000'000);
  users_->run_due(t0 + 600'000'000);
  ASSERT_EQ(users_->user(0).state, User::State::kWantsSend);
  EXPECT_EQ(users_->user(0).mark_ns, t0 + 600'000'000);
  answer(0, 200, t0 + 700'000'000);
  // The task ended at 0.7 s: think time 2 s, the next task is due at 2.7 s.
  EXPECT_EQ(users_->user(0).state, User::State::kThinking);
  EXPECT_EQ(users_->next_due_ns(), t0 + 2'700'000'000);
  EXPECT_EQ(users_->stats().tasks[0].count, 1u);
  EXPECT_EQ(users_->stats().tasks[0].duration.max(), 700'000'000) << "from its scheduled start to the end of its last step";
  users_->run_due(t0 + 2'699'999'999);
  EXPECT_EQ(users_->user(0).state, User::State::kThinking);
  users_->run_due(t0 + 2'700'000'000);
  ASSERT_EQ(users_->user(0).state, User::State::kWantsSend);
  EXPECT_EQ(request_line(), "GET /a HTTP/1.1");
  EXPECT_EQ(users_->user(0).mark_ns, t0 + 2'700'000'000);
}

TEST_F(UsersTest, ALuaErrorEndsTheTaskAndTheUserGoesOn) {
  load(R"(return { tasks = { {1, function(u)
      u:get("/x")
      local t = nil
      return t.field
    end, "broken"} } })");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  answer(0, 200, port_.now_ns + 1000);
  ASSERT_EQ(users_->stats().script, 1u);
  ASSERT_EQ(users_->stats().messages.size(), 1u);
  EXPECT_EQ(users_->stats().messages[0].where, "broken");
  EXPECT_NE(users_->stats().messages[0].text.find(".lua:4:"), std::string::npos) << users_->stats().messages[0].text;
  EXPECT_EQ(users_->stats().tasks[0].failures, 1u);
  users_->run_due(port_.now_ns);
  EXPECT_EQ(users_->user(0).state, User::State::kWantsSend) << "the next task started";
}

TEST_F(UsersTest, AHeaderThatWouldChangeTheFramingFailsTheTaskBeforeAnythingIsSent) {
  load(R"(return { tasks = { {1, function(u)
      u:post("/p", "GET /x HTTP/1.1\r\n\r\n", {["Content-Length"] = "0"})
    end, "smuggle"} } })");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  EXPECT_NE(users_->user(0).state, User::State::kWantsSend) << "nothing to send";
  ASSERT_GE(users_->stats().script, 1u);  // the task again and again, never sending
  ASSERT_EQ(users_->stats().messages.size(), 1u);
  EXPECT_EQ(users_->stats().messages[0].count, users_->stats().script);
  EXPECT_EQ(users_->stats().messages[0].where, "smuggle");
  EXPECT_EQ(users_->stats().messages[0].text,
            "'Content-Length: 0' contradicts the body, which is 19 bytes; pacer sets Content-Length from the body "
            "itself (drop the header)");
}

TEST_F(UsersTest, FailCountsACheckUnderTheRequestsNameOnce) {
  load(R"(return { on_start = function(u) error("no login") end,
                  tasks = { {1, function(u)
      local r = u:post("/api/orders", "{}", nil, "order")
      if r.status ~= 201 then u:fail("unexpected status " .. r.status); u:fail("again") end
    end} } })");
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  EXPECT_EQ(users_->stats().script, 1u) << "on_start failed";
  ASSERT_EQ(users_->user(0).state, User::State::kWantsSend) << "and the tasks run anyway";
  EXPECT_NE(std::string(users_->request_bytes(0)).find("Content-Length: 2\r\n\r\n{}"), std::string::npos);
  answer(0, 401, port_.now_ns + 1000);
  EXPECT_EQ(users_->stats().check, 1u);
  EXPECT_EQ(users_->stats().check_on_errors, 1u);
  const auto& name = users_->stats().names[users_->stats().name_index("order")];
  EXPECT_EQ(name.checks, 1u);
  ASSERT_EQ(users_->stats().messages.size(), 2u);
  EXPECT_EQ(users_->stats().messages[1].text, "unexpected status 401");
  EXPECT_EQ(users_->stats().messages[1].where, "order");
}

TEST_F(UsersTest, QueuedUsersResumeInTheOrderTheirEventsCame) {
  load(R"(return { tasks = { {1, function(u)
      u:get("/a")
      u:get("/b")
      u:sleep(0.5)
      u:get("/c")
    end} } })", 3);
  users_->start(port_.now_ns);
  users_->run_due(port_.now_ns);
  ASSERT_EQ(port_.sends, (std::vector<int>{0, 1, 2}));
  // The responses come 2, 0, 1: the users resume (and send /b) in that order.
  port_.sends.clear();
  for (int i = 0; i < 3; ++i) users_->sent(i);
  const TimeNs t = port_.now_ns + 1'000;
  users_->on_failed(2, "timeout", t, true);
  users_->on_response(0, 200, t + 1, true);
  users_->on_response(1, 200, t + 2, true);
  EXPECT_EQ(users_->next_due_ns(), port_.now_ns) << "users are queued: due now";
  port_.now_ns = t + 2;
  users_->run_due(port_.now_ns);
  EXPECT_EQ(port_.sends, (std::vector<int>{2, 0, 1}));
  // Answered in the order 1, 2, 0, they sleep 0.5 s from their own response's end.
  port_.sends.clear();
  for (int i = 0; i < 3; ++i) users_->sent(i);
  const TimeNs t2 = t + 1'000;
  users_->on_response(1, 200, t2, true);
  users_->on_response(2, 200, t2 + 1, true);
  users_->on_response(0, 200, t2 + 2, true);
  port_.now_ns = t2 + 2;
  users_->run_due(port_.now_ns);
  EXPECT_TRUE(port_.sends.empty());
  EXPECT_EQ(users_->next_due_ns(), t2 + 500'000'000) << "the earliest sleeper's wake time";
  port_.now_ns = t2 + 500'000'002;
  users_->run_due(port_.now_ns);  // three timers due in one turn: resumed by due time
  EXPECT_EQ(port_.sends, (std::vector<int>{1, 2, 0}));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(request_line(i), "GET /c HTTP/1.1");
}

TEST_F(UsersTest, OpenModelGivesTasksToFreeUsersAndQueuesTheRest) {
  load(R"(return { tasks = { {1, function(u) u:get("/t") end} } })", 2, true);
  users_->start(port_.now_ns);
  EXPECT_TRUE(port_.connected.empty()) << "users are created as tasks need them";
  users_->open_tasks().start_task(port_.now_ns);
  EXPECT_EQ(port_.connected, std::vector<int>{0});
  users_->run_due(port_.now_ns);  // on_start (none), then the waiting task
  users_->run_due(port_.now_ns);
  ASSERT_EQ(users_->user(0).state, User::State::kWantsSend);
  EXPECT_EQ(users_->user(0).mark_ns, port_.now_ns) << "the first step is due at the task's scheduled time";
  const TimeNs second = port_.now_ns + 5;
  users_->open_tasks().start_task(second);  // user 0 is busy: a second user
  EXPECT_EQ(port_.connected, (std::vector<int>{0, 1}));
  users_->open_tasks().start_task(second + 1);  // no user left: it waits
  EXPECT_EQ(users_->open_tasks().backlog_size(), 2u);
  answer(0, 200, second + 100);  // user 0 is free again, user 1 is through on_start
  users_->run_due(second + 100);
  ASSERT_EQ(users_->user(0).state, User::State::kWantsSend);
  ASSERT_EQ(users_->user(1).state, User::State::kWantsSend);
  EXPECT_EQ(users_->open_tasks().backlog_size(), 0u);
  // Each waiting task's clock started when it was scheduled.
  EXPECT_EQ(std::min(users_->user(0).mark_ns, users_->user(1).mark_ns), second);
  EXPECT_EQ(std::max(users_->user(0).mark_ns, users_->user(1).mark_ns), second + 1);
  users_->open_tasks().start_task(second + 2);  // both busy, no user left to create: it waits
  users_->open_tasks().expire_backlog(second + 11, 10);
  EXPECT_EQ(users_->open_tasks().backlog_size(), 1u);
  users_->open_tasks().expire_backlog(second + 12, 10);
  EXPECT_EQ(port_.given_up, 1) << "a task that waited past the limit is given up";
  EXPECT_EQ(users_->open_tasks().backlog_size(), 0u);
}

}  // namespace
}  // namespace pacer::scenario
