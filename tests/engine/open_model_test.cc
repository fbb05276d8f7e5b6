// Component tests of the open model: the engine against `pacer serve`
// in-process. Rates and counts are checked with generous bounds (shared 2-core
// machines); what must be exact (counts against the schedule) is exact.
#include <gtest/gtest.h>

#include <atomic>

#include "../support/loopback.h"
#include "../support/run_ok.h"
#include "engine/run.h"

namespace pacer::engine {
namespace {

using pacer::testing::config_for;
using pacer::testing::start_loopback_server;

using pacer::testing::run_ok;

Config open_config(const server::Server& srv, const std::string& path, double rate_per_s, TimeNs duration_ns) {
  Config c = config_for(srv, path);
  c.load_model = LoadModel::kConstant;
  c.rate_per_s = rate_per_s;
  c.duration_ns = duration_ns;
  c.duration_given = true;
  c.threads = 2;
  c.connections = 8;
  return c;
}

TEST(OpenModel, ConstantRateSendsExactlyTheScheduledRequests) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  const Config c = open_config(*srv, "/", 2000, 500 * kNsPerMs);
  const report::RunReport r = run_ok(c);
  // 2000/s for 0.5 s is exactly 1000 arrivals (uniform, closed form).
  EXPECT_EQ(r.counters.scheduled, 1000u);
  EXPECT_EQ(r.counters.requests_sent, 1000u);
  EXPECT_EQ(r.counters.responses, 1000u);
  EXPECT_EQ(r.latency.total_count(), 1000);
  EXPECT_EQ(r.service.total_count(), 1000);
  EXPECT_EQ(r.queue_delay.total_count(), 1000);
  EXPECT_NEAR(r.target_rate_per_s, 2000, 20);
}

TEST(OpenModel, RequestCountStopsTheScheduleAfterNArrivals) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = open_config(*srv, "/", 5000, 0);
  c.duration_given = false;
  c.request_count = 700;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.responses, 700u);
  EXPECT_EQ(r.counters.scheduled, 700u);
}

TEST(OpenModel, WaitingForABusyConnectionCountsInLatency) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  // 2 connections that each take 50 ms per request serve 40/s; 100/s arrive.
  Config c = open_config(*srv, "/delay/50", 100, 400 * kNsPerMs);
  c.threads = 1;
  c.connections = 2;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.scheduled, 40u);
  EXPECT_EQ(r.counters.responses, 40u);  // the drain sends the backlog after the end
  EXPECT_GT(r.counters.peak_backlog, 10u);
  // Service time stays near 50 ms; latency grows with the queue.
  EXPECT_LT(r.service.value_at_percentile(50), 200 * kNsPerMs);
  EXPECT_GT(r.latency.max(), 3 * r.service.max());
  EXPECT_GT(r.queue_delay.max(), 200 * kNsPerMs);
}

TEST(OpenModel, DeadlineShedsRequestsQueuedTooLong) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = open_config(*srv, "/delay/50", 100, 400 * kNsPerMs);
  c.threads = 1;
  c.connections = 2;
  c.deadline_ns = 30 * kNsPerMs;
  const report::RunReport r = run_ok(c);
  EXPECT_GT(r.counters.errors.deadline, 5u);
  EXPECT_EQ(r.counters.responses + r.counters.errors.deadline, r.counters.scheduled);
  // Shed requests are not recorded; those sent waited at most the deadline (plus a wake-up).
  EXPECT_EQ(r.latency.total_count(), static_cast<std::int64_t>(r.counters.responses));
  EXPECT_LT(r.queue_delay.max(), 30 * kNsPerMs + 20 * kNsPerMs);
  EXPECT_EQ(r.counters.errors.unsent, 0u);  // a --deadline shorter than --timeout sheds first
}

