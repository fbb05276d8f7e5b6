// The connection pool on its own: a fake I/O engine that never connects unless
// told, a plain-TCP transport, and recording pool events. No network traffic
// (the sockets are opened, never connected).
#include "engine/conn/pool.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include "engine/exchange/exchange.h"
#include "net/address.h"
#include "part_fakes.h"

namespace pacer::engine {
namespace {

// The pool over a plain-TCP transport and a fake engine, routed as the worker routes it.
using PoolParts = testing::PoolRig;

TEST(PoolPart, AConnectionTheDriverDoesNotWantStaysClosedWithoutASocket) {
  PoolParts p;
  p.wanted = false;
  p.pool.start(p.clock.now, ConnectionPool::Opening::kEach);
  EXPECT_EQ(p.pool.at(0).state, Connection::State::kClosed);
  EXPECT_EQ(p.engine.attached, 0);
}

TEST(PoolPart, AConnectionUpAtOnceOpensIsCountedAndClosesUncounted) {
  PoolParts p;
  p.engine.connect_result = 0;
  p.pool.start(p.clock.now, ConnectionPool::Opening::kEach);
  Connection& c = p.pool.at(0);
  EXPECT_EQ(c.state, Connection::State::kOpen);
  EXPECT_EQ(p.pool.open_count(), 1);
  EXPECT_EQ(p.opened_count, 1);
  EXPECT_EQ(p.recorder.result().counters.connects, 1u);
  p.pool.close(c);
  EXPECT_EQ(c.state, Connection::State::kClosed);
  EXPECT_EQ(p.pool.open_count(), 0);
  EXPECT_EQ(p.closing_count, 1);
  EXPECT_EQ(p.recorder.result().counters.errors.connect, 0u);
}

TEST(PoolPart, AConnectNotDoneWithinTheTimeoutIsAConnectErrorAndRetriesAfterABackoff) {
  PoolParts p;
  p.pool.start(p.clock.now, ConnectionPool::Opening::kEach);
  Connection& c = p.pool.at(0);
  ASSERT_EQ(c.state, Connection::State::kConnecting);
  EXPECT_EQ(p.pool.next_due_ns(), c.connect_start_ns + p.run.config.timeout_ns);
  p.clock.now = c.connect_start_ns + p.run.config.timeout_ns - 1;
  p.pool.expire_connects();
  EXPECT_EQ(c.state, Connection::State::kConnecting);  // not yet
  p.clock.now += 1;
  p.pool.expire_connects();
  EXPECT_EQ(c.state, Connection::State::kBackoff);
  EXPECT_EQ(p.recorder.result().counters.errors.connect, 1u);
  EXPECT_NE(p.recorder.result().first_error.find("timed out"), std::string::npos);
  EXPECT_EQ(c.reconnect_at_ns - p.clock.now, 10 * kNsPerMs);
  p.clock.now = c.reconnect_at_ns;
  p.pool.run_reconnects();
  EXPECT_EQ(c.state, Connection::State::kConnecting);
  EXPECT_EQ(p.engine.attached, 2);
}

TEST(PoolPart, TheBackoffDoublesWithEachRefusalUpToOneSecond) {
  PoolParts p;
  p.engine.connect_result = ECONNREFUSED;
  p.pool.start(p.clock.now, ConnectionPool::Opening::kEach);
  Connection& c = p.pool.at(0);
  std::vector<TimeNs> waits;
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(c.state, Connection::State::kBackoff);
    waits.push_back(c.reconnect_at_ns - p.clock.now);
    p.clock.now = c.reconnect_at_ns;
    p.pool.run_reconnects();
  }
  EXPECT_EQ(waits[0], 10 * kNsPerMs);
  EXPECT_EQ(waits[1], 20 * kNsPerMs);
  EXPECT_EQ(waits[2], 40 * kNsPerMs);
  EXPECT_EQ(waits[9], kNsPerS);
  EXPECT_EQ(p.recorder.result().counters.errors.connect, 11u);  // the first connect and ten retries
}

TEST(PoolPart, TheStartUpProbesSocketIsTheFirstConnectionOpened) {
  PoolParts p(2);
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, pair), 0);
  UniqueFd other(pair[1]);
  p.pool.adopt(UniqueFd(pair[0]), 3 * kNsPerMs, {}, 0);
  p.pool.start(p.clock.now, ConnectionPool::Opening::kEach);
  EXPECT_EQ(p.pool.at(0).state, Connection::State::kOpen);        // the probe's socket
  EXPECT_EQ(p.pool.at(1).state, Connection::State::kConnecting);  // a connect of its own
  EXPECT_EQ(p.recorder.result().counters.connects, 1u);
  EXPECT_NEAR(static_cast<double>(p.recorder.result().connect.max()), 3e6, 3e3);  // the probe's connect time
  p.pool.close(p.pool.at(0));
}

