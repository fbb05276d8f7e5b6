// Component tests: the engine against `pacer serve` in-process, for a few hundred
// milliseconds each. The server's own counters are the reference.
#include "engine/run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "../support/loopback.h"
#include "../support/run_ok.h"
#include "core/unique_fd.h"

namespace pacer::engine {
namespace {

using pacer::testing::config_for;
using pacer::testing::start_loopback_server;

using pacer::testing::answered;
using pacer::testing::run_ok;

TEST(EngineRun, RequestCountStopsAfterExactlyThatManyResponses) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/");
  c.threads = 2;
  c.connections = 5;
  c.request_count = 1000;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.responses, 1000u);
  EXPECT_EQ(r.counters.status_counts[200], 1000u);
  EXPECT_EQ(r.latency.total_count(), 1000);
  EXPECT_EQ(answered(*srv, 1000), 1000u);
  EXPECT_EQ(r.counters.errors.socket_total(), 0u);
}

TEST(EngineRun, TimedRunCountsEveryResponseTheServerAnswered) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/bytes/100");
  c.duration_ns = 300 * kNsPerMs;
  const report::RunReport r = run_ok(c);
  EXPECT_GT(r.counters.responses, 100u);
  // In-flight requests are drained at the end, so nothing the server answered is lost.
  EXPECT_EQ(answered(*srv, r.counters.responses), r.counters.responses);
  EXPECT_GE(r.measured_ns, c.duration_ns);
  EXPECT_GT(r.rate_samples.total_count(), 0);
}

TEST(EngineRun, ConnectionsAreSpreadExactlyOverThreads) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/");
  c.threads = 3;
  c.connections = 10;
  c.request_count = 300;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.threads, 3);
  EXPECT_EQ(r.counters.connects, 10u);
  EXPECT_EQ(srv->connections_accepted(), 10u);
}

// Latency and time to first byte are recorded once per request, under its name;
// the run's figures are every worker's names together.
TEST(EngineRun, TheRunsLatencyIsItsNamesFromEveryWorker) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/bytes/100");
  c.threads = 3;
  c.connections = 6;
  c.request_count = 3000;
  const report::RunReport r = run_ok(c);
  const auto responses = static_cast<std::int64_t>(r.counters.responses);
  EXPECT_EQ(responses, 3000);
  ASSERT_EQ(r.endpoints.size(), 1u);
  const report::EndpointReport& e = r.endpoints[0];
  EXPECT_EQ(r.latency.total_count(), responses);
  EXPECT_EQ(r.ttfb.total_count(), responses);
  EXPECT_EQ(e.latency.total_count(), responses);
  EXPECT_EQ(e.ttfb.total_count(), responses);
  EXPECT_EQ(r.latency.max(), e.latency.max());
  EXPECT_EQ(r.latency.min(), e.latency.min());
  EXPECT_EQ(r.latency.value_at_percentile(99), e.latency.value_at_percentile(99));
  EXPECT_GT(r.ttfb.max(), 0);
  EXPECT_LE(r.ttfb.max(), r.latency.max());
}

TEST(EngineRun, ErrorStatusesAreResponsesCountedPerCode) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/status/503");
  c.request_count = 200;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.responses, 200u);
  EXPECT_EQ(r.counters.status_counts[503], 200u);
  EXPECT_EQ(r.counters.errors.status, 200u);
  EXPECT_TRUE(report::no_request_succeeded(r));
}

TEST(EngineRun, FailEveryNthIsCountedByStatus) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/fail/10");
  c.connections = 1;
  c.request_count = 1000;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.status_counts[500], 100u);
  EXPECT_EQ(r.counters.status_counts[200], 900u);
}

TEST(EngineRun, SlowResponsesBecomeCensoredTimeoutsNotZeroLatency) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/delay/2000");
  c.timeout_ns = 100 * kNsPerMs;
  c.duration_ns = 350 * kNsPerMs;
  c.connections = 2;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.responses, 0u);
  EXPECT_GE(r.counters.errors.timeout, 2u);
  EXPECT_EQ(r.latency.total_count(), static_cast<std::int64_t>(r.counters.errors.timeout));
  EXPECT_EQ(r.latency_censored.total_count(), r.latency.total_count());
  EXPECT_GE(r.latency.min(), c.timeout_ns);
  const stats::Percentile p50 = stats::percentile_with_censoring(r.latency, r.latency_censored, 50);
  EXPECT_TRUE(p50.is_lower_bound);
  EXPECT_EQ(srv->requests_answered(), 0u);
}

TEST(EngineRun, TimeoutsCanBeLeftOutOfTheLatencyFigures) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/never");
  c.timeout_ns = 50 * kNsPerMs;
  c.duration_ns = 200 * kNsPerMs;
  c.record_timeouts = false;
  const report::RunReport r = run_ok(c);
  EXPECT_GE(r.counters.errors.timeout, 4u);
  EXPECT_EQ(r.latency.total_count(), 0);
}

TEST(EngineRun, TruncatedResponsesAreReadErrors) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/close");
  c.request_count = 50;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.responses, 0u);
  EXPECT_EQ(r.counters.errors.read, 50u);
}

