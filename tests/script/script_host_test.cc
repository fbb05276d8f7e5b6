// ScriptHost: loading, setup(thread) with thread:set/get/stop and thread.addr,
// init(args), and done() with the summary and statistics objects. Scripts
// check their own expectations with assert(); a failed assert comes back as
// the error these tests print.
#include "script/script_host.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "../support/loopback.h"
#include "../support/script_file.h"
#include "core/exit_code.h"

namespace pacer::script {
namespace {

using pacer::testing::ScriptFile;
using pacer::testing::script_config;

net::Address local_address(std::uint16_t port) {
  auto addresses = net::resolve("127.0.0.1", port);
  EXPECT_TRUE(addresses.ok());
  return addresses.ok() ? addresses->front() : net::Address{};
}

// Loads and sets up `text` with `threads` threads; the host, or the error.
Result<std::unique_ptr<ScriptHost>> set_up(const Config& config, int threads) {
  auto host = ScriptHost::load(config);
  if (!host) return host.error();
  if (Status s = (*host)->setup(threads, local_address(config.target.port)); !s) return s.error();
  return std::move(*host);
}

TEST(ScriptHost, SyntaxErrorIsBadInputNamingFileAndLine) {
  ScriptFile file("wrk.method = 'GET'\nlocal x = = 1\n");
  auto host = ScriptHost::load(script_config(file.path(), 8080));
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().kind, ErrorKind::kBadInput);
  const std::string name = std::filesystem::path(file.path()).filename().string();
  EXPECT_NE(host.error().message.find(name + ":2:"), std::string::npos) << host.error().message;
  EXPECT_NE(host.error().message.find(file.path()), std::string::npos) << host.error().message;
}

TEST(ScriptHost, MissingFileIsBadInputNamingIt) {
  auto host = ScriptHost::load(script_config("/nonexistent/script.lua", 8080));
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(host.error().message.find("/nonexistent/script.lua"), std::string::npos);
}

TEST(ScriptHost, AShebangLineIsSkippedAndLinesStillCount) {
  ScriptFile file("#!/usr/bin/env pacer\nlocal x = = 1\n");
  auto host = ScriptHost::load(script_config(file.path(), 8080));
  ASSERT_FALSE(host.ok());
  EXPECT_NE(host.error().message.find(".lua:2:"), std::string::npos) << host.error().message;
}

TEST(ScriptHost, ADirectoryIsNotAScript) {
  auto host = ScriptHost::load(script_config("/tmp", 8080));
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().kind, ErrorKind::kBadInput);
}

TEST(ScriptHost, RuntimeErrorInSetupIsBadInputWithLine) {
  ScriptFile file("function setup(thread)\n  local t = nil\n  return t.x\nend\n");
  auto host = set_up(script_config(file.path(), 8080), 1);
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(host.error().message.find(":3:"), std::string::npos) << host.error().message;
  EXPECT_NE(host.error().message.find("in setup"), std::string::npos) << host.error().message;
}

TEST(ScriptHost, RuntimeErrorInInitIsBadInputWithLine) {
  ScriptFile file("function init(args)\n  error('no token')\nend\n");
  auto host = set_up(script_config(file.path(), 8080), 1);
  ASSERT_FALSE(host.ok());
  EXPECT_NE(host.error().message.find(":2: no token"), std::string::npos) << host.error().message;
}

// Issue 44 (20): wrk.format keeps the 8 KiB URL cap the command line and --targets keep.
TEST(ScriptHost, WrkFormatRefusesAPathPastTheUrlCap) {
  ScriptFile file("function init(args)\n  assert(#wrk.format('GET', '/' .. ('a'):rep(8000)) > 8000)\n"
                  "  wrk.format('GET', '/' .. ('a'):rep(200000))\nend\n");
  auto host = set_up(script_config(file.path(), 8080), 1);
  ASSERT_FALSE(host.ok());
  EXPECT_NE(host.error().message.find(":3: wrk.format: the path is 200001 bytes, past the URL cap of 8192 bytes"),
            std::string::npos) << host.error().message;
}

TEST(ScriptHost, WrkTableCarriesTheCommandLine) {
  ScriptFile file(R"(
assert(wrk.scheme == "http", wrk.scheme)
assert(wrk.host == "127.0.0.1", wrk.host)
assert(wrk.port == "8080", tostring(wrk.port))
assert(wrk.path == "/a?b=1", wrk.path)
assert(wrk.method == "PUT", wrk.method)
assert(wrk.body == "xyz", tostring(wrk.body))
assert(wrk.headers["X-Test"] == "1")
assert(wrk.thread == nil)
)");
  Config c = script_config(file.path(), 8080, "/a?b=1");
  c.method = "PUT";
  c.body = "xyz";
  c.headers.push_back(Header{"X-Test", "1"});
  auto host = ScriptHost::load(c);
  EXPECT_TRUE(host.ok()) << host.error().message;
}

