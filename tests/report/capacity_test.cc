// What capped an open-model run (src/report/capacity.h): the Little's-law
// arithmetic, when it is shown, and the report's words on `unsent` arrivals
// (a golden text report of a run with too few connections).
#include "report/capacity.h"

#include <gtest/gtest.h>

#include <sstream>

#include "../support/golden.h"
#include "report/text.h"

namespace pacer::report {
namespace {

using pacer::testing::expect_matches_golden;

// pacer -t1 -c10 -R 1000 -d3s against /delay/50: 10 connections carry ~200/s.
RunReport too_few_connections() {
  RunReport r;
  r.url = "http://127.0.0.1:8080/delay/50";
  r.threads = 1;
  r.connections = 10;
  r.duration_ns = 3 * kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.load_model = LoadModel::kConstant;
  r.rate_per_s = 1000;
  r.target_rate_per_s = 1000;
  r.measured_ns = 5 * kNsPerS;
  stats::Counters& c = r.counters;
  c.scheduled = 3000;
  c.requests_sent = 990;
  c.responses = 990;
  c.connects = 10;
  c.peak_backlog = 2005;
  c.status_counts[200] = 990;
  c.bytes_read = 66'000;
  c.errors.unsent = 2010;
  r.service.record_n(50'200'000, 990);
  for (int i = 0; i < 990; ++i) r.latency.record(50'000'000 + i * 2'000'000);
  r.latency.record_n(2'000'100'000, 2010);
  r.latency_censored.record_n(2'000'100'000, 2010);
  for (int i = 0; i < 990; ++i) r.queue_delay.record(i * 2'000'000);
  for (int i = 0; i < 10; ++i) r.connect.record(170'000);
  for (int i = 0; i < 30; ++i) r.rate_samples.record(200);
  return r;
}

// A wrapped paragraph as one line: the words, whatever the line breaks.
std::string unwrapped(const std::string& paragraph) {
  std::string out;
  for (std::size_t i = 0; i < paragraph.size(); ++i) {
    if (paragraph[i] != '\n') {
      out += paragraph[i];
      continue;
    }
    while (i + 1 < paragraph.size() && paragraph[i + 1] == ' ') ++i;
    out += ' ';
  }
  return out;
}

TEST(Capacity, LittlesLawGivesTheRateTheConnectionsCarryAndTheConnectionsTheTargetNeeds) {
  const auto c = capacity_for(10, 1, false, 50.2e6, 1000);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->rate_per_s, 199.2, 0.1);  // 10 / 50.2 ms
  EXPECT_EQ(c->connections_needed, 51u);   // 1000/s x 50.2 ms = 50.2 in flight
  EXPECT_TRUE(c->is_bottleneck());
}

TEST(Capacity, StreamsAndPipelinedRequestsAreSlotsToo) {
  const auto c = capacity_for(10, 10, true, 50e6, 5000);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->rate_per_s, 2000, 0.01);   // 100 slots / 50 ms
  EXPECT_EQ(c->connections_needed, 25u);    // 250 slots at 10 streams each
  EXPECT_EQ(capacity_phrase(*c, false), "10 conns x 10 streams / 50.00ms ~ 2.00k/s < target 5.00k/s: raise -c to ~25");
}

TEST(Capacity, NothingToSayWithoutAServiceTimeOrATarget) {
  EXPECT_FALSE(capacity_for(10, 1, false, 0, 1000));
  EXPECT_FALSE(capacity_for(10, 1, false, 50e6, 0));
  EXPECT_FALSE(capacity_for(0, 1, false, 50e6, 1000));
}

TEST(Capacity, AnIntervalShowsTheBottleneckOnlyWhenArrivalsWaitAndTheConnectionsCannotCarryTheTarget) {
  IntervalReport in;
  in.duration_ns = kNsPerS;
  in.target_rate_per_s = 1000.0;
  in.completed = 200;
  in.service_ns_sum = 200 * 50'000'000LL;  // 50 ms each
  in.backlog = 800;
  const auto c = interval_bottleneck(in, 10, 1, false);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->rate_per_s, 200, 0.01);
  EXPECT_EQ(capacity_phrase(*c, true), "10 conns / 50.00ms \u2248 200/s < target 1.00k/s: raise -c to ~50");

  IntervalReport keeping_up = in;
  keeping_up.backlog = 0;  // nothing waits: whatever the arithmetic, nothing is capped
  EXPECT_FALSE(interval_bottleneck(keeping_up, 10, 1, false));
  keeping_up.errors.unsent = 3;  // ...unless arrivals were given up
  EXPECT_TRUE(interval_bottleneck(keeping_up, 10, 1, false));

  IntervalReport enough = in;
  enough.service_ns_sum = 200 * 5'000'000LL;  // 5 ms: 10 connections carry 2000/s
  EXPECT_FALSE(interval_bottleneck(enough, 10, 1, false));

  IntervalReport closed = in;
  closed.target_rate_per_s.reset();
  EXPECT_FALSE(interval_bottleneck(closed, 10, 1, false));

  IntervalReport stalled = in;
  stalled.completed = 0;  // no response: no service time to go by
  EXPECT_FALSE(interval_bottleneck(stalled, 10, 1, false));
}

TEST(Capacity, TooFewConnectionsReportUnsentNotTimeoutsAndTheArithmetic) {
  const std::string text = render_text(too_few_connections());
  EXPECT_NE(text.find("timeout 0,"), std::string::npos) << text;
  EXPECT_NE(text.find("unsent 2010\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("Timeouts:"), std::string::npos) << text;
  EXPECT_NE(text.find("Unsent:       2010 requests waited in pacer's backlog longer than 2.00s"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Bottleneck:   the connections. By Little's law, 10 connections / 50."), std::string::npos)
      << text;
  const std::string words = unwrapped(text);
  EXPECT_NE(words.find("about 199 requests/s could be sent"), std::string::npos) << text;
  EXPECT_NE(words.find("the target was 1000/s: raise -c to at least ~51."), std::string::npos) << text;
  expect_matches_golden(text, "text_unsent_bottleneck.txt");
}

// The closed loop's unsent requests are what its drain owed (refused unprocessed
// after -d's end) and could not send again: the text lists the class, and says
// that, not a backlog nor a connection shortfall.
TEST(Capacity, AClosedLoopsUnsentRequestsAreTheDrainsNotABacklog) {
  RunReport r;
  r.url = "http://127.0.0.1:8080/";
  r.threads = 1;
  r.connections = 2;
  r.duration_ns = kNsPerS;
  r.timeout_ns = 2 * kNsPerS;
  r.load_model = LoadModel::kClosed;
  r.measured_ns = 3 * kNsPerS;
  r.counters.requests_sent = 100;
  r.counters.responses = 100;
  r.counters.status_counts[200] = 100;
  r.counters.connects = 2;
  r.counters.errors.unsent = 3;
  for (int i = 0; i < 100; ++i) r.latency.record(1'000'000);
  r.latency.record_n(2'000'100'000, 3);
  r.latency_censored.record_n(2'000'100'000, 3);
  const std::string text = render_text(r);
  EXPECT_NE(text.find("unsent 3"), std::string::npos) << text;
  const std::string words = unwrapped(text);
  EXPECT_NE(words.find("3 requests the server did not process after -d's end"), std::string::npos) << text;
  EXPECT_NE(words.find("could not be sent again within 2.00s (--timeout)"), std::string::npos) << text;
  EXPECT_EQ(text.find("backlog"), std::string::npos) << text;
  EXPECT_EQ(text.find("Bottleneck:"), std::string::npos) << text;
}

TEST(Capacity, TheReportsParagraphsFitIn80Columns) {
  RunReport r = too_few_connections();
  r.protocol = "h2";
  r.requests_per_connection = 100;
  r.connections = 1000;
  r.target_rate_per_s = 3'000'000;  // 100k slots at 50 ms carry 2M/s
  const auto c = run_shortfall(r);
  ASSERT_TRUE(c);
  std::istringstream lines(unsent_paragraph(r) + capacity_paragraph(*c));
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    EXPECT_LE(line.size(), 80u) << line;
    ++count;
  }
  EXPECT_GE(count, 4);
  const std::string words = unwrapped(capacity_paragraph(*c));
  EXPECT_NE(words.find("1000 connections x 100 streams /"), std::string::npos) << words;
  EXPECT_NE(words.find("the target was 3000000/s: raise -c to at least ~1506 (or --streams)."), std::string::npos)
      << words;
}

TEST(Capacity, ARunBehindForAnotherReasonSaysItWasNotTheConnections) {
  RunReport r = too_few_connections();
  r.service.reset();
  r.service.record_n(1'000'000, 990);  // 1 ms: 10 connections carry 10000/s
  const auto c = run_shortfall(r);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->is_bottleneck());
  EXPECT_NE(capacity_paragraph(*c).find("Bottleneck:   not the connections"), std::string::npos);
}

TEST(Capacity, ARunOnScheduleOrClosedHasNoBottleneckLine) {
  RunReport on_time = too_few_connections();
  on_time.counters.errors.unsent = 0;
  on_time.counters.requests_sent = 2990;
  on_time.measured_ns = 3 * kNsPerS;  // 2990 sent in 3 s: 99.7% of the target
  EXPECT_FALSE(run_shortfall(on_time));
  RunReport closed = too_few_connections();
  closed.load_model = LoadModel::kClosed;
  EXPECT_FALSE(run_shortfall(closed));
  EXPECT_EQ(render_text(closed).find("Bottleneck:"), std::string::npos);
}

}  // namespace
}  // namespace pacer::report
