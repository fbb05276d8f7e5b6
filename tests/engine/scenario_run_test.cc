// Scenarios through the whole engine (engine::run against `pacer serve`
// in-process, a few hundred milliseconds each): users open their connections,
// run their tasks and every request they make reaches the server once. The
// server's own counters are the reference.
#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <string>
#include <thread>

#include "../support/loopback.h"
#include "../support/run_ok.h"
#include "../support/script_file.h"

namespace pacer::engine {
namespace {

using pacer::testing::ScriptFile;

Config scenario_config(const server::Server& srv, const ScriptFile& file) {
  Config c = pacer::testing::config_for(srv, "/");
  c.threads = 2;
  c.scenario_path = file.path();
  c.duration_ns = 300 * kNsPerMs;
  return c;
}

std::uint64_t endpoint_responses(const report::RunReport& r, const std::string& name) {
  for (const auto& e : r.endpoints) {
    if (e.name == name) return e.counts.responses;
  }
  return 0;
}

using pacer::testing::answered;

TEST(EngineScenario, ClosedUsersRunTheirTasksAndEveryRequestReachesTheServer) {
  auto srv = pacer::testing::start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file(
      "return { tasks = {\n"
      "  {1, function(u) u:get('/', nil, 'home') end, 'browse'},\n"
      "  {1, function(u) u:get('/bytes/10', nil, 'item'); u:get('/', nil, 'home') end, 'buy'},\n"
      "} }\n");
  Config c = scenario_config(*srv, file);
  c.users = 4;
  c.connections = 4;
  const report::RunReport r = pacer::testing::run_ok(c);
  EXPECT_EQ(r.scenario.users_started, 4u);
  EXPECT_EQ(srv->connections_accepted(), 4u);  // each user opens one (the first is the start-up probe's)
  const std::uint64_t home = endpoint_responses(r, "home");
  const std::uint64_t item = endpoint_responses(r, "item");
  EXPECT_GT(item, 0u);
  EXPECT_GT(home, item);  // both tasks request home
  EXPECT_EQ(home + item, r.counters.responses);
  EXPECT_EQ(r.counters.errors.socket_total(), 0u);
  EXPECT_EQ(answered(*srv, r.counters.responses + r.counters.warmup_responses),
            r.counters.responses + r.counters.warmup_responses);
  std::uint64_t tasks = 0;
  for (const auto& t : r.scenario.tasks) tasks += t.count;
  EXPECT_GT(tasks, 0u);
}

TEST(EngineScenario, OpenModelTasksArriveOnTheScheduleForFreeUsers) {
  auto srv = pacer::testing::start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file("return { tasks = { {1, function(u) u:get('/', nil, 'home') end} } }\n");
  Config c = scenario_config(*srv, file);
  c.load_model = LoadModel::kConstant;
  c.rate_per_s = 200;
  c.duration_ns = 500 * kNsPerMs;
  c.max_users = 20;
  c.connections = 20;
  const report::RunReport r = pacer::testing::run_ok(c);
  EXPECT_EQ(r.counters.scheduled, 100u);  // tasks: 200/s for 0.5 s
  EXPECT_EQ(endpoint_responses(r, "home"), 100u);
  EXPECT_EQ(r.counters.errors.unsent, 0u);
  EXPECT_LE(r.scenario.users_started, 20u);
  EXPECT_EQ(answered(*srv, 100), 100u);
}

TEST(EngineScenario, AFailedCheckIsCountedOncePerRequestAndTheUsersGoOn) {
  auto srv = pacer::testing::start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file("return { tasks = { {1, function(u) u:get('/', nil, 'home'); u:fail('no') end} } }\n");
  Config c = scenario_config(*srv, file);
  c.users = 2;
  c.connections = 2;
  c.request_count = 40;
  c.duration_given = false;
  const report::RunReport r = pacer::testing::run_ok(c);
  EXPECT_EQ(r.counters.responses, 40u);
  EXPECT_EQ(r.scenario.check, 40u);
  std::uint64_t failed_tasks = 0;
  for (const auto& t : r.scenario.tasks) failed_tasks += t.failures;
  EXPECT_EQ(failed_tasks, 40u);
}

}  // namespace
}  // namespace pacer::engine
