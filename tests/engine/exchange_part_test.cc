// The exchange on its own: requests put on fake sessions' slots, their ends told
// to a recording driver and recorded by a real recorder; a connection to reopen
// is handed back to the caller. No socket, no thread.
#include "engine/exchange/exchange.h"

#include <gtest/gtest.h>

#include "engine/drive/request_source.h"
#include "part_fakes.h"

namespace pacer::engine {
namespace {

using testing::open_connection;
using testing::PartRun;
using testing::RecordingDriver;
using testing::session_of;

struct ExchangeParts {
  PartRun run;
  LoopClock clock;
  Recorder recorder{run.shared};
  Exchange exchange{run.shared, clock, recorder};
  RecordingDriver driver;
  RequestSource source{run.shared, 0, nullptr, nullptr};

  ExchangeParts() {
    recorder.prepare();
    exchange.prepare(driver, 8);
  }
};

TEST(ExchangePart, SendPutsTheRequestInFlightAndCountsItOnce) {
  ExchangeParts p;
  auto c = open_connection(&p.exchange);
  TimeNs t_sched = monotonic_now_ns() - 5 * kNsPerMs;
  const TimeNs due = t_sched;
  ASSERT_TRUE(send_from(p.source, p.exchange, *c, t_sched));
  EXPECT_EQ(t_sched, due);  // due before its send: kept
  EXPECT_EQ(p.exchange.in_flight(), 1u);
  EXPECT_EQ(c->in_flight_count(), 1u);
  EXPECT_EQ(session_of(*c).submitted.size(), 1u);
  EXPECT_EQ(p.recorder.result().counters.requests_sent, 1u);
  EXPECT_EQ(p.exchange.free_capacity(*c), 0u);
  EXPECT_EQ(p.exchange.next_due_ns(), c->slots[0].t_send + p.run.config.timeout_ns);
}

TEST(ExchangePart, AResponseFreesTheSlotTellsTheDriverAndRecordsLatencyFromTheDueTime) {
  ExchangeParts p;
  auto c = open_connection(&p.exchange);
  TimeNs t_sched = monotonic_now_ns() - 7 * kNsPerMs;
  ASSERT_TRUE(send_from(p.source, p.exchange, *c, t_sched));
  p.clock.refresh();
  p.clock.note_arrival(0);  // unstamped: the response ends at this wake-up
  c->on_response(0, 200);
  EXPECT_TRUE(p.exchange.idle());
  ASSERT_EQ(p.driver.statuses.size(), 1u);
  EXPECT_EQ(p.driver.statuses[0], 200);
  EXPECT_EQ(p.driver.done_ns[0], p.clock.now);
  const WorkerResult& r = p.recorder.result();
  EXPECT_EQ(r.counters.responses, 1u);
  EXPECT_EQ(r.counters.status_counts[200], 1u);
  const stats::NameRecord* named = const_cast<WorkerResult&>(r).names.find(0);
  ASSERT_NE(named, nullptr);
  ASSERT_NE(named->latency, nullptr);
  EXPECT_EQ(named->latency->total_count(), 1);
  EXPECT_GE(named->latency->max(), 7 * kNsPerMs - kNsPerMs / 1000);  // from the due time, not the send
  EXPECT_EQ(c->slots[0].free_ns, kAtSend);  // the next request's clock starts when it is sent
}

TEST(ExchangePart, AWarmUpRequestIsAnsweredButNotRecorded) {
  ExchangeParts p;
  p.run.shared.record_from_ns = monotonic_now_ns() + 60 * kNsPerS;
  auto c = open_connection(&p.exchange);
  TimeNs t_sched = kAtSend;
  ASSERT_TRUE(send_from(p.source, p.exchange, *c, t_sched));
  c->on_response(0, 500);
  const WorkerResult& r = p.recorder.result();
  EXPECT_EQ(r.counters.requests_sent, 0u);
  EXPECT_EQ(r.counters.responses, 0u);
  EXPECT_EQ(r.counters.errors.status, 0u);
  EXPECT_EQ(r.counters.warmup_responses, 1u);
  EXPECT_EQ(p.driver.statuses.size(), 1u);  // the driver still hears of it (the next request)
}

TEST(ExchangePart, ARequestPastTheTimeoutIsCountedCensoredAndItsConnectionReopens) {
  ExchangeParts p;
  auto c = open_connection(&p.exchange, 2);
  TimeNs t1 = kAtSend, t2 = kAtSend;
  ASSERT_TRUE(send_from(p.source, p.exchange, *c, t1));
  ASSERT_TRUE(send_from(p.source, p.exchange, *c, t2));
  p.clock.now = c->slots[0].t_send + p.run.config.timeout_ns;
  const std::optional<Exchange::Expired> expired = p.exchange.expire_next();
  // HTTP/1.1 cancels by closing: the request behind it goes too, both timeouts.
  EXPECT_TRUE(p.exchange.idle());
  EXPECT_EQ(p.recorder.result().counters.errors.timeout, 2u);
  EXPECT_EQ(p.recorder.result().latency_censored.total_count(), 2);
  ASSERT_TRUE(expired.has_value());
  EXPECT_EQ(expired->connection, c.get());
  EXPECT_TRUE(expired->reopen);
  EXPECT_EQ(p.driver.errors.size(), 2u);
  EXPECT_FALSE(p.exchange.expire_next().has_value());  // nothing else is due
}

TEST(ExchangePart, AStreamCancelledOnATimeoutLeavesItsConnectionReadyToSendAgain) {
  ExchangeParts p;
  auto c = open_connection(&p.exchange);
  session_of(*c).cancel_keeps_connection = true;  // HTTP/2: RST_STREAM
  TimeNs t = kAtSend;
  ASSERT_TRUE(send_from(p.source, p.exchange, *c, t));
  p.clock.now = c->slots[0].t_send + p.run.config.timeout_ns;
  const std::optional<Exchange::Expired> expired = p.exchange.expire_next();
  EXPECT_EQ(p.recorder.result().counters.errors.timeout, 1u);
  ASSERT_TRUE(expired.has_value());
  EXPECT_FALSE(expired->reopen);
  EXPECT_EQ(p.exchange.free_capacity(*c), 1u);
}

TEST(ExchangePart, AGoawayRefusedRequestGoesBackToTheDriverUncountedWithItsDueTime) {
  ExchangeParts p;
  auto c = open_connection(&p.exchange);
  c->exchanged.answered = 1;  // the connection served requests before its GOAWAY
  TimeNs t_sched = monotonic_now_ns() - kNsPerMs;
  const TimeNs due = t_sched;
  ASSERT_TRUE(send_from(p.source, p.exchange, *c, t_sched));
  c->on_request_failed(0, proto::RequestFailure::kRefused);
  ASSERT_EQ(p.driver.put_back_t_sched.size(), 1u);
  EXPECT_EQ(p.driver.put_back_t_sched[0], due);
  EXPECT_TRUE(p.exchange.idle());
  EXPECT_EQ(p.recorder.result().counters.requests_sent, 0u);  // counted again when it is sent again
  EXPECT_EQ(p.recorder.result().counters.errors.goaway, 0u);
}

TEST(ExchangePart, AGoawayRefusedRequestADriverCannotResendIsAGoawayError) {
  ExchangeParts p;
  p.driver.accepts_put_back = false;
  auto c = open_connection(&p.exchange);
  c->exchanged.answered = 1;
  TimeNs t = kAtSend;
  ASSERT_TRUE(send_from(p.source, p.exchange, *c, t));
  c->on_request_failed(0, proto::RequestFailure::kRefused);
  EXPECT_TRUE(p.exchange.idle());
  EXPECT_EQ(p.recorder.result().counters.requests_sent, 1u);
  EXPECT_EQ(p.recorder.result().counters.errors.goaway, 1u);
  ASSERT_EQ(p.driver.errors.size(), 1u);
  EXPECT_EQ(p.driver.errors[0], &stats::ErrorCounts::goaway);
}

TEST(ExchangePart, AFailedConnectionCountsEachRequestInFlightOnceAndReopens) {
  ExchangeParts p;
  auto c = open_connection(&p.exchange, 3);
  for (int i = 0; i < 3; ++i) {
    TimeNs t = kAtSend;
    ASSERT_TRUE(send_from(p.source, p.exchange, *c, t));
  }
  p.exchange.fail_connection(*c, &stats::ErrorCounts::read);
  EXPECT_TRUE(p.exchange.idle());
  EXPECT_EQ(p.recorder.result().counters.errors.read, 3u);
  EXPECT_EQ(c->in_flight_count(), 0u);
  EXPECT_EQ(c->state, Connection::State::kOpen);  // the caller reopens it
}

// Issue 45 (1): the exchange holds nothing that closes or reopens a connection.
// Timeouts on two connections come back one at a time, each while the other's
// request is still in flight and untouched, so the caller's reopen (which
// abandons the connection's slots) runs between the exchange's passes.
TEST(ExchangePart, TimeoutsComeBackOneConnectionAtATimeForTheCallerToReopen) {
  ExchangeParts p;
  auto a = open_connection(&p.exchange);
  auto b = open_connection(&p.exchange);
  TimeNs ta = kAtSend, tb = kAtSend;
  ASSERT_TRUE(send_from(p.source, p.exchange, *a, ta));
  ASSERT_TRUE(send_from(p.source, p.exchange, *b, tb));
  p.clock.now = b->slots[0].t_send + p.run.config.timeout_ns;
  const std::optional<Exchange::Expired> first = p.exchange.expire_next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->connection, a.get());
  EXPECT_TRUE(b->slots[0].in_use);  // not yet: the caller acts on `a` first
  EXPECT_EQ(p.exchange.in_flight(), 1u);
  p.exchange.abandon(*a);  // the caller's reopen, between the passes
  const std::optional<Exchange::Expired> second = p.exchange.expire_next();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->connection, b.get());
  EXPECT_EQ(p.recorder.result().counters.errors.timeout, 2u);
  EXPECT_FALSE(p.exchange.expire_next().has_value());
}

