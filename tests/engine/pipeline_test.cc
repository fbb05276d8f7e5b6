// Component tests: HTTP/1.1 pipelining (--pipeline) through the session seam,
// against `pacer serve` in-process. The server's counters are the reference.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "../support/loopback.h"
#include "../support/run_ok.h"
#include "engine/run.h"

namespace pacer::engine {
namespace {

using pacer::testing::config_for;
using pacer::testing::start_loopback_server;

using pacer::testing::answered;

using pacer::testing::run_ok;

TEST(Pipelining, EveryPipelinedRequestIsAnsweredAndCountedExactlyOnce) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/bytes/300");
  c.threads = 2;
  c.connections = 2;
  c.pipeline = 8;
  c.request_count = 2000;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.responses, 2000u);
  EXPECT_EQ(r.counters.requests_sent, 2000u);
  EXPECT_EQ(r.counters.status_counts[200], 2000u);
  EXPECT_EQ(r.counters.errors.socket_total(), 0u);
  EXPECT_EQ(r.counters.connects, 2u);  // no reconnects: the responses matched their requests
  EXPECT_EQ(answered(*srv, 2000), 2000u);
}

TEST(Pipelining, MixedStatusesStayMatchedToTheirRequests) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/fail/4");  // every 4th request answers 500
  c.threads = 1;
  c.connections = 1;
  c.pipeline = 4;
  c.request_count = 400;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.status_counts[500], 100u);
  EXPECT_EQ(r.counters.status_counts[200], 300u);
}

TEST(Pipelining, ATimeoutCancelsTheRequestsPipelinedBehindItToo) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/delay/2000");
  c.threads = 1;
  c.connections = 1;
  c.pipeline = 4;
  c.timeout_ns = 100 * kNsPerMs;
  c.duration_ns = 250 * kNsPerMs;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.responses, 0u);
  // Each cancelled connection carried 4 requests: all of them are timeouts.
  EXPECT_GE(r.counters.errors.timeout, 4u);
  EXPECT_EQ(r.counters.errors.timeout % 4, 0u);
  EXPECT_EQ(r.latency_censored.total_count(), static_cast<std::int64_t>(r.counters.errors.timeout));
}

TEST(Pipelining, TheOpenModelFillsAConnectionsSlotsBeforeQueueing) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/");
  c.threads = 1;
  c.connections = 1;
  c.pipeline = 4;
  c.load_model = LoadModel::kConstant;
  c.rate_per_s = 2000;
  c.duration_ns = 500 * kNsPerMs;
  const report::RunReport r = run_ok(c);
  EXPECT_NEAR(static_cast<double>(r.counters.responses), 1000.0, 20.0);
  EXPECT_EQ(r.counters.errors.socket_total(), 0u);
  EXPECT_EQ(r.counters.connects, 1u);
  EXPECT_EQ(answered(*srv, r.counters.responses), r.counters.responses);
}

}  // namespace
}  // namespace pacer::engine
