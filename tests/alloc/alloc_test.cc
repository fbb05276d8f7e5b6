// The hot path allocates nothing: a run of 10x more requests must not make
// more allocations than a short one (beyond a small constant). Global operator
// new is replaced here to count every allocation in the process (client and
// in-process server alike).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "../support/loopback.h"
#include "../support/script_file.h"
#include "engine/run.h"
#include "script/script_host.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace pacer {
namespace {

// script_path: empty for no script. The script is loaded before counting
// starts (as the app does); its set-up is counted, like the engine's.
long allocations_for_run(server::Server& srv, std::uint64_t requests, const char* path,
                         const std::string& script_path = "") {
  Config c = testing::config_for(srv, path);
  c.threads = 2;
  c.connections = 8;
  c.request_count = requests;
  c.script_path = script_path;
  std::unique_ptr<script::ScriptHost> host;
  if (!script_path.empty()) {
    auto loaded = script::ScriptHost::load(c);
    EXPECT_TRUE(loaded.ok());
    if (loaded.ok()) host = std::move(*loaded);
  }
  std::atomic<bool> stop{false};
  const long before = g_allocations.load();
  auto result = engine::run(c, stop, 0, nullptr, host.get());
  const long after = g_allocations.load();
  EXPECT_TRUE(result.ok());
  if (result.ok()) EXPECT_EQ(result->counters.responses, requests);
  return after - before;
}

TEST(Allocations, RequestsAfterSetupAllocateNothing) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  for (const char* path : {"/", "/bytes/4096", "/chunked/9000"}) {
    const long small = allocations_for_run(*srv, 2'000, path);
    const long large = allocations_for_run(*srv, 20'000, path);
    // 18,000 extra requests; set-up costs the same in both runs.
    EXPECT_LT(large - small, 50) << path << ": " << small << " vs " << large << " allocations";
  }
}

// A script that only sets wrk.method, wrk.body and wrk.headers is built once:
// per request it costs what no script costs.
TEST(Allocations, StaticScriptAllocatesNothingPerRequest) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  testing::ScriptFile file(
      "wrk.method = 'POST'\nwrk.body = '{\"a\":1}'\nwrk.headers['Content-Type'] = 'application/json'\n");
  const long small = allocations_for_run(*srv, 2'000, "/echo", file.path());
  const long large = allocations_for_run(*srv, 20'000, "/echo", file.path());
  EXPECT_LT(large - small, 50) << small << " vs " << large << " allocations";
}

// With request() and response(), Lua allocates in its own heap; the C++ side
// (request and capture buffers) reuses its capacity.
TEST(Allocations, ScriptHooksAllocateNothingOnTheCppSidePerRequest) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  testing::ScriptFile file(
      "local req = wrk.format(nil, '/bytes/300')\n"
      "function request(conn) return req end\n"
      "function response(status, headers, body, conn) conn.last = status end\n");
  const long small = allocations_for_run(*srv, 2'000, "/", file.path());
  const long large = allocations_for_run(*srv, 20'000, "/", file.path());
  EXPECT_LT(large - small, 50) << small << " vs " << large << " allocations";
}

}  // namespace
}  // namespace pacer
