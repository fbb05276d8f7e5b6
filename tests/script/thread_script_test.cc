// ThreadScript's per-request calls: request(conn), response(status, headers,
// body, conn), delay(), and the per-connection tables.
#include "script/thread_script.h"

#include <gtest/gtest.h>

#include "../support/script_file.h"
#include "script/script_host.h"

namespace pacer::script {
namespace {

using pacer::testing::ScriptFile;
using pacer::testing::script_config;

class ThreadScriptTest : public ::testing::Test {
 protected:
  ThreadScript& load(const std::string& text) {
    file_ = std::make_unique<ScriptFile>(text);
    config_ = script_config(file_->path(), 8080);
    auto host = ScriptHost::load(config_);
    EXPECT_TRUE(host.ok()) << host.error().message;
    host_ = std::move(*host);
    auto addresses = net::resolve("127.0.0.1", 8080);
    const Status s = host_->setup(1, addresses->front());
    EXPECT_TRUE(s.ok()) << s.error().message;
    return host_->thread(0);
  }

 private:
  std::unique_ptr<ScriptFile> file_;
  Config config_;
  std::unique_ptr<ScriptHost> host_;
};

TEST_F(ThreadScriptTest, RequestReturnsTheScriptsBytes) {
  ThreadScript& t = load(R"(
local n = 0
function request() n = n + 1; return wrk.format("GET", "/item/" .. n) end
)");
  std::string out;
  ASSERT_TRUE(t.request(t.new_connection_table(), out).ok());
  EXPECT_EQ(out.rfind("GET /item/1 HTTP/1.1\r\n", 0), 0u) << out;
  ASSERT_TRUE(t.request(t.new_connection_table(), out).ok());
  EXPECT_EQ(out.rfind("GET /item/2 HTTP/1.1\r\n", 0), 0u) << out;
}

TEST_F(ThreadScriptTest, EachConnectionKeepsItsOwnTable) {
  ThreadScript& t = load(R"(
function request(conn)
  conn.count = (conn.count or 0) + 1
  return wrk.format("GET", "/" .. conn.count)
end
)");
  const int a = t.new_connection_table();
  const int b = t.new_connection_table();
  std::string out;
  ASSERT_TRUE(t.request(a, out).ok());
  ASSERT_TRUE(t.request(a, out).ok());
  EXPECT_EQ(out.rfind("GET /2 ", 0), 0u) << out;
  ASSERT_TRUE(t.request(b, out).ok());
  EXPECT_EQ(out.rfind("GET /1 ", 0), 0u) << out;
}

TEST_F(ThreadScriptTest, RequestReturningANonStringIsAnError) {
  ThreadScript& t = load("function request() return 42 end\n");
  std::string out;
  const Status s = t.request(t.new_connection_table(), out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("must return a string, got number"), std::string::npos) << s.error().message;
}

TEST_F(ThreadScriptTest, RequestsSecondValueIsTheRequestsName) {
  ThreadScript& t = load(R"(
local n = 0
function request()
  n = n + 1
  if n == 1 then return wrk.format("GET", "/a"), "first" end
  return wrk.format("GET", "/b")
end
)");
  std::string out;
  std::string name = "stale";
  ASSERT_TRUE(t.request(t.new_connection_table(), out, &name).ok());
  EXPECT_EQ(name, "first");
  ASSERT_TRUE(t.request(t.new_connection_table(), out, &name).ok());
  EXPECT_EQ(name, "");  // no second value: unnamed
}

TEST_F(ThreadScriptTest, ANameThatIsNotAStringIsAnError) {
  ThreadScript& t = load("function request() return wrk.format('GET', '/'), {} end\n");
  std::string out;
  std::string name;
  const Status s = t.request(t.new_connection_table(), out, &name);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("second value (the request's name) must be a string or nil, got table"),
            std::string::npos)
      << s.error().message;
}

TEST_F(ThreadScriptTest, RuntimeErrorInRequestCarriesFileAndLine) {
  ThreadScript& t = load("function request()\n  return nil .. 'x'\nend\n");
  std::string out;
  const Status s = t.request(t.new_connection_table(), out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(":2:"), std::string::npos) << s.error().message;
}

TEST_F(ThreadScriptTest, ResponseGetsStatusHeadersBodyAndTheConnection) {
  ThreadScript& t = load(R"(
function response(status, headers, body, conn)
  assert(status == 201, status)
  assert(headers["Content-Type"] == "text/plain", tostring(headers["Content-Type"]))
  assert(headers["X-Empty"] == "", tostring(headers["X-Empty"]))
  assert(body == "hello", body)
  conn.seen = (conn.seen or 0) + 1
  assert(conn.seen == 1)
end
)");
  using namespace std::string_view_literals;
  const Status s = t.response(201, "Content-Type\0text/plain\0X-Empty\0\0"sv, "hello", t.new_connection_table());
  EXPECT_TRUE(s.ok()) << s.error().message;
}

TEST_F(ThreadScriptTest, DelayIsMillisecondsAndNeverNegative) {
  ThreadScript& t = load("local d = 2.5\nfunction delay() d = d - 5; return d + 5 end\n");
  auto first = t.delay();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, 2'500'000);
  auto second = t.delay();
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, 0);
}

// Found by fuzz/lua_script_fuzz.cc: 1e300 ms was cast to int64 (UB; on x86 a
// negative delay). A delay too large to hold, or infinite, is the longest one;
// NaN is none.
TEST_F(ThreadScriptTest, AHugeOrInfiniteDelayIsTheLongestDelayNotAnOverflow) {
  ThreadScript& t = load("local v = {1e300, 1/0, 0/0, -1/0}\nlocal i = 0\n"
                         "function delay() i = i + 1; return v[i] end\n");
  for (TimeNs expected : {TimeNs{1} << 62, TimeNs{1} << 62, TimeNs{0}, TimeNs{0}}) {
    auto d = t.delay();
    ASSERT_TRUE(d.ok()) << d.error().message;
    EXPECT_EQ(*d, expected);
  }
}

}  // namespace
}  // namespace pacer::script
