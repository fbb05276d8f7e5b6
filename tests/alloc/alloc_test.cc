// The hot path allocates nothing: a run of 10x more requests must not make
// more allocations than a short one (beyond a small constant). Global operator
// new is replaced here to count every allocation in the process (client and
// in-process server alike).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "../support/loopback.h"
#include "engine/run.h"

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

// interval_ns > 0: the workers also close intervals (as for the live view and
// --timeseries), handed to a sink that allocates nothing itself.
long allocations_for_run(server::Server& srv, std::uint64_t requests, const char* path, TimeNs interval_ns = 0) {
  Config c = testing::config_for(srv, path);
  c.threads = 2;
  c.connections = 8;
  c.request_count = requests;
  std::atomic<bool> stop{false};
  std::uint64_t intervals = 0;
  const engine::IntervalSink sink = [&intervals](const report::IntervalReport&) { ++intervals; };
  const long before = g_allocations.load();
  auto result = interval_ns > 0 ? engine::run(c, stop, interval_ns, sink) : engine::run(c, stop);
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

TEST(Allocations, ClosingIntervalsAllocatesNothing) {
  auto srv = testing::start_loopback_server(1);
  ASSERT_NE(srv, nullptr);
  // 1 ms intervals: the longer run closes many more of them.
  const long small = allocations_for_run(*srv, 2'000, "/", kNsPerMs);
  const long large = allocations_for_run(*srv, 20'000, "/", kNsPerMs);
  EXPECT_LT(large - small, 50) << small << " vs " << large << " allocations";
}

}  // namespace
}  // namespace pacer