TEST(ExchangePart, APeersCloseCountsItsRequestAndLeavesTheReopenToTheCaller) {
  ExchangeParts p;
  auto c = open_connection(&p.exchange);
  TimeNs t = kAtSend;
  ASSERT_TRUE(send_from(p.source, p.exchange, *c, t));  // a new connection: not sent again
  p.exchange.peer_closed(*c);
  EXPECT_TRUE(p.exchange.idle());
  EXPECT_EQ(p.recorder.result().counters.errors.read, 1u);
  EXPECT_EQ(c->state, Connection::State::kOpen);  // still the caller's to reopen
  ASSERT_EQ(p.driver.errors.size(), 1u);
}

TEST(ExchangePart, KeepAliveOffTakesOneRequestPerConnection) {
  ExchangeParts p;
  p.run.config.keep_alive = false;
  p.run.plan();
  Exchange exchange(p.run.shared, p.clock, p.recorder);
  exchange.prepare(p.driver, 8);
  auto c = open_connection(&exchange, 2);
  EXPECT_EQ(exchange.free_capacity(*c), 2u);
  TimeNs t = kAtSend;
  ASSERT_TRUE(send_from(p.source, exchange, *c, t));
  EXPECT_TRUE(exchange.takes_no_more(*c));
  EXPECT_EQ(exchange.free_capacity(*c), 0u);
}

}  // namespace
}  // namespace pacer::engine