TEST(PoolPart, ANotWantedConnectionIsNotAskedAgainWhenItsBackoffEnds) {
  PoolParts p;
  p.engine.connect_result = ECONNREFUSED;
  p.pool.start(p.clock.now, ConnectionPool::Opening::kEach);
  Connection& c = p.pool.at(0);
  p.wanted = false;  // the drain began
  p.clock.now = c.reconnect_at_ns;
  p.pool.run_reconnects();
  EXPECT_EQ(c.state, Connection::State::kClosed);
  EXPECT_EQ(p.pool.next_due_ns(), kNeverNs);
}

TEST(PoolPart, TogetherTheConnectionsSendOnlyOnceEveryFirstConnectHasFinished) {
  PoolParts p(3);
  p.pool.start(p.clock.now, ConnectionPool::Opening::kTogether);
  p.pool.on_connected(p.pool.at(0), 0);
  p.pool.on_connected(p.pool.at(2), 0);
  EXPECT_EQ(p.pool.open_count(), 2);
  EXPECT_EQ(p.opened_count, 0);  // held: connection 1 is still connecting
  p.pool.on_connected(p.pool.at(1), ECONNREFUSED);  // its first connect finished, failing
  EXPECT_EQ(p.opened_count, 2);
  EXPECT_EQ(p.pool.at(1).state, Connection::State::kBackoff);
  // Past the hold, a connection sends as soon as it opens.
  p.clock.now = p.pool.at(1).reconnect_at_ns;
  p.pool.run_reconnects();
  p.pool.on_connected(p.pool.at(1), 0);
  EXPECT_EQ(p.opened_count, 3);
}

TEST(PoolPart, TheHoldEndsAfterOneAndAHalfSecondsWhateverIsStillConnecting) {
  PoolParts p(2);
  p.run.config.timeout_ns = 10 * kNsPerS;  // the connect outlasts the hold
  p.run.plan();
  const TimeNs start = p.clock.now;
  p.pool.start(start, ConnectionPool::Opening::kTogether);
  p.pool.on_connected(p.pool.at(0), 0);
  EXPECT_EQ(p.pool.next_due_ns(), start + StartGate::kMaxHoldNs);  // the worker wakes for it
  p.clock.now = start + StartGate::kMaxHoldNs - 1;
  p.pool.expire_connects();
  EXPECT_EQ(p.opened_count, 0);
  p.clock.now += 1;
  p.pool.expire_connects();
  EXPECT_EQ(p.opened_count, 1);
  EXPECT_EQ(p.pool.next_due_ns(), start + 10 * kNsPerS);  // now only the connect's timeout
  p.pool.on_connected(p.pool.at(1), 0);
  EXPECT_EQ(p.opened_count, 2);
}

TEST(PoolPart, AConnectionThatClosesWhileHeldIsNotOpenedByTheRelease) {
  PoolParts p(2);
  p.pool.start(p.clock.now, ConnectionPool::Opening::kTogether);
  Connection& first = p.pool.at(0);
  p.pool.on_connected(first, 0);
  p.pool.close(first);  // e.g. the server closed it before the start
  p.pool.on_connected(p.pool.at(1), 0);
  EXPECT_EQ(p.opened_count, 1);
  EXPECT_EQ(first.state, Connection::State::kClosed);
}

