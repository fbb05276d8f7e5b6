// Component tests of `pacer serve` where time is part of the scenario: /delay,
// /never, cancellation by a closing client, the freeze window, the arrival log.
// Bounds are generous: machines here are shared and noisy.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "http_test_client.h"
#include "server/server.h"

namespace pacer::server {
namespace {

using testkit::Clock;
using testkit::elapsed_ms;
using testkit::get;
using testkit::start_server;
using testkit::TestClient;
using testkit::wait_until;
using namespace std::chrono_literals;


TEST(ServerTiming, DelayRouteAnswersAfterTheRequestedTime) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  const auto sent = Clock::now();
  client.send(get("/delay/200"));
  const auto response = client.read_response();
  const double took_ms = elapsed_ms(sent);
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_GE(took_ms, 199.0);
  EXPECT_LT(took_ms, 200.0 * 5);
}

TEST(ServerTiming, DelayedRequestDoesNotHoldUpOtherConnectionsOnTheSameThread) {
  ServeConfig config;
  config.threads = 1;
  auto server = start_server(config);
  ASSERT_NE(server, nullptr);
  TestClient slow(server->port());
  TestClient fast(server->port());
  const auto start = Clock::now();
  slow.send(get("/delay/1000"));
  ASSERT_TRUE(wait_until([&] { return server->requests_received() == 1; }));
  fast.send(get("/"));
  ASSERT_TRUE(fast.read_response());
  const double fast_ms = elapsed_ms(start);
  ASSERT_TRUE(slow.read_response());
  const double slow_ms = elapsed_ms(start);
  EXPECT_LT(fast_ms * 2, slow_ms) << "fast " << fast_ms << " ms, slow " << slow_ms << " ms";
  EXPECT_GE(slow_ms, 999.0);
}

TEST(ServerTiming, PipelinedRequestBehindADelayWaitsForIt) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  const auto sent = Clock::now();
  client.send(get("/delay/150") + get("/status/201"));
  const auto delayed = client.read_response();
  const auto next = client.read_response();
  ASSERT_TRUE(delayed && next);
  EXPECT_EQ(delayed->body, "ok\n");
  EXPECT_EQ(next->status, 201);
  EXPECT_GE(elapsed_ms(sent), 149.0);
}

TEST(ServerTiming, NeverRouteIsNotAnsweredAndNotCountedWhenTheClientCloses) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send(get("/never") + get("/"));  // the request behind /never is never answered either
  ASSERT_TRUE(wait_until([&] { return server->requests_received() == 1; }));
  EXPECT_TRUE(client.stays_quiet_for(200ms));
  client.send("more bytes that /never reads and discards");
  client.close();
  EXPECT_TRUE(wait_until([&] { return server->connections_open() == 0; }));
  EXPECT_EQ(server->requests_answered(), 0u);
  EXPECT_EQ(server->connections_accepted(), 1u);
}

TEST(ServerTiming, DelayCancelledByAClosingClientIsNotCounted) {
  auto server = start_server();
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send(get("/delay/300"));
  ASSERT_TRUE(wait_until([&] { return server->requests_received() == 1; }));
  client.close();
  EXPECT_TRUE(wait_until([&] { return server->connections_open() == 0; }));
  std::this_thread::sleep_for(400ms);  // past the delay: a leaked timer would have answered by now
  EXPECT_EQ(server->requests_answered(), 0u);
  TestClient next(server->port());
  next.send(get("/"));
  ASSERT_TRUE(next.read_response());
  EXPECT_TRUE(wait_until([&] { return server->requests_answered() == 1; }));
}

// freeze_at 100 ms after the first request, for 500 ms.
ServeConfig freeze_config() {
  ServeConfig config;
  config.threads = 2;
  config.freeze_at_ns = 100 * kNsPerMs;
  config.freeze_for_ns = 500 * kNsPerMs;
  return config;
}