TEST(EngineRun, DisabledKeepAliveOpensOneConnectionPerRequest) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/");
  c.keep_alive = false;
  c.request_count = 200;
  const report::RunReport r = run_ok(c);
  EXPECT_EQ(r.counters.responses, 200u);
  EXPECT_EQ(srv->connections_accepted(), 200u);
}

TEST(EngineRun, ChunkedAndRedirectAndHeadResponsesComplete) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  for (const char* path : {"/chunked/10000", "/redirect", "/status/204", "/status/304"}) {
    Config c = config_for(*srv, path);
    c.request_count = 100;
    const report::RunReport r = run_ok(c);
    EXPECT_EQ(r.counters.responses, 100u) << path;
    EXPECT_EQ(r.counters.errors.socket_total(), 0u) << path;
  }
  Config head = config_for(*srv, "/bytes/5000");
  head.method = "HEAD";
  head.request_count = 100;
  const report::RunReport r = run_ok(head);
  EXPECT_EQ(r.counters.responses, 100u);
  EXPECT_EQ(r.counters.errors.socket_total(), 0u);
}

TEST(EngineRun, WarmupResponsesAreNotRecorded) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/");
  c.warmup_ns = 150 * kNsPerMs;
  c.duration_ns = 150 * kNsPerMs;
  const report::RunReport r = run_ok(c);
  EXPECT_GT(r.counters.warmup_responses, 0u);
  EXPECT_GT(r.counters.responses, 0u);
  const std::uint64_t total = r.counters.responses + r.counters.warmup_responses;
  EXPECT_EQ(answered(*srv, total), total);
  EXPECT_EQ(r.latency.total_count(), static_cast<std::int64_t>(r.counters.responses));
}

TEST(EngineRun, ServerGoingAwayShowsAsConnectErrors) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/");
  c.duration_ns = 600 * kNsPerMs;
  c.keep_alive = false;  // every request needs a new connection
  std::atomic<bool> stop{false};
  std::optional<Result<report::RunReport>> result;
  std::thread runner([&] { result.emplace(run(c, stop)); });
  while (srv->requests_answered() < 50) std::this_thread::yield();
  srv->stop();
  runner.join();
  ASSERT_TRUE(result->ok());
  const report::RunReport& r = **result;
  EXPECT_GT(r.counters.errors.connect, 0u);
  EXPECT_FALSE(r.first_error.empty());
}

TEST(EngineRun, ConnectsStillPendingAfterTheTimeoutAreConnectErrorsAndTheRunEndsOnTime) {
  // Backlog 0: the start-up probe takes the accept queue's only place; the other
  // connections' SYNs are dropped, so only --timeout ends their connects.
  std::uint16_t port = 0;
  const UniqueFd listener = pacer::testing::listen_never_accepting(0, port);
  ASSERT_TRUE(listener.valid());
  Config c = pacer::testing::config_for_port(port, "/");
  c.connections = 3;
  c.timeout_ns = 100 * kNsPerMs;
  c.duration_ns = 600 * kNsPerMs;
  const auto began = std::chrono::steady_clock::now();
  const report::RunReport r = run_ok(c);
  const auto took = std::chrono::steady_clock::now() - began;
  // Two connections time out after 100 ms, back off 10, 20, ... ms and hang again:
  // at least two timeouts each in 600 ms.
  EXPECT_GE(r.counters.errors.connect, 4u);
  EXPECT_EQ(r.counters.responses, 0u);
  EXPECT_NE(r.first_error.find("connect: timed out after 100ms"), std::string::npos) << r.first_error;
  // The run ends with its duration (plus a drain of at most one --timeout), not
  // when the kernel gives up on the SYNs.
  EXPECT_LT(took, std::chrono::seconds(5));
}

TEST(EngineRun, RefusedPortFailsBeforeTheRun) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/");
  srv->stop();
  std::atomic<bool> stop{false};
  auto result = run(c, stop);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().kind, ErrorKind::kRuntime);
  EXPECT_NE(result.error().message.find("refused"), std::string::npos) << result.error().message;
}

TEST(EngineRun, StopFlagEndsTheRunEarlyAndMarksItInterrupted) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/");
  c.duration_ns = 60 * kNsPerS;
  std::atomic<bool> stop{false};
  std::optional<Result<report::RunReport>> result;
  std::thread runner([&] { result.emplace(run(c, stop)); });
  while (srv->requests_answered() < 100) std::this_thread::yield();
  stop.store(true);
  runner.join();
  ASSERT_TRUE(result->ok());
  EXPECT_TRUE((*result)->interrupted);
  EXPECT_LT((*result)->measured_ns, 30 * kNsPerS);
}

// Every interval the controller hands out, copied (the sink's histogram pointer
// is only valid during the call).
struct SeenInterval {
  report::IntervalReport figures;
  std::int64_t latency_count = 0;
};

std::vector<SeenInterval> run_with_intervals(const Config& config, TimeNs interval_ns, report::RunReport& out) {
  std::vector<SeenInterval> seen;
  std::atomic<bool> stop{false};
  auto result = run(config, stop, interval_ns, [&](const report::IntervalReport& in) {
    seen.push_back(SeenInterval{in, in.latency->total_count()});
    seen.back().figures.latency = nullptr;
  });
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().message);
  if (result.ok()) out = std::move(*result);
  return seen;
}