TEST(OpenModel, ArrivalsThatWaitPastTheTimeoutAreUnsentNotTimeoutsAndCountedDuringTheRun) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  // 2 connections at 50 ms carry 40/s; 200/s arrive for 0.6 s; a request may
  // wait 200 ms. The server answers within 50 ms: nothing it is sent times out.
  Config c = open_config(*srv, "/delay/50", 200, 600 * kNsPerMs);
  c.threads = 1;
  c.connections = 2;
  c.timeout_ns = 200 * kNsPerMs;
  std::atomic<bool> stop{false};
  std::uint64_t unsent_before_the_end = 0;
  const TimeNs run_ns = c.duration_ns;
  auto result = run(c, stop, 50 * kNsPerMs, [&](const report::IntervalReport& in) {
    if (in.start_ns + in.duration_ns <= run_ns) unsent_before_the_end += in.errors.unsent;
  });
  ASSERT_TRUE(result.ok()) << result.error().message;
  const report::RunReport& r = *result;
  const stats::ErrorCounts& e = r.counters.errors;
  EXPECT_EQ(e.timeout, 0u);
  EXPECT_GT(e.unsent, 40u);
  // Every arrival was either sent (and answered) or given up unsent.
  EXPECT_EQ(r.counters.requests_sent, r.counters.responses);
  EXPECT_EQ(r.counters.responses + e.unsent, r.counters.scheduled);
  EXPECT_EQ(r.counters.scheduled, 120u);
  // The rule holds while the run goes, not only when it drains: nothing sent
  // waited much past the timeout, and arrivals were given up before the end.
  EXPECT_GT(unsent_before_the_end, 10u);
  EXPECT_LT(r.queue_delay.max(), 200 * kNsPerMs + 20 * kNsPerMs);
  // Kept as censored samples at their age (at least the timeout).
  EXPECT_EQ(r.latency_censored.total_count(), static_cast<std::int64_t>(e.unsent));
  EXPECT_GE(r.latency_censored.min(), 200 * kNsPerMs);
  EXPECT_EQ(r.latency.total_count(), static_cast<std::int64_t>(r.counters.responses + e.unsent));
  // The unsent have no name yet: the endpoint holds the responses, the run both.
  ASSERT_EQ(r.endpoints.size(), 1u);
  EXPECT_EQ(r.endpoints[0].latency.total_count(), static_cast<std::int64_t>(r.counters.responses));
  EXPECT_GE(r.latency.max(), r.latency_censored.max());
  EXPECT_EQ(r.ttfb.total_count(), static_cast<std::int64_t>(r.counters.responses));
}

TEST(OpenModel, UnsentArrivalsCanBeLeftOutOfTheLatencyFigures) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = open_config(*srv, "/delay/50", 200, 400 * kNsPerMs);
  c.threads = 1;
  c.connections = 2;
  c.timeout_ns = 100 * kNsPerMs;
  c.record_timeouts = false;
  const report::RunReport r = run_ok(c);
  EXPECT_GT(r.counters.errors.unsent, 0u);
  EXPECT_EQ(r.latency_censored.total_count(), 0);
  EXPECT_EQ(r.latency.total_count(), static_cast<std::int64_t>(r.counters.responses));
}

TEST(OpenModel, PoissonArrivalsRepeatForOneSeed) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = open_config(*srv, "/", 2000, 300 * kNsPerMs);
  c.poisson = true;
  c.seed = 7;
  const report::RunReport a = run_ok(c);
  const report::RunReport b = run_ok(c);
  EXPECT_EQ(a.counters.scheduled, b.counters.scheduled);
  // 600 expected; 5 sigma of a Poisson count is about 122.
  EXPECT_NEAR(static_cast<double>(a.counters.scheduled), 600.0, 125.0);
  c.seed = 8;
  const report::RunReport other = run_ok(c);
  EXPECT_NE(other.counters.scheduled, a.counters.scheduled);
}

TEST(OpenModel, RampSendsTheIntegralOfItsRate) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = open_config(*srv, "/", 0, 500 * kNsPerMs);
  c.load_model = LoadModel::kRamp;
  c.rate_per_s = 1000;
  c.rate_end_per_s = 3000;
  const report::RunReport r = run_ok(c);
  // (1000 + 3000) / 2 * 0.5 s = 1000 arrivals.
  EXPECT_EQ(r.counters.scheduled, 1000u);
  EXPECT_EQ(r.counters.responses, 1000u);
}

}  // namespace
}  // namespace pacer::engine

namespace pacer::engine {
namespace {

TEST(OpenModelShards, ShardsSplitTheRateBetweenThem) {
  auto srv = pacer::testing::start_loopback_server();
  ASSERT_NE(srv, nullptr);
  std::uint64_t scheduled = 0;
  for (int shard = 0; shard < 2; ++shard) {
    Config c = pacer::testing::config_for(*srv, "/");
    c.load_model = LoadModel::kConstant;
    c.rate_per_s = 2000;
    c.duration_ns = 500 * kNsPerMs;
    c.duration_given = true;
    c.shard_index = shard;
    c.shard_count = 2;
    std::atomic<bool> stop{false};
    auto r = run(c, stop);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->counters.scheduled, 500u);  // half of 2000/s for 0.5 s
    EXPECT_NEAR(r->target_rate_per_s, 1000, 10);
    scheduled += r->counters.scheduled;
  }
  EXPECT_EQ(scheduled, 1000u);
}

}  // namespace
}  // namespace pacer::engine
