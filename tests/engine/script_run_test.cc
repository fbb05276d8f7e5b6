// Component tests: runs with a Lua script against `pacer serve` in-process,
// a few hundred milliseconds each; the server's counters are the reference.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>

#include "../support/loopback.h"
#include "../support/script_file.h"
#include "engine/run.h"
#include "script/script_host.h"

namespace pacer::engine {
namespace {

using pacer::testing::ScriptFile;
using pacer::testing::start_loopback_server;

Config scripted(const server::Server& srv, const ScriptFile& file, const std::string& path = "/") {
  Config c = pacer::testing::script_config(file.path(), srv.port(), path);
  c.threads = 1;
  c.connections = 2;
  c.duration_ns = 300 * kNsPerMs;
  return c;
}

// The run's report, or the error; the host stays for done().
struct ScriptedRun {
  std::unique_ptr<script::ScriptHost> host;
  Result<report::RunReport> result = runtime_error("not run");
};

ScriptedRun run_script(const Config& config) {
  ScriptedRun out;
  auto host = script::ScriptHost::load(config);
  if (!host) {
    out.result = host.error();
    return out;
  }
  out.host = std::move(*host);
  std::atomic<bool> stop{false};
  out.result = run(config, stop, 0, nullptr, nullptr, out.host.get());
  return out;
}

using pacer::testing::answered;

TEST(ScriptRun, StaticScriptSendsItsPrebuiltRequest) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file("wrk.path = '/status/201'\n");
  Config c = scripted(*srv, file);
  c.request_count = 200;
  ScriptedRun r = run_script(c);
  ASSERT_TRUE(r.result.ok()) << r.result.error().message;
  EXPECT_EQ(r.result->counters.status_counts[201], 200u);
  EXPECT_EQ(answered(*srv, 200), 200u);
}

TEST(ScriptRun, RequestFunctionChoosesEachRequest) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file(R"(
local n = 0
function request()
  n = n + 1
  return wrk.format(nil, n % 2 == 0 and "/status/202" or "/status/203")
end
)");
  Config c = scripted(*srv, file);
  c.connections = 1;
  c.request_count = 100;
  ScriptedRun r = run_script(c);
  ASSERT_TRUE(r.result.ok()) << r.result.error().message;
  EXPECT_EQ(r.result->counters.status_counts[202], 50u);
  EXPECT_EQ(r.result->counters.status_counts[203], 50u);
}

TEST(ScriptRun, SeveralRequestsFromOneCallArePipelinedAndEachCounted) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file(R"(
calls = 0
local three = wrk.format(nil, "/") .. wrk.format("HEAD", "/") .. wrk.format(nil, "/status/204")
function request() calls = calls + 1; return three end
)");
  Config c = scripted(*srv, file);
  c.connections = 1;
  c.request_count = 30;  // ten batches of three
  ScriptedRun r = run_script(c);
  ASSERT_TRUE(r.result.ok()) << r.result.error().message;
  const auto& counters = r.result->counters;
  EXPECT_EQ(counters.responses % 3, 0u);
  EXPECT_GE(counters.responses, 30u);
  EXPECT_EQ(counters.status_counts[200], 2 * counters.responses / 3);
  EXPECT_EQ(counters.status_counts[204], counters.responses / 3);
  EXPECT_EQ(counters.errors.socket_total(), 0u);
  EXPECT_EQ(answered(*srv, counters.responses), counters.responses);
}

TEST(ScriptRun, ResponseSeesStatusHeadersAndBody) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file(R"(
function response(status, headers, body)
  if status ~= 200 or headers["Content-Length"] ~= "26" or #body ~= 26 then
    error("unexpected response " .. status .. " " .. tostring(headers["Content-Length"]) .. " " .. #body)
  end
end
)");
  Config c = scripted(*srv, file, "/bytes/26");
  c.request_count = 200;
  ScriptedRun r = run_script(c);
  ASSERT_TRUE(r.result.ok()) << r.result.error().message;
  EXPECT_EQ(r.result->counters.status_counts[200], 200u);
}