TEST(EngineIntervals, IntervalsAddUpToTheReportAndCountOpenConnections) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/");
  c.threads = 2;
  c.connections = 4;
  c.duration_ns = 300 * kNsPerMs;
  report::RunReport r;
  const auto seen = run_with_intervals(c, 20 * kNsPerMs, r);
  ASSERT_GE(seen.size(), 10u);
  std::uint64_t completed = 0;
  std::int64_t recorded = 0;
  std::uint64_t most_open = 0;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].figures.index, i);
    completed += seen[i].figures.completed;
    recorded += seen[i].latency_count;
    EXPECT_LE(seen[i].figures.open_connections, 4u);
    most_open = std::max(most_open, seen[i].figures.open_connections);
    EXPECT_FALSE(seen[i].figures.target_rate_per_s);  // closed loop
  }
  EXPECT_EQ(completed, r.counters.responses);
  EXPECT_EQ(recorded, r.latency.total_count());
  EXPECT_EQ(most_open, 4u);
  // The last interval closes before the connections do: its gauge is the run's
  // last state, not the teardown's 0 (issue 13: "0 connections open").
  EXPECT_EQ(seen.back().figures.open_connections, 4u);
}

TEST(EngineIntervals, AnOpenModelRunThatFallsBehindShowsItsBacklogAndLag) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/delay/20");  // one connection: at most 50 responses/s
  c.threads = 1;
  c.connections = 1;
  c.load_model = LoadModel::kConstant;
  c.rate_per_s = 400;
  c.duration_ns = 400 * kNsPerMs;
  c.timeout_ns = 500 * kNsPerMs;  // bounds the drain of the backlog
  report::RunReport r;
  const auto seen = run_with_intervals(c, 50 * kNsPerMs, r);
  ASSERT_GE(seen.size(), 6u);
  std::uint64_t most_backlog = 0;
  TimeNs most_lag = 0;
  for (const SeenInterval& s : seen) {
    most_backlog = std::max(most_backlog, s.figures.backlog);
    most_lag = std::max(most_lag, s.figures.schedule_lag_ns);
  }
  // 400/s asked, under 50/s served: after 300 ms well over 50 arrivals wait, the
  // oldest for well over 100 ms (bounds far below the ideal 100 and 250 ms).
  EXPECT_GT(most_backlog, 50u);
  EXPECT_GT(most_lag, 100 * kNsPerMs);
  EXPECT_LE(most_lag, 500 * kNsPerMs + 20 * kNsPerMs);  // past --timeout an arrival is unsent
  // The service time behind the Little's-law line: about the server's 20 ms.
  for (const SeenInterval& s : seen) {
    if (s.figures.completed == 0) continue;
    const TimeNs mean_ns = s.figures.service_ns_sum / static_cast<TimeNs>(s.figures.completed);
    EXPECT_GE(mean_ns, 20 * kNsPerMs);
    EXPECT_LT(mean_ns, 250 * kNsPerMs);  // far below the latencies, which reach the 500 ms timeout
  }
  ASSERT_TRUE(seen.front().figures.target_rate_per_s);
  EXPECT_NEAR(*seen.front().figures.target_rate_per_s, 400.0, 1.0);
}

TEST(EngineIntervals, AStallShowsAsTheAgeOfTheOldestRequestInFlightInTheClosedLoop) {
  auto srv = start_loopback_server();
  ASSERT_NE(srv, nullptr);
  Config c = config_for(*srv, "/delay/400");  // each request takes 400 ms: a stall for 50 ms intervals
  c.threads = 1;
  c.connections = 2;
  c.duration_ns = 300 * kNsPerMs;
  c.interval_ns = 100 * kNsPerMs;  // "older than the interval": older than 100 ms
  report::RunReport r;
  const auto seen = run_with_intervals(c, 50 * kNsPerMs, r);
  ASSERT_GE(seen.size(), 6u);
  TimeNs oldest = 0;
  std::uint64_t most_over = 0;
  for (const SeenInterval& s : seen) {
    EXPECT_LE(s.figures.in_flight, 2u);
    EXPECT_LE(s.figures.in_flight_over_interval, s.figures.in_flight);
    oldest = std::max(oldest, s.figures.oldest_in_flight_ns);
    most_over = std::max(most_over, s.figures.in_flight_over_interval);
    if (s.figures.in_flight == 0) {
      EXPECT_EQ(s.figures.oldest_in_flight_ns, 0);
    }
  }
  // Between 250 and 400 ms into the run both requests are still out (bounds
  // generous for a loaded machine), and an interval with no response says so.
  EXPECT_GE(oldest, 250 * kNsPerMs);
  EXPECT_LT(oldest, 400 * kNsPerMs + 100 * kNsPerMs);
  EXPECT_EQ(most_over, 2u);
  EXPECT_EQ(seen.back().figures.in_flight, 0u);  // the last closes after every response
}

}  // namespace
}  // namespace pacer::engine