TEST(ScriptHost, StaticScriptBuildsItsRequestOnceAfterInit) {
  ScriptFile file(R"(
wrk.method = "POST"
wrk.body = '{"a":1}'
wrk.headers["Content-Type"] = "application/json"
function init(args) wrk.path = "/echo" end
)");
  auto host = set_up(script_config(file.path(), 8080), 1);
  ASSERT_TRUE(host.ok()) << host.error().message;
  const ThreadScript& t = (*host)->thread(0);
  EXPECT_FALSE(t.has_request());
  EXPECT_FALSE(t.has_response());
  EXPECT_FALSE(t.has_delay());
  const std::string& req = t.static_request();
  EXPECT_EQ(req.rfind("POST /echo HTTP/1.1\r\n", 0), 0u) << req;
  EXPECT_NE(req.find("\r\nHost: 127.0.0.1:8080\r\n"), std::string::npos) << req;
  EXPECT_NE(req.find("\r\nContent-Length: 7\r\n"), std::string::npos) << req;
  EXPECT_NE(req.find("\r\nContent-Type: application/json\r\n"), std::string::npos) << req;
  EXPECT_TRUE(req.ends_with("\r\n\r\n{\"a\":1}")) << req;
}

TEST(ScriptHost, InitGetsTheUrlAsArgZeroAndTheScriptArguments) {
  ScriptFile file(R"(
function init(args)
  assert(args[0] == "http://127.0.0.1:8080/", tostring(args[0]))
  assert(args[1] == "one" and args[2] == "two" and #args == 2)
end
)");
  Config c = script_config(file.path(), 8080);
  c.script_args = {"one", "two"};
  auto host = set_up(c, 1);
  EXPECT_TRUE(host.ok()) << host.error().message;
}

TEST(ScriptHost, SetupSetsValuesEachThreadReadsAndDoneGetsThemBack) {
  ScriptFile file(R"(
local threads = {}
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  thread:set("config", { name = "t" .. counter, sizes = { 1, 2, 3 } })
  table.insert(threads, thread)
end
function init(args)
  assert(wrk.thread ~= nil)
  doubled = id * 2
  label = config.name .. ":" .. #config.sizes
end
function done(summary, latency, requests)
  for i, thread in ipairs(threads) do
    assert(thread:get("doubled") == 2 * i, "doubled " .. tostring(thread:get("doubled")))
    assert(thread:get("label") == "t" .. i .. ":3", thread:get("label"))
    assert(thread:get("missing") == nil)
  end
  assert(#threads == 3)
end
)");
  const Config c = script_config(file.path(), 8080);
  auto host = set_up(c, 3);
  ASSERT_TRUE(host.ok()) << host.error().message;
  auto done = (*host)->done(report::RunReport{});
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_FALSE(done->has_value());
}

TEST(ScriptHost, ThreadSetRefusesAFunction) {
  ScriptFile file("function setup(thread) thread:set('f', function() end) end\n");
  auto host = set_up(script_config(file.path(), 8080), 1);
  ASSERT_FALSE(host.ok());
  EXPECT_NE(host.error().message.find("cannot transfer 'function'"), std::string::npos) << host.error().message;
}

TEST(ScriptHost, ThreadStopIsSeenByTheWorker) {
  ScriptFile file(R"(
function setup(thread) if thread.id == 1 then thread:stop() end end
)");
  auto host = set_up(script_config(file.path(), 8080), 2);
  ASSERT_TRUE(host.ok()) << host.error().message;
  EXPECT_FALSE((*host)->thread(0).stop_requested());
  EXPECT_TRUE((*host)->thread(1).stop_requested());
}

TEST(ScriptHost, ThreadAddrDefaultsToTheTargetAndSetupCanChangeIt) {
  ScriptFile file(R"(
function setup(thread)
  assert(tostring(thread.addr) == "127.0.0.1:8080", tostring(thread.addr))
  if thread.id == 1 then thread.addr = wrk.lookup("127.0.0.1", "9")[1] end
end
)");
  auto host = set_up(script_config(file.path(), 8080), 2);
  ASSERT_TRUE(host.ok()) << host.error().message;
  EXPECT_EQ((*host)->thread(0).address().to_string(), "127.0.0.1:8080");
  EXPECT_EQ((*host)->thread(1).address().to_string(), "127.0.0.1:9");
}

TEST(ScriptHost, LookupFindsAddressesAndConnectTellsWhichAccept) {
  auto srv = pacer::testing::start_loopback_server();
  ASSERT_NE(srv, nullptr);
  ScriptFile file(R"(
local port = ...
function setup(thread)
  local addrs = wrk.lookup("127.0.0.1", wrk.port)
  assert(#addrs >= 1)
  assert(tostring(addrs[1]) == "127.0.0.1:" .. wrk.port, tostring(addrs[1]))
  assert(wrk.connect(addrs[1]) == true, "the loopback server accepts")
  assert(wrk.connect(wrk.lookup("127.0.0.1", "1")[1]) == false, "nothing listens on port 1")
  local ok, err = pcall(wrk.lookup, "no-such-host.invalid", "80")
  assert(not ok and err:find("no%-such%-host.invalid"), tostring(err))
end
)");
  auto host = set_up(script_config(file.path(), srv->port()), 1);
  EXPECT_TRUE(host.ok()) << host.error().message;
}

TEST(ScriptHost, HooksAreSeenOnlyWhenDefined) {
  ScriptFile file(R"(
function request() return wrk.format() end
function response(status, headers, body) end
function delay() return 5 end
)");
  auto host = set_up(script_config(file.path(), 8080), 1);
  ASSERT_TRUE(host.ok()) << host.error().message;
  const ThreadScript& t = (*host)->thread(0);
  EXPECT_TRUE(t.has_request());
  EXPECT_TRUE(t.has_response());
  EXPECT_TRUE(t.has_delay());
}

report::RunReport sample_report() {
  report::RunReport r;
  r.measured_ns = 2 * kNsPerS + 500;
  r.counters.responses = 4;
  r.counters.bytes_read = 400;
  r.counters.errors.connect = 1;
  r.counters.errors.read = 2;
  r.counters.errors.write = 3;
  r.counters.errors.status = 1;
  r.counters.errors.timeout = 5;
  r.counters.status_counts[200] = 3;
  r.counters.status_counts[404] = 1;
  for (TimeNs v : {1000, 2000, 2000, 8000}) r.latency.record(v);  // 1, 2, 2, 8 us
  for (std::int64_t v : {100, 300}) r.rate_samples.record(v);
  return r;
}

TEST(ScriptHost, DoneGetsSummaryAndStatisticsInWrkUnits) {
  ScriptFile file(R"(
function done(summary, latency, requests)
  assert(summary.duration == 2000000, summary.duration)
  assert(summary.requests == 4 and summary.bytes == 400)
  local e = summary.errors
  assert(e.connect == 1 and e.read == 2 and e.write == 3 and e.status == 1 and e.timeout == 5)
  assert(summary.status[200] == 3 and summary.status[404] == 1 and summary.status[500] == nil)
  assert(latency.min == 1 and latency.max == 8, latency.min .. " " .. latency.max)
  assert(math.abs(latency.mean - 3.25) < 0.01, latency.mean)
  assert(math.abs(latency.stdev - 2.77) < 0.05, latency.stdev)
  assert(latency:percentile(50) == 2 and latency:percentile(100) == 8)
  assert(#latency == 3)
  local v, n = latency(2)
  assert(v == 2 and n == 2, v .. " " .. n)
  assert(latency[3] == 8)
  assert(requests.min == 100 and requests.max == 300 and requests.mean == 200, requests.mean)
end
)");
  auto host = set_up(script_config(file.path(), 8080), 1);
  ASSERT_TRUE(host.ok()) << host.error().message;
  auto done = (*host)->done(sample_report());
  EXPECT_TRUE(done.ok()) << done.error().message;
}

TEST(ScriptHost, OsExitInDoneGivesTheExitCode) {
  ScriptFile file("function done(s, l, r) os.exit(3) end\n");
  auto host = set_up(script_config(file.path(), 8080), 1);
  ASSERT_TRUE(host.ok()) << host.error().message;
  auto done = (*host)->done(report::RunReport{});
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(*done, std::optional<int>(3));
}

TEST(ScriptHost, OsExitWithABooleanMapsToSuccessOrFailure) {
  ScriptFile file("function done(s, l, r) os.exit(false) end\n");
  auto host = set_up(script_config(file.path(), 8080), 1);
  ASSERT_TRUE(host.ok()) << host.error().message;
  auto done = (*host)->done(report::RunReport{});
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(*done, std::optional<int>(1));
}

TEST(ScriptHost, ErrorInDoneIsARuntimeErrorWithLine) {
  ScriptFile file("function done(s, l, r)\n  error('gate broken')\nend\n");
  auto host = set_up(script_config(file.path(), 8080), 1);
  ASSERT_TRUE(host.ok()) << host.error().message;
  auto done = (*host)->done(report::RunReport{});
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.error().kind, ErrorKind::kRuntime);
  EXPECT_NE(done.error().message.find(":2: gate broken"), std::string::npos) << done.error().message;
}

TEST(ScriptHost, FailKeepsTheFirstMessage) {
  ScriptFile file("\n");
  auto host = ScriptHost::load(script_config(file.path(), 8080));
  ASSERT_TRUE(host.ok());
  EXPECT_FALSE((*host)->failed());
  (*host)->fail("first");
  (*host)->fail("second");
  EXPECT_TRUE((*host)->failed());
  EXPECT_EQ((*host)->failure(), "first");
}

}  // namespace
}  // namespace pacer::script