TEST(ServerTiming, FreezeHoldsRequestsUntilTheWindowEnds) {
  auto server = start_server(freeze_config());
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  const auto first_sent = Clock::now();
  client.send(get("/"));
  ASSERT_TRUE(client.read_response());
  const double before_ms = elapsed_ms(first_sent);
  EXPECT_LT(before_ms, 100.0);

  std::this_thread::sleep_until(first_sent + 200ms);  // inside the window [100, 600) ms
  const auto frozen_sent = Clock::now();
  TestClient other(server->port());  // a new connection waits too
  other.send(get("/"));
  client.send(get("/"));
  ASSERT_TRUE(client.read_response());
  ASSERT_TRUE(other.read_response());
  const double frozen_ms = elapsed_ms(frozen_sent);
  EXPECT_GE(frozen_ms, 300.0) << "answered at " << elapsed_ms(first_sent) << " ms after the first request";
  EXPECT_LT(frozen_ms, 3000.0);

  const auto after_sent = Clock::now();
  client.send(get("/"));
  ASSERT_TRUE(client.read_response());
  EXPECT_LT(elapsed_ms(after_sent), 100.0);
  EXPECT_TRUE(wait_until([&] { return server->requests_answered() == 4; }));
}

TEST(ServerTiming, RequestFromAClientThatLeavesDuringTheFreezeIsNotCounted) {
  auto server = start_server(freeze_config());
  ASSERT_NE(server, nullptr);
  const auto first_sent = Clock::now();
  {
    TestClient client(server->port());
    client.send(get("/"));
    ASSERT_TRUE(client.read_response());
  }
  ASSERT_TRUE(wait_until([&] { return server->requests_answered() == 1; }));
  std::this_thread::sleep_until(first_sent + 200ms);
  {
    TestClient leaver(server->port());
    leaver.send(get("/"));
  }  // closes inside the window
  std::this_thread::sleep_until(first_sent + 700ms);  // past the window
  EXPECT_TRUE(wait_until([&] { return server->connections_open() == 0; }));
  EXPECT_EQ(server->requests_answered(), 1u);
}

TEST(ServerTiming, StopIsPromptDuringAFreeze) {
  ServeConfig config;
  config.freeze_at_ns = 0;
  config.freeze_for_ns = 60 * kNsPerS;
  auto server = start_server(config);
  ASSERT_NE(server, nullptr);
  TestClient client(server->port());
  client.send(get("/"));
  ASSERT_TRUE(wait_until([&] { return server->requests_received() == 1; }));
  EXPECT_TRUE(client.stays_quiet_for(100ms)) << "freeze-at 0 freezes the first request too";
  const auto stopping = Clock::now();
  server->stop();
  EXPECT_LT(elapsed_ms(stopping), 1000.0);
  EXPECT_EQ(server->requests_answered(), 0u);
}

TEST(ServerTiming, ArrivalLogHasOneSortedLinePerRequestExceptStats) {
  char path_template[] = "/tmp/pacer_arrivals_XXXXXX";
  const int fd = ::mkstemp(path_template);
  ASSERT_GE(fd, 0);
  ::close(fd);
  ServeConfig config;
  config.threads = 2;
  config.log_arrivals_path = path_template;
  auto server = start_server(config);
  ASSERT_NE(server, nullptr);
  const TimeNs before_ns = monotonic_now_ns();
  {
    TestClient a(server->port());
    TestClient b(server->port());
    a.send(get("/") + get("/bytes/10") + get("/stats"));
    b.send(get("/status/404") + get("/delay/1"));
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(a.read_response());
    for (int i = 0; i < 2; ++i) ASSERT_TRUE(b.read_response());
  }
  const TimeNs after_ns = monotonic_now_ns();
  server->stop();

  std::ifstream log(path_template);
  std::vector<TimeNs> arrivals_ns;
  for (TimeNs t; log >> t;) arrivals_ns.push_back(t);
  std::remove(path_template);
  ASSERT_EQ(arrivals_ns.size(), 4u);
  EXPECT_TRUE(std::is_sorted(arrivals_ns.begin(), arrivals_ns.end()));
  EXPECT_GE(arrivals_ns.front(), before_ns);
  EXPECT_LE(arrivals_ns.back(), after_ns);
}

}  // namespace
}  // namespace pacer::server
