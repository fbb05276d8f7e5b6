// The recorder on its own: what it records before and after the warm-up, under
// which name, and the intervals it publishes with the gauges it is handed.
#include "engine/record/recorder.h"

#include <gtest/gtest.h>

#include "net/tls_stream.h"
#include "part_fakes.h"

namespace pacer::engine {
namespace {

using testing::PartRun;

TEST(RecorderPart, NothingScheduledBeforeTheWarmUpEndsIsRecorded) {
  PartRun run(/*record_from_ns=*/1000);
  Recorder r(run.shared);
  r.prepare();
  r.sent(0, 1, 999, 999, false);
  r.response(0, 200, 999, 999, 0, 1500, false);
  r.failed(0, 999, &stats::ErrorCounts::timeout);
  EXPECT_EQ(r.result().counters.requests_sent, 0u);
  EXPECT_EQ(r.result().counters.responses, 0u);
  EXPECT_EQ(r.result().counters.warmup_responses, 1u);
  EXPECT_EQ(r.result().counters.errors.timeout, 0u);
  r.sent(0, 1, 1000, 1100, false);
  r.response(0, 404, 1000, 1100, 1200, 1600, false);
  EXPECT_EQ(r.result().counters.requests_sent, 1u);
  EXPECT_EQ(r.result().counters.responses, 1u);
  EXPECT_EQ(r.result().counters.errors.status, 1u);
  EXPECT_EQ(r.result().counters.status_counts[404], 1u);
  stats::NameRecord* named = r.result().names.find(0);
  ASSERT_NE(named, nullptr);
  EXPECT_EQ(named->counts.responses, 1u);
  EXPECT_EQ(named->counts.errors.status, 1u);
  EXPECT_EQ(named->latency->max(), 600);  // from the due time
  EXPECT_EQ(named->ttfb->max(), 100);     // from the send to the first byte
}

TEST(RecorderPart, TheOpenModelKeepsQueueDelayAndServiceTimeApart) {
  PartRun run;
  Recorder r(run.shared);
  r.prepare();
  r.sent(0, 1, 1000, 1300, true);
  r.response(0, 200, 1000, 1300, 0, 1700, true);
  EXPECT_EQ(r.result().queue_delay.max(), 300);
  EXPECT_EQ(r.result().service.max(), 400);
}

TEST(RecorderPart, ArrivalsNeverSentAreCensoredUnderNoName) {
  PartRun run;
  Recorder r(run.shared);
  r.prepare();
  r.count(&stats::ErrorCounts::unsent, 5000, 3);
  r.censored(kUnsent, 2000, 3);
  EXPECT_EQ(r.result().counters.errors.unsent, 3u);
  EXPECT_EQ(r.result().unsent_latency.total_count(), 3);
  EXPECT_EQ(r.result().latency_censored.total_count(), 3);
  EXPECT_EQ(r.result().names.find(0)->latency->total_count(), 0);  // no name recorded anything
}

TEST(RecorderPart, TheFirstErrorIsKeptAndLaterOnesAreNot) {
  PartRun run;
  Recorder r(run.shared);
  r.prepare();
  EXPECT_FALSE(r.connections().has_first_error());
  r.connections().note_error(ECONNREFUSED, "connect");
  r.connections().note_error(0, "later");
  EXPECT_EQ(r.result().first_error, "connect: Connection refused");
  net::TlsStream tls;
  r.connections().note_tls_failure(7, "first", tls);
  r.connections().note_tls_failure(9, "second", tls);
  EXPECT_STREQ(r.result().tls_first_error.data(), "first");
  EXPECT_EQ(r.result().tls_first_error_ns, 7);
}

TEST(RecorderPart, EachIntervalHoldsItsOwnCountsAndTheGaugesItClosedWith) {
  PartRun run;
  run.shared.interval_ns = 1000;
  Recorder r(run.shared);
  r.prepare();
  r.start(0);
  r.sent(0, 1, 10, 10, false);
  r.response(0, 200, 10, 10, 0, 20, false);
  IntervalGauges g;
  g.open_connections = 3;
  g.in_flight = 2;
  int reads = 0;
  r.intervals().close(999, false, [&] { ++reads; return g; });
  EXPECT_EQ(reads, 0);  // not due: the gauges are not even read
  r.intervals().close(1000, false, [&] { ++reads; return g; });
  EXPECT_EQ(reads, 1);
  r.sent(0, 1, 1010, 1010, false);
  r.failed(0, 1010, &stats::ErrorCounts::read);
  r.intervals().close(1500, true, [&] { return IntervalGauges{}; });
  IntervalRing& ring = *r.intervals().ring();
  ASSERT_EQ(ring.published(), 2u);
  EXPECT_EQ(ring.slot(0).sent, 1u);
  EXPECT_EQ(ring.slot(0).completed, 1u);
  EXPECT_EQ(ring.slot(0).open_connections, 3u);
  EXPECT_EQ(ring.slot(0).in_flight, 2u);
  ASSERT_NE(ring.slot(0).latency_by_name.find(0), nullptr);
  EXPECT_EQ(ring.slot(0).latency_by_name.find(0)->total_count(), 1);  // the interval's latency, under its name
  EXPECT_EQ(ring.slot(0).end_ns, 1000);
  EXPECT_EQ(ring.slot(1).sent, 1u);
  EXPECT_EQ(ring.slot(1).completed, 0u);
  EXPECT_EQ(ring.slot(1).errors.read, 1u);
  EXPECT_EQ(ring.slot(1).end_ns, 1500);  // the final, partial interval
}

TEST(RecorderPart, ASendIsTheDrainsFromTheCutOnNotFromItsClock) {
  // A send whose clock passed -d's end before the wake-up that cuts the interval
  // belongs to the run's last interval, and counts in the run; from the cut on,
  // what is sent is the drain's, in its record and in sent_while_draining alike.
  PartRun run(/*record_from_ns=*/0, /*end_ns=*/1000);
  run.shared.interval_ns = 600;
  Recorder r(run.shared);
  r.prepare();
  r.start(0);
  r.intervals().close(995, false, [] { return IntervalGauges{}; });  // a wake-up before the end
  r.sent(0, 1, 990, 1005, true);  // its clock read past the end, in that wake-up
  r.cut_interval(1000, 1010, [] { return IntervalGauges{}; });
  r.sent(0, 2, 995, 1010, true);  // due before the end, sent in the drain
  r.intervals().close(1500, true, [] { return IntervalGauges{}; });
  IntervalRing& ring = *r.intervals().ring();
  ASSERT_EQ(ring.published(), 3u);  // [0, 600), [600, 1000), the drain
  EXPECT_EQ(ring.slot(1).sent, 1u);
  EXPECT_EQ(ring.slot(1).end_ns, 1000);
  EXPECT_EQ(ring.slot(2).sent, 2u);
  EXPECT_EQ(r.result().sent_while_draining, 2u);
}

TEST(RecorderPart, AResponseMarkedASuccessIsNoStatusErrorInTheRunItsNameOrItsInterval) {
  PartRun run;
  run.shared.interval_ns = 1000;
  Recorder r(run.shared);
  r.prepare();
  r.start(0);
  r.response(0, 404, 10, 10, 0, 20, false);
  r.response(0, 404, 30, 30, 0, 40, false);
  r.succeeded(0, 404, 10);  // u:success() on the first
  EXPECT_EQ(r.result().counters.errors.status, 1u);
  EXPECT_EQ(r.result().counters.status_counts[404], 2u);  // its status is still counted
  EXPECT_EQ(r.result().names.find(0)->counts.errors.status, 1u);
  EXPECT_EQ(r.result().names.find(0)->counts.non_2xx_3xx, 2u);
  EXPECT_EQ(r.result().names.find(0)->counts.status_errors.total(), 1u);  // by code: the 404 that stayed an error
  r.intervals().close(1000, false, [] { return IntervalGauges{}; });
  // The second's mark comes after its interval closed: that interval keeps the
  // error, the next one does not go below zero, and the run's total loses it.
  r.succeeded(0, 404, 30);
  r.succeeded(0, 404, 30);  // nothing left to take: no wrap-around
  r.intervals().close(1500, true, [] { return IntervalGauges{}; });
  IntervalRing& ring = *r.intervals().ring();
  EXPECT_EQ(ring.slot(0).errors.status, 1u);
  EXPECT_EQ(ring.slot(0).names[0].errors, 1u);
  EXPECT_EQ(ring.slot(1).errors.status, 0u);
  EXPECT_EQ(ring.slot(1).names[0].errors, 0u);
  EXPECT_EQ(r.result().counters.errors.status, 0u);
  EXPECT_EQ(r.result().names.find(0)->counts.errors.status, 0u);
  EXPECT_EQ(r.result().names.find(0)->counts.status_errors.total(), 0u);
}

TEST(RecorderPart, AWarmUpResponseMarkedASuccessChangesNothing) {
  PartRun run(/*record_from_ns=*/1000);
  Recorder r(run.shared);
  r.prepare();
  r.response(0, 500, 1000, 1000, 0, 1100, false);
  r.succeeded(0, 500, 999);  // scheduled in the warm-up: never counted, so nothing to take back
  EXPECT_EQ(r.result().counters.errors.status, 1u);
}

}  // namespace
}  // namespace pacer::engine