TEST(StartGate, AConnectStalledFourProbeConnectsIsDialledAgainAfterTwiceAsLongEachTime) {
  StartGate gate;
  gate.arm(2, 0, 10 * kNsPerMs);  // the probe connected in 10 ms: a stall is 40 ms
  EXPECT_EQ(gate.stall_ns(), 40 * kNsPerMs);
  EXPECT_FALSE(gate.redial_due(0, 40 * kNsPerMs - 1));
  EXPECT_TRUE(gate.redial_due(0, 40 * kNsPerMs));
  gate.redialled(0, 40 * kNsPerMs);
  EXPECT_FALSE(gate.redial_due(0, 120 * kNsPerMs - 1));  // now 80 ms
  EXPECT_TRUE(gate.redial_due(0, 120 * kNsPerMs));
  EXPECT_TRUE(gate.redial_due(1, 120 * kNsPerMs));  // each connection its own
  (void)gate.release();
  EXPECT_EQ(gate.stall_ns(), kNeverNs);  // only while holding
  EXPECT_FALSE(gate.redial_due(1, kNsPerS));
}

TEST(StartGate, AFastProbeStillGivesAConnectTwentyMilliseconds) {
  StartGate gate;
  gate.arm(1, 0, 50'000);
  EXPECT_EQ(gate.stall_ns(), StartGate::kMinStallNs);
}

TEST(StartGate, WithoutAProbeNoConnectIsJudgedStalled) {
  StartGate gate;
  gate.arm(1, 0, -1);
  EXPECT_TRUE(gate.holding());
  EXPECT_FALSE(gate.redial_due(0, StartGate::kMaxHoldNs));
}

TEST(StartGate, AWorkerWhoseConnectsFinishedWaitsForTheOtherWorkersThenAllStart) {
  StartBarrier barrier(3);
  StartGate first;
  StartGate second;
  StartGate empty;
  first.arm(1, 0, -1, &barrier);
  second.arm(1, 0, -1, &barrier);
  empty.arm(0, 0, -1, &barrier);  // a worker holding nothing arrives at once
  EXPECT_FALSE(empty.holding());
  first.connect_finished(0);
  EXPECT_FALSE(first.due(kNsPerMs));  // its own are done; the second worker's are not
  EXPECT_EQ(first.barrier_poll_ns(kNsPerMs), kNsPerMs + StartGate::kBarrierPollNs);  // it looks again
  EXPECT_EQ(second.barrier_poll_ns(kNsPerMs), kNeverNs);  // still connecting: its connects wake it
  second.connect_finished(0);
  EXPECT_TRUE(second.due(2 * kNsPerMs));
  EXPECT_TRUE(first.due(2 * kNsPerMs));
  EXPECT_EQ(first.barrier_poll_ns(2 * kNsPerMs), kNeverNs);
}

TEST(StartGate, AWorkerReleasedByItsDeadlineNoLongerHoldsTheOthers) {
  StartBarrier barrier(2);
  StartGate first;
  StartGate late;
  first.arm(1, 0, -1, &barrier);
  late.arm(1, kNsPerMs, -1, &barrier);
  first.connect_finished(0);
  EXPECT_FALSE(first.due(StartGate::kMaxHoldNs - 1));
  // The poll never sleeps past the worker's own deadline.
  EXPECT_EQ(first.barrier_poll_ns(StartGate::kMaxHoldNs - 1), StartGate::kMaxHoldNs);
  EXPECT_TRUE(first.due(StartGate::kMaxHoldNs));  // its own deadline ends its hold
  EXPECT_TRUE(late.due(StartGate::kMaxHoldNs + kNsPerMs));
  EXPECT_FALSE(barrier.all_arrived());
  (void)late.release();  // its connect never finished: it arrives as it lets go
  EXPECT_TRUE(barrier.all_arrived());
}

TEST(PoolPart, EachConnectionSendsAsSoonAsItOpensInTheOpenModel) {
  PoolParts p(2);
  p.pool.start(p.clock.now, ConnectionPool::Opening::kEach);
  p.pool.on_connected(p.pool.at(0), 0);
  EXPECT_EQ(p.opened_count, 1);
  EXPECT_EQ(p.pool.next_due_ns(), p.pool.at(1).connect_start_ns + p.run.config.timeout_ns);  // no hold
}

}  // namespace
}  // namespace pacer::engine
