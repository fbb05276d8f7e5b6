// The load drivers on their own: a real exchange over fake sessions, a fake
// engine that connects nothing, and links routed as the worker routes them.
// Each test plays the loop's part by hand: the clock, the turns, the responses.
#include <gtest/gtest.h>

#include "engine/conn/pool.h"
#include "engine/drive/closed_driver.h"
#include "engine/drive/open_driver.h"
#include "engine/exchange/exchange.h"
#include "engine/sent_writer.h"
#include "net/address.h"
#include "part_fakes.h"

namespace pacer::engine {
namespace {

using testing::open_connection;
using testing::session_of;

// The worker's routing between the parts, minus the loop.
struct DriverParts : testing::TransportRig, LinkEvents {
  Exchange exchange{run.shared, clock, recorder};
  ConnectionPool pool{run.shared, 0, transport, clock, recorder};  // none of its own: tests make connections
  SentWriter writer{exchange, pool, transport};
  std::unique_ptr<LoadDriver> driver;
  int reopened = 0;

  void prepare(std::unique_ptr<LoadDriver> d) {
    driver = std::move(d);
    prepare_transport(*this, &exchange.tap());
    exchange.prepare(*driver, 16);
    writer.prepare(16, nullptr);
  }
  // The run starts (the open model's first arrival is due).
  void start() {
    SessionFactory sessions(run.shared, StaticRequest{});
    pool.prepare(engine, 0, *net::resolve("127.0.0.1", 1)->begin(), sessions, &exchange, pool_events);
    driver->start(pool);
  }
  struct NoPoolEvents final : PoolEvents {
    bool wants_connection(Connection&) override { return true; }
    void opened(Connection&) override {}
    void closing(Connection&) override {}
  } pool_events;
  void established(Connection&) override {}
  void retry_later(Connection&) override {}
  void broke(Connection& c, ErrorField e) override {
    exchange.fail_connection(c, e);
    reopen(c);
  }
  void peer_closed(Connection& c) override {
    exchange.peer_closed(c);
    reopen(c);
  }
  void reopen(Connection& c) override {
    ++reopened;
    exchange.abandon(c);
    driver->forget(c);
  }
  void ready(Connection& c) override {
    driver->fill(c);
    (void)transport.flush(c);
    writer.write_sent(&c);
  }
  // The worker's one place that writes: what the driver sent, after it returned.
  void write_sent() { writer.write_sent(); }
  void turn(TurnPhase phase) {
    driver->on_turn(phase);
    write_sent();
  }
  RequestSource source() { return RequestSource(run.shared, 0, nullptr, nullptr); }
  std::unique_ptr<LoadDriver> closed(std::optional<std::uint64_t> quota) {
    return std::make_unique<ClosedDriver>(run.shared, quota, clock, recorder, exchange, source(), nullptr, 16);
  }
  // The stop rules' answer with nothing in flight: the driver has nothing more to send.
  bool load_done() const { return StopRules::done(clock.draining, false, driver->progress()) == StopReason::kDone; }
};

TEST(ClosedDriverPart, EachFreeSlotSendsAtOnceAndTheNextWhenItsResponseArrives) {
  DriverParts p;
  p.prepare(p.closed(std::nullopt));
  auto c = open_connection(&p.exchange, 2);
  p.exchange.opened(*c);
  p.ready(*c);
  EXPECT_EQ(session_of(*c).submitted.size(), 2u);
  c->on_response(0, 200);
  p.ready(*c);
  EXPECT_EQ(session_of(*c).submitted.size(), 3u);
  EXPECT_FALSE(p.load_done());
}

TEST(ClosedDriverPart, RequestCountSendsExactlyThatManyAndFinishes) {
  DriverParts p;
  p.prepare(p.closed(3));
  auto a = open_connection(&p.exchange);
  auto b = open_connection(&p.exchange);
  ASSERT_TRUE(p.driver->wants_connection(*a));  // each reserves one before it connects
  ASSERT_TRUE(p.driver->wants_connection(*b));
  p.ready(*a);
  p.ready(*b);
  for (int round = 0; round < 4; ++round) {
    for (Connection* c : {a.get(), b.get()}) {
      if (c->in_flight_count() == 0) continue;
      c->on_response(0, 200);
      p.ready(*c);
    }
  }
  EXPECT_EQ(session_of(*a).submitted.size() + session_of(*b).submitted.size(), 3u);
  EXPECT_EQ(p.recorder.result().counters.requests_sent, 3u);
  EXPECT_TRUE(p.exchange.idle());
  EXPECT_TRUE(p.load_done());
  auto late = open_connection(&p.exchange);
  EXPECT_FALSE(p.driver->wants_connection(*late));  // no connection opens for a request never sent
}

TEST(ClosedDriverPart, AGoawayRefusedRequestIsResentWithItsOriginalDueTime) {
  DriverParts p;
  p.prepare(p.closed(1));
  auto c = open_connection(&p.exchange);
  ASSERT_TRUE(p.driver->wants_connection(*c));
  c->slots[0].free_ns = p.clock.now - 2 * kNsPerMs;
  p.ready(*c);
  const TimeNs due = c->slots[0].t_sched;
  c->exchanged.answered = 1;
  c->on_request_failed(0, proto::RequestFailure::kRefused);
  EXPECT_EQ(p.recorder.result().counters.requests_sent, 0u);
  p.ready(*c);  // the -n request is claimed again and sent again
  EXPECT_EQ(session_of(*c).submitted.size(), 2u);
  EXPECT_EQ(c->slots[0].t_sched, due);
  EXPECT_EQ(p.recorder.result().counters.requests_sent, 1u);
}

TEST(ClosedDriverPart, NothingIsSentOnceTheDrainBegins) {
  DriverParts p;
  p.prepare(p.closed(std::nullopt));
  auto c = open_connection(&p.exchange);
  p.clock.draining = true;
  p.ready(*c);
  EXPECT_TRUE(session_of(*c).submitted.empty());
  EXPECT_TRUE(p.load_done());
}

// A request that meets a kept-alive connection's close is sent again, in the
// drain too: it was due before -d's end and the server never processed it, so
// it is owed an answer, and a connection reopens for it with its t_sched. It is
// neither a `read` error (the server did nothing wrong) nor lost.
TEST(ClosedDriverPart, ARequestThatMeetsAPeersCloseIsSentAgainInTheDrainToo) {
  for (const bool draining : {false, true}) {
    DriverParts p;
    p.prepare(p.closed(std::nullopt));
    auto c = open_connection(&p.exchange);
    p.exchange.opened(*c);
    c->exchanged.answered = 1;  // reused: it had answered before
    p.ready(*c);
    ASSERT_EQ(session_of(*c).submitted.size(), 1u);
    const TimeNs due = c->slots[0].t_sched;
    p.clock.draining = draining;
    p.exchange.peer_closed(*c);
    const stats::Counters& counts = p.recorder.result().counters;
    EXPECT_EQ(counts.keepalive_closed, 1u);
    EXPECT_EQ(counts.resent, 1u) << draining;
    EXPECT_EQ(counts.errors.socket_total(), 0u) << draining;
    EXPECT_EQ(counts.requests_sent, 0u) << draining;  // counted again when sent again
    if (!draining) {  // its slot sends it again when c reopens
      EXPECT_EQ(c->slots[0].free_ns, due);
      continue;
    }
    EXPECT_FALSE(p.load_done());  // the drain waits for it, and any connection may take it
    auto again = open_connection(&p.exchange);
    ASSERT_TRUE(p.driver->wants_connection(*again));
    p.exchange.opened(*again);
    p.ready(*again);
    ASSERT_EQ(session_of(*again).submitted.size(), 1u);
    EXPECT_EQ(again->slots[0].t_sched, due);
    EXPECT_EQ(counts.requests_sent, 1u);
    EXPECT_TRUE(p.load_done());  // nothing more is owed: no connection reopens for nothing
    auto idle = open_connection(&p.exchange);
    EXPECT_FALSE(p.driver->wants_connection(*idle));
  }
}

// What the drain owes is bounded by --timeout from its t_sched: a request no
// connection could take again by then (the server stopped accepting) ends as
// `unsent`, its wait a censored latency, and the drain ends.
TEST(ClosedDriverPart, ARequestRefusedInTheDrainAndNeverSentAgainEndsUnsentAfterTheTimeout) {
  DriverParts p;
  p.run.config.timeout_ns = 50 * kNsPerMs;
  p.run.plan();
  p.prepare(p.closed(std::nullopt));
  auto c = open_connection(&p.exchange);
  p.exchange.opened(*c);
  p.ready(*c);
  ASSERT_EQ(session_of(*c).submitted.size(), 1u);
  const TimeNs due = c->slots[0].t_sched;
  p.clock.draining = true;
  c->exchanged.answered = 1;
  c->on_request_failed(0, proto::RequestFailure::kRefused);  // a graceful GOAWAY
  const stats::Counters& counts = p.recorder.result().counters;
  EXPECT_EQ(counts.errors.goaway, 0u);
  EXPECT_EQ(p.driver->next_due_ns(), due + 50 * kNsPerMs);
  p.clock.now = due + 49 * kNsPerMs;
  p.turn(TurnPhase::kBacklog);
  EXPECT_FALSE(p.load_done());
  p.clock.now = due + 50 * kNsPerMs;
  p.turn(TurnPhase::kBacklog);
  EXPECT_EQ(counts.errors.unsent, 1u);
  EXPECT_EQ(counts.errors.socket_total(), 1u);
  const stats::Histogram& waited = p.recorder.result().unsent_latency;  // censored at its wait
  EXPECT_EQ(waited.total_count(), 1);
  EXPECT_NEAR(static_cast<double>(waited.max()), 50.0 * kNsPerMs, 0.1 * kNsPerMs);
  EXPECT_TRUE(p.load_done());
  EXPECT_EQ(p.driver->next_due_ns(), kNeverNs);
}

// The open model, its schedule started started_ago_ns before now (sends read the
// real clock, so the test's "now" is the real one too: the rates are low enough
// that a loaded machine's pauses do not bring the next arrival), --timeout 10 s.
struct OpenParts : DriverParts {
  OpenParts(double rate_per_s, TimeNs started_ago_ns, std::optional<std::uint64_t> quota = std::nullopt) {
    run.config.timeout_ns = 10 * kNsPerS;
    run.plan();
    run.open_model(rate_per_s, 10 * kNsPerS);
    run.shared.start_ns = monotonic_now_ns() - started_ago_ns;
    run.shared.end_ns = run.shared.start_ns + 10 * kNsPerS;
    prepare(std::make_unique<OpenDriver>(run.shared, 0, 4, quota, clock, recorder, exchange, source()));
    start();
  }
};

TEST(OpenDriverPart, ArrivalsGoToAnIdleConnectionWithTheirScheduledTimes) {
  OpenParts p(1, 3 * kNsPerS + kNsPerS / 2);  // one arrival a second, from 0: 4 are due
  auto c = open_connection(&p.exchange, 8);
  p.driver->fill(*c);  // nothing taken yet: c waits on the idle list
  EXPECT_TRUE(session_of(*c).submitted.empty());
  p.turn(TurnPhase::kArrivals);
  ASSERT_EQ(session_of(*c).submitted.size(), 4u);
  EXPECT_EQ(p.recorder.result().counters.scheduled, 4u);
  // Each keeps its own due time: the latency clock started at the arrival, not the send.
  EXPECT_EQ(c->slots[1].t_sched - c->slots[0].t_sched, kNsPerS);
  EXPECT_EQ(c->slots[0].t_sched, p.run.shared.start_ns);
  EXPECT_LT(c->slots[3].t_sched, c->slots[3].t_send);
}

// Issue 45 (2): a driver never writes; the worker writes what the exchange says it was given.
TEST(OpenDriverPart, ArrivalsAreGivenToTheSessionAndWrittenOnlyByTheWorker) {
  OpenParts p(1, 1 * kNsPerS + kNsPerS / 2);  // 2 are due
  auto c = open_connection(&p.exchange, 8);
  p.driver->fill(*c);
  p.driver->on_turn(TurnPhase::kArrivals);
  EXPECT_EQ(session_of(*c).submitted.size(), 2u);
  EXPECT_TRUE(p.engine.written.empty());  // in the session, not on the wire
  EXPECT_TRUE(p.exchange.has_sent());
  p.write_sent();
  EXPECT_EQ(p.engine.written, "RR");  // one write of both, by the worker
  EXPECT_FALSE(p.exchange.has_sent());
}

TEST(OpenDriverPart, ArrivalsNoConnectionCanTakeWaitAndAreUnsentAfterTheTimeout) {
  OpenParts p(1, 4 * kNsPerS + kNsPerS / 2);  // 5 due
  p.turn(TurnPhase::kArrivals);  // no connection: all wait
  IntervalGauges g;
  p.driver->gauges(g);
  EXPECT_EQ(g.backlog, 5u);
  EXPECT_GT(g.schedule_lag_ns, 4 * kNsPerS);
  EXPECT_FALSE(p.load_done());
  p.clock.now = p.run.shared.start_ns + p.run.config.timeout_ns + kNsPerS + kNsPerS / 2;  // two waited too long
  p.turn(TurnPhase::kBacklog);
  EXPECT_EQ(p.recorder.result().counters.errors.unsent, 2u);
  EXPECT_EQ(p.recorder.result().latency_censored.total_count(), 2);
  p.driver->gauges(g);
  EXPECT_EQ(g.backlog, 3u);
}

TEST(OpenDriverPart, AConnectionThatOpensTakesTheWaitingArrivalsOldestFirst) {
  OpenParts p(1, 2 * kNsPerS + kNsPerS / 2);  // 3 due
  p.turn(TurnPhase::kArrivals);
  auto c = open_connection(&p.exchange, 2);
  p.driver->fill(*c);
  ASSERT_EQ(session_of(*c).submitted.size(), 2u);
  EXPECT_EQ(c->slots[0].t_sched, p.run.shared.start_ns);
  EXPECT_EQ(c->slots[1].t_sched, p.run.shared.start_ns + kNsPerS);
  IntervalGauges g;
  p.driver->gauges(g);
  EXPECT_EQ(g.backlog, 1u);
}

TEST(OpenDriverPart, RequestCountEndsTheScheduleAfterThatManyArrivals) {
  OpenParts p(1000, 20 * kNsPerMs, 4);
  auto c = open_connection(&p.exchange, 8);
  p.driver->fill(*c);
  p.turn(TurnPhase::kArrivals);
  EXPECT_EQ(session_of(*c).submitted.size(), 4u);
  EXPECT_EQ(p.recorder.result().counters.scheduled, 4u);
  p.run.shared.end_ns = kNeverNs;  // -n without -d: the run ends with the schedule
  EXPECT_TRUE(p.load_done());
}

}  // namespace
}  // namespace pacer::engine