TEST(ScriptRun, EachConnectionLogsInOnceThenUsesItsToken) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file(R"lua(
function request(conn)
  if not conn.token then
    conn.logging_in = true
    return wrk.format("POST", "/login", nil, "user=u")
  end
  return wrk.format("GET", "/auth", { Authorization = "Bearer " .. conn.token })
end
function response(status, headers, body, conn)
  if conn.logging_in then
    conn.logging_in = nil
    conn.token = body:match('"token":"([^"]+)"')
  end
end
)lua");
  Config c = scripted(*srv, file);
  c.connections = 3;
  c.request_count = 300;
  ScriptedRun r = run_script(c);
  ASSERT_TRUE(r.result.ok()) << r.result.error().message;
  EXPECT_EQ(r.result->counters.status_counts[401], 0u);
  EXPECT_EQ(r.result->counters.status_counts[200], 300u);  // 3 logins, 297 authorized calls
}

TEST(ScriptRun, DelaySpacesEachConnectionsRequests) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file("function delay() return 25 end\n");
  Config c = scripted(*srv, file);
  c.connections = 1;
  c.duration_ns = 500 * kNsPerMs;
  ScriptedRun r = run_script(c);
  ASSERT_TRUE(r.result.ok()) << r.result.error().message;
  // 500 ms / 25 ms = 20 at most; a loaded machine may manage fewer.
  EXPECT_LE(r.result->counters.responses, 21u);
  EXPECT_GE(r.result->counters.responses, 5u);
}

TEST(ScriptRun, ThreadStopEndsThatThreadsRun) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file(R"(
local seen = 0
function response(status) seen = seen + 1; if seen == 50 then wrk.thread:stop() end end
)");
  Config c = scripted(*srv, file);
  c.connections = 1;
  c.duration_ns = 30 * kNsPerS;  // the stop, not the duration, ends the run
  const auto started = std::chrono::steady_clock::now();
  ScriptedRun r = run_script(c);
  ASSERT_TRUE(r.result.ok()) << r.result.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  EXPECT_EQ(r.result->counters.responses, 50u);
}

TEST(ScriptRun, RuntimeErrorDuringTheRunStopsItWithTheLuaMessage) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file("local n = 0\nfunction request()\n  n = n + 1\n  if n == 20 then error('boom at 20') end\n  return wrk.format()\nend\n");
  Config c = scripted(*srv, file);
  c.duration_ns = 30 * kNsPerS;
  const auto started = std::chrono::steady_clock::now();
  ScriptedRun r = run_script(c);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  ASSERT_FALSE(r.result.ok());
  EXPECT_EQ(r.result.error().kind, ErrorKind::kRuntime);
  EXPECT_NE(r.result.error().message.find(std::filesystem::path(file.path()).filename().string() + ":4: boom at 20"), std::string::npos) << r.result.error().message;
  EXPECT_NE(r.result.error().message.find("request()"), std::string::npos) << r.result.error().message;
}

TEST(ScriptRun, BadBytesFromRequestStopTheRun) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file("function request() return 'not http' end\n");
  ScriptedRun r = run_script(scripted(*srv, file));
  ASSERT_FALSE(r.result.ok());
  EXPECT_NE(r.result.error().message.find("not a valid HTTP/1.1 request"), std::string::npos) << r.result.error().message;
}

TEST(ScriptRun, ThreadAddrFromSetupIsWhereConnectionsGo) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  auto other = start_loopback_server();
  ASSERT_NE(other, nullptr);
  ScriptFile file("function setup(thread) thread.addr = wrk.lookup('127.0.0.1', os.getenv('PACER_TEST_OTHER_PORT'))[1] end\n");
  ::setenv("PACER_TEST_OTHER_PORT", std::to_string(other->port()).c_str(), 1);
  Config c = scripted(*srv, file);
  c.request_count = 100;
  ScriptedRun r = run_script(c);
  ASSERT_TRUE(r.result.ok()) << r.result.error().message;
  EXPECT_EQ(answered(*other, 100), 100u);
  EXPECT_EQ(srv->requests_answered(), 0u);
}

TEST(ScriptRun, OpenModelCallsRequestForEachScheduledArrival) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file("function request() return wrk.format(nil, '/status/202') end\n");
  Config c = scripted(*srv, file);
  c.load_model = LoadModel::kConstant;
  c.rate_per_s = 200;
  c.duration_ns = 500 * kNsPerMs;
  ScriptedRun r = run_script(c);
  ASSERT_TRUE(r.result.ok()) << r.result.error().message;
  // 200/s for 0.5 s: 100 arrivals, each one request() call.
  EXPECT_GE(r.result->counters.status_counts[202], 90u);
  EXPECT_LE(r.result->counters.status_counts[202], 101u);
  EXPECT_EQ(r.result->counters.status_counts[202], r.result->counters.responses);
}

}  // namespace
}  // namespace pacer::engine
